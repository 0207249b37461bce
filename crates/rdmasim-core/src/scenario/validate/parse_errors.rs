//! Deserialization errors, made readable: serde's and toml's raw messages get the key path,
//! the line and a message saying what was found and what was expected.
//!
//! Two blind spots of `serde_path_to_error` are patched here: errors inside `[workload]` (an
//! internally tagged enum, which serde buffers, losing the inner path and span) are re-located
//! by deserializing the workload table on its own, and TOML syntax errors get the key written
//! on the offending line.
use super::messages::{expected_for, explain, table_name};
use super::spans::{join_key, line_of, SpanIndex};
use crate::scenario::{PerftestSection, ScenarioError};
use std::collections::HashMap;
use std::ops::Range;

/// Which scenario a text is: the verbs engines' (scenario/mod.rs) or the PM engine's
/// (scenario/pm.rs), which shares only some keys with it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ScenarioKind {
    Verbs,
    Pm,
}

/// Turns one deserialization error of a `kind` scenario into a [`ScenarioError`] with the
/// right key, line and a message saying what was expected.
pub fn parse_error(kind: ScenarioKind, text: &str, source: &str, path: &str, raw: &str, span: Option<Range<usize>>) -> ScenarioError {
    let spans = SpanIndex::build(text);
    if let Some(e) = table_written_as_array(text, source, path, spans.as_ref()) {
        return e;
    }
    let mut key = if path == "." { String::new() } else { path.to_string() };
    let mut raw = raw.to_string();
    let mut line = span.as_ref().map(|s| line_of(text, s.start));
    let pm = kind == ScenarioKind::Pm;

    // Errors inside [workload]: serde buffers internally tagged enums, so the path stops at
    // `workload` and the span covers the whole table. Deserialize the table on its own.
    if key == "workload" {
        if let Some((inner_key, inner_raw)) = relocate_workload_error(text, pm) {
            key = inner_key;
            raw = inner_raw;
            line = spans.as_ref().and_then(|s| s.line(&key)).or(line);
        }
    }

    // A missing key: name it in the key path; point at its table's header when there is one.
    if let Some(field) = between(&raw, "missing field `", "`") {
        let parent = key.clone();
        key = join_key(&parent, field);
        line = if parent.is_empty() { None } else { spans.as_ref().and_then(|s| s.line(&parent)).or(line) };
        return ScenarioError { source: source.to_string(), key: key.clone(), line, message: missing_message(&parent, field) };
    }

    // TOML syntax errors (and values TOML itself cannot represent) come with path `.`: find the
    // key written on the offending line, if any.
    let is_syntax = key.is_empty() && !raw.starts_with("unknown field") && !raw.starts_with("invalid type");
    if is_syntax {
        let l = line.unwrap_or(1);
        if let Some(dup) = duplicate_key(&raw) {
            key = dup;
        } else if let Some(k) = key_on_line(text, l) {
            key = k;
        }
        return ScenarioError { source: source.to_string(), key, line: Some(l), message: syntax_message(&raw) };
    }

    let message = explain(&raw, &key, if pm { pm_accepts(&key) } else { expected_for(&key) });
    ScenarioError { source: source.to_string(), key, line, message }
}

/// The sections written once as a table (`faults` is the array of tables).
const TABLE_SECTIONS: &[&str] = &["hardware", "topology", "qp", "workload", "output", "limits"];

/// `[[workload]]` for `[workload]`: serde's view of it ("expected variant identifier; found a
/// table" at `workload[0]`) says neither what is wrong nor how to write it.
fn table_written_as_array(text: &str, source: &str, path: &str, spans: Option<&SpanIndex>) -> Option<ScenarioError> {
    let section = path.split(['[', '.']).next()?;
    if !TABLE_SECTIONS.contains(&section) {
        return None;
    }
    let doc: toml::Table = toml::from_str(text).ok()?;
    let toml::Value::Array(_) = doc.get(section)? else { return None };
    Some(ScenarioError {
        source: source.to_string(),
        key: section.to_string(),
        line: spans.and_then(|s| s.line(section)),
        message: format!("`{section}` is one table: write `[{section}]` once, not `[[{section}]]` (an array of tables)"),
    })
}

/// Re-runs the deserialization of `[workload]` on the table alone, to get the path inside it.
fn relocate_workload_error(text: &str, pm: bool) -> Option<(String, String)> {
    let doc: toml::Table = toml::from_str(text).ok()?;
    let w = doc.get("workload")?;
    let mut table = match w {
        toml::Value::Table(t) => t.clone(),
        other => {
            return Some(("workload".into(), format!("invalid type: {}, expected a table", describe_value(other))));
        }
    };
    let kind = match table.remove("kind") {
        None => return Some(("workload".into(), "missing field `kind`".into())),
        Some(k) => k,
    };
    if pm {
        return pm_workload_error(&kind, table);
    }
    match kind.as_str() {
        Some("perftest") => workload_path_error::<PerftestSection>(table),
        Some("srq-episode") => workload_path_error::<crate::scenario::srq_episode::SrqEpisodeSection>(table),
        Some("flows") => workload_path_error::<crate::scenario::flows::FlowsSection>(table),
        Some("mpi") => workload_path_error::<crate::scenario::mpi::MpiSection>(table),
        Some("odp-reads") => workload_path_error::<crate::scenario::odp::OdpReadsSection>(table),
        Some(other) => Some(("workload.kind".into(), format!("unknown variant `{other}`, expected one of `perftest`, `srq-episode`, `flows`, `mpi`, `odp-reads`"))),
        None => Some(("workload.kind".into(), format!("invalid type: {}, expected a string", describe_value(&kind)))),
    }
}

