//! `rdmasim-bench [iterations]`: the simulator's speed on the fixed bench workload, pure Rust.
fn main() {
    let n = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    let r = rdmasim_core::bench::run(n);
    println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
}
