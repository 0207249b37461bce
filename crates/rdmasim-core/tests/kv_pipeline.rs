//! HERD's 2-stage server pipeline (`[workload.kv] server_pipeline`, efficient/HERD main.c
//! `run_server` / `process_pipeline`): a request is answered at the second push after its own,
//! by later requests or by dummy pushes after `fail_lim` empty polls.
mod common;
use common::*;
use serde_json::Value;

/// A GET-only key-value run on cx4-edr, alone on the link; `extra_kv` goes under `[workload.kv]`.
fn kv(extra_kv: &str) -> String {
    format!(
        "[hardware]\nprofile = \"cx4-edr\"\n[workload]\nkind = \"flows\"\n[workload.kv]\nrequests = 2000\nget_fraction = 1.0\n{extra_kv}\n"
    )
}

fn median(extra_kv: &str) -> f64 {
    let r = run(&kv(extra_kv));
    let row: &Value = &table(&r, "kv")[0];
    f(row, "lat_median_us")
}

#[test]
fn off_is_the_plain_server() {
    let plain = run(&kv(""));
    let off = run(&kv("server_pipeline = false\nempty_poll_ns = 7.0"));
    assert_eq!(table(&plain, "kv"), table(&off, "kv"));
}

#[test]
fn a_lone_request_waits_for_two_dummy_pushes() {
    // Window 1: no later request can push it out, so two dummies must. The first comes after
    // the fail_lim polls left in the count (1..=fail_lim of them), the second after fail_lim
    // more: the wait lies between 1 and 2 dummy intervals of fail_lim x empty_poll_ns.
    let plain = median("");
    for (lim, poll_ns) in [(100u64, 10.0f64), (50, 20.0), (100, 1.6)] {
        let on = median(&format!("server_pipeline = true\nfail_lim = {lim}\nempty_poll_ns = {poll_ns}"));
        let interval_us = lim as f64 * poll_ns / 1000.0;
        let added = on - plain;
        assert!(added >= interval_us - 0.01 && added <= 2.0 * interval_us + 0.01,
                "fail_lim {lim} x {poll_ns} ns: median {plain:.3} -> {on:.3} us (+{added:.3}), interval {interval_us:.3} us");
    }
}

#[test]
fn with_a_window_later_requests_push_responses_out() {
    // Window 4 with a slow dummy (100 x 50 ns = 5 us): each response leaves when the next two
    // requests have been processed, so responses do not wait for dummies. Little's law then
    // gives 2 requests on the wire and 2 in the pipeline: a latency of about two round trips
    // of the plain server's window-2 client, far below a dummy interval.
    let slow_dummy = "server_pipeline = true\nfail_lim = 100\nempty_poll_ns = 50.0";
    let four = median(&format!("window = 4\n{slow_dummy}"));
    let plain_two = median("window = 2");
    assert!(four < 5.0, "window 4 median {four:.3} us should not wait for a 5 us dummy");
    assert!((four / plain_two - 2.0).abs() < 0.35, "window 4 with the pipeline {four:.3} us vs plain window 2 {plain_two:.3} us");
}

#[test]
fn bad_pipeline_parameters_name_their_key() {
    for (bad, key) in [("fail_lim = 0", "workload.kv.fail_lim"), ("empty_poll_ns = 0.0", "workload.kv.empty_poll_ns"),
                       ("empty_poll_ns = -1.0", "workload.kv.empty_poll_ns"), ("empty_poll_ns = 1e300", "workload.kv.empty_poll_ns")] {
        let e = rdmasim_core::api::Simulation::from_toml(&kv(bad), "kv.toml").err().expect("rejected");
        assert_eq!(e.key, key, "{bad}");
    }
}
