//! `rdmasim doctor`'s input side: the real tools' output of a generated fabric with planted
//! faults (tests/data/doctor/README.md) is read, and exactly the planted links are suspects.
use rdmasim_core::fabric::build::{single_rail, KAryNTree};
use rdmasim_core::fabric::graph::FabricGraph;
use rdmasim_core::fabric::io::port_counters::{Counter, NodeAddr, PortSelect};
use rdmasim_core::fabric::io::{iblinkinfo, ibqueryerrors, ibsim_net, perfquery};
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
        let ports = iblinkinfo::read(&fixture(name), name).unwrap();
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
    let before = ibqueryerrors::read(&fixture("ibqueryerrors-before.txt"), "before").unwrap();
    assert_eq!(before.len(), 6, "4 ports, and a port ALL line for each of the 2 switches");
    let after = ibqueryerrors::read(&fixture("ibqueryerrors-after.txt"), "after").unwrap();
    let h5 = after.iter().find(|r| r.node == NodeAddr::Guid(0x2c90300000501)).unwrap();
    assert_eq!(h5.port, PortSelect::Port(1));
    assert_eq!(h5.counters.get(&Counter::PortRcvErrors), Some(&350));
    assert_eq!(h5.counters.get(&Counter::SymbolErrorCounter), Some(&900));
    assert_eq!(after.iter().filter(|r| r.port == PortSelect::All).count(), 4);
    let data = ibqueryerrors::read(&fixture("ibqueryerrors-data-r.txt"), "data").unwrap();
    assert!(data.iter().all(|r| r.counters.contains_key(&Counter::PortXmitData)));
}

#[test]
fn real_perfquery_output_parses() {
    for name in ["perfquery-before.txt", "perfquery-after.txt"] {
        let blocks = perfquery::read(&fixture(name), name).unwrap();
        assert_eq!(blocks.len(), 64, "{name}");
        assert!(blocks.iter().all(|b| !b.extended && b.counters.len() == 18));
    }
    let after = perfquery::read(&fixture("perfquery-after.txt"), "after").unwrap();
    let e1 = after.iter().find(|b| b.node == NodeAddr::Lid(21) && b.port == PortSelect::Port(1)).unwrap();
    assert_eq!(e1.counters[&Counter::SymbolErrorCounter], 60000);
    let x = perfquery::read(&fixture("perfquery-x.txt"), "x").unwrap();
    assert!(x[0].extended && x[0].counters.contains_key(&Counter::PortXmitData));
    let all = perfquery::read(&fixture("perfquery-a.txt"), "a").unwrap();
    assert_eq!(all.iter().map(|b| (b.port, b.extended)).collect::<Vec<_>>(), [(PortSelect::All, false), (PortSelect::All, true)]);
}
