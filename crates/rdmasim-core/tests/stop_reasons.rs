//! Runs that cannot finish stop with a reason that is true: simulated time running past the
//! clock's end (2^64 ps) is named, not reported as a stall.
mod common;
use common::*;

/// 1000 s of CPU per post (the largest override) and 100 000 latency iterations: the 18 447th
/// post would end past 2^64 ps. The run stops there naming the clock's end and the workload;
/// before, the saturated post time read as "never" and the run stopped as a stall with a wrong
/// reason ("no local ACK timer armed").
#[test]
fn time_past_the_clock_s_end_is_a_named_stop() {
    let r = run(&perftest("cx4-edr", "ib_write_lat", "iters = 100000", "[hardware.overrides]\npost_send_cpu_ns = 1e12"));
    let why = r["stop_reason"].as_str().unwrap();
    assert!(why.starts_with("simulated time would pass 2^64 ps (213 days)"), "{why}");
    assert!(why.contains("the perftest workload"), "{why}");
    assert!(!why.contains("stalled"), "{why}");
    let t = r["sim_time_us"].as_f64().unwrap();
    assert!(t > 1.8e13 && t <= 18_446_744_073_709.551_615, "{t} us");
    // The iterations done before the end are kept.
    assert!(f(&table(&r, "perftest")[0], "iterations") > 9000.0);

    let odp = "[hardware]\nprofile = \"cx4-edr\"\n[workload]\nkind = \"odp-reads\"\nreads = 20000\nsize = 1\ninterval_us = 1e9\n";
    let r = run(odp);
    let why = r["stop_reason"].as_str().unwrap();
    assert!(why.starts_with("simulated time would pass 2^64 ps") && why.contains("the odp-reads workload"), "{why}");
}
