//! Runs a scenario file from pure Rust and prints the event rate, then the `flows` / `kv` /
//! `host_cpu` tables as JSON lines: how the run times in docs/isolation.md were measured.
//!
//! `cargo run --release --example event_rate -- scenarios/mouse_vs_elephant.toml`
use rdmasim_core::api::Simulation;

/// The allocator of the hot loop (engine/alloc.rs says why).
#[global_allocator]
static ALLOCATOR: rdmasim_core::engine::alloc::Allocator = rdmasim_core::engine::alloc::Allocator;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: event_rate <scenario.toml>");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let mut sim = match Simulation::from_toml(&text, &path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let t0 = std::time::Instant::now();
    sim.run();
    let secs = t0.elapsed().as_secs_f64();
    let r = sim.result();
    eprintln!("{} events in {secs:.2} s = {:.1} M events/s, stop: {}", r.events, r.events as f64 / secs / 1e6, r.stop_reason);
    for k in ["flows", "kv", "host_cpu"] {
        for row in r.rows(k) {
            println!("{k}: {}", serde_json::to_string(&row).unwrap_or_default());
        }
    }
}
