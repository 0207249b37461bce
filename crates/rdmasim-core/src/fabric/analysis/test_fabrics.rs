//! Small hand-built fabrics for the unit tests of this module.
use crate::fabric::graph::{FabricGraph, LinkProps, Lfts, RoutedFabric};
use crate::fabric::rate::{LinkGen, LinkSpeed};
use crate::ids::{NodeId, PortId};

pub const QDR4: LinkSpeed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };

/// h0 - s0 - s1 - s2 - h1: switch port 1 faces h0, port 2 faces h1, port 3 is uncabled. The
/// LFTs send each host's LID towards it. Returns the fabric, the switches and the HCA ports.
pub fn line() -> (RoutedFabric, [NodeId; 3], [PortId; 2]) {
    let mut g = FabricGraph::new();
    let s = [0, 1, 2].map(|i| g.add_switch(format!("s{i}"), 0x100 + i as u64, 3, QDR4).unwrap());
    let h = [0, 1].map(|i| {
        let host = g.add_host(format!("h{i}"));
        let ca = g.add_hca(host, format!("h{i} hca"), 0x200 + 0x10 * i as u64, 1, QDR4).unwrap();
        g.port_of(ca, 1).unwrap()
    });
    // (port on the left, port on the right) of each cable, left to right.
    let cables = [(h[0], (s[0], 1)), (g.port_of(s[0], 2).unwrap(), (s[1], 1)), (g.port_of(s[1], 2).unwrap(), (s[2], 1)), (h[1], (s[2], 2))];
    for (a, (sw, num)) in cables {
        let b = g.port_of(sw, num).unwrap();
        g.connect(a, b, LinkProps::new(QDR4, 1.0)).unwrap();
    }
    g.assign_lids().unwrap();
    let mut lfts = Lfts::empty_for(&g);
    for sw in s {
        lfts.set(sw, g.ports[h[0]].lid, 1);
        lfts.set(sw, g.ports[h[1]].lid, 2);
    }
    (RoutedFabric::new(g, lfts), s, h)
}
