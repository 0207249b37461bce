//! `rdmasim-bench [iterations]`: the simulator's speed on the fixed bench workload, pure Rust.
/// The allocator of the hot loop (engine/alloc.rs says why).
#[global_allocator]
static ALLOCATOR: rdmasim_core::engine::alloc::Allocator = rdmasim_core::engine::alloc::Allocator;

fn main() {
    let n = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    let r = rdmasim_core::bench::run(n);
    println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
}
