//! Named hosts: the host part of a test bed (its CPU's idle states, its kernel's tick, …), each
//! value with its source, that a scenario lays over its NIC profile with `[hardware] host =
//! "<name>"`. A NIC profile's own host values stay what other studies run with; a study that
//! knows its hosts names them here instead of carrying the numbers itself.
//!
//! The hosts are data (`hosts.toml`, read once): a host part of a profile's parameters,
//! each with `value` and `source`. Only host-part parameters (`HostParams`) may appear.
use crate::profile::parts::Part;
use crate::profile::{self, HostOverrides, HostParams, ProfileOverrides};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

const BUILTIN: &str = include_str!("hosts.toml");

/// A named host: the host-part parameters it sets and where each comes from.
#[derive(Clone, Debug)]
pub struct HostProfile {
    pub name: String,
    /// The machine, and where it is described.
    pub about: String,
    /// What it sets of the host part, laid over the NIC profile's values (a scenario's
    /// overrides go on top).
    pub values: HostOverrides,
    /// Each set parameter's source.
    pub sources: BTreeMap<String, String>,
}

/// One row of `rdmasim profiles` for a named host.
#[derive(Clone, Debug, Serialize)]
pub struct HostParamRow {
    pub host: String,
    pub about: String,
    pub parameter: &'static str,
    pub part: Part,
    pub value: serde_json::Value,
    pub source: String,
    pub doc: &'static str,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostsFile {
    host: Vec<HostEntry>,
}

#[derive(Deserialize)]
struct HostEntry {
    name: String,
    about: String,
    /// Every other key is a parameter.
    #[serde(flatten)]
    params: BTreeMap<String, Sourced>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Sourced {
    value: toml::Value,
    source: String,
}

/// Reads named hosts from TOML text as `hosts.toml` writes them; an error names the
/// host and what is wrong (a parameter that is not a host part's, a missing source, a value of
/// the wrong kind, a name given twice).
pub fn parse(text: &str) -> Result<Vec<HostProfile>, String> {
    let file: HostsFile = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut hosts: Vec<HostProfile> = Vec::new();
    for e in file.host {
        let at = |m: String| format!("host \"{}\": {m}", e.name);
        if hosts.iter().any(|h| h.name == e.name) {
            return Err(at("named twice".into()));
        }
        let mut values = toml::Table::new();
        let mut sources = BTreeMap::new();
        for (param, s) in e.params {
            if !HostParams::NAMES.contains(&param.as_str()) {
                return Err(at(format!("{param} is not a host-part parameter (profile/parts.rs)")));
            }
            if s.source.trim().is_empty() {
                return Err(at(format!("{param} has no source")));
            }
            values.insert(param.clone(), s.value);
            sources.insert(param, s.source);
        }
        let values: HostOverrides = toml::Value::Table(values).try_into().map_err(|err: toml::de::Error| at(err.message().to_string()))?;
        hosts.push(HostProfile { name: e.name, about: e.about, values, sources });
    }
    Ok(hosts)
}

/// The built-in named hosts.
pub fn builtin() -> &'static [HostProfile] {
    static HOSTS: OnceLock<Vec<HostProfile>> = OnceLock::new();
    HOSTS.get_or_init(|| parse(BUILTIN).expect("profile/hosts.toml is read by a unit test"))
}

/// Looks a named host up.
pub fn by_name(name: &str) -> Option<&'static HostProfile> {
    builtin().iter().find(|h| h.name == name)
}

pub fn names() -> Vec<String> {
    builtin().iter().map(|h| h.name.clone()).collect()
}

impl HostProfile {
    /// One row per parameter it sets, in the profiles' parameter order: its value, part and
    /// doc as a profile's table gives them, its own source.
    pub fn table(&self) -> Vec<HostParamRow> {
        let (mut p, s) = profile::builtin().swap_remove(0);
        let set = p.apply(&ProfileOverrides::from(&self.values));
        p.table(&s, &set)
            .into_iter()
            .filter(|r| r.overridden)
            .map(|r| HostParamRow {
                host: self.name.clone(),
                about: self.about.clone(),
                parameter: r.parameter,
                part: r.part,
                value: r.value,
                source: self.sources[r.parameter].clone(),
                doc: r.doc,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(h: &HostProfile) -> serde_json::Value {
        serde_json::to_value(h.table().into_iter().map(|r| (r.parameter, r.value)).collect::<BTreeMap<_, _>>()).unwrap()
    }

    /// The isolation study's test beds (docs/isolation.md 2.2, 2.6): exactly these values.
    #[test]
    fn the_test_beds_set_their_idle_states_and_tick() {
        let r320 = by_name("cloudlab-r320").expect("built in");
        assert_eq!(set(r320), serde_json::json!({"cpu_idle": "sandybridge", "os_tick_hz": 250.0, "os_tick_entry_exit_ns": 898.0}));
        let conflux = by_name("umich-conflux").expect("built in");
        assert_eq!(set(conflux), serde_json::json!({"cpu_idle": "haswell-pkg", "os_tick_hz": 250.0, "os_tick_entry_exit_ns": 898.0}));
        // Conflux's hosts are undocumented: every value says it is an assumption or estimate.
        assert!(conflux.about.starts_with("assumption"));
        assert!(conflux.sources.values().all(|s| s.starts_with("assumption") || s.starts_with("estimate")));
        assert_eq!(names(), ["cloudlab-r320", "umich-conflux"]);
    }

    #[test]
    fn every_value_is_a_sourced_host_part_parameter() {
        for h in builtin() {
            assert_eq!(ProfileOverrides::from(&h.values).names().len(), h.sources.len(), "{}", h.name);
            assert!(h.table().iter().all(|r| r.part == Part::Host && !r.source.is_empty()), "{}", h.name);
        }
    }

    #[test]
    fn a_bad_entry_is_named() {
        let one = |params: &str| parse(&format!("[[host]]\nname = \"h\"\nabout = \"a\"\n{params}")).err().unwrap_or_default();
        let e = one("[host.tx_packet_ns]\nvalue = 1.0\nsource = \"s\"");
        assert!(e.contains("host \"h\"") && e.contains("tx_packet_ns is not a host-part parameter"), "{e}");
        let e = one("[host.os_tick_hz]\nvalue = 1.0\nsource = \" \"");
        assert!(e.contains("os_tick_hz has no source"), "{e}");
        let e = one("[host.cpu_idle]\nvalue = \"skylake\"\nsource = \"s\"");
        assert!(e.contains("host \"h\"") && e.contains("skylake"), "{e}");
        let e = parse("[[host]]\nname = \"h\"\nabout = \"a\"\n[[host]]\nname = \"h\"\nabout = \"b\"").err().unwrap_or_default();
        assert!(e.contains("named twice"), "{e}");
    }
}
