//! Helpers shared by the integration tests.
#![allow(dead_code)]
use rdmasim_core::api::Simulation;
use serde_json::Value;

/// Runs a TOML scenario to the end and returns the result as JSON.
pub fn run(toml: &str) -> Value {
    let mut sim = Simulation::from_toml(toml, "<test>").unwrap_or_else(|e| panic!("scenario error: {e}"));
    sim.run();
    serde_json::from_str(&sim.result_json()).unwrap()
}

/// A scenario for a perftest run: `extra` is appended to the [workload] table, `rest` after it.
pub fn perftest(profile: &str, test: &str, extra: &str, rest: &str) -> String {
    format!("[hardware]\nprofile = \"{profile}\"\n[workload]\nkind = \"perftest\"\ntest = \"{test}\"\n{extra}\n{rest}\n")
}

pub fn table<'a>(r: &'a Value, name: &str) -> &'a Vec<Value> {
    r["tables"][name].as_array().unwrap_or_else(|| panic!("no table {name}"))
}

pub fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("no {key} in {v}"))
}

pub fn counter(r: &Value, host: usize, name: &str) -> u64 {
    table(r, "hca_counters")[host][name].as_u64().unwrap()
}

pub fn port(r: &Value, idx: usize, name: &str) -> u64 {
    table(r, "ports")[idx][name].as_u64().unwrap()
}
