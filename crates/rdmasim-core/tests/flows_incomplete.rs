//! A `flows` run that cannot measure what its table promises says so: the run is reported as
//! stopped early with the reason, and the rows are marked `partial` instead of reading as a
//! measurement of zeros.
mod common;
use common::{f, run, table};

const HEAD: &str = "[hardware]\nprofile = \"cx3-fdr\"\n[workload]\nkind = \"flows\"\n";

/// A mouse that has finished before the elephant's start: the two were never active together.
#[test]
fn flows_that_never_overlap_measure_nothing_and_say_why() {
    let r = run(&format!(
        "{HEAD}[[workload.flow]]\nname = \"mouse\"\nverb = \"write\"\nsize = 10\ninline = true\ncount = 100\n\
         [[workload.flow]]\nname = \"elephant\"\nverb = \"write\"\nsize = 1048576\nbackground = true\nstart_us = 5000\n"
    ));
    assert_eq!(r["finished"], false);
    let why = r["stop_reason"].as_str().unwrap();
    assert!(why.contains("flow 0 (mouse) finished") && why.contains("flow 1 (elephant) at 5000 us"), "{why}");
    assert!(r["sim_time_us"].as_f64().unwrap() < 5000.0, "the run ends when the mouse is done");
    for row in table(&r, "flows") {
        assert_eq!(row["partial"], true);
        assert_eq!(f(row, "window_us"), 0.0);
        assert_eq!(row["msgs_in_window"], 0, "{row}");
        assert_eq!(row["lat_count"], 0);
        // No latency was measured: null, not a 0 µs that would read as one.
        assert!(row["lat_median_us"].is_null() && row["lat_p99_99_us"].is_null(), "{row}");
    }
    assert_eq!(table(&r, "flows")[0]["completed_total"], 100);
}

/// Every packet of flow 0 is lost: its QP gives up (IBV_WC_RETRY_EXC_ERR), the run stops there
/// and names the failure; the other flow's row is partial too.
#[test]
fn a_failed_flow_stops_the_run_and_is_named() {
    let r = run(&format!(
        "{HEAD}[hardware.overrides]\nretransmit_floor_ms = 0.0\n[qp]\nretry_cnt = 1\ntimeout = 1\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 10\ncount = 100\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 10\ncount = 100\nclient = 1\nserver = 0\n\
         [[faults]]\nlink = \"h0->h1\"\nloss_rate = 0.999999\n"
    ));
    assert_eq!(r["finished"], false);
    let why = r["stop_reason"].as_str().unwrap();
    assert!(why.contains("flow 0 (flow0) failed with IBV_WC_RETRY_EXC_ERR"), "{why}");
    let rows = table(&r, "flows");
    assert_eq!(rows[0]["error"], "IBV_WC_RETRY_EXC_ERR");
    assert!(f(&rows[0], "error_at_us") > 0.0);
    assert_eq!(rows[1]["error"], serde_json::Value::Null);
    assert!(rows.iter().all(|row| row["partial"] == true));
}

/// With 8 messages outstanding, the QP's failure is followed by 7 IBV_WC_WR_FLUSH_ERR
/// completions, all drained by one event-polled wake-up: the row names the failure that caused them, not the last flush.
#[test]
fn a_failed_flow_reports_its_first_error_not_the_flushes_after_it() {
    let r = run(&format!(
        "{HEAD}[hardware.overrides]\nretransmit_floor_ms = 0.0\n[qp]\nretry_cnt = 0\ntimeout = 1\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 10\ncount = 200\ndepth = 8\npolling = \"event\"\n\
         [[faults]]\nlink = \"h0->h1\"\ndrop_nth = [50]\n"
    ));
    let why = r["stop_reason"].as_str().unwrap();
    assert!(why.contains("failed with IBV_WC_RETRY_EXC_ERR"), "{why}");
    let row = &table(&r, "flows")[0];
    assert_eq!(row["error"], "IBV_WC_RETRY_EXC_ERR", "{row}");
    assert_eq!(row["partial"], true);
}

/// The key-value server's 50th packet is lost and its QP may not retry: the store stops with
/// the failure named, instead of waiting forever for a response that will never come.
#[test]
fn a_failed_key_value_store_stops_the_run_and_is_named() {
    let r = run("[hardware]\nprofile = \"cx4-edr\"\n[hardware.overrides]\nretransmit_floor_ms = 0.0\n\
         [topology]\nkind = \"single-switch\"\nhosts = 4\n[qp]\nretry_cnt = 0\ntimeout = 1\n[limits]\nmax_sim_time_ms = 10\n\
         [workload]\nkind = \"flows\"\n[workload.kv]\nrequests = 2000\nclient = 1\nserver = 0\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 65536\nbackground = true\nclient = 2\nserver = 3\n\
         [[faults]]\nlink = \"h0->sw0\"\ndrop_nth = [50]\n");
    let why = r["stop_reason"].as_str().unwrap();
    assert!(why.contains("the key-value server failed with IBV_WC_RETRY_EXC_ERR"), "{why}");
    assert!(r["sim_time_us"].as_f64().unwrap() < 1000.0, "stopped at the failure");
    for row in table(&r, "kv") {
        assert_eq!(row["error"], "IBV_WC_RETRY_EXC_ERR", "{row}");
        assert!((row["completed_total"].as_u64().unwrap()) < 2000);
    }
}

/// The ordinary case is untouched: both flows active, the run completes, rows are not partial.
#[test]
fn overlapping_flows_complete() {
    let r = run(&format!(
        "{HEAD}[[workload.flow]]\nverb = \"write\"\nsize = 10\ninline = true\ncount = 100\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 65536\nbackground = true\n"
    ));
    assert_eq!(r["stop_reason"], "completed");
    let rows = table(&r, "flows");
    assert!(rows.iter().all(|row| row["partial"] == false && row["error"].is_null()));
    assert_eq!(rows[0]["lat_count"], 100);
}
