//! The ninth NIC on its own bus (`[nic] onboard_bus_mb_s`, ether/host_buses.rs): seeds/003's
//! node had four dual cards on PCI-X and an onboard E1000 whose bus is unknown.
mod common;
use common::pm::{f, pm_run, pm_summary};
use rdmasim_core::ether::framing::{wire_bytes, PmHeader};

/// One-way bandwidth, 1 MiB messages, over `links` links with the onboard bus at `bus` MB/s
/// and `extra` in `[pm]`.
fn one_way(links: u32, bus: f64, pm: &str) -> f64 {
    let toml = format!("engine = \"pm\"\n[ethernet]\ntopology = {{ kind = \"single-switch\", hosts = 2, links = {links} }}\n[pm]\n{pm}\n[nic]\nonboard_bus_mb_s = {bus:?}\n[workload]\nkind = \"bandwidth\"\nbytes = 1048576\ncount = 32\n");
    f(&pm_summary(&pm_run(&toml)), "host0_send_mb_s")
}

/// Trunking is round-robin, so the onboard lane's bus holds every lane to its pace: nine
/// links carry nine times what 100 MB/s of bus moves of payload (8192 B of every 8238 B the
/// NIC fetches), less the pipeline's filling. A window of 64 keeps the window out of it; eight
/// links (no onboard NIC) do not see the key, and 800 MB/s (the default) leaves the line the
/// limit.
#[test]
fn the_onboard_bus_paces_the_ninth_lane_and_round_robin_holds_every_lane_to_it() {
    let dma = f64::from(wire_bytes(PmHeader::BYTES + 8192) - 24);
    let want = 9.0 * 100.0 * 8192.0 / dma;
    let got = one_way(9, 100.0, "window = 64");
    assert!(got <= want && got / want > 0.98, "9 links, onboard bus 100 MB/s: {got:.1} MB/s, predicted {want:.1}");
    assert_eq!(one_way(8, 100.0, ""), one_way(8, 800.0, ""));
    let line = 9.0 * 125.0 * 8192.0 / f64::from(wire_bytes(PmHeader::BYTES + 8192));
    let fast = one_way(9, 800.0, "");
    assert!(fast <= line && fast / line > 0.99, "{fast:.1} against the line's {line:.1}");
}

/// With the default window of 32, a slow onboard bus costs more than its rate: the NIC fetches
/// a frame whole before sending it and the receiving NIC writes it whole, so at 125 MB/s that
/// lane's packets take about 110 µs longer, and 32 packets no longer cover nine lanes' round
/// trip (docs/pm.md, D2).
#[test]
fn a_slow_onboard_bus_makes_a_window_of_32_the_limit() {
    let w32 = one_way(9, 125.0, "");
    let w64 = one_way(9, 125.0, "window = 64");
    assert!(w32 < 0.85 * w64, "window 32: {w32:.1}, window 64: {w64:.1}");
}

#[test]
fn a_bad_onboard_bus_is_refused_naming_the_key() {
    let toml = "engine = \"pm\"\n[ethernet]\ntopology = { kind = \"single-switch\", hosts = 2, links = 9 }\n[nic]\nonboard_bus_mb_s = 0.0\n[workload]\nkind = \"bandwidth\"\nbytes = 1024\ncount = 1\n";
    let e = rdmasim_core::api::Simulation::from_toml(toml, "pm.toml").err().expect("refused").to_string();
    assert!(e.contains("nic.onboard_bus_mb_s") && e.contains("pm.toml:5"), "{e}");
    let e = rdmasim_core::api::Simulation::from_toml(&toml.replace("onboard_bus_mb_s = 0.0", "onboard_bus = 100.0"), "pm.toml").err().expect("refused").to_string();
    assert!(e.contains("nic.onboard_bus"), "{e}");
}
