//! OpenSM's default engine, minhop: shortest paths over the switches, and at each switch the
//! least-loaded of the least-hop ports (fabric/routing/least_loaded.rs has the choice and the
//! order it is made in, which our cross-check shows equal to OpenSM 3.3's entry by entry).
use super::least_loaded;
use super::shortest::SwitchLinks;
use crate::fabric::graph::{FabricGraph, GraphError, Lfts};

pub fn route(g: &FabricGraph) -> Result<Lfts, GraphError> {
    let links = SwitchLinks::new(g);
    least_loaded::route(g, &links, |dest, hops| hops.fill_shortest(g, &links, dest))
}
