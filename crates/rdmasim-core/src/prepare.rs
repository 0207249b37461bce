//! A scenario file made ready to run: read by its `engine` (a PM scenario by
//! `scenario::validate::parse_pm`), and for a fabric scenario the hosts it names by name or GUID
//! resolved, its fabric built or imported and routed (fabric/resolve.rs), its flow patterns
//! expanded on that fabric's hosts, and every check run, each error with the line of its key.
//! Above the fabric, which the scenario (plain data, scenario/) does not build itself.
use crate::fabric::host_names;
use crate::fabric::resolve::resolve_topology;
use crate::scenario::validate::{check_located, deserialize, engine_of, error_at, parse_pm, SpanIndex};
use crate::scenario::{EngineKind, Scenario, ScenarioError, ScenarioFile, WorkloadSection};

/// Parses and checks a scenario of any engine: the one place a scenario file's `engine` is read
/// to choose its sections (a PM scenario's are others, scenario/pm.rs).
pub fn parse(text: &str, source: &str) -> Result<ScenarioFile, ScenarioError> {
    if engine_of(text) == Some(EngineKind::Pm) {
        return parse_pm(text, source).map(|s| ScenarioFile::Pm(Box::new(s)));
    }
    parse_toml(text, source).map(|s| ScenarioFile::Fabric(Box::new(s)))
}

/// Parses a TOML fabric scenario (the packet and flow engines'), rejecting unknown keys and
/// wrong types, builds its fabric, then checks values.
pub fn parse_toml(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    let text = host_names::resolve(text, source).map_err(|e| error_at(source, SpanIndex::build(text).as_ref(), e))?;
    let text = text.as_ref();
    let mut scenario = deserialize(text, source)?;
    let spans = SpanIndex::build(text);
    resolve_topology(&mut scenario, source).map_err(|e| error_at(source, spans.as_ref(), e))?;
    if let WorkloadSection::Flows(f) = &mut scenario.workload {
        // The flows a pattern stands for, once the fabric's host count is known.
        crate::scenario::flow_pattern::expand(f, scenario.topology.hosts).map_err(|e| error_at(source, spans.as_ref(), e))?;
    }
    check_located(&scenario, source, spans.as_ref())?;
    Ok(scenario)
}

/// A scenario built in code (not read from text) made ready to run: its fabric built, then
/// every check run (errors carry no line: there is no text).
pub fn resolve(scenario: &mut Scenario, source: &str) -> Result<(), ScenarioError> {
    resolve_topology(scenario, source).map_err(|e| error_at(source, None, e))?;
    check_located(scenario, source, None)
}
