//! Parsing and semantic validation of scenarios.
//!
//! Every failure is a [`ScenarioError`] naming the source, the dotted key path
//! (`qp.timeout`, `faults[1].loss_rate`, `workload.size`), the 1-based line when the scenario
//! came from text, and a message saying what was found and what was expected. Nothing here
//! panics on any input.
//!
//! Parsing goes through `serde_path_to_error` over the `toml` deserializer, which gives the key
//! path and span of most errors; `parse_errors` rewrites the raw serde messages (with
//! `messages`) and patches its blind spots. Line numbers of semantic errors (`checks`,
//! `workload_checks`) come from a span index of the document (`spans`).
mod checks;
mod engine_checks;
mod links;
mod messages;
mod parse_errors;
mod problem;
mod pm;
mod spans;
mod workload_checks;

pub use checks::{check_limits, checked_time_parameters};
pub use links::{parse_link_selector, topology_links, Endpoint};
pub use messages::{expected_for, explain};
pub use parse_errors::{parse_error, ScenarioKind};
pub use pm::parse_pm;
pub use spans::SpanIndex;
pub use crate::scenario::limits::*;

use super::{EngineKind, Scenario, ScenarioError};

/// `e` with the line of its key in `text`, when it has none (an error found after parsing, by
/// code that no longer has the text: an engine building the scenario's world).
pub fn locate(mut e: ScenarioError, text: &str) -> ScenarioError {
    if e.line.is_none() {
        e.line = SpanIndex::build(text).as_ref().and_then(|sp| sp.line(&e.key));
    }
    e
}

/// The top-level `engine` a scenario's text names, when it parses as TOML and names a known
/// engine (otherwise the fabric scenario's parser reports what is wrong with it).
pub fn engine_of(text: &str) -> Option<EngineKind> {
    let table = toml::from_str::<toml::Table>(text).ok()?;
    table.get("engine")?.clone().try_into().ok()
}

/// Reads a fabric scenario's text (the packet and flow engines'), rejecting unknown keys and
/// wrong types with the key path and line. The full read, with the fabric built and every
/// check run, is `crate::prepare::parse_toml`.
pub fn deserialize(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    read(ScenarioKind::Verbs, text, source)
}

/// Reads a scenario's text as `T` (a fabric scenario, or PM's), an error naming the key path
/// and line with the words `kind`'s keys take (parse_errors.rs).
fn read<T: serde::de::DeserializeOwned>(kind: ScenarioKind, text: &str, source: &str) -> Result<T, ScenarioError> {
    serde_path_to_error::deserialize(toml::Deserializer::new(text)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        parse_errors::parse_error(kind, text, source, &path, inner.message(), inner.span())
    })
}

/// An error at `key` of the scenario at `source`, with the key's line when `spans` has it.
pub fn error_at(source: &str, spans: Option<&SpanIndex>, (key, message): (String, String)) -> ScenarioError {
    ScenarioError { source: source.to_string(), line: spans.and_then(|sp| sp.line(&key)), key, message }
}

/// The semantic checks, errors with the line of their key when `spans` has it.
pub fn check_located(s: &Scenario, source: &str, spans: Option<&SpanIndex>) -> Result<(), ScenarioError> {
    checks::check_scenario(s, source, spans)
}

/// Semantic checks that types alone cannot express. Errors carry no line (there is no text);
/// `crate::prepare::parse_toml` runs the same checks with line numbers.
pub fn check(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    checks::check_scenario(s, source, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vl_buffer_minimum_is_one_credit_rounded_packet() {
        assert_eq!(MAX_PACKET_HEADER_BYTES, 86);
        assert_eq!(min_vl_buffer_bytes(4096), 4224);
        assert_eq!(min_vl_buffer_bytes(256), 384);
    }
}
