//! `rdmasim doctor`'s input side: the real tools' output of a generated fabric with planted
//! faults (tests/data/doctor/README.md) is read, and exactly the planted links are suspects.
mod common;
use rdmasim_core::fabric::build::{single_rail, KAryNTree};
use rdmasim_core::fabric::graph::FabricGraph;
use rdmasim_core::fabric::io::port_counters::{Counter, NodeAddr, PortSelect};
use rdmasim_core::apps::doctor::{diagnose, CounterSnapshot, Coverage, Evidence, Observations, Report, Severity, Thresholds};
use rdmasim_core::fabric::io::notes::Notes;
use rdmasim_core::fabric::io::{iblinkinfo, ibnetdiscover, ibqueryerrors, ibsim_net, perfquery, ImportOptions, IoError};
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/doctor").join(name)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap()
}

/// The fabric as designed: a 4-ary 2-tree at 4x QDR (16 hosts, 8 switches of 8 ports).
fn designed() -> FabricGraph {
    let tree = KAryNTree { k: 4, n: 2, speed: LinkSpeed { gen: LinkGen::Qdr, width: 4 }, cable_m: 2.0 };
    single_rail(&tree.to_xgft().unwrap()).unwrap()
}

/// The links planted as degraded, by their switch end and the speed they train to (the net
/// file makes both ends enable only that, so ibsim trains them there).
const DEGRADED: [(&str, u16, LinkSpeed); 3] = [
    ("r0-L1-s1", 6, LinkSpeed { gen: LinkGen::Qdr, width: 1 }),
    ("r0-L1-s2", 3, LinkSpeed { gen: LinkGen::Sdr, width: 4 }),
    ("r0-L1-s3", 8, LinkSpeed { gen: LinkGen::Ddr, width: 4 }),
];

/// The designed fabric with the degraded links planted: what ibsim simulates (fabric.net).
fn planted() -> FabricGraph {
    let mut g = designed();
    for (name, port, speed) in DEGRADED {
        let link = port_named(&g, name, port).and_then(|p| g.ports[p].link).unwrap();
        g.links[link].speed = speed;
    }
    g
}

fn port_named(g: &FabricGraph, name: &str, port: u16) -> Option<rdmasim_core::ids::PortId> {
    g.nodes.iter().find(|n| n.name == name)?.port(port)
}

#[test]
fn the_fixture_net_file_is_the_generated_fabric_with_its_planted_links() {
    let text = ibsim_net::write(&planted()).unwrap();
    if let Some(out) = std::env::var_os("RDMASIM_DOCTOR_NET") {
        std::fs::write(out, &text).unwrap();
    }
    assert_eq!(std::fs::read_to_string(data("fabric.net")).unwrap_or_default(), text, "regenerate with tests/data/doctor/regen.sh");
}

#[test]
fn real_iblinkinfo_output_parses_in_both_layouts() {
    for name in ["iblinkinfo.txt", "iblinkinfo-l.txt"] {
        let ports = iblinkinfo::read(&fixture(name), name, &mut Notes::default()).unwrap();
        // 16 one-port HCAs, 4 leaves of 8 ports, 4 spines of 4: every port, up or not.
        assert_eq!(ports.len(), 16 + 4 * 8 + 4 * 4, "{name}");
        let up: Vec<_> = ports.iter().filter(|p| p.active.is_some()).collect();
        assert_eq!(up.len(), 64, "{name}: both ends of 32 links");
        assert!(up.iter().all(|p| p.state == "Active" && p.phys_state == "LinkUp" && p.peer.is_some() && p.guid.is_some()));
        let one_x = ports.iter().find(|p| p.node_name == "r0-L1-s1" && p.port == 6).unwrap();
        assert_eq!(one_x.active, Some(LinkSpeed { gen: LinkGen::Qdr, width: 1 }));
        assert_eq!(one_x.peer.as_ref().map(|p| (p.name.as_str(), p.lid, p.port)), Some(("r0-L2-s1", 22, 2)));
        assert_eq!(one_x.could_be.width, Some(12), "ibsim says every port supports 12x");
        let sdr = ports.iter().find(|p| p.node_name == "h10 mlx4_0").unwrap();
        assert_eq!(sdr.active, Some(LinkSpeed { gen: LinkGen::Sdr, width: 4 }));
        assert_eq!((sdr.guid, sdr.lid, sdr.could_be.gen), (Some(0x0002c90300000a01), 11, Some(LinkGen::Qdr)));
        assert_eq!(sdr.peer.as_ref().unwrap().guid.is_some(), name == "iblinkinfo-l.txt");
    }
}

