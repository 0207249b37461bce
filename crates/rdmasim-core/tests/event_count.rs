//! Events that would find nothing to do are not scheduled (speed, not behaviour: results are
//! the same). A TxDone is only scheduled when its HCA has more to send or gets more before the
//! packet's end (`Channel::idle_tx_done`), and an app is told of a WRITE landing in its memory
//! only if it polls that memory (`Qp::watch_writes`).
mod common;
use rdmasim_core::run::Engine as _;
use common::*;

#[test]
fn a_lone_busy_polled_mouse_costs_five_events_per_message() {
    // Per message: the doorbell's engine kick, the request's and the ACK's receive, the CQE
    // becoming visible, and the poll that finds it. Before, it was 10: every TxDone was
    // scheduled (the request's and the ACK's), each then kicked the idle engine again when it
    // freed, and the flows app was told of each WRITE it never reads.
    let n = 20_000u64;
    let r = run(&format!(
        "[hardware]\nprofile = \"cx3-fdr\"\n[topology]\nkind = \"single-switch\"\nhosts = 2\n[workload]\nkind = \"flows\"\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 10\ncount = {n}\npolling = \"busy\"\ninline = true\n"
    ));
    assert_eq!(table(&r, "flows")[0]["completed_total"].as_u64(), Some(n));
    let per_message = f(&r, "events") / n as f64;
    assert!((4.99..5.01).contains(&per_message), "{per_message} events per message");
}

/// The result of a run, without its event count, with idle events skipped or kept.
fn result_without_event_count(toml: &str, skip_idle_events: bool) -> serde_json::Value {
    let mut sim = rdmasim_core::sim::Simulation::from_toml(toml, "<test>").unwrap_or_else(|e| panic!("{e}"));
    sim.world.skip_idle_events = skip_idle_events;
    sim.run();
    let mut r = packet_results(&sim);
    assert_eq!(r["stop_reason"], "completed", "{toml}");
    r["events"] = 0.into();
    r["tables"]["run"][0]["events"] = 0.into();
    r
}

/// Four paced WRITE flows into one host (incast through a switch): the senders post while a
/// packet of theirs is still leaving, the case where a skipped TxDone has to be scheduled
/// after all (`kick_hca_at`). Before a post listed its QP from the WQE's ready time
/// (`SendSched::list_from`), skipping it changed PortXmitWait on the senders' ports (19 168
/// ticks instead of 354 292); since then this case no longer tells the two apart.
const PACED_INCAST: &str = r#"
[hardware]
profile = "cx4-edr"
[topology]
kind = "single-switch"
hosts = 5
[workload]
kind = "flows"
flow = [
  { verb = "write", size = 262144, count = 4, polling = "busy", client = 1, server = 0, split_bytes = 4096, split_window = 8, pace_gbps = 30 },
  { verb = "write", size = 262144, count = 4, polling = "busy", client = 2, server = 0, split_bytes = 4096, split_window = 8, pace_gbps = 30 },
  { verb = "write", size = 262144, count = 4, polling = "busy", client = 3, server = 0, split_bytes = 4096, split_window = 8, pace_gbps = 30 },
  { verb = "write", size = 262144, count = 4, polling = "busy", client = 4, server = 0, split_bytes = 4096, split_window = 8, pace_gbps = 30 },
]
"#;

/// A busy 10 B mouse and an event-polled 1 KB non-inline mouse beside a 1 MB elephant, and a
/// HERD-like store, with the isolation study's overrides (scheduler tick, idle states, WQE
/// fetch on schedule).
const MICE_AND_KV: &str = r#"
[hardware]
profile = "cx4-edr"
[hardware.overrides]
arbitration = "chunk-round-robin"
wqe_fetch_on_schedule = true
cpu_idle = "haswell-pkg"
os_tick_hz = 250.0
[topology]
kind = "single-switch"
hosts = 2
[workload]
kind = "flows"
flow = [
  { verb = "write", size = 10, count = 3000, polling = "busy", inline = true },
  { verb = "write", size = 1000, count = 1000, polling = "event" },
  { verb = "write", size = 1048576, polling = "event", background = true },
]
[workload.kv]
requests = 2000
window = 4
server_pipeline = true
"#;

#[test]
fn skipping_idle_events_changes_no_result() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    let mut cases: Vec<(String, String)> = vec![("paced incast".into(), PACED_INCAST.into()), ("mice and kv".into(), MICE_AND_KV.into())];
    for f in ["lossy_write_capture", "read_lat_cx3", "send_lat_switch", "srq_episode", "write_bw_cx4"] {
        cases.push((f.into(), std::fs::read_to_string(format!("{dir}/{f}.toml")).unwrap()));
    }
    for (name, toml) in &cases {
        let skipped = result_without_event_count(toml, true);
        let kept = result_without_event_count(toml, false);
        assert!(skipped == kept, "{name}: results differ with idle events skipped");
    }
}
