//! Scenario errors: always name the source (file), the key path, and what was expected.
//!
//! Displayed as `<source>[:<line>][: key `<key path>`]: <message>`, e.g.
//!
//! ```text
//! scenarios/x.toml:7: key `qp.retry_cnt`: retry_cnt = 8 is out of range; expected 0..=7 (a 3-bit field)
//! scenarios/x.toml:3: key `sed`: unknown key `sed` at the top level (did you mean `seed`?); allowed keys: name, seed, ...
//! scenarios/x.toml: key `workload`: missing required table [workload]; expected a table with ...
//! ```
//!
//! The Python package builds the same text (`python/rdmasim/errors.py`).
use std::fmt;

/// One problem with a scenario. Built by [`crate::scenario::validate`]; never a panic.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// The file (or "<string>") the scenario came from.
    pub source: String,
    /// Dotted key path, e.g. `qp.timeout` or `faults[1].loss_rate`; empty when not known.
    pub key: String,
    /// 1-based line in the source, when known.
    pub line: Option<usize>,
    /// What was wrong and what was expected.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.source)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if !self.key.is_empty() {
            write!(f, ": key `{}`", self.key)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}