#[test]
fn real_ibqueryerrors_output_parses() {
    let before = ibqueryerrors::read(&fixture("ibqueryerrors-before.txt"), "before", &mut Notes::default()).unwrap();
    assert_eq!(before.len(), 6, "4 ports, and a port ALL line for each of the 2 switches");
    let after = ibqueryerrors::read(&fixture("ibqueryerrors-after.txt"), "after", &mut Notes::default()).unwrap();
    let h5 = after.iter().find(|r| r.node == NodeAddr::Guid(0x2c90300000501)).unwrap();
    assert_eq!(h5.port, PortSelect::Port(1));
    assert_eq!(h5.counters.get(&Counter::PortRcvErrors), Some(&350));
    assert_eq!(h5.counters.get(&Counter::SymbolErrorCounter), Some(&900));
    assert_eq!(after.iter().filter(|r| r.port == PortSelect::All).count(), 4);
    let data = ibqueryerrors::read(&fixture("ibqueryerrors-data-r.txt"), "data", &mut Notes::default()).unwrap();
    assert!(data.iter().all(|r| r.counters.contains_key(&Counter::PortXmitData)));
}

#[test]
fn real_perfquery_output_parses() {
    for name in ["perfquery-before.txt", "perfquery-after.txt"] {
        let blocks = perfquery::read(&fixture(name), name, &mut Notes::default()).unwrap();
        assert_eq!(blocks.len(), 64, "{name}");
        assert!(blocks.iter().all(|b| !b.extended && b.counters.len() == 18));
    }
    let after = perfquery::read(&fixture("perfquery-after.txt"), "after", &mut Notes::default()).unwrap();
    let e1 = after.iter().find(|b| b.node == NodeAddr::Lid(21) && b.port == PortSelect::Port(1)).unwrap();
    assert_eq!(e1.counters[&Counter::SymbolErrorCounter], 60000);
    let x = perfquery::read(&fixture("perfquery-x.txt"), "x", &mut Notes::default()).unwrap();
    assert!(x[0].extended && x[0].counters.contains_key(&Counter::PortXmitData));
    let all = perfquery::read(&fixture("perfquery-a.txt"), "a", &mut Notes::default()).unwrap();
    assert_eq!(all.iter().map(|b| (b.port, b.extended)).collect::<Vec<_>>(), [(PortSelect::All, false), (PortSelect::All, true)]);
}

/// The interval the two snapshots stand for (tests/data/doctor/README.md).
const INTERVAL_S: f64 = 600.0;

/// Every planted link, as its two ends `"name"[port]` sorted, in the order the doctor should
/// rank them: high severity first (1x of 4x and SDR of QDR lose 24 of 32 Gb/s each, then the
/// bad lane at BER 2.5e-9, then the flapping link), then medium (DDR of QDR loses 16 Gb/s,
/// then the link with corrupt packets).
const PLANTED: [[&str; 2]; 6] = [
    ["\"r0-L1-s1\"[6]", "\"r0-L2-s1\"[2]"],
    ["\"h10 mlx4_0\"[1]", "\"r0-L1-s2\"[3]"],
    ["\"r0-L1-s0\"[5]", "\"r0-L2-s0\"[1]"],
    ["\"r0-L1-s3\"[5]", "\"r0-L2-s0\"[4]"],
    ["\"r0-L1-s3\"[8]", "\"r0-L2-s3\"[4]"],
    ["\"h5 mlx4_0\"[1]", "\"r0-L1-s1\"[2]"],
];

fn sorted_ends(ends: &[String; 2]) -> [String; 2] {
    let mut e = ends.clone();
    e.sort();
    e
}

