//! Destination-mod-K on fat trees (Zahavi, "D-Mod-K Routing Providing Non-Blocking Traffic
//! for Shift Permutations on Real Life Fat Trees", 2010): going up, a switch of level l picks
//! its up port by ⌊D / (w_1 ⋯ w_l)⌋ mod w_{l+1}, where D is the destination's index and w_j
//! the up ports per node of level j-1; going down, it follows the path to the destination.
//! On an XGFT this spreads the destinations of each edge switch evenly over its up ports and
//! makes shift permutations contention-free.
//!
//! Everything is read from the graph, not from a generator, so imported trees route too:
//! - a switch's level is its distance from the nearest HCA (edge switches are level 1);
//! - w per level is the most up ports any switch of the level below has (uniform on an XGFT);
//! - D is the destination LID's rank among the LIDs of its connected component, in LID order.
//!   With LIDs 1..N on one rail this is LID - 1, the host index; on rail r of a multi-rail
//!   fabric (LIDs r N + 1 ..) it is again the host index, where plain "LID mod k" would see
//!   LIDs that do not start at a multiple of k.
//!
//! Paths are shortest (fabric/routing/shortest.rs): among the ports one hop closer, a switch
//! takes a down port if it has one (it is above the destination: on an XGFT the downward path
//! is unique; where parallel or redundant down links exist, D mod count picks), else the
//! up port given by the formula above, indexed among the closer ones (all of its up ports on
//! an XGFT).
use super::shortest::{route_shortest, SwitchLinks};
use crate::fabric::graph::{FabricGraph, GraphError, Lfts, NodeKind};
use crate::ids::{NodeId, TiVec};

/// Levels of unreached switches (no HCA anywhere below them).
const NO_LEVEL: u32 = u32::MAX;

pub fn route(g: &FabricGraph) -> Result<Lfts, GraphError> {
    let sl = SwitchLinks::new(g);
    let level = switch_levels(g, &sl);
    let divisor = up_divisors(&sl, &level);
    let rank = ranks_in_component(g);
    let ups = up_links(g, &sl, &level);
    // The up port a switch of level l takes toward destination rank D, among `count`.
    let up_pick = |l: u32, dest: u64, count: usize| ((dest / divisor.get(l as usize).copied().unwrap_or(1)) % count as u64) as usize;
    route_shortest(g, |s, d, candidates| {
        let mine = level[s];
        let dest = rank[usize::from(d.lid)];
        let downs = candidates.iter().filter(|&&(_, n)| level[n] < mine).count();
        if downs > 0 {
            if let Some(i) = mirrored_down(s, candidates, &ups, |n, count| up_pick(level[n], dest, count)) {
                return i;
            }
            let nth = (dest % downs as u64) as usize;
            return candidates.iter().enumerate().filter(|&(_, &(_, n))| level[n] < mine).nth(nth).map_or(0, |(i, _)| i);
        }
        up_pick(mine, dest, candidates.len())
    })
}

/// Each switch's links to the level above, in port order: (its port, the switch above, that
/// switch's port).
fn up_links(g: &FabricGraph, sl: &SwitchLinks, level: &TiVec<NodeId, u32>) -> TiVec<NodeId, Vec<(u8, NodeId, u8)>> {
    sl.links
        .iter_enumerated()
        .map(|(s, links)| {
            links
                .iter()
                .filter(|&&(_, n)| level[s] != NO_LEVEL && level[n] == level[s] + 1)
                .filter_map(|&(port, n)| {
                    let p = g.nodes[s].port(u16::from(port))?;
                    let q = g.peer_up(p)?;
                    Some((port, n, g.ports[q].num as u8))
                })
                .collect()
        })
        .collect()
}

/// Going down over parallel cables to one child (a director's cables to an edge switch): the
/// cable the child itself would take up toward this destination, when that cable comes here.
/// Picking by D mod the cable count instead repeats the choice the up port already made
/// (D mod the child's up ports fixes D mod the cables), and puts every destination that
/// shares a core on one cable. On a tree with single cables there is one down candidate and
/// nothing changes.
fn mirrored_down(s: NodeId, candidates: &[(u8, NodeId)], ups: &TiVec<NodeId, Vec<(u8, NodeId, u8)>>, pick: impl Fn(NodeId, usize) -> usize) -> Option<usize> {
    let child = candidates.first()?.1;
    if candidates.len() < 2 || candidates.iter().any(|&(_, n)| n != child) {
        return None;
    }
    let up = &ups[child];
    let &(_, above, port_here) = up.get(pick(child, up.len().max(1)))?;
    if above != s {
        return None;
    }
    candidates.iter().position(|&(port, _)| port == port_here)
}

