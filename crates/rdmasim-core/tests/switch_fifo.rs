//! A switch output that decides each departure as the packet is queued (fabric/switch_fifo.rs)
//! must give exactly what the event-driven output gives. A fault entry that never fires
//! (`drop_nth` beyond the run) puts the switch's output to h1 on the event-driven path without
//! changing the traffic; everything the run reports must be the same.
mod common;
use common::*;
use serde_json::Value;

/// A busy 10 B mouse beside a 1 MB elephant into a host whose PCIe write path (x4) is slower
/// than EDR: the switch's output to h1 runs out of credits and waits (PortXmitWait).
fn scenario(fault: &str) -> String {
    format!(
        "[hardware]\nprofile = \"cx4-edr\"\n[hardware.overrides]\nrx_dma_drain = true\npcie_lanes = 4\n\
         [topology]\nkind = \"single-switch\"\nhosts = 2\n\
         [workload]\nkind = \"flows\"\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 10\ninline = true\ncount = 400\npolling = \"busy\"\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 1048576\nbackground = true\npolling = \"event\"\n{fault}"
    )
}

fn port_row<'a>(r: &'a Value, node: &str, port: u64) -> &'a Value {
    table(r, "ports")
        .iter()
        .find(|p| p["node"] == node && p["port"] == port)
        .unwrap_or_else(|| panic!("no counters for {node} port {port}"))
}

#[test]
fn departures_decided_on_arrival_match_the_event_driven_switch() {
    let fast = run(&scenario(""));
    let evented = run(&scenario("[[faults]]\nlink = \"sw0->h1\"\ndrop_nth = [1000000000000]\n"));
    // The credit wait is exercised: sw0's port 2 (to h1) waited for credits.
    let wait = port_row(&fast, "sw0", 2)["PortXmitWait"].as_u64().unwrap();
    assert!(wait > 1000, "PortXmitWait at sw0 port 2: {wait}");
    for t in ["flows", "ports"] {
        assert_eq!(table(&fast, t), table(&evented, t), "table {t} differs");
    }
    let mouse = &table(&fast, "flows")[0];
    assert_eq!(mouse["completed_total"], 400);
}

/// A run stopped by `max_sim_time_ms` while the switch holds a backlog: crossings decided ahead
/// of the stop are not in the counters, which match the event-driven switch's.
#[test]
fn a_run_stopped_midway_reports_only_the_crossings_that_happened() {
    let limit = "[limits]\nmax_sim_time_ms = 0.2\n";
    let fast = run(&scenario(limit));
    let evented = run(&scenario(&format!("{limit}[[faults]]\nlink = \"sw0->h1\"\ndrop_nth = [1000000000000]\n")));
    assert_eq!(fast["stop_reason"], "max_sim_time", "{}", fast["stop_reason"]);
    let sw_out = port_row(&fast, "sw0", 2);
    let h1 = port_row(&fast, "h1", 1);
    // Packets were inside the switch at the stop (in through port 1, not yet out of port 2).
    assert!(
        port_row(&fast, "sw0", 1)["PortRcvPkts"].as_u64().unwrap() > sw_out["PortXmitPkts"].as_u64().unwrap(),
        "a backlog in the switch at the stop"
    );
    assert!(sw_out["PortXmitPkts"].as_u64().unwrap() >= h1["PortRcvPkts"].as_u64().unwrap());
    assert_eq!(table(&fast, "ports"), table(&evented, "ports"));
}

/// Two SEND flows into one host over lossy links with a 4 µs local ACK timeout: a credit wake
/// can find the sender still transmitting and leave due credits queued; a later credit return
/// on that channel then asked for a wake at the earlier (past) time — a debug-build panic
/// ("event scheduled in the past") found by a fuzz run. The wake is now at `now` at the earliest.
#[test]
fn due_credits_left_queued_by_a_busy_sender_wake_it_now_not_in_the_past() {
    let r = run("seed = 3\n[hardware]\nprofile = \"cx3-fdr\"\n[hardware.overrides]\nretransmit_floor_ms = 0.0\n\
         [topology]\nkind = \"single-switch\"\nhosts = 4\n[workload]\nkind = \"flows\"\n\
         [[workload.flow]]\nverb = \"send\"\nsize = 65536\nserver = 2\ncount = 3000\n\
         [[workload.flow]]\nverb = \"send\"\nsize = 65536\nclient = 3\nserver = 2\ntotal_bytes = 196635374\npolling = \"event\"\n\
         [qp]\ntimeout = 1\n[[faults]]\nlink = \"*\"\nloss_rate = 0.01\n");
    // With no vendor floor a 4 µs timeout fires on queueing alone in this incast. (Before
    // every advancing ACK renewed retry_cnt, flow 0 ran out of retries at 65.6 µs; now both
    // flows finish.) The run reaches its end instead of panicking on the way.
    let why = r["stop_reason"].as_str().unwrap();
    assert_eq!(why, "completed");
    assert!(counter(&r, 0, "local_ack_timeout_err") + counter(&r, 3, "local_ack_timeout_err") > 0, "the timer fired");
    let sent: u64 = table(&r, "ports").iter().map(|p| p["PortXmitPkts"].as_u64().unwrap()).sum();
    assert!(sent > 200, "the flows ran: {sent} packets");
}
