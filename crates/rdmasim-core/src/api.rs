//! The surface the Python binding and the CLI use: build a simulation from a scenario, step it
//! (so a caller can show progress), and collect its result tables and capture.
pub use crate::sim::{RunResult, Simulation};
use crate::scenario::{validate, Scenario, ScenarioError};
use crate::workload::perftest_settings::EffectivePerftest;

/// Parses and validates a TOML scenario without running it.
pub fn validate_toml(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    validate::parse_toml(text, source)
}

/// Every built-in profile parameter with its value and source, as JSON rows.
pub fn profiles_json() -> String {
    let rows: Vec<_> = crate::hca::profile::builtin().iter().flat_map(|(p, s)| p.table(s, &[])).collect();
    serde_json::to_string(&rows).unwrap_or_else(|_| "[]".into())
}

/// The values a perftest scenario runs with, every perftest default and limit applied
/// ([`EffectivePerftest`]), as JSON. The Python CLI prints perftest's header from them before
/// the run starts, rather than repeating perftest's rules.
pub fn perftest_settings_json(text: &str, source: &str) -> Result<String, ScenarioError> {
    let scenario = validate::parse_toml(text, source)?;
    let effective = EffectivePerftest::of(&scenario).ok_or_else(|| ScenarioError {
        source: source.into(),
        key: "workload.kind".into(),
        line: None,
        message: "only a perftest workload has perftest settings; expected kind = \"perftest\"".into(),
    })?;
    Ok(serde_json::to_string(&effective).unwrap_or_default())
}
