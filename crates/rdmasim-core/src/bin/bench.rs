//! `rdmasim-bench [iterations] [fat-tree]`: the simulator's speed on the fixed bench workloads,
//! pure Rust. With `fat-tree`, only the packet-level fat-tree case (for profiling it).
fn main() {
    let mut args = std::env::args().skip(1);
    let n = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let json = match args.next().as_deref() {
        Some("fat-tree") => serde_json::to_string_pretty(&rdmasim_core::bench::fat_tree(n)),
        _ => serde_json::to_string_pretty(&rdmasim_core::bench::run(n)),
    };
    println!("{}", json.unwrap_or_default());
}
