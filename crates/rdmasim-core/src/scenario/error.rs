//! Scenario errors: always name the source (file), the key path, and what was expected.
use std::fmt;

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
