//! Endpoints and connected components. An all-pairs analysis only asks for routes between
//! endpoints that are cabled together: two rails are two fabrics, and a pair across them is not
//! "unroutable", it does not exist. Components are found over every link, up or down, so that a
//! link set down makes pairs unroutable instead of splitting the rail in two.
use crate::fabric::graph::{FabricGraph, NodeKind, NO_LID};
use crate::ids::{HostId, NodeId, PortId, TiVec};

/// An HCA port that can send and be sent to: cabled, with a LID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub port: PortId,
    pub node: NodeId,
    pub host: HostId,
    pub rail: u16,
    pub lid: u16,
}

/// The connected components of a graph and the endpoints in each.
#[derive(Clone, Debug)]
pub struct Components {
    /// Component index of every node, numbered in node order of first appearance.
    pub of_node: TiVec<NodeId, u32>,
    /// Endpoints of each component, in port order.
    pub endpoints: Vec<Vec<Endpoint>>,
    /// Switches in each component.
    pub switches: Vec<usize>,
}

impl Components {
    pub fn of(g: &FabricGraph) -> Components {
        let mut parent: TiVec<NodeId, NodeId> = g.nodes.keys().collect();
        for link in &g.links {
            let [a, b] = link.ends.map(|p| find(&mut parent, g.ports[p].node));
            // The smaller id becomes the root, so roots (and the numbering below) do not depend on
            // the order links were added.
            if a < b {
                parent[b] = a;
            } else {
                parent[a] = b;
            }
        }
        let mut number: TiVec<NodeId, u32> = g.nodes.keys().map(|_| u32::MAX).collect();
        let mut of_node: TiVec<NodeId, u32> = TiVec::with_capacity(g.nodes.len());
        let mut count = 0u32;
        for id in g.nodes.keys() {
            let root = find(&mut parent, id);
            if number[root] == u32::MAX {
                number[root] = count;
                count += 1;
            }
            of_node.push(number[root]);
        }
        let mut endpoints = vec![Vec::new(); count as usize];
        let mut switches = vec![0; count as usize];
        for (id, node) in g.nodes.iter_enumerated() {
            let c = of_node[id] as usize;
            match node.kind {
                NodeKind::Switch => switches[c] += 1,
                NodeKind::Ca { host, rail } => {
                    for port in node.ports() {
                        let lid = g.ports[port].lid;
                        if lid != NO_LID && g.ports[port].link.is_some() {
                            endpoints[c].push(Endpoint { port, node: id, host, rail, lid });
                        }
                    }
                }
            }
        }
        Components { of_node, endpoints, switches }
    }

    pub fn len(&self) -> usize {
        self.endpoints.len()
    }

    pub fn is_empty(&self) -> bool {
        self.endpoints.is_empty()
    }

    /// The rails of a component's endpoints, sorted (one for a rail-per-fabric cluster).
    pub fn rails(&self, c: usize) -> Vec<u16> {
        let mut rails: Vec<u16> = self.endpoints[c].iter().map(|e| e.rail).collect();
        rails.sort_unstable();
        rails.dedup();
        rails
    }

    /// Components with at least two endpoints on different hosts: the ones with pairs to route.
    pub fn with_pairs(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter(|&c| self.endpoints[c].iter().any(|e| e.host != self.endpoints[c][0].host))
    }
}

/// Root of `n`, halving the path on the way (union-find).
fn find(parent: &mut TiVec<NodeId, NodeId>, mut n: NodeId) -> NodeId {
    while parent[n] != n {
        let up = parent[parent[n]];
        parent[n] = up;
        n = up;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::super::test_fabrics::{line, QDR4};
    use super::*;
    use crate::fabric::graph::LinkProps;

    #[test]
    fn a_second_fabric_is_a_second_component() {
        let (mut rf, _, _) = line();
        let g = &mut rf.graph;
        let sw = g.add_switch("t0", 0x900, 4, QDR4).unwrap();
        for i in 0..2u16 {
            let host = g.add_host(format!("k{i}"));
            let ca = g.add_hca(host, format!("k{i} hca"), 0xa00 + 0x10 * u64::from(i), 1, QDR4).unwrap();
            let (a, b) = (g.port_of(ca, 1).unwrap(), g.port_of(sw, i + 1).unwrap());
            g.connect(a, b, LinkProps::new(QDR4, 1.0)).unwrap();
        }
        g.assign_lids().unwrap();
        let c = Components::of(g);
        assert_eq!(c.len(), 2);
        assert_eq!((c.switches.clone(), c.endpoints[0].len(), c.endpoints[1].len()), (vec![3, 1], 2, 2));
        assert_eq!(c.with_pairs().collect::<Vec<_>>(), [0, 1]);
    }
}
