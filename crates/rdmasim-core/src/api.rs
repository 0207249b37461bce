//! The surface the Python binding and the CLI use: build a simulation from a scenario, step it
//! (so a caller can show progress), and collect its result tables and capture.
pub use crate::sim::{RunResult, Simulation};
use crate::scenario::{validate, Scenario, ScenarioError};

/// Parses and validates a TOML scenario without running it.
pub fn validate_toml(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    validate::parse_toml(text, source)
}

/// Every built-in profile parameter with its value and source, as JSON rows.
pub fn profiles_json() -> String {
    let rows: Vec<_> = crate::hca::profile::builtin().iter().flat_map(|(p, s)| p.table(s, &[])).collect();
    serde_json::to_string(&rows).unwrap_or_else(|_| "[]".into())
}
