//! Ranks: a switch's distance from the roots. Given roots are rank 0. Without them OpenSM
//! finds them from the leaves: every switch cabled to a CA is at distance 0, the switches
//! farthest from any of them are the roots, and the fabric is ranked again from those.
use super::model::{Fabric, UNRANKED};
use crate::fabric::graph::{FabricGraph, GraphError, NodeKind};
use crate::fabric::routing::shortest::{hops_from, SwitchLinks};
use crate::ids::NodeId;

/// Ranks every switch reachable from `sources` by BFS (sources at 0, unreached stay
/// UNRANKED); returns the highest rank given.
fn rank_from(f: &mut Fabric, links: &SwitchLinks, sources: &[NodeId]) -> u32 {
    // UNRANKED is u32::MAX, what the BFS leaves unreached.
    let hops = hops_from(links, sources.iter().copied());
    let mut max = 0;
    for s in f.switches.clone() {
        f.sw[s].rank = hops[s];
        if hops[s] != UNRANKED {
            max = max.max(hops[s]);
        }
    }
    max
}

/// Ranks the switches from `roots`, or without roots from the leaves as OpenSM does. Err:
/// OpenSM's words when it gives up (a CA cabled to a CA).
pub fn rank(g: &FabricGraph, f: &mut Fabric, roots: Option<&[NodeId]>) -> Result<(), String> {
    let links = SwitchLinks::new(g);
    if let Some(roots) = roots {
        f.max_rank = rank_from(f, &links, roots);
        return Ok(());
    }
    if let Some((a, b)) = ca_cabled_to_ca(g, f) {
        return Err(format!("ERR AB0F: CA connected directly to another CA: {a:#018x} <---> {b:#018x}; ERR AB14: Subnet ranking failed - subnet is not FatTree; Failed ranking the tree"));
    }
    let leaves: Vec<NodeId> = f.cas.iter().flat_map(|&ca| f.ca_ports[ca].iter().map(|p| p.switch)).collect();
    let max = rank_from(f, &links, &leaves);
    let roots: Vec<NodeId> = f.switches.iter().copied().filter(|&s| f.sw[s].rank == max).collect();
    f.max_rank = rank_from(f, &links, &roots);
    Ok(())
}

/// The GUIDs of the first CA (OpenSM's order) cabled to a CA, and of that CA.
pub fn ca_cabled_to_ca(g: &FabricGraph, f: &Fabric) -> Option<(u64, u64)> {
    f.cas.iter().find_map(|&ca| {
        g.nodes[ca].ports().find_map(|p| {
            let other = g.ports[g.peer_up(p)?].node;
            matches!(g.nodes[other].kind, NodeKind::Ca { .. }).then(|| (g.nodes[ca].guid, g.nodes[other].guid))
        })
    })
}

/// Leaves out the switches no ranking reached (with given roots: switches joined to them only
/// through CAs) and the CA ports cabled to them, as OpenSM removes them from its tables.
pub fn drop_unranked(f: &mut Fabric) {
    let sw = &f.sw;
    f.switches.retain(|&s| sw[s].rank != UNRANKED);
    for ports in f.ca_ports.iter_mut() {
        ports.retain(|p| sw[p.switch].rank != UNRANKED);
    }
}

/// The switches `names` names, by node name or GUID (`0x…`, as OpenSM's root GUID file
/// lists them), among the nodes of the subnet `g`. A name that is not in `g` is taken to be a
/// root of another rail (each rail is routed as its own subnet with the same options) and
/// skipped, as OpenSM skips a root GUID it does not find; but at least one must be here.
pub fn resolve_roots(g: &FabricGraph, names: &[String]) -> Result<Vec<NodeId>, GraphError> {
    let roots = crate::fabric::routing::roots::switches_named(g, names, "ftree")?;
    if roots.is_empty() {
        return Err(GraphError(format!("ftree roots {names:?}: none of them names a switch (by name or 0x GUID) of the fabric")));
    }
    Ok(roots)
}