/// `relocate_workload_error` for a PM scenario's workload (scenario/pm.rs), whose kinds are
/// others.
fn pm_workload_error(kind: &toml::Value, table: toml::Table) -> Option<(String, String)> {
    use crate::scenario::pm::*;
    match kind.as_str() {
        Some("bandwidth") => workload_path_error::<PmBandwidth>(table),
        Some("mpi") => workload_path_error::<PmMpi>(table),
        Some("incast") => workload_path_error::<PmIncast>(table),
        Some("pingpong") => workload_path_error::<PmPingpong>(table),
        Some("neighbor") => workload_path_error::<PmNeighbor>(table),
        Some("alltoall") => workload_path_error::<PmAlltoall>(table),
        Some(other) => {
            let kinds = PM_WORKLOAD_KINDS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            Some(("workload.kind".into(), format!("unknown variant `{other}`, expected one of {kinds}")))
        }
        None => Some(("workload.kind".into(), format!("invalid type: {}, expected a string", describe_value(kind)))),
    }
}

/// What a key of a PM scenario accepts, in words, where the verbs scenario's words
/// (`expected_for`) do not fit it: none for its workload's keys but the kind.
fn pm_accepts(key: &str) -> Option<String> {
    match key {
        "workload.kind" => Some(super::messages::quoted_list(crate::scenario::pm::PM_WORKLOAD_KINDS)),
        k if k == "workload" || k.starts_with("workload.") => None,
        k => expected_for(k),
    }
}

/// The key path and message of a workload table that does not deserialize as `T`.
fn workload_path_error<T: serde::de::DeserializeOwned>(table: toml::Table) -> Option<(String, String)> {
    match serde_path_to_error::deserialize::<_, T>(toml::Value::Table(table)) {
        Ok(_) => None,
        Err(e) => {
            let p = e.path().to_string();
            let key = if p == "." { "workload".to_string() } else { format!("workload.{p}") };
            Some((key, e.into_inner().message().to_string()))
        }
    }
}

/// The text between the first `start` and the next `end` after it.
fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let i = s.find(start)? + start.len();
    let j = s[i..].find(end)? + i;
    Some(&s[i..j])
}

fn missing_message(parent: &str, field: &str) -> String {
    let key = join_key(parent, field);
    let what = expected_for(&key).map(|e| format!("; expected {e}")).unwrap_or_default();
    if parent.is_empty() {
        format!("missing required table [{field}]{what}")
    } else {
        format!("missing required key `{field}` {}{what}", table_name(parent))
    }
}

fn duplicate_key(raw: &str) -> Option<String> {
    // toml: "duplicate key `profile` in table `hardware`" / "duplicate key `seed` in document root"
    let k = between(raw, "duplicate key `", "`")?;
    match between(raw, "in table `", "`") {
        Some(t) => Some(format!("{t}.{k}")),
        None => Some(k.to_string()),
    }
}

fn syntax_message(raw: &str) -> String {
    let one_line = raw.trim().replace('\n', "; ");
    if raw.contains("number too large") {
        return format!(
            "integer out of range ({one_line}): TOML integers are signed 64-bit, so at most {}",
            i64::MAX
        );
    }
    let hint = if raw.contains("invalid basic string") || raw.contains("invalid literal string") {
        " (is a closing quote missing? a string must end on the line it starts)"
    } else if raw.contains("invalid table header") {
        " (a table header is written [name] or [[name]] on a line of its own)"
    } else if raw.contains("expected `=`") || raw.contains("invalid key") {
        " (expected `key = value`)"
    } else {
        ""
    };
    format!("TOML syntax error: {one_line}{hint}")
}

/// The dotted key written on a line of the document (`timeout = 3` under `[qp]` gives
/// `qp.timeout`), for errors that toml reports without a path.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let mut table = String::new();
    let mut arrays: HashMap<String, usize> = HashMap::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if i + 1 == line {
            if t.starts_with('[') {
                return None;
            }
            let (k, _) = t.split_once('=')?;
            let k = k.trim().replace(['"', '\'', ' '], "");
            if k.is_empty() {
                return None;
            }
            return Some(join_key(&table, &k));
        }
        if let Some(h) = t.strip_prefix("[[").and_then(|r| r.split_once("]]")).map(|(h, _)| h.trim().to_string()) {
            let n = arrays.entry(h.clone()).and_modify(|n| *n += 1).or_insert(0);
            table = format!("{h}[{n}]");
        } else if let Some(h) = t.strip_prefix('[').and_then(|r| r.split_once(']')).map(|(h, _)| h.trim().to_string()) {
            table = h;
        }
    }
    None
}

fn describe_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("string {s:?}"),
        toml::Value::Integer(i) => format!("integer `{i}`"),
        toml::Value::Float(f) => format!("floating point `{f}`"),
        toml::Value::Boolean(b) => format!("boolean `{b}`"),
        toml::Value::Datetime(d) => format!("datetime `{d}`"),
        toml::Value::Array(_) => "sequence".into(),
        toml::Value::Table(_) => "map".into(),
    }
}