/// A snapshot from a fixture, its format told by its content.
fn snapshot(g: &FabricGraph, name: &str, at: f64) -> Result<CounterSnapshot, IoError> {
    let s = CounterSnapshot::read(g, &fixture(name), name, at, &mut Notes::default())?;
    let expected = if name.starts_with("perfquery") { Coverage::Listed } else { Coverage::NonZeroOnly };
    assert_eq!(s.coverage, expected, "{name}");
    Ok(s)
}

fn doctor(g: &FabricGraph, links: &str, before: Option<&str>, after: Option<&str>) -> Report {
    let ports = iblinkinfo::read(&fixture(links), links, &mut Notes::default()).unwrap();
    let before = before.map(|b| snapshot(g, b, 0.0).unwrap());
    let after = after.map(|a| snapshot(g, a, INTERVAL_S).unwrap());
    let obs = Observations { graph: g, links: Some((&ports, links)), before: before.as_ref(), after: after.as_ref(), trust_could_be: false };
    diagnose(&obs, &Thresholds::default()).unwrap()
}

#[test]
fn every_planted_link_is_found_no_healthy_one_and_they_rank_by_severity_then_loss() {
    let g = designed();
    for links in ["iblinkinfo.txt", "iblinkinfo-l.txt"] {
        for (before, after) in [("perfquery-before.txt", "perfquery-after.txt"), ("ibqueryerrors-before.txt", "ibqueryerrors-after.txt")] {
            let report = doctor(&g, links, Some(before), Some(after));
            let found: Vec<[String; 2]> = report.suspects.iter().map(|s| sorted_ends(&s.ends)).collect();
            let planted: Vec<[String; 2]> = PLANTED.iter().map(|p| p.map(String::from)).collect();
            assert_eq!(found, planted, "{links}, {after}:\n{}", report.table());
            let severities: Vec<Severity> = report.suspects.iter().map(|s| s.severity).collect();
            assert_eq!(severities, [Severity::High, Severity::High, Severity::High, Severity::High, Severity::Medium, Severity::Medium]);
            assert_eq!(report.interval_s, Some(INTERVAL_S));
            assert_eq!(report.links_checked, 32);
        }
    }
}

#[test]
fn the_evidence_names_counters_deltas_rates_and_speeds() {
    let report = doctor(&designed(), "iblinkinfo.txt", Some("perfquery-before.txt"), Some("perfquery-after.txt"));
    let json = serde_json::to_value(&report).unwrap();
    let s = &json["suspects"];
    assert_eq!(s[0]["label"], "\"r0-L1-s1\"[6] <-> \"r0-L2-s1\"[2]");
    assert_eq!(s[0]["evidence"][0]["kind"], "degraded");
    assert_eq!(s[0]["evidence"][0]["active"], "1X QDR");
    assert_eq!(s[0]["evidence"][0]["expected"], "4X QDR");
    assert_eq!(s[1]["label"], "\"r0-L1-s2\"[3] <-> \"h10 mlx4_0\"[1]", "the switch end first");
    let e1 = &s[2]["evidence"][0];
    assert_eq!((e1["counter"].as_str(), e1["delta"].as_u64(), e1["port"].as_str()), (Some("SymbolErrorCounter"), Some(60000), Some("\"r0-L2-s0\"[1]")));
    assert!((e1["per_second"].as_f64().unwrap() - 100.0).abs() < 1e-9);
    assert!((e1["ber"].as_f64().unwrap() - 2.5e-9).abs() < 1e-15, "60000 errors in 600 s of 40 Gbaud");
    let e3: Vec<_> = s[3]["evidence"].as_array().unwrap().iter().map(|e| (e["counter"].as_str().unwrap(), e["delta"].as_u64().unwrap())).collect();
    assert_eq!(e3, [("LinkErrorRecoveryCounter", 6), ("LinkDownedCounter", 2)]);
    let e2: Vec<_> = s[5]["evidence"].as_array().unwrap().iter().map(|e| (e["counter"].as_str().unwrap(), e["delta"].as_u64().unwrap(), e["severity"].as_str().unwrap())).collect();
    assert_eq!(e2, [("SymbolErrorCounter", 900, "medium"), ("PortRcvErrors", 348, "medium")]);
    let table = report.table();
    assert!(table.starts_with("6 suspect link(s) of 32 (counters over 600 s)"), "{table}");
    assert!(table.contains("SymbolErrorCounter +60000 in 600 s (100.000/s), BER 2.5e-9"), "{table}");
}

