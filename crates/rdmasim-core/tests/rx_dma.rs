//! The receive buffer's drain through the host's PCIe write path (`rx_dma_drain`, hca/rx_dma.rs):
//! when the write path is slower than the link, a mouse beside an elephant waits for the
//! elephant's buffered bytes to be written, and the elephant runs at the write rate; with the
//! switch off, or a write path faster than the link, that wait disappears.
mod common;
use common::*;
use rdmasim_core::hca::rx_dma::{PcieLink, RxDma};
use serde_json::Value;

/// A 10 B busy-polling mouse (host 0 -> host 1), beside a 1 GB busy-polling elephant when asked.
fn scenario(overrides: &str, elephant: bool) -> String {
    let mut s = format!(
        "[hardware]\nprofile = \"cx4-edr\"\n[hardware.overrides]\n{overrides}\n[workload]\nkind = \"flows\"\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 10\ninline = true\ncount = 1500\npolling = \"busy\"\n"
    );
    if elephant {
        s += "[[workload.flow]]\nverb = \"write\"\nsize = 1073741824\nbackground = true\npolling = \"busy\"\n";
    }
    s
}

fn flows(r: &Value) -> &Vec<Value> {
    table(r, "flows")
}

/// Mouse median alone and beside the elephant, and the elephant's bandwidth.
fn case(overrides: &str) -> (f64, f64, f64) {
    let alone = f(&flows(&run(&scenario(overrides, false)))[0], "lat_median_us");
    let r = run(&scenario(overrides, true));
    (alone, f(&flows(&r)[0], "lat_median_us"), f(&flows(&r)[1], "bw_Gbps"))
}

/// PCIe 3.0 x4 writes ~27 Gb/s of payload: far below EDR's 100 Gb/s.
const SLOW: PcieLink = PcieLink { gen: 3, lanes: 4, mps: 256 };

#[test]
fn a_write_path_slower_than_the_link_queues_the_mouse_behind_the_buffered_elephant() {
    let drain_gbps = SLOW.write_payload_bps() / 1e9;
    let t_pkt = RxDma::new(true, SLOW).write_time(4096).as_us_f64();
    // The 32 KiB receive buffer holds 7 full 4 KiB packets (65 credits of 64 B each out of 512):
    // the mouse's packet enters behind them and waits until they are written.
    let buffered_us = 7.0 * t_pkt;

    let (alone, beside, elephant_gbps) = case("rx_dma_drain = true\npcie_lanes = 4");
    let wait = beside - alone;
    assert!(
        (0.85 * buffered_us..1.15 * buffered_us).contains(&wait),
        "mouse waits {wait:.2} us (alone {alone:.2}, beside {beside:.2}); buffered bytes / drain rate = {buffered_us:.2} us"
    );
    assert!(
        (elephant_gbps - drain_gbps).abs() < 0.03 * drain_gbps,
        "elephant {elephant_gbps:.2} Gb/s, PCIe write rate {drain_gbps:.2} Gb/s"
    );

    // Switch off: the buffer drains at line rate; the mouse waits at most about one elephant
    // packet on the wire (4122 B at 100 Gb/s = 0.33 us) and the elephant fills the link.
    let (alone, beside, elephant_gbps) = case("rx_dma_drain = false\npcie_lanes = 4");
    assert!(beside - alone < 0.5, "switch off: {alone:.2} -> {beside:.2} us");
    assert!(elephant_gbps > 95.0, "switch off: elephant {elephant_gbps:.2} Gb/s");
}

#[test]
fn a_write_path_faster_than_the_link_forms_no_queue() {
    // ConnectX-4's PCIe 3.0 x16 (MPS 256) writes 114 Gb/s, above EDR's 99.4 Gb/s of payload:
    // the buffer never fills. The mouse may still land behind the one elephant packet being
    // written (0.29 us), and the shifted timing may cost it one more packet at the sender's port
    // (4122 B at 100 Gb/s = 0.33 us), but nothing accumulates.
    let x16 = PcieLink { gen: 3, lanes: 16, mps: 256 };
    let bound = RxDma::new(true, x16).write_time(4096).as_us_f64() + 0.33;
    let (_, off, _) = case("rx_dma_drain = false");
    let (_, on, elephant_gbps) = case("rx_dma_drain = true");
    assert!(on - off < bound, "x16: beside the elephant {off:.2} -> {on:.2} us (bound +{bound:.2})");
    assert!(elephant_gbps > 95.0, "x16: elephant {elephant_gbps:.2} Gb/s");
}
