//! The orders OpenSM's unicast manager walks a subnet in. Its engines break ties on them, so
//! ours must walk in the same orders to write the same tables.
//!
//! - Its switch table is a map keyed by the node GUID as stored, in network byte order; on
//!   the little-endian hosts OpenSM runs on, the map's numeric order is that of the
//!   byte-reversed GUID: last byte first. (A big-endian host would walk by plain GUID; we
//!   model the little-endian one, which is where our cross-check runs.)
//! - The end ports are routed grouped by the switch they are cabled to, the switches with the
//!   most end ports first (a stable sort of the switch table), each switch's end ports in its
//!   port order. The switches' own LIDs come after all end ports.
use super::shortest::{destinations, Destination};
use crate::fabric::graph::FabricGraph;
use crate::ids::{NodeId, TiVec};

/// Defined with the LID manager, which numbers ports in this order (a build may use it).
pub use crate::fabric::lid_assign::guid_key;

/// The switches in OpenSM's switch-table order.
pub fn switch_table_order(g: &FabricGraph) -> Vec<NodeId> {
    let mut v: Vec<NodeId> = g.switches().collect();
    v.sort_by_key(|&s| (guid_key(g.nodes[s].guid), s));
    v
}

/// End ports per switch: ports cabled by an up link to a node that is not a switch (what
/// OpenSM counts to order the switches, whether the port has a LID or not).
pub fn end_ports_per_switch(g: &FabricGraph) -> TiVec<NodeId, u32> {
    g.nodes
        .iter()
        .map(|n| {
            if !n.is_switch() {
                return 0;
            }
            n.ports().filter(|&p| g.peer_up(p).is_some_and(|q| !g.nodes[g.ports[q].node].is_switch())).count() as u32
        })
        .collect()
}

/// The HCA-port destinations in the order OpenSM routes them: consecutive per delivering
/// switch, switches by most end ports then switch-table order, each switch's in port order.
pub fn end_port_order(g: &FabricGraph, table_order: &[NodeId]) -> Vec<Destination> {
    let ends = end_ports_per_switch(g);
    let mut switches = table_order.to_vec();
    switches.sort_by_key(|&s| std::cmp::Reverse(ends[s]));
    let mut rank: TiVec<NodeId, usize> = TiVec::from(vec![usize::MAX; g.nodes.len()]);
    for (i, &s) in switches.iter().enumerate() {
        rank[s] = i;
    }
    let mut v: Vec<Destination> = destinations(g).into_iter().filter(|d| d.port != 0).collect();
    v.sort_by_key(|d| (rank[d.switch], d.port));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::graph::LinkProps;
    use crate::fabric::rate::{LinkGen, LinkSpeed};

    #[test]
    fn switches_go_by_the_last_guid_byte_first_and_busy_switches_route_first() {
        let speed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
        let mut g = FabricGraph::new();
        // By plain GUID a < b < c; by byte-reversed GUID c < a < b.
        let a = g.add_switch("a", 0x0100_0000_0000_0002, 4, speed).unwrap();
        let b = g.add_switch("b", 0x0200_0000_0000_0002, 4, speed).unwrap();
        let c = g.add_switch("c", 0x0300_0000_0000_0001, 4, speed).unwrap();
        assert_eq!(switch_table_order(&g), vec![c, a, b]);
        // b gets two hosts (on its ports 3 and 1), a one: b, a, then c without any.
        for (i, (sw, port)) in [(b, 3), (a, 2), (b, 1)].into_iter().enumerate() {
            let h = g.add_host(format!("h{i}"));
            let ca = g.add_hca(h, format!("h{i} mlx4_0"), 0x10 + i as u64 * 0x10, 1, speed).unwrap();
            g.connect(g.port_of(ca, 1).unwrap(), g.port_of(sw, port).unwrap(), LinkProps::new(speed, 1.0)).unwrap();
        }
        g.assign_lids().unwrap();
        let order = end_port_order(&g, &switch_table_order(&g));
        let got: Vec<(NodeId, u8, u16)> = order.iter().map(|d| (d.switch, d.port, d.lid)).collect();
        // LIDs: switches 1..=3, then h0 4, h1 5, h2 6.
        assert_eq!(got, vec![(b, 1, 6), (b, 3, 4), (a, 2, 5)]);
    }
}
