//! GUIDs in no relation to the racks. A generator numbers its nodes' GUIDs in creation order
//! (common.rs), so the GUID order follows the cabling; real GUIDs are factory serials, and
//! which box went into which rack is not in them. OpenSM walks its switch and port tables in
//! GUID order (routing/opensm_order.rs) and, on a fresh fabric, hands out LIDs in it
//! (lid_assign.rs), so the GUIDs are an input of the routes. ASSUMPTION: TSUBAME2.0's are
//! not public; a seeded shuffle of the creation indices stands in for them, one seed one draw.
use super::common::index_part;
use crate::engine::SimRng;
use crate::fabric::graph::FabricGraph;
use crate::traffic::patterns::shuffle_into;

/// Stream of the shuffle.
const STREAM_GUIDS: u64 = 0x4755_4944 << 32;

/// Gives every node the GUID of another creation index (a permutation drawn from `seed`),
/// keeping its vendor prefix and its ports' offsets from it: still unique, still the same on
/// every build with that seed.
pub fn shuffle_guids(g: &mut FabricGraph, seed: u64) {
    let mut perm = Vec::new();
    shuffle_into(&mut perm, g.nodes.len(), &mut SimRng::new(seed, STREAM_GUIDS));
    for (i, &to) in perm.iter().enumerate() {
        let node = &mut g.nodes[crate::ids::NodeId::from(i)];
        let old = node.guid;
        node.guid = old - index_part(i) + index_part(to as usize);
        let new = node.guid;
        for p in node.ports() {
            g.ports[p].guid = g.ports[p].guid - old + new;
        }
    }
}
