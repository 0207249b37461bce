//! OpenSM's `sssp`: single-source shortest paths per destination with globally balanced link
//! weights (Hoefler, Schneider, Lumsdaine, HOTI 2009), as `osm_ucast_dfsssp.c` does it in
//! OpenSM 3.3.23, so that our tables equal OpenSM's entry by entry.
//!
//! - [`network`]: switches in OpenSM's order, links per cable, the order destinations go in
//!   (switches with more HCAs first, their HCA ports by port, then every switch's own LID).
//! - [`dijkstra`]: one Dijkstra per destination LID; a link starts at (LIDs in the subnet)²,
//!   so fewer hops always win, and after each destination every link on its routing tree gains
//!   the LIDs behind the switches that route through it.
//! - [`heap`]: complib's 4-ary heap, whose order of equal keys breaks ties as OpenSM's does.
//!
//! `dfsssp` (routing/dfsssp/) takes these tables and adds virtual layers.
pub mod dijkstra;
pub mod heap;
pub mod network;

use crate::fabric::graph::{FabricGraph, GraphError, Lfts};
use network::Network;

/// The tables of OpenSM's sssp for one subnet, and the network they were computed on.
pub fn route_with_network(g: &FabricGraph) -> Result<(Lfts, Network), GraphError> {
    let mut net = Network::new(g);
    let lfts = dijkstra::route_all(g, &mut net);
    Ok((lfts, net))
}

pub fn route(g: &FabricGraph) -> Result<Lfts, GraphError> {
    route_with_network(g).map(|(lfts, _)| lfts)
}
