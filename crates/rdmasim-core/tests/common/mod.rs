//! Helpers shared by the integration tests.
#![allow(dead_code)]
pub mod fuzz;
pub mod mpi_trace;
pub mod opensm;
pub mod pm;
pub mod qdr_fat_tree;
use rdmasim_core::api::Simulation;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs a TOML scenario to the end and returns the result as JSON.
pub fn run(toml: &str) -> Value {
    let mut sim = Simulation::from_toml(toml, "<test>").unwrap_or_else(|e| panic!("scenario error: {e}"));
    sim.run();
    results(&sim)
}

/// A simulation's results so far as JSON (tables, counters), for tests that step it themselves.
pub fn results(sim: &Simulation) -> Value {
    serde_json::from_str(&sim.result_json()).unwrap()
}

/// [`results`] of a packet-engine run driven directly (tests that read its world too).
pub fn packet_results(sim: &rdmasim_core::sim::Simulation) -> Value {
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

/// `Some(path)` if tshark runs. `None` (skip) only outside CI.
pub fn find_tshark() -> Option<PathBuf> {
    let ok = Command::new("tshark").arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    if ok {
        return Some(PathBuf::from("tshark"));
    }
    let ci = std::env::var("CI").map(|v| !v.is_empty() && v != "false" && v != "0").unwrap_or(false);
    assert!(!ci, "tshark is not on PATH, but CI is set: CI must install tshark (apt-get install tshark)");
    // Straight to stderr rather than `eprintln!`, which the test harness would swallow.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: `tshark` is not on PATH (install it with `apt-get install tshark`)"
    );
    None
}

pub fn tshark(tshark: &Path, args: &[&str]) -> String {
    let out = Command::new(tshark).args(args).output().expect("tshark runs");
    assert!(out.status.success(), "tshark {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("tshark prints UTF-8")
}

