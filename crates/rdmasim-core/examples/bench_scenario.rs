//! Prints the scenario file of `rdmasim bench`'s fat-tree permutation on `k`-port switches
//! (`bench::fat_tree_scenario_k`; default k = 32, 8192 hosts), so the same workload can be run
//! through the CLI (`rdmasim run`) and what lies outside the simulation timed there
//! (docs/bench.md, "Results at 8192 hosts").
//!
//! `cargo run --release --example bench_scenario -- 32 > k32.toml`
fn main() {
    let k = std::env::args().nth(1).map_or(Ok(32), |a| a.parse::<usize>()).expect("k: an even number of switch ports");
    print!("{}", rdmasim_core::bench::fat_tree_scenario_k(k));
}
