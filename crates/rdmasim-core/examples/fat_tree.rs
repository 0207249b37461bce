//! Runs the fat-tree bench workload once (`rdmasim bench`'s k = 16 permutation,
//! `bench::fat_tree_scenario`) and prints its event count, packet-hops, wall time and simulated
//! end time: the run alone, without the rest of the bench, for `perf stat` or cachegrind.
//!
//! `cargo build --release --example fat_tree && target/release/examples/fat_tree`, or under
//! `valgrind --tool=cachegrind` for its instructions (deterministic, unlike wall time).
use rdmasim_core::run::Engine as _;
use rdmasim_core::sim::Simulation;

fn main() {
    let text = rdmasim_core::bench::fat_tree_scenario();
    let mut sim = Simulation::from_toml(&text, "<bench fat tree>").expect("the fat-tree bench scenario is valid");
    let t0 = std::time::Instant::now();
    sim.run();
    let secs = t0.elapsed().as_secs_f64();
    let r = sim.result();
    let hops = sim.world.net.packet_hops();
    eprintln!(
        "{} events in {secs:.3} s = {:.2} M packet-hops/s ({hops} packet-hops), sim time {:.4} us, stop: {}",
        r.events,
        hops as f64 / secs / 1e6,
        r.sim_time_us,
        r.stop_reason
    );
}
