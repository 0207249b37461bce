//! The PM protocol over Ethernet (ether/): D1's arithmetic, reliable in-order delivery under
//! switch loss, trunking's bandwidth over N links, and a relay hop's cost on the hyper-crossbar.
mod common;
use common::pm::{f, pm_run, pm_summary};
use rdmasim_core::ether::framing::{arrival_interval_us, wire_bytes, PmHeader};
use rdmasim_core::ether::host_cost::HostCostConfig;
use rdmasim_core::ether::nic::e1000;
use rdmasim_core::ether::switch_profiles::foundry_fwfx448;

/// seeds/003's design table: packet arrival interval at line rate (µs), by bandwidth (MB/s)
/// and packet size, to the one decimal it prints.
#[test]
fn d1_arrival_intervals_match_the_seed_s_table() {
    let published = [
        (125.0, [12.0, 32.8, 65.5]),
        (250.0, [6.0, 16.4, 32.8]),
        (500.0, [3.0, 8.2, 16.4]),
        (750.0, [2.0, 5.5, 10.9]),
        (1000.0, [1.5, 4.1, 8.2]),
        (1250.0, [1.2, 3.3, 6.6]),
    ];
    for (bw, row) in published {
        for (size, want) in [1500, 4096, 8192].into_iter().zip(row) {
            let got = arrival_interval_us(size, bw);
            // The seed rounds to one decimal, mostly half up, sometimes down (32.768 -> 32.8, 65.536 -> 65.5).
            assert!((got - want).abs() <= 0.05 + 1e-9, "{size} B at {bw} MB/s: {got:.3} us, published {want}");
        }
    }
}

fn scenario(topology: &str, workload: &str, extra: &str) -> String {
    format!("engine = \"pm\"\nseed = 7\n{extra}\n[ethernet]\ntopology = {topology}\n[workload]\n{workload}\n")
}

/// Three hosts send 200 jumbo messages each to a fourth through the Broadcom switch: its
/// output for that host, 128 KiB, overflows (three full windows of 32 packets arrive at once);
/// PM sends the lost packets again and every message arrives whole and in order.
#[test]
fn with_switch_loss_every_byte_arrives_in_order_and_retransmissions_are_counted() {
    let toml = "engine = \"pm\"\nseed = 3\n[ethernet]\nswitch = \"broadcom-12port\"\ntopology = { kind = \"single-switch\", hosts = 4, links = 2 }\n[pm]\npacket_bytes = 8968\n[workload]\nkind = \"incast\"\ndst = 3\nbytes = 8800\ncount = 200\n";
    let r = pm_run(toml);
    let s = pm_summary(&r);
    assert!(f(&s, "switch_drops") > 0.0, "the case must lose packets: {s:?}");
    assert!(f(&s, "retransmitted") >= f(&s, "switch_drops"), "every lost packet is sent again: {s:?}");
    for c in &r.world.chans {
        // 200 messages of 8800 B on every channel, delivered in order (the receive array
        // delivers only the next expected sequence number).
        assert_eq!(c.delivered_msgs, 200, "channel {}->{}", c.src, c.dst);
        assert_eq!(c.delivered_bytes, 200 * 8800);
        assert_eq!(c.rx.expected, c.next_new, "every packet sent was delivered in order");
    }
}

/// One-way bandwidth over N GigE links: each link carries 8192 B of payload per
/// 8192 + 32 (PM header) + 38 (Ethernet framing) bytes of line time, 123.94 MB/s; up to 9
/// links the CPU (2.9 us a packet against 7.4 us between packets) and the PCI-X buses (a dual
/// card's two ports take 248 of its 800 MB/s) keep up.
#[test]
fn trunking_over_n_links_scales_bandwidth_as_the_line_rate_predicts() {
    let per_link = 125.0 * 8192.0 / f64::from(wire_bytes(PmHeader::BYTES + 8192));
    for links in [1u32, 2, 4, 6, 9] {
        let toml = scenario(
            &format!("{{ kind = \"single-switch\", hosts = 2, links = {links} }}"),
            "kind = \"bandwidth\"\nbytes = 1048576\ncount = 32",
            "",
        );
        let s = pm_summary(&pm_run(&toml));
        let want = per_link * f64::from(links);
        let got = f(&s, "host0_send_mb_s");
        // Below the line rate by the pipeline's filling: the first packet crosses two
        // store-and-forward hops (2 x 66 us) before any arrives, 0.5 % of 30 ms on nine links.
        assert!(got <= want && got / want > 0.99, "{links} links: {got:.1} MB/s, predicted {want:.1}");
    }
}

