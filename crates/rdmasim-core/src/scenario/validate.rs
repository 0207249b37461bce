//! Parsing and semantic validation of scenarios.
use super::{Scenario, ScenarioError};

/// Parses a TOML scenario, rejecting unknown keys and wrong types, then checks values.
pub fn parse_toml(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::new(text);
    let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        let line = inner.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        ScenarioError { source: source.to_string(), key: if key == "." { String::new() } else { key }, line, message: inner.message().to_string() }
    })?;
    check(&scenario, source)?;
    Ok(scenario)
}

/// Semantic checks that types alone cannot express.
pub fn check(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    let err = |key: &str, message: String| ScenarioError { source: source.to_string(), key: key.to_string(), line: None, message };
    if crate::hca::profile::by_name(&s.hardware.profile).is_none() {
        return Err(err("hardware.profile", format!("unknown profile {:?}, expected one of {}", s.hardware.profile, crate::hca::profile::names().join(", "))));
    }
    Ok(())
}
