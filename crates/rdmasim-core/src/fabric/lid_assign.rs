//! LIDs as OpenSM's LID manager gives them on a fabric that has none (lmc 0): the subnet
//! manager's own port first, then every port in the order of OpenSM's port table, each the
//! lowest free LID. A switch is one port there, its port 0, with the switch's GUID. The table
//! is keyed by the port GUID as it travels, in network byte order, compared as an integer on
//! the (little-endian) host: in effect the GUIDs ordered by their last byte first, so the
//! ports of one HCA model (GUIDs ending in the port number) interleave before the next byte
//! counts. A port that already has a LID keeps it, as OpenSM keeps a valid LID the port
//! reports. Checked against the real OpenSM over ibsim (tests/opensm_cross_check.rs).
//!
//! A multi-rail fabric is one subnet per rail, each with its own subnet manager and its own
//! LID space in a real cluster; the graph keeps LIDs unique across rails (the packet engine
//! addresses ports by LID), so each rail is numbered after the previous one.
use crate::fabric::analysis::components::Components;
use crate::fabric::graph::{FabricGraph, GraphError, NodeKind, MAX_UNICAST_LID, NO_LID};
use crate::ids::{NodeId, PortId};

/// The key OpenSM's GUID-keyed maps (switches, nodes, ports) order by: the GUID in network
/// byte order read as a little-endian integer, i.e. its bytes reversed.
pub fn guid_key(guid: u64) -> u64 {
    guid.swap_bytes()
}

/// A port that takes a LID: a switch (its port 0) or an HCA port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LidHolder {
    Switch(NodeId),
    CaPort(PortId),
}

impl LidHolder {
    pub fn lid(self, g: &FabricGraph) -> u16 {
        match self {
            LidHolder::Switch(s) => g.nodes[s].lid,
            LidHolder::CaPort(p) => g.ports[p].lid,
        }
    }
    pub fn set_lid(self, g: &mut FabricGraph, lid: u16) {
        match self {
            LidHolder::Switch(s) => g.nodes[s].lid = lid,
            LidHolder::CaPort(p) => g.ports[p].lid = lid,
        }
    }
}


/// Gives every switch and cabled HCA port without a LID one, as OpenSM would, subnet by
/// subnet; `sm_nodes` names the node the subnet manager runs on in each subnet (default: the
/// subnet's first node in node order, which is where ibsim puts it for a net file we wrote:
/// its first node).
pub fn assign_lids_opensm(g: &mut FabricGraph, sm_nodes: &[NodeId]) -> Result<(), GraphError> {
    let comps = Components::of(g);
    let mut holders: Vec<Vec<(u64, LidHolder)>> = vec![Vec::new(); comps.len()];
    for (id, n) in g.nodes.iter_enumerated() {
        let c = comps.of_node[id] as usize;
        match n.kind {
            NodeKind::Switch => holders[c].push((guid_key(n.guid), LidHolder::Switch(id))),
            NodeKind::Ca { .. } => {
                for p in n.ports().filter(|&p| g.ports[p].link.is_some()) {
                    holders[c].push((guid_key(g.ports[p].guid), LidHolder::CaPort(p)));
                }
            }
        }
    }
    let mut used = vec![false; usize::from(MAX_UNICAST_LID) + 1];
    used[0] = true;
    for (lid, _, _) in g.lids() {
        used[usize::from(lid)] = true;
    }
    let mut next_free = 1usize;
    for (c, mut list) in holders.into_iter().enumerate() {
        let sm = sm_nodes.iter().copied().find(|&n| comps.of_node[n] as usize == c);
        let sm = sm.or_else(|| g.nodes.keys().find(|&n| comps.of_node[n] as usize == c));
        list.sort_by_key(|&(key, _)| key);
        // The SM's port: a switch's port 0, or the HCA's first cabled port (in port order).
        let sm_holder = sm.and_then(|n| match g.nodes[n].kind {
            NodeKind::Switch => Some(LidHolder::Switch(n)),
            NodeKind::Ca { .. } => g.nodes[n].ports().find(|&p| g.ports[p].link.is_some()).map(LidHolder::CaPort),
        });
        if let Some(i) = sm_holder.and_then(|h| list.iter().position(|&(_, x)| x == h)) {
            let sm = list.remove(i);
            list.insert(0, sm);
        }
        for (_, h) in list {
            if h.lid(g) != NO_LID {
                continue;
            }
            while next_free < used.len() && used[next_free] {
                next_free += 1;
            }
            if next_free >= used.len() {
                return Err(GraphError(format!("out of unicast LIDs (at most {MAX_UNICAST_LID})")));
            }
            used[next_free] = true;
            h.set_lid(g, next_free as u16);
        }
    }
    Ok(())
}