/// A ping-pong to a host one dimension further on the 2x2x2 hyper-crossbar crosses one relay
/// host: its half round trip grows by what the relay costs (NIC write-back, the 5 us
/// interrupt delay, the 1.2 us header rewrite and send, the NIC's fetch) plus one more
/// switch crossing (two minimum frames on the wire and the switch's pipeline).
#[test]
fn a_relay_hop_adds_its_cost_to_the_half_round_trip() {
    let half = |dst: u32| {
        let toml = scenario("{ kind = \"hyperx\", dims = [2, 2, 2], links_per_dim = 2 }", &format!("kind = \"pingpong\"\ndst = {dst}\nbytes = 8\niters = 50"), "");
        let r = pm_run(&toml);
        let s = pm_summary(&r);
        (f(&s, "half_rtt_us"), f(&s, "relay_packets"), f(&s, "relay_cpu_us"))
    };
    let (one_d, relays0, _) = half(1);
    let (two_d, relays1, relay_cpu) = half(3);
    assert_eq!(relays0, 0.0);
    let nic = e1000();
    let frame = wire_bytes(PmHeader::BYTES + 8);
    let dma = frame - 24;
    let cost = HostCostConfig::default().costs(6, 8192);
    let wire_us = f64::from(frame) * 8e-3; // 1 Gb/s: 8 ns a byte
    let predicted = (nic.bus_time(dma) + nic.rx_writeback + nic.irq_delay + cost.relay + nic.tx_start + nic.bus_time(dma)).as_us_f64()
        + 2.0 * wire_us
        + foundry_fwfx448().latency.as_us_f64()
        + 2.0 * 0.010; // two 2 m cables
    let added = two_d - one_d;
    assert!((added - predicted).abs() < 0.05, "the relay added {added:.3} us, predicted {predicted:.3}");
    // 50 round trips: 100 data packets and their acknowledgements relayed once each, but for
    // the last acknowledgement, still on its way when the last reply arrives and the run ends.
    assert_eq!(relays1, 199.0);
    assert!((relay_cpu - 199.0 * cost.relay.as_us_f64()).abs() < 1e-6);
}

/// PACS-CS itself (16 x 16 x 10 hosts, 2 GigE links a dimension, 576 crossbar switches): a
/// ping-pong between opposite corners relays twice each way (X, then Y, then Z) and takes the
/// same half round trip as across three dimensions of the 2 x 2 x 2 example: only the
/// number of dimensions crossed matters on a hyper-crossbar.
#[test]
fn pacs_cs_16x16x10_relays_twice_across_three_dimensions() {
    let half = |dims: &str, dst: u32| {
        let toml = scenario(&format!("{{ kind = \"hyperx\", dims = {dims}, links_per_dim = 2 }}"), &format!("kind = \"pingpong\"\ndst = {dst}\nbytes = 8\niters = 20"), "");
        let r = pm_run(&toml);
        assert_eq!(r.world.switches.len(), if dst == 7 { 12 } else { 16 * 10 + 16 * 10 + 16 * 16 });
        let s = pm_summary(&r);
        (f(&s, "half_rtt_us"), f(&s, "relay_packets"))
    };
    let (pacs, relays) = half("[16, 16, 10]", 2559);
    let (small, _) = half("[2, 2, 2]", 7);
    assert!((pacs - small).abs() < 1e-6, "{pacs} against {small}");
    // 40 data packets and 39 acknowledgements (the last one is in flight at the end), twice each.
    assert_eq!(relays, 2.0 * 79.0);
}
