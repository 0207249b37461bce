//! `rdmasim doctor`'s input side: the real tools' output of a generated fabric with planted
//! faults (tests/data/doctor/README.md) is read, and exactly the planted links are suspects.
use rdmasim_core::fabric::build::{single_rail, KAryNTree};
use rdmasim_core::fabric::graph::FabricGraph;
use rdmasim_core::fabric::io::ibsim_net;
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/doctor").join(name)
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
