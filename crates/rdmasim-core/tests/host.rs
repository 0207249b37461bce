//! Pins the host model: busy polling burns a core, event mode pays interrupt + wake-up latency
//! and costs CPU per event, which matters for small messages and fades for large ones.
mod common;
use common::*;

fn client_cpu(r: &serde_json::Value) -> f64 {
    f(&table(r, "host_cpu")[0], "cpu_utilization")
}

#[test]
fn busy_polling_burns_a_core_event_mode_does_not() {
    // ib_send_bw: perftest takes -e for SEND and READ tests, not for WRITE ones.
    let busy = run(&perftest("cx4-edr", "ib_send_bw", "size = 1048576\niters = 200", ""));
    assert_eq!(client_cpu(&busy), 1.0);
    let event_large = run(&perftest("cx4-edr", "ib_send_bw", "size = 1048576\niters = 200\nevents = true", ""));
    let event_small = run(&perftest("cx4-edr", "ib_send_bw", "size = 64\niters = 20000\nevents = true", ""));
    let (large, small) = (client_cpu(&event_large), client_cpu(&event_small));
    assert!(large < 0.05, "1 MiB messages: {large}");
    assert!(small > 5.0 * large, "64 B messages should cost far more CPU: {small} vs {large}");
    // Waiting by event does not slow a bulk transfer.
    let bw = |r: &serde_json::Value| f(&table(r, "perftest")[0], "bw_avg_Gbps");
    assert!((bw(&event_large) - bw(&busy)).abs() / bw(&busy) < 0.02);
}

#[test]
fn event_mode_adds_interrupt_and_wakeup_to_latency() {
    let busy = run(&perftest("cx4-edr", "ib_read_lat", "", ""));
    let event = run(&perftest("cx4-edr", "ib_read_lat", "events = true", ""));
    let lat = |r: &serde_json::Value| f(&table(r, "perftest")[0], "t_typical_us");
    // Profile: 2 µs interrupt + 3 µs wake-up; both modes then pay one 30 ns poll.
    let extra = lat(&event) - lat(&busy);
    assert!((extra - 5.0).abs() < 0.01, "event mode added {extra} us");
}

/// A thread's work and its event spans share one core: the handlers of completions it had
/// already polled, run after an interrupt's span was charged, take that span's place instead of
/// being counted beside it. The ib_send_bw -e server at 4 KiB (a completion every 0.35 µs,
/// re-posting each receive) read 105.7 % of its core before.
#[test]
fn work_and_event_spans_never_add_up_to_more_than_the_core() {
    for size in [64, 4096, 65536] {
        let r = run(&perftest("cx4-edr", "ib_send_bw", &format!("size = {size}\niters = 1000\nevents = true"), ""));
        let sim_us = f(&table(&r, "run")[0], "sim_time_us");
        for h in table(&r, "host_cpu") {
            let busy = f(h, "cpu_busy_us");
            assert!(busy <= sim_us + 1e-9, "size {size}: {} busy {busy} us in {sim_us} us", h["node"]);
        }
    }
}
