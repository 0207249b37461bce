//! Erroring and degraded links of a generated fabric at packet level (issue #24): a
//! `[[faults]]` entry names a switch-to-switch cable by its ports, corrupts packets at the rate
//! operators read off `SymbolErrorCounter`, the receiving port counts each one, and the RC
//! transport gets every byte through (NAK and go-back-N, or the local ACK timeout when the
//! lost packet is a message's last).
mod common;
use common::qdr_fat_tree::*;
use common::*;
use rdmasim_core::api::Simulation;
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use rdmasim_core::prepare::parse_toml;
use serde_json::Value;

#[test]
fn symbol_errors_on_a_named_switch_port_are_counted_there_and_every_byte_arrives() {
    let base = qdr_fat_tree(&h0_to_h15(1 << 20, 32), "");
    let (a, pa, b, pb) = uplink_of_h0(&fabric_of(&base));
    // 2000 errors/s on a 4x QDR link (32 Gb/s of data): a 4 KiB packet (4122 B on the wire,
    // 1.03 us) is corrupted with probability 2.06e-3.
    let rate = 2000.0;
    let fault = format!("[[faults]]\nlink = \"{a}[{pa}]->{b}[{pb}]\"\nsymbol_errors_per_s = {rate}");
    let r = run(&qdr_fat_tree(&h0_to_h15(1 << 20, 32), &fault));
    assert_eq!(r["stop_reason"], "completed", "{}", r["stop_reason"]);
    let flow = &table(&r, "flows")[0];
    // (a) Every byte is delivered, in order, and every message completed.
    assert_eq!(flow["completed_total"], 32);
    assert_eq!(flow["bytes_in_window"].as_u64().unwrap(), 32 << 20);
    // (b) The receiving port counts each corrupted packet once, as both counters; no other port
    // counts any; and they are the packets the sending port sent that never arrived.
    let (tx, rx) = (port_row(&r, &a, pa), port_row(&r, &b, pb));
    let corrupted = rx["SymbolErrorCounter"].as_u64().unwrap();
    assert_eq!(rx["PortRcvErrors"].as_u64().unwrap(), corrupted);
    assert_eq!(total(&r, "SymbolErrorCounter"), corrupted, "only {b}[{pb}] counts errors");
    assert_eq!(total(&r, "PortRcvErrors"), corrupted);
    let sent = tx["PortXmitPkts"].as_u64().unwrap();
    assert_eq!(sent - rx["PortRcvPkts"].as_u64().unwrap(), corrupted, "{sent} sent");
    // The rate converts to the expected count: sent × 2.06e-3, within four standard deviations.
    let p = rate * 4122.0 * 8.0 / 32e9;
    let (mean, sd) = (sent as f64 * p, (sent as f64 * p * (1.0 - p)).sqrt());
    println!("{a}[{pa}] -> {b}[{pb}] at {rate} errors/s: {corrupted} of {sent} packets corrupted (expected {mean:.1} ± {sd:.1}), {} retransmitted", counter(&r, 0, "retransmitted_packets"));
    assert!((corrupted as f64 - mean).abs() < 4.0 * sd, "{corrupted} corrupted of {sent}, expected {mean:.1} ± {sd:.1}");
    assert!(corrupted >= 5, "the case needs losses: {corrupted}");
    // The transport recovered them by NAK and go-back-N: a retransmission for each loss.
    assert!(counter(&r, 0, "packet_seq_err") > 0);
    assert!(counter(&r, 0, "retransmitted_packets") >= corrupted);
}

#[test]
fn a_lost_last_packet_stalls_its_message_for_the_ack_timeout() {
    // 64 KiB WRITEs are 16 packets; with one message at a time, only h0's data crosses the
    // uplink in this direction, so packet 16 m is message m's last.
    let base = qdr_fat_tree(&h0_to_h15(65536, 20), "");
    let (a, pa, b, pb) = uplink_of_h0(&fabric_of(&base));
    let with_drop = |nth: u64| run(&qdr_fat_tree(&h0_to_h15(65536, 20), &format!("[[faults]]\nlink = \"{a}[{pa}]-{b}[{pb}]\"\ndrop_nth = [{nth}]")));
    let lat = |r: &Value| {
        let row = &table(r, "flows")[0];
        assert_eq!(row["completed_total"], 20, "{}", r["stop_reason"]);
        (f(row, "lat_median_us"), f(row, "lat_max_us"))
    };
    let timeout_us = 4.096 * f64::from(1u32 << 10);
    // The 5th message's last packet: nothing follows it to reveal the gap, so the requester
    // waits for its local ACK timeout (4.096 us × 2^10) and sends it again.
    let tail = with_drop(5 * 16);
    let (median, max) = lat(&tail);
    println!("last packet lost: median {median:.1} us, max {max:.1} us");
    assert_eq!(counter(&tail, 0, "local_ack_timeout_err"), 1);
    assert!(max > median + 0.9 * timeout_us && max < median + timeout_us + 3.0 * median, "timeout outlier: median {median:.1} us, max {max:.1} us");
    // Its 8th packet instead: the next one arrives out of sequence, the responder NAKs and the
    // requester goes back; a round trip, no timeout.
    let middle = with_drop(4 * 16 + 8);
    let (median, max) = lat(&middle);
    println!("middle packet lost: median {median:.1} us, max {max:.1} us");
    assert_eq!(counter(&middle, 0, "local_ack_timeout_err"), 0);
    assert_eq!(counter(&middle, 0, "packet_seq_err"), 1);
    assert!(max < 2.0 * median, "NAK recovery costs about a round trip and the resent packets: median {median:.1} us, max {max:.1} us");
}

