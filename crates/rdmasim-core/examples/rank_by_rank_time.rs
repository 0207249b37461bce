//! Times one TSUBAME2.0 Alltoall case run rank by rank: `cargo run --release --example
//! rank_by_rank_time -- NODES ROUTE MODEL` (defaults 1300, updn, step-rates; MODEL fluid is
//! the max-min event loop, none the lockstep rounds alone). The request is the bench's.
use rdmasim_core::apps::rounds::run_json;
use rdmasim_core::bench::alltoall_request;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nodes: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1300);
    let route = args.get(2).cloned().unwrap_or_else(|| "updn".into());
    let model = match args.get(3).map_or("step-rates", |s| s.as_str()) {
        "none" => "",
        m => m,
    };
    let t = std::time::Instant::now();
    let out = run_json(&alltoall_request(nodes, &route, model)).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let c = &v["cases"][0];
    println!("{nodes} {route}: lockstep {:.6} s, rank by rank {} ; {:.2} s wall", c["fluid_s"].as_f64().unwrap(), c["rank_by_rank"], t.elapsed().as_secs_f64());
}