/// Each switch's level: 1 for switches cabled to an HCA, then one more per hop (multi-source
/// BFS). HCAs and switches with no HCA below them get `NO_LEVEL`.
pub fn switch_levels(g: &FabricGraph, sl: &SwitchLinks) -> TiVec<NodeId, u32> {
    let leaves = g.nodes.iter_enumerated().filter(|(_, n)| n.is_switch() && n.ports().any(|p| g.peer_up(p).is_some_and(|q| matches!(g.nodes[g.ports[q].node].kind, NodeKind::Ca { .. })))).map(|(id, _)| id);
    let mut level = super::shortest::hops_from(sl, leaves);
    for l in level.iter_mut() {
        // NO_LEVEL is u32::MAX, what the BFS leaves unreached.
        *l = l.saturating_add(1);
    }
    level
}

/// `divisor[l]` = w_1 ⋯ w_l: the product of the up-port counts of the levels below l (w_1 = 1:
/// an HCA port has one link up; each HCA port has its own LID).
fn up_divisors(sl: &SwitchLinks, level: &TiVec<NodeId, u32>) -> Vec<u64> {
    let top = level.iter().copied().filter(|&l| l != NO_LEVEL).max().unwrap_or(0) as usize;
    let mut ups = vec![0u64; top + 1];
    for (s, links) in sl.links.iter_enumerated() {
        let l = level[s];
        if l == NO_LEVEL {
            continue;
        }
        let up = links.iter().filter(|&&(_, n)| level[n] == l + 1).count() as u64;
        ups[l as usize] = ups[l as usize].max(up);
    }
    let mut divisor = vec![1u64; top + 1];
    for l in 2..=top {
        divisor[l] = divisor[l - 1].saturating_mul(ups[l - 1].max(1));
    }
    divisor
}

/// Per LID, its rank among the LIDs of its connected component, in LID order.
fn ranks_in_component(g: &FabricGraph) -> Vec<u64> {
    let component = components(g);
    let mut lids: Vec<(u16, u32)> = g.lids().into_iter().map(|(lid, node, _)| (lid, component[node])).collect();
    lids.sort_unstable();
    let mut rank = vec![0u64; usize::from(g.max_lid()) + 1];
    let mut seen = vec![0u64; g.nodes.len()];
    for (lid, c) in lids {
        rank[usize::from(lid)] = seen[c as usize];
        seen[c as usize] += 1;
    }
    rank
}

/// Connected components over up links, numbered by their first node.
fn components(g: &FabricGraph) -> TiVec<NodeId, u32> {
    let mut comp: TiVec<NodeId, u32> = TiVec::from(vec![u32::MAX; g.nodes.len()]);
    let mut stack = Vec::new();
    for start in g.nodes.keys() {
        if comp[start] != u32::MAX {
            continue;
        }
        comp[start] = start.0;
        stack.push(start);
        while let Some(n) = stack.pop() {
            for p in g.nodes[n].ports() {
                if let Some(q) = g.peer_up(p) {
                    let m = g.ports[q].node;
                    if comp[m] == u32::MAX {
                        comp[m] = start.0;
                        stack.push(m);
                    }
                }
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::build::{k_ary_n_tree, rails, FatTree};
    use crate::fabric::rate::{LinkGen, LinkSpeed};

    const QDR: LinkSpeed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };

    #[test]
    fn levels_come_from_the_graph() {
        let g = k_ary_n_tree(2, 3, QDR, 1.0).unwrap();
        let sl = SwitchLinks::new(&g);
        let level = switch_levels(&g, &sl);
        for s in g.switches() {
            let named = g.nodes[s].name.split('-').nth(1).unwrap()[1..].parse::<u32>().unwrap();
            assert_eq!(level[s], named, "{}", g.nodes[s].name);
        }
        assert_eq!(up_divisors(&sl, &level), [1, 1, 2, 4]);
    }

    #[test]
    fn ranks_restart_on_each_rail() {
        let t = FatTree { k: 4, speed: QDR, cable_m: 1.0 }.to_xgft().unwrap();
        let g = rails(&t, 2).unwrap();
        let rank = ranks_in_component(&g);
        assert_eq!(&rank[1..=3], [0, 1, 2]);
        assert_eq!(&rank[17..=19], [0, 1, 2], "rail 1's hosts rank from 0 too");
    }
}
