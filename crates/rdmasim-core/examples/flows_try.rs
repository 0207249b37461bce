use rdmasim_core::api::Simulation;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut sim = Simulation::from_toml(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    let t0 = std::time::Instant::now();
    sim.run();
    let r = sim.result();
    let el = t0.elapsed().as_secs_f64();
    eprintln!("{} events in {:.2}s = {:.1} M ev/s, stop={}", r.events, el, r.events as f64 / el / 1e6, r.stop_reason);
    for k in ["flows", "kv", "host_cpu"] {
        if let Some(rows) = r.tables.get(k) {
            for row in rows { println!("{k}: {}", serde_json::to_string(row).unwrap()); }
        }
    }
}
