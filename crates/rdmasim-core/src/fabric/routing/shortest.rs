//! Shortest-path routing skeleton shared by the engines that route along shortest paths: one
//! BFS over the switches per destination switch, then, for every LID behind that switch, one
//! choice per switch among the ports to neighbours one hop closer. Every hop is strictly
//! closer, so the tables have no loop whatever the choice.
//!
//! Cost: one BFS per switch that has LIDs behind it (not per LID), and one pass over the
//! candidate ports per (LID, switch). Everything is a vector indexed by `NodeId`.
use crate::fabric::graph::{FabricGraph, GraphError, Lfts, NodeKind, NO_LID};
use crate::ids::{NodeId, TiVec};

/// Where the fabric delivers a LID: switch `switch` sends it out of `port` (0: it is the
/// switch's own LID).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Destination {
    pub lid: u16,
    pub switch: NodeId,
    pub port: u8,
}

/// The switch-to-switch links that are up, per switch, as (port number, neighbour switch) in
/// port order. Empty for HCAs.
pub struct SwitchLinks {
    pub links: TiVec<NodeId, Vec<(u8, NodeId)>>,
}

impl SwitchLinks {
    pub fn new(g: &FabricGraph) -> SwitchLinks {
        let links = g
            .nodes
            .iter()
            .map(|n| {
                if !n.is_switch() {
                    return Vec::new();
                }
                n.ports()
                    .filter_map(|p| {
                        let peer = g.peer_up(p)?;
                        let other = g.ports[peer].node;
                        g.nodes[other].is_switch().then_some((g.ports[p].num as u8, other))
                    })
                    .collect()
            })
            .collect();
        SwitchLinks { links }
    }
}

/// Every LID a switch can deliver: switch LIDs (port 0) and HCA ports cabled by an up link to
/// a switch, sorted by delivering switch, then LID. HCA ports with no switch (HCA to HCA
/// cables) need no table and are left out.
pub fn destinations(g: &FabricGraph) -> Vec<Destination> {
    let mut v = Vec::new();
    for (id, n) in g.nodes.iter_enumerated() {
        match n.kind {
            NodeKind::Switch => {
                if n.lid != NO_LID {
                    v.push(Destination { lid: n.lid, switch: id, port: 0 });
                }
            }
            NodeKind::Ca { .. } => {
                for p in n.ports() {
                    let lid = g.ports[p].lid;
                    let Some(peer) = g.peer_up(p) else { continue };
                    let sw = g.ports[peer].node;
                    if lid != NO_LID && g.nodes[sw].is_switch() {
                        v.push(Destination { lid, switch: sw, port: g.ports[peer].num as u8 });
                    }
                }
            }
        }
    }
    v.sort_by_key(|d| (d.switch, d.lid));
    v
}

/// Hop counts from `from` over `sl` into `dist` (u32::MAX: unreachable), the reached switches
/// in BFS order into `order`. `dist` must be all u32::MAX but for the previous `order`,
/// which this resets first.
pub fn bfs(sl: &SwitchLinks, from: NodeId, dist: &mut TiVec<NodeId, u32>, order: &mut Vec<NodeId>) {
    for &n in order.iter() {
        dist[n] = u32::MAX;
    }
    order.clear();
    dist[from] = 0;
    order.push(from);
    spread(sl, dist, order);
}

/// Hops from the nearest of `sources` over `sl` for every node (u32::MAX: not reached): the
/// multi-source BFS OpenSM's engines rank switches by (ftree and updn from their roots, d-mod-k
/// from the leaves). A source given twice counts once.
pub fn hops_from(sl: &SwitchLinks, sources: impl IntoIterator<Item = NodeId>) -> TiVec<NodeId, u32> {
    let mut dist: TiVec<NodeId, u32> = TiVec::from(vec![u32::MAX; sl.links.len()]);
    let mut order = Vec::new();
    for s in sources {
        if dist[s] != 0 {
            dist[s] = 0;
            order.push(s);
        }
    }
    spread(sl, &mut dist, &mut order);
    dist
}

/// The BFS from the switches in `order` (their `dist` set, the others u32::MAX): appends every
/// switch it reaches to `order`, in BFS order, with its hops in `dist`.
fn spread(sl: &SwitchLinks, dist: &mut TiVec<NodeId, u32>, order: &mut Vec<NodeId>) {
    let mut head = 0;
    while head < order.len() {
        let s = order[head];
        head += 1;
        let next = dist[s] + 1;
        for &(_, n) in &sl.links[s] {
            if dist[n] == u32::MAX {
                dist[n] = next;
                order.push(n);
            }
        }
    }
}

/// Routes every destination along shortest paths; at each switch `pick(switch, destination,
/// candidates)` chooses among the (port, neighbour) pairs one hop closer, in port order
/// (never empty), and returns an index into them.
pub fn route_shortest(g: &FabricGraph, mut pick: impl FnMut(NodeId, &Destination, &[(u8, NodeId)]) -> usize) -> Result<Lfts, GraphError> {
    let sl = SwitchLinks::new(g);
    let mut lfts = Lfts::empty_for(g);
    let dests = destinations(g);
    let mut dist: TiVec<NodeId, u32> = TiVec::from(vec![u32::MAX; g.nodes.len()]);
    let mut order = Vec::new();
    let mut candidates: Vec<(u8, NodeId)> = Vec::new();
    // (switch, start, end) of each reached switch's candidates.
    let mut spans: Vec<(NodeId, usize, usize)> = Vec::new();
    for group in dests.chunk_by(|a, b| a.switch == b.switch) {
        bfs(&sl, group[0].switch, &mut dist, &mut order);
        candidates.clear();
        spans.clear();
        for &s in &order[1..] {
            let start = candidates.len();
            candidates.extend(sl.links[s].iter().filter(|&&(_, n)| dist[n] + 1 == dist[s]));
            spans.push((s, start, candidates.len()));
        }
        for d in group {
            lfts.set(d.switch, d.lid, d.port);
            for &(s, start, end) in &spans {
                let c = &candidates[start..end];
                let i = pick(s, d, c);
                let (port, _) = *c.get(i).ok_or_else(|| GraphError(format!("routing picked candidate {i} of {} at {:?}", c.len(), g.nodes[s].name)))?;
                lfts.set(s, d.lid, port);
            }
        }
    }
    Ok(lfts)
}