#[test]
fn a_pair_across_a_degraded_link_gets_the_degraded_rate() {
    let toml = qdr_fat_tree("kind = \"perftest\"\ntest = \"ib_write_bw\"\nsize = 65536\niters = 500\nclient = 0\nserver = 15", "");
    let mut rf = fabric_of(&toml);
    let (a, pa, _, _) = uplink_of_h0(&rf);
    let g = &rf.graph;
    let up = g.nodes.iter().find(|n| n.name == a).and_then(|n| n.port(pa)).unwrap();
    let link = g.ports[up].link.unwrap();
    // 4x QDR trained down to 1x QDR (8 Gb/s of data) or to 4x SDR (8 Gb/s too, 8b/10b both).
    for speed in [LinkSpeed { gen: LinkGen::Qdr, width: 1 }, LinkSpeed { gen: LinkGen::Sdr, width: 4 }] {
        rf.graph.links[link].speed = speed;
        let mut s = parse_toml(&toml, "<test>").unwrap();
        s.topology.routed = Some(std::sync::Arc::new(rf.clone()));
        let mut sim = Simulation::from_scenario(s, "<test>").expect("builds");
        sim.run();
        let bw = f(&table(&results(&sim), "perftest")[0], "bw_avg_Gbps");
        // 16 packets of 4096 B payload (+ 26 B headers, + 16 B RETH on the first) per message.
        let bound = 8.0 * 65536.0 / (65536.0 + 16.0 * 26.0 + 16.0);
        println!("{speed:?}: {bw:.3} Gb/s (bound {bound:.3})");
        assert!(bw > 0.95 * bound && bw <= bound * 1.0001, "{speed:?}: {bw} Gb/s, bound {bound}");
    }
}

#[test]
fn a_bad_link_name_is_refused_with_what_was_expected() {
    let base = qdr_fat_tree(&h0_to_h15(4096, 1), "");
    let (a, pa, b, _) = uplink_of_h0(&fabric_of(&base));
    let error = |link: &str| {
        let e = parse_toml(&qdr_fat_tree(&h0_to_h15(4096, 1), &format!("[[faults]]\nlink = \"{link}\"\nber = 1e-9")), "<test>").unwrap_err();
        assert_eq!(e.key, "faults[0].link", "{e}");
        e.message
    };
    // A port the switch does not have: the ports it has.
    let m = error(&format!("{a}[99]->{b}"));
    assert!(m.contains("no port \"99\"") && m.contains("1..=4"), "{m}");
    // Two switches with no cable between those ports: the cables of the first end.
    let m = error(&format!("{a}[1]->{b}"));
    assert!(m.contains("no link between") && m.contains(&format!("\"{a}\"[1] -> ")), "{m}");
    // A name that is nobody's.
    let m = error("r9-L1-s0[1]->h0");
    assert!(m.contains("no host, HCA or switch is named \"r9-L1-s0\""), "{m}");
    // A host takes no port number (its HCA does).
    let m = error("h0[1]->h1");
    assert!(m.contains("not the host") && m.contains("h0 "), "{m}");
    // Quoted names, as perfquery-style output prints ports, work too.
    parse_toml(&qdr_fat_tree(&h0_to_h15(4096, 1), &format!("[[faults]]\nlink = '\"{a}\"[{pa}]-{b}'\nber = 1e-9")), "<test>").expect("quoted name");
    let e = parse_toml(&qdr_fat_tree(&h0_to_h15(4096, 1), "[[faults]]\nlink = \"*\"\nber = 1e-9\nsymbol_errors_per_s = 100"), "<test>").unwrap_err();
    assert_eq!(e.key, "faults[0].symbol_errors_per_s", "{e}");
    let e = parse_toml(&qdr_fat_tree(&h0_to_h15(4096, 1), "[[faults]]\nlink = \"*\"\nsymbol_errors_per_s = -1"), "<test>").unwrap_err();
    assert_eq!(e.key, "faults[0].symbol_errors_per_s", "{e}");
}
