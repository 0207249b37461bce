//! `rdmasim bench`: simulated events per second, packet-hops per second and wall time on a fixed,
//! documented workload, so the simulator's speed is measured the same way on every machine.
//!
//! The workload (`BENCH_SCENARIO`): ib_write_bw, 4 KiB messages (one packet each), 8 QPs,
//! 40000 iterations each, tx_depth 128, two cx4-edr hosts through one switch (every packet takes
//! two hops), with a 1e-4 loss rate on the data path so the recovery paths run too. A second
//! workload (`MANY_QPS_SCENARIO`) times the send engine with 4096 QPs.
use crate::api::Simulation;
use serde::Serialize;
use std::time::Instant;

pub const BENCH_SCENARIO: &str = r#"
name = "bench: ib_write_bw 4 KiB x 8 QPs through one switch, 1e-4 loss"
seed = 7
[hardware]
profile = "cx4-edr"
[topology]
kind = "single-switch"
hosts = 2
[workload]
kind = "perftest"
test = "ib_write_bw"
size = 4096
qps = 8
iters = 40000
[[faults]]
link = "h0->sw0"
loss_rate = 1e-4
"#;

/// The second workload (`MANY_QPS_SCENARIO`): 4096 QPs of 64 B WRITEs, whose WQEs wait for
/// their fetch, stopped after 100 000 events: the send engine's walk over its listed QPs
/// (docs/model.md, limitations).
pub const MANY_QPS_SCENARIO: &str = r#"
name = "bench: ib_write_bw 64 B x 4096 QPs, first 100k events"
[hardware]
profile = "cx4-edr"
[workload]
kind = "perftest"
test = "ib_write_bw"
size = 64
qps = 4096
iters = 100
[limits]
max_events = 100000
"#;

#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub workload: &'static str,
    pub events: u64,
    pub packet_hops: u64,
    pub wall_s: f64,
    pub events_per_sec: f64,
    pub packet_hops_per_sec: f64,
    pub sim_time_us: f64,
    pub iterations: u32,
    pub many_qps_workload: &'static str,
    pub many_qps_events: u64,
    pub many_qps_wall_s: f64,
    pub many_qps_events_per_sec: f64,
}

/// Best wall time of `iterations` runs of `scenario`, and its event count.
fn best_wall(scenario: &str, iterations: u32) -> (f64, u64) {
    let mut best = (f64::INFINITY, 0);
    for _ in 0..iterations.max(1) {
        let mut sim = Simulation::from_toml(scenario, "<bench>").expect("the bench scenario is valid");
        let t0 = Instant::now();
        sim.run();
        let wall = t0.elapsed().as_secs_f64();
        if wall < best.0 {
            best = (wall, sim.result().events);
        }
    }
    best
}

/// Runs the bench workload `iterations` times (at least once) and reports the best run.
pub fn run(iterations: u32) -> BenchReport {
    let (many_wall, many_events) = best_wall(MANY_QPS_SCENARIO, iterations);
    let mut best: Option<BenchReport> = None;
    for _ in 0..iterations.max(1) {
        let mut sim = Simulation::from_toml(BENCH_SCENARIO, "<bench>").expect("the bench scenario is valid");
        let t0 = Instant::now();
        sim.run();
        let wall = t0.elapsed().as_secs_f64();
        let r = sim.result();
        let hops = sim.world.packet_hops;
        let rep = BenchReport {
            workload: "ib_write_bw 4 KiB, 8 QPs x 40000 iters, cx4-edr, 2 hosts via 1 switch, 1e-4 loss on h0->sw0",
            events: r.events,
            packet_hops: hops,
            wall_s: wall,
            events_per_sec: r.events as f64 / wall,
            packet_hops_per_sec: hops as f64 / wall,
            sim_time_us: r.sim_time_us,
            iterations: iterations.max(1),
            many_qps_workload: "ib_write_bw 64 B, 4096 QPs x 100 iters, cx4-edr back to back, first 100000 events",
            many_qps_events: many_events,
            many_qps_wall_s: many_wall,
            many_qps_events_per_sec: many_events as f64 / many_wall,
        };
        if best.as_ref().map(|b| rep.wall_s < b.wall_s).unwrap_or(true) {
            best = Some(rep);
        }
    }
    best.expect("at least one run")
}

/// JSON entry point for the binding: `{"iterations": n}`.
pub fn run_json(options: &str) -> String {
    let n = serde_json::from_str::<serde_json::Value>(options).ok().and_then(|v| v["iterations"].as_u64()).unwrap_or(3) as u32;
    serde_json::to_string(&run(n)).unwrap_or_default()
}