#[test]
fn one_snapshot_flags_lifetime_counts_low_and_so_cannot_tell_old_errors_from_new() {
    let report = doctor(&designed(), "iblinkinfo.txt", None, Some("ibqueryerrors-after.txt"));
    let mut low: Vec<[String; 2]> = report.suspects.iter().filter(|s| s.severity == Severity::Low).map(|s| sorted_ends(&s.ends)).collect();
    low.sort();
    // The healthy link with 5000 old symbol errors, the bad lane, the link with corrupt
    // packets; the flapping link's 7 retrains and 2 downs are within the suggested 10.
    assert_eq!(low, [["\"h0 mlx4_0\"[1]", "\"r0-L1-s0\"[1]"], ["\"h5 mlx4_0\"[1]", "\"r0-L1-s1\"[2]"], ["\"r0-L1-s0\"[5]", "\"r0-L2-s0\"[1]"]].map(|p| p.map(String::from)));
    assert!(report.table().contains("since last clear"));
}

#[test]
fn without_iblinkinfo_the_topology_speeds_are_judged() {
    let g = planted();
    let obs = Observations { graph: &g, links: None, before: None, after: None, trust_could_be: false };
    let report = diagnose(&obs, &Thresholds::default()).unwrap();
    assert_eq!(report.suspects.len(), 3, "{}", report.table());
    // The designed fabric is healthy.
    let d = designed();
    let report = diagnose(&Observations { graph: &d, links: None, before: None, after: None, trust_could_be: false }, &Thresholds::default()).unwrap();
    assert!(report.suspects.is_empty());
}

