//! Runs that cannot finish stop with a reason that is true: an RNR livelock (the receiver never
//! posts a receive WQE and `rnr_retry = 7` retries forever) and simulated time running past the
//! clock's end (2^64 ps), instead of running forever or reporting a wrong stall.
mod common;
use common::*;

/// `ib_send_bw` with `rx_depth = 0`: the server posts no receive, the client retries its first
/// SEND after every RNR NAK forever (qp.rnr_retry = 7, IBTA). Nothing can post a receive, so the
/// run stops at the first RNR NAK instead of simulating RNR delays forever (it hung).
#[test]
fn rnr_retry_forever_without_receives_stops_naming_the_livelock() {
    for test in ["ib_send_bw", "ib_send_lat"] {
        // The event limit only turns the old endless loop into a failure rather than a hang.
        let r = run(&perftest("cx4-edr", test, "rx_depth = 0\niters = 10", "[qp]\nrnr_retry = 7\n[limits]\nmax_events = 2000000"));
        let why = r["stop_reason"].as_str().unwrap();
        assert!(why.starts_with("RNR livelock: h0 QP 0x100 would retry its SEND at PSN 0 forever"), "{test}: {why}");
        assert!(why.contains("qp.rnr_retry = 7") && why.contains("h1 QP 0x100") && why.contains("its receive queue is empty"), "{test}: {why}");
        assert_eq!(r["finished"], false);
        // Stopped at the first RNR NAK (one 0.64 ms RNR delay would be the next event of note).
        assert!(r["sim_time_us"].as_f64().unwrap() < 10.0, "{test}: {} us", r["sim_time_us"]);
        assert_eq!(counter(&r, 1, "out_of_buffer"), 1, "{test}");
        assert_eq!(counter(&r, 0, "rnr_nak_retry_err"), 1, "{test}");
    }
}

/// The verdict needs proof: receives that arrive in time are not a livelock. `rx_depth = 1`
/// below `tx_depth` draws RNR NAKs (the server re-posts after each completion), and a finite
/// `rnr_retry` ends in an error completion by itself; both runs complete as before.
#[test]
fn rnr_naks_with_receives_still_coming_are_not_a_livelock() {
    let r = run(&perftest("cx4-edr", "ib_send_bw", "size = 4096\nrx_depth = 1\niters = 200\ncq_mod = 1", "[qp]\nrnr_retry = 7\n[hardware.overrides]\nodp_damming = false"));
    assert_eq!(r["stop_reason"], "completed");
    assert!(counter(&r, 0, "rnr_nak_retry_err") > 0, "the scenario must draw RNR NAKs to test anything");
    let r = run(&perftest("cx4-edr", "ib_send_bw", "rx_depth = 0\niters = 10", "[qp]\nrnr_retry = 3"));
    assert_eq!(r["stop_reason"], "completed");
    assert_eq!(counter(&r, 0, "req_rnr_retries_exceeded"), 1);
}

/// 1000 s of CPU per post (the largest override) and 100 000 latency iterations: the 18 447th
/// post would end past 2^64 ps. The run stops there naming the clock's end and the workload;
/// before, the saturated post time read as "never" and the run stopped as a stall with a wrong
/// reason ("no local ACK timer armed").
#[test]
fn time_past_the_clock_s_end_is_a_named_stop() {
    let r = run(&perftest("cx4-edr", "ib_write_lat", "iters = 100000", "[hardware.overrides]\npost_send_cpu_ns = 1e12"));
    let why = r["stop_reason"].as_str().unwrap();
    assert!(why.starts_with("simulated time would pass 2^64 ps (213 days)"), "{why}");
    assert!(why.contains("a work request of h0 QP 0x100"), "{why}");
    assert!(!why.contains("stalled"), "{why}");
    let t = r["sim_time_us"].as_f64().unwrap();
    assert!(t > 1.8e13 && t <= u64::MAX as f64 / 1e6, "{t} us");
    // The iterations done before the end are kept.
    assert!(f(&table(&r, "perftest")[0], "iterations") > 9000.0);

    let odp = "[hardware]\nprofile = \"cx4-edr\"\n[workload]\nkind = \"odp-reads\"\nreads = 20000\nsize = 1\ninterval_us = 1e9\n";
    let r = run(odp);
    let why = r["stop_reason"].as_str().unwrap();
    assert!(why.starts_with("simulated time would pass 2^64 ps") && why.contains("the odp-reads workload"), "{why}");
}
