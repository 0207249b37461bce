//! Core versus package C-states (`cpu_idle = "haswell-pkg"`, host/cstate.rs): a waking core pays
//! only its own exit while another core of the host runs, and the table's package-inclusive
//! exit when every core sleeps; `"haswell"` keeps the table's figure either way.
mod common;
use common::*;
use serde_json::Value;

const MB: u64 = 1 << 20;

fn flow(verb: &str, size: u64, amount: &str, polling: &str, extra: &str) -> String {
    format!("[[workload.flow]]\nverb = \"{verb}\"\nsize = {size}\n{amount}\npolling = \"{polling}\"\n{extra}\n")
}

fn scenario(cpu_idle: &str, body: &str) -> Value {
    run(&format!("[hardware]\nprofile = \"cx3-fdr\"\n[hardware.overrides]\ncpu_idle = \"{cpu_idle}\"\n[workload]\nkind = \"flows\"\n{body}\n"))
}

/// Idle-state exit paid per wake-up by flow `i`, µs (every wake-up of a lone elephant pays: the
/// first has no idle history, so its core sits in the deepest state, as the later ones do).
fn exit_per_wakeup(r: &Value, i: usize) -> f64 {
    let row = &table(r, "flows")[i];
    f(row, "idle_exit_us") / f(row, "wakeups")
}

/// A 4 MiB event-driven elephant (~0.6 ms idle per message on FDR: the governor picks C6),
/// alone or beside a busy-polling mouse on the same host.
fn elephant(cpu_idle: &str, busy_mouse: bool) -> f64 {
    let mut body = flow("write", 4 * MB, "count = 8", "event", "");
    if busy_mouse {
        body += &flow("write", 10, "background = true", "busy", "inline = true");
    }
    exit_per_wakeup(&scenario(cpu_idle, &body), 0)
}

/// Bandwidth of the second flow (larger messages) over the first's.
fn larger_over_smaller(cpu_idle: &str, body: &str) -> f64 {
    let t = table(&scenario(cpu_idle, body), "flows").clone();
    f(&t[1], "bw_Gbps") / f(&t[0], "bw_Gbps")
}

#[test]
fn waking_core_pays_core_exit_while_another_core_polls_and_package_exit_when_all_sleep() {
    // Every core asleep (the host's other cores are idle): the package is in C6 too, the
    // wake-up pays the kernel table's PC6 figure.
    let alone = elephant("haswell-pkg", false);
    assert!((132.9..133.1).contains(&alone), "package asleep: {alone} us per wake-up");
    // A busy-polling thread keeps the package in C0: core C6 exit only.
    let beside = elephant("haswell-pkg", true);
    assert!((91.9..92.1).contains(&beside), "package awake: {beside} us per wake-up");
    // The table variant pays its package-inclusive figure whatever the other cores do.
    let table_beside = elephant("haswell", true);
    assert!((132.9..133.1).contains(&table_beside), "\"haswell\": {table_beside} us per wake-up");
    assert_eq!(elephant("none", true), 0.0);
}

#[test]
fn package_variant_keeps_larger_messages_winning_and_fairness_returns_without_idle_states() {
    // Two event-driven elephants on one host, both cores asleep between messages: the package
    // sleeps as deep as the shallower of the two, and the smaller-message flow still loses.
    let body = flow("write", MB, "count = 30", "event", "") + &flow("write", 16 * MB, "background = true", "event", "");
    let ratio = |cpu_idle: &str| larger_over_smaller(cpu_idle, &body);
    let pkg = ratio("haswell-pkg");
    assert!((1.12..1.5).contains(&pkg), "1 MB vs 16 MB, haswell-pkg: ratio {pkg}");
    let fair = ratio("none");
    assert!((0.99..1.05).contains(&fair), "no idle states: ratio {fair}");
}

#[test]
fn sandy_bridge_table_lets_the_larger_flow_win_where_haswell_s_deep_c6_reverses_it() {
    // 1 MB vs 2 MB event elephants on FDR idle ~0.3 ms and ~0.6 ms per message. Haswell's table
    // (C3 33 µs from 100 µs, C6 133 µs from 400 µs) sends only the 2 MB flow's core to C6, so
    // the flow with larger messages pays a 100 µs longer wake-up and loses; Sandy Bridge's
    // (C3 80 µs from 211 µs, C6 104 µs from 345 µs) differs by 24 µs, less than the 1 MB
    // flow's extra wake-ups cost, so the larger flow wins as in C2.
    let body = flow("write", MB, "count = 30", "event", "") + &flow("write", 2 * MB, "background = true", "event", "");
    let ratio = |cpu_idle: &str| larger_over_smaller(cpu_idle, &body);
    let haswell = ratio("haswell");
    assert!(haswell < 0.95, "haswell: 2 MB / 1 MB ratio {haswell}");
    let snb = ratio("sandybridge");
    assert!((1.02..1.3).contains(&snb), "sandybridge: 2 MB / 1 MB ratio {snb}");
}