#[test]
fn from_the_fabric_as_discovered_a_one_port_hca_trained_down_cannot_be_told() {
    // An operator without the design: the topology is ibnetdiscover's, where a node supports
    // the best of its links. h10's only link runs SDR, so nothing says it could run QDR.
    let g = ibnetdiscover::read(&fixture("ibnetdiscover.txt"), "ibnetdiscover.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    let report = doctor(&g, "iblinkinfo.txt", Some("ibqueryerrors-before.txt"), Some("ibqueryerrors-after.txt"));
    let found: Vec<[String; 2]> = report.suspects.iter().map(|s| sorted_ends(&s.ends)).collect();
    let planted_but_h10: Vec<[String; 2]> = PLANTED.iter().filter(|p| !p[0].contains("h10")).map(|p| p.map(String::from)).collect();
    assert_eq!(found, planted_but_h10, "{}", report.table());
}

#[test]
fn over_ibsim_could_be_says_every_link_is_degraded_so_it_is_not_trusted_by_default() {
    let g = designed();
    let ports = iblinkinfo::read(&fixture("iblinkinfo.txt"), "l", &mut Notes::default()).unwrap();
    let obs = Observations { graph: &g, links: Some((&ports, "l")), before: None, after: None, trust_could_be: true };
    let report = diagnose(&obs, &Thresholds::default()).unwrap();
    assert_eq!(report.suspects.len(), 32, "ibsim: every port could be 12X");
    assert!(report.suspects.iter().all(|s| matches!(&s.evidence[0], Evidence::Degraded { expected, .. } if expected.starts_with("12X"))));
}

fn err<T: std::fmt::Debug>(r: Result<T, IoError>) -> String {
    r.expect_err("expected an error").to_string()
}

/// `text` cut after its first `n` lines.
fn first_lines(text: &str, n: usize) -> String {
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}

#[test]
fn cut_files_keep_what_they_have_and_say_so() {
    // perfquery cut inside its second block (blocks are 22 lines): both blocks are kept, the
    // second with the counters it has, and the cut is noted at its header.
    let cut = first_lines(&fixture("perfquery-after.txt"), 22 + 5);
    let mut notes = Notes::default();
    let r = perfquery::read(&cut, "perfquery-after.txt", &mut notes).unwrap();
    assert_eq!((r.len(), r[1].counters.len()), (2, 2));
    assert_eq!(notes.items[0].to_string(), "perfquery-after.txt: 1 × counter blocks cut short (missing counters perfquery always prints), kept with what they have (line 23)");
    // ibqueryerrors without its summary: its port lines, and a note.
    let cut = first_lines(&fixture("ibqueryerrors-after.txt"), 6);
    let mut notes = Notes::default();
    assert!(!ibqueryerrors::read(&cut, "q.txt", &mut notes).unwrap().is_empty());
    assert_eq!(notes.count(ibqueryerrors::NO_SUMMARY), 1);
    // iblinkinfo cut in the middle of a port line.
    let text = fixture("iblinkinfo.txt");
    let cut = &text[..text.find("==>").unwrap()];
    let e = err(iblinkinfo::read(cut, "l.txt", &mut Notes::default()));
    assert!(e.starts_with("l.txt:2: expected )==> after the link"), "{e}");
}

#[test]
fn wrong_guids_and_ports_outside_the_topology_are_named_errors() {
    let g = designed();
    // ibqueryerrors naming a GUID the topology does not have.
    let text = fixture("ibqueryerrors-after.txt").replace("0x2c90300000501", "0x2c90300000599");
    let records = ibqueryerrors::read(&text, "q.txt", &mut Notes::default()).unwrap();
    let e = err(CounterSnapshot::from_records(&g, &records, "q.txt", 0.0, Coverage::NonZeroOnly));
    assert_eq!(e, "q.txt:4: GUID 0x0002c90300000599 port 1: no node or port of the topology has GUID 0x0002c90300000599");
    // perfquery of a LID no node has, and of a port a spine (4 ports) does not have.
    for (from, to, expected) in [
        ("Lid 16 port 1", "Lid 99 port 1", "p.txt:1: LID 99 port 1: no switch or CA port of the topology has LID 99"),
        ("Lid 16 port 1", "Lid 21 port 7", "p.txt:1: LID 21 is \"r0-L2-s0\", which has ports 1..=4, not 7"),
        ("Lid 16 port 1", "Lid 16 port 2", "p.txt:1: LID 16 is \"h15 mlx4_0\"[1], not port 2 of \"h15 mlx4_0\""),
    ] {
        let text = fixture("perfquery-after.txt").replacen(from, to, 1);
        let records = perfquery::read(&text, "p.txt", &mut Notes::default()).unwrap();
        assert_eq!(err(CounterSnapshot::from_records(&g, &records, "p.txt", 0.0, Coverage::Listed)), expected);
    }
    // The same port twice in one snapshot.
    let twice = fixture("perfquery-after.txt") + &first_lines(&fixture("perfquery-after.txt"), 22);
    let records = perfquery::read(&twice, "p.txt", &mut Notes::default()).unwrap();
    let e = err(CounterSnapshot::from_records(&g, &records, "p.txt", 0.0, Coverage::Listed));
    assert!(e.starts_with("p.txt:1409: SymbolErrorCounter of \"h15 mlx4_0\"[1] again (first at line 1)"), "{e}");
    // iblinkinfo from a fabric cabled otherwise: h15's peer is said to be leaf r0-L1-s2.
    let text = fixture("iblinkinfo.txt").replacen("     20    4[  ] \"r0-L1-s3\"", "     19    4[  ] \"r0-L1-s2\"", 1);
    let ports = iblinkinfo::read(&text, "l.txt", &mut Notes::default()).unwrap();
    let obs = Observations { graph: &g, links: Some((&ports, "l.txt")), before: None, after: None, trust_could_be: false };
    assert_eq!(err(diagnose(&obs, &Thresholds::default())), "l.txt:2: \"h15 mlx4_0\"[1] is cabled to \"r0-L1-s2\"[4] here, and to \"r0-L1-s3\"[4] in the topology");
}

#[test]
fn snapshots_out_of_order_and_malformed_lines_are_named_errors() {
    let g = designed();
    let before = snapshot(&g, "perfquery-before.txt", 600.0).unwrap();
    let after = snapshot(&g, "perfquery-after.txt", 600.0).unwrap();
    let obs = Observations { graph: &g, links: None, before: Some(&before), after: Some(&after), trust_could_be: false };
    let e = err(diagnose(&obs, &Thresholds::default()));
    assert_eq!(e, "perfquery-after.txt: taken at 600 s, 0 s after perfquery-before.txt (taken at 600 s): expected a later snapshot");
    let bad = fixture("perfquery-after.txt").replacen("SymbolErrorCounter:..............0", "SymbolErrorCounter:..............lots", 1);
    assert_eq!(err(perfquery::read(&bad, "p.txt", &mut Notes::default())), "p.txt:4: SymbolErrorCounter \"lots\": expected a decimal count");
    assert_eq!(err(perfquery::read("PortSelect:....1\n", "p.txt", &mut Notes::default())), "p.txt:1: \"PortSelect:....1\": expected \"# Port counters: Lid <lid> port <port> ...\" first");
    let bad = fixture("ibqueryerrors-after.txt").replacen("[PortRcvErrors == 350]", "[PortRcvErrors = 350]", 1);
    assert_eq!(err(ibqueryerrors::read(&bad, "q.txt", &mut Notes::default())), "q.txt:4: [PortRcvErrors = 350]: expected [Counter == value]");
    let bad = fixture("iblinkinfo.txt").replacen("4X          10.0 Gbps", "4X          99.0 Gbps", 1);
    let e = err(iblinkinfo::read(&bad, "l.txt", &mut Notes::default()));
    assert!(e.starts_with("l.txt:2: speed \"99.0 Gbps\": expected 2.5, 5.0"), "{e}");
}

/// Every reader and the diagnosis on every fixture cut at 400 places and on seeded mutations:
/// errors, never a panic.
#[test]
fn fuzz_cut_and_mutated_fixtures_never_panic() {
    use rand::{Rng, SeedableRng};
    let g = designed();
    let names = ["iblinkinfo.txt", "iblinkinfo-l.txt", "ibqueryerrors-before.txt", "ibqueryerrors-after.txt", "ibqueryerrors-data-r.txt", "perfquery-before.txt", "perfquery-after.txt", "perfquery-x.txt", "perfquery-a.txt"];
    let fixtures: Vec<Vec<u8>> = names.iter().map(|n| fixture(n).into_bytes()).collect();
    let before = snapshot(&g, "perfquery-before.txt", 0.0).unwrap();
    let read_all = |text: &str| {
        if let Ok(ports) = iblinkinfo::read(text, "fuzz", &mut Notes::default()) {
            let _ = diagnose(&Observations { graph: &g, links: Some((&ports, "fuzz")), before: None, after: None, trust_could_be: false }, &Thresholds::default());
        }
        for records in [perfquery::read(text, "fuzz", &mut Notes::default()), ibqueryerrors::read(text, "fuzz", &mut Notes::default())].into_iter().flatten() {
            if let Ok(after) = CounterSnapshot::from_records(&g, &records, "fuzz", 1.0, Coverage::Listed) {
                let _ = diagnose(&Observations { graph: &g, links: None, before: Some(&before), after: Some(&after), trust_could_be: false }, &Thresholds::default());
            }
        }
    };
    for f in &fixtures {
        for cut in (0..f.len()).step_by((f.len() / 400).max(1)) {
            read_all(&String::from_utf8_lossy(&f[..cut]));
        }
    }
    let mut rng = rand_pcg::Pcg64::seed_from_u64(0xd0c);
    let alphabet = b"[]()\"'#=-:.x0123456789abcdefABCDEF \n\tXGbpsALLportLidGUID";
    for _ in 0..1500 {
        let which = rng.gen_range(0..fixtures.len());
        let f = common::fuzz::mutate(&mut rng, &fixtures[which], alphabet);
        read_all(&String::from_utf8_lossy(&f));
    }
}
