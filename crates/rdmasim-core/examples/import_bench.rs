//! The import case of `rdmasim bench` alone: a 4096-host, 1536-switch ibnetdiscover dump read,
//! routed and summarised (best of 3). `cargo run --release --example import_bench`.
fn main() {
    let r = rdmasim_core::bench::import(3);
    println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
}
