//! OpenSM's `dfsssp`: the tables of sssp (routing/sssp/), made deadlock-free by virtual layers
//! (SLs) that cut the cycles of the channel dependency graph, as OpenSM 3.3.23's
//! `osm_ucast_dfsssp.c` assigns them.
//!
//! - [`channels`]: channels and the channels of each path.
//! - [`cdg`]: one layer's dependency graph, its cycle search and the cut.
//! - [`layers`]: all paths on layer 0, then layer by layer, cycles cut and paths moved up.
//! - [`balance`]: spare lanes spread over the layers, and each path's SL.
//!
//! When the paths need more layers than `RouteOptions.max_vls` allows, OpenSM's dfsssp fails
//! ("Not enough VLs available") and OpenSM routes with its default engine, minhop; so do we,
//! with the reason in the output's `fallback`.
pub mod balance;
pub mod cdg;
pub mod channels;
pub mod layers;

use super::engine::{EngineOutput, PathSls, RouteOptions};
use super::sssp;
use crate::fabric::graph::{FabricGraph, GraphError, Lfts};
use sssp::network::Target;

/// Lanes OpenSM allows at most (IBA's 15 data VLs); it also uses at least one.
const MAX_DATA_VLS: u8 = 15;

/// sssp's tables for one subnet, the layer of every path and the lanes of each layer.
pub struct VirtualLayers {
    pub lfts: Lfts,
    pub layers: layers::Layers,
    pub lanes: balance::LaneGroups,
    /// The LIDs routed, in OpenSM's order: the pairs that have a layer.
    pub targets: Vec<Target>,
}

impl VirtualLayers {
    /// The first SL of each path's lane group: OpenSM's table of SLs after balancing (what its
    /// debug log prints), before the draw within the group.
    pub fn group_sls(&self) -> PathSls {
        let mut out = self.layers.of_pair.clone();
        for sl in &mut out.sl {
            *sl = self.lanes.first.get(usize::from(*sl)).copied().unwrap_or(0);
        }
        out
    }

    /// The SL of every path: its layer's group, a lane in it per pair.
    pub fn path_sls(&self) -> PathSls {
        let mut sls = self.layers.of_pair.clone();
        for dst in &self.targets {
            for src in self.targets.iter().filter(|s| s.lid != dst.lid) {
                let layer = self.layers.of_pair.get(src.lid, dst.lid);
                sls.set(src.lid, dst.lid, self.lanes.sl(layer, src.lid, dst.lid));
            }
        }
        sls
    }
}

/// Routes one subnet with sssp and assigns dfsssp's layers within `max_vls` lanes (clamped to
/// 1..=15 as OpenSM clamps what the ports offer).
pub fn virtual_layers(g: &FabricGraph, max_vls: u8) -> Result<VirtualLayers, GraphError> {
    let (lfts, net) = sssp::route_with_network(g)?;
    let available = max_vls.clamp(1, MAX_DATA_VLS);
    let layers = layers::assign(g, &net, &lfts, available)?;
    let lanes = balance::lane_groups(&layers);
    Ok(VirtualLayers { lfts, layers, lanes, targets: net.targets })
}

pub fn route(g: &FabricGraph, opts: &RouteOptions) -> Result<EngineOutput, GraphError> {
    let vl = virtual_layers(g, opts.max_vls)?;
    let (needed, available) = (vl.layers.needed, vl.layers.available);
    if needed > available {
        let reason = format!("not enough VLs available (avail={available}, needed={needed}): the paths need more than {available} virtual layers");
        let failed = |e: GraphError| GraphError(format!("dfsssp: {reason}; OpenSM then routes with minhop, which failed: {}", e.0));
        return EngineOutput::minhop_instead(g, reason.clone()).map_err(failed);
    }
    let sls = vl.path_sls();
    Ok(EngineOutput { lfts: vl.lfts, sls: Some(sls), fallback: None })
}
