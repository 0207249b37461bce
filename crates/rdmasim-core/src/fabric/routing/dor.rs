//! Dimension-order routing on the hyper-crossbar (fabric/build/hyperx.rs), X then Y then Z as
//! CP-PACS and PM/Ethernet-HXB route (seeds/003).
//!
//! Semantics: a crossbar switch joins one row of one dimension and nothing else, so it can
//! only deliver to the HCA ports on its row; its table holds exactly those LIDs (and its own,
//! to port 0), every other LID has no route. A packet between hosts that differ in more than
//! one coordinate is relayed by hosts: the source sends on its HCA of the first differing
//! dimension to the host on its row that has the destination's coordinate there; that relay
//! host receives it and sends it on along the next differing dimension, and so on. The
//! relay sequence is [`dor_path`], host-level and independent of the switch tables; the
//! engines will follow it (a later issue).
use super::least_loaded::{route_among, Candidates};
use super::shortest::SwitchLinks;
use crate::fabric::build::hyperx::{coords, host_at};
use crate::fabric::graph::{FabricGraph, GraphError, Lfts, NodeKind, NO_LID};
use crate::ids::HostId;

/// The `dor` engine by fabric: on the hyper-crossbar (no cable between switches) the rows'
/// tables below; on a mesh or torus of switches OpenSM's dor, which is its minhop choosing
/// only among the least-hop ports to the first neighbour in port order (so with ports
/// numbered by dimension, a path finishes one dimension before the next); on anything else
/// an error. A mesh is taken to be a fabric whose every switch carries hosts: a fat tree's
/// upper switches carry none, and dor there would send every route to a destination up its
/// lowest uplink (OpenSM does route it so; we refuse, as the routing-engines issue asks).
pub fn route_engine(g: &FabricGraph) -> Result<Lfts, GraphError> {
    let links = SwitchLinks::new(g);
    if links.links.iter().all(Vec::is_empty) {
        return route(g);
    }
    if let Some(s) = g.switches().find(|&s| !g.nodes[s].ports().any(|p| g.peer_up(p).is_some_and(|q| !g.nodes[g.ports[q].node].is_switch()))) {
        return Err(GraphError(format!(
            "dor routes meshes, tori and the hyper-crossbar, but switch {:?} carries no host (a tree's upper level?); expected every switch to have hosts, or another engine (ftree, updn, minhop)",
            g.nodes[s].name
        )));
    }
    route_among(g, &links, |dest, hops| hops.fill_shortest(g, &links, dest), Candidates::FirstNeighbour)
}

/// The switch tables of the hyper-crossbar: each crossbar forwards the LIDs of the HCA ports
/// on its row.
pub fn route(g: &FabricGraph) -> Result<Lfts, GraphError> {
    let mut lfts = Lfts::empty_for(g);
    for sw in g.switches() {
        lfts.set(sw, g.nodes[sw].lid, 0);
        for p in g.nodes[sw].ports() {
            let Some(q) = g.peer_up(p) else { continue };
            let peer = &g.ports[q];
            if matches!(g.nodes[peer.node].kind, NodeKind::Ca { .. }) && peer.lid != NO_LID {
                lfts.set(sw, peer.lid, g.ports[p].num as u8);
            }
        }
    }
    Ok(lfts)
}

/// One host-to-host hop of a DOR path: along dimension `dim` (0 = X), through that row's
/// crossbar, to host `to` (a relay, or the destination on the last hop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DorHop {
    pub dim: usize,
    pub to: HostId,
}

/// The next hop from `at` towards `dst` on a hyper-crossbar of `dims` hosts per dimension:
/// the first dimension (X, Y, Z order) where they differ, to the host on `at`'s row with
/// `dst`'s coordinate there. None when `at` is `dst`.
pub fn dor_next_hop(dims: [u16; 3], at: HostId, dst: HostId) -> Option<DorHop> {
    let here = coords(dims, at);
    let there = coords(dims, dst);
    let dim = (0..3).find(|&d| here[d] != there[d])?;
    let mut next = here;
    next[dim] = there[dim];
    Some(DorHop { dim, to: host_at(dims, next) })
}

/// Every hop from `src` to `dst`: one per differing coordinate, the relays in between.
pub fn dor_path(dims: [u16; 3], src: HostId, dst: HostId) -> Vec<DorHop> {
    let mut hops = Vec::new();
    let mut at = src;
    while let Some(hop) = dor_next_hop(dims, at, dst) {
        hops.push(hop);
        at = hop.to;
    }
    hops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dor_fixes_x_then_y_then_z() {
        let dims = [4, 3, 2];
        let src = host_at(dims, [0, 0, 0]);
        let dst = host_at(dims, [3, 2, 1]);
        let hops = dor_path(dims, src, dst);
        let via: Vec<[u16; 3]> = hops.iter().map(|h| coords(dims, h.to)).collect();
        assert_eq!(via, [[3, 0, 0], [3, 2, 0], [3, 2, 1]]);
        assert_eq!(hops.iter().map(|h| h.dim).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(dor_path(dims, dst, dst), []);
        assert_eq!(dor_next_hop(dims, host_at(dims, [2, 0, 0]), host_at(dims, [2, 0, 1])), Some(DorHop { dim: 2, to: host_at(dims, [2, 0, 1]) }));
    }
}
