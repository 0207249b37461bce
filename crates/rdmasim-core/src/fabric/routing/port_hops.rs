//! One column of OpenSM's hop matrix: the hops from every switch, and through every switch
//! port, to one destination switch. OpenSM keeps the whole matrix (every switch LID at every
//! switch); its table builder reads one destination's column at a time, so we fill one column
//! per destination switch, which keeps memory linear in the fabric. Engines differ only in how
//! they fill it: minhop by plain shortest paths, updn by its BFS that refuses down-then-up.
//!
//! Hop counts are 8-bit as in OpenSM, `NO_HOPS` (its `OSM_NO_PATH`) for no path.
use super::shortest::{bfs, SwitchLinks};
use crate::fabric::graph::FabricGraph;
use crate::ids::{NodeId, PortId, TiVec};

pub const NO_HOPS: u8 = 0xFF;

pub struct PortHops {
    /// Fewest hops from each switch to the destination switch (0 at the destination).
    pub least: TiVec<NodeId, u8>,
    /// Hops when leaving through each switch port, for ports cabled to another switch.
    pub via: TiVec<PortId, u8>,
    dist: TiVec<NodeId, u32>,
    order: Vec<NodeId>,
}

impl PortHops {
    pub fn new(g: &FabricGraph) -> PortHops {
        PortHops {
            least: TiVec::from(vec![NO_HOPS; g.nodes.len()]),
            via: TiVec::from(vec![NO_HOPS; g.ports.len()]),
            dist: TiVec::from(vec![u32::MAX; g.nodes.len()]),
            order: Vec::new(),
        }
    }

    /// Every switch and port without a path.
    pub fn clear(&mut self) {
        self.least.iter_mut().for_each(|h| *h = NO_HOPS);
        self.via.iter_mut().for_each(|h| *h = NO_HOPS);
    }

    /// Leaving `node` through `port` takes `hops`; `node`'s fewest hops follow.
    pub fn set(&mut self, node: NodeId, port: PortId, hops: u8) {
        self.via[port] = hops;
        self.least[node] = self.least[node].min(hops);
    }

    /// The column OpenSM's minhop matrix converges to: a port's hops are one more than its
    /// neighbour's fewest, and those are the BFS distances over up switch-to-switch links.
    pub fn fill_shortest(&mut self, g: &FabricGraph, links: &SwitchLinks, dest: NodeId) {
        self.clear();
        bfs(links, dest, &mut self.dist, &mut self.order);
        for &s in &self.order {
            self.least[s] = hops_of(self.dist[s]);
            let node = &g.nodes[s];
            for &(num, n) in &links.links[s] {
                if let Some(p) = node.port(num.into()) {
                    self.via[p] = hops_of(self.dist[n].saturating_add(1));
                }
            }
        }
    }
}

/// A distance as OpenSM's 8-bit hop count: beyond 254 hops it has no path.
fn hops_of(dist: u32) -> u8 {
    u8::try_from(dist).unwrap_or(NO_HOPS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::graph::LinkProps;
    use crate::fabric::rate::{LinkGen, LinkSpeed};

    /// s0 -[1:1]- s1 -[2:1]- s2, and a parallel s0[2] - s1[3].
    #[test]
    fn a_column_counts_hops_per_port_parallel_links_included() {
        let speed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
        let mut g = FabricGraph::new();
        let s: Vec<NodeId> = (0..3).map(|i| g.add_switch(format!("s{i}"), 0x100 + i, 4, speed).unwrap()).collect();
        for (a, pa, b, pb) in [(0, 1, 1, 1), (1, 2, 2, 1), (0, 2, 1, 3)] {
            g.connect(g.port_of(s[a], pa).unwrap(), g.port_of(s[b], pb).unwrap(), LinkProps::new(speed, 1.0)).unwrap();
        }
        let links = SwitchLinks::new(&g);
        let mut h = PortHops::new(&g);
        h.fill_shortest(&g, &links, s[2]);
        assert_eq!([h.least[s[0]], h.least[s[1]], h.least[s[2]]], [2, 1, 0]);
        let via = |n: usize, num: u16| h.via[g.port_of(s[n], num).unwrap()];
        assert_eq!([via(0, 1), via(0, 2), via(0, 3)], [2, 2, NO_HOPS]);
        // s1 back toward s0 is 3; s2's own port toward s1 is 2, as OpenSM's matrix has it.
        assert_eq!([via(1, 1), via(1, 2), via(1, 3), via(2, 1)], [3, 1, 3, 2]);
    }
}
