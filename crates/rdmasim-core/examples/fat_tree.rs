//! Runs the fat-tree bench workload once (`rdmasim bench`'s permutation,
//! `bench::fat_tree_scenario_k`; k = 16 unless the first argument gives another k) and prints
//! its event count, packet-hops, wall time, simulated end time and resident memory after the
//! build and after the run: the run alone, without the rest of the bench, for `perf stat` or
//! cachegrind.
//!
//! `cargo build --release --example fat_tree && target/release/examples/fat_tree [k]`, or under
//! `valgrind --tool=cachegrind` for its instructions (deterministic, unlike wall time).
use rdmasim_core::run::Engine as _;
use rdmasim_core::sim::Simulation;

/// Resident memory now, MiB (Linux; 0 elsewhere).
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok()).map_or(0.0, |kb| kb / 1024.0)
}

/// The allocator of the hot loop (engine/alloc.rs says why).
#[global_allocator]
static ALLOCATOR: rdmasim_core::engine::alloc::Allocator = rdmasim_core::engine::alloc::Allocator;

fn main() {
    let k = std::env::args().nth(1).map_or(16, |a| a.parse().expect("the argument is the fat tree's k, a number"));
    let text = rdmasim_core::bench::fat_tree_scenario_k(k);
    let mut sim = Simulation::from_toml(&text, "<bench fat tree>").expect("the fat-tree bench scenario is valid");
    drop(text);
    eprintln!("built: {:.1} MiB resident", rss_mib());
    let t0 = std::time::Instant::now();
    sim.run();
    let secs = t0.elapsed().as_secs_f64();
    eprintln!("ran: {:.1} MiB resident", rss_mib());
    let r = sim.result();
    eprintln!("result: {:.1} MiB resident", rss_mib());
    let hops = sim.world.net.packet_hops();
    eprintln!(
        "{} events in {secs:.3} s = {:.2} M packet-hops/s ({hops} packet-hops), sim time {:.4} us, stop: {}",
        r.events,
        hops as f64 / secs / 1e6,
        r.sim_time_us,
        r.stop_reason
    );
}
