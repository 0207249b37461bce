//! The order a generated fabric's ports get their LIDs in. Engines that balance routes by
//! counting what each port already carries (minhop, updn) walk destinations in LID order, so
//! the numbering is an input of the routes like the cabling; TSUBAME2.0's is not public
//! (research notes §7), so it is a parameter.
use super::common::assign_lids_hosts_first;
use crate::fabric::graph::{FabricGraph, GraphError};
use crate::fabric::lid_assign::assign_lids_opensm;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LidOrder {
    /// HCA ports first, rail by rail and host by host (host i's rail-0 port is LID i + 1), then
    /// the switches in node order: racks in order, as an operator writing a LID file by hand
    /// would number them. The generators' numbering (`common::assign_lids_hosts_first`).
    #[default]
    Rack,
    /// As OpenSM's LID manager numbers a fabric it finds without LIDs (`osm_lid_mgr.c`: the
    /// subnet manager's port first, then every port in port-GUID order, each the lowest free
    /// LID; `lid_assign::assign_lids_opensm`), subnet by subnet, i.e. rail by rail, over the
    /// generator's GUIDs: a vendor prefix and the node's creation index, which OpenSM's
    /// byte-reversed order interleaves across racks, or those shuffled (pseudo_guids.rs,
    /// `guid_seed`) as factory serials would be. ASSUMPTION: the real GUIDs are not public.
    /// OpenSM's engines walk ports by GUID and switch, not by LID (routing/opensm_order.rs),
    /// so the numbering alone moves no route of theirs; d-mod-k ranks by LID and does move.
    /// The subnet manager sits on each rail's first node (ASSUMPTION: where
    /// TSUBAME2.0 ran it is not public; it takes one LID). A long-running OpenSM keeps the LIDs
    /// of its first sweep (guid2lid), so this is the numbering of the first one.
    Guid,
}

impl LidOrder {
    pub fn name(self) -> &'static str {
        match self {
            LidOrder::Rack => "rack",
            LidOrder::Guid => "guid",
        }
    }

    /// Numbers every switch and cabled HCA port of `g` that has no LID yet.
    pub fn assign(self, g: &mut FabricGraph) -> Result<(), GraphError> {
        match self {
            LidOrder::Rack => assign_lids_hosts_first(g),
            LidOrder::Guid => assign_lids_opensm(g, &[]),
        }
    }
}
