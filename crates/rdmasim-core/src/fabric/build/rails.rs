//! Multi-rail fabrics: N independent copies of one topology, each host with one HCA per rail
//! (rail r's HCA is the host's `hcas[r]`). The rails share no switch and no cable, as
//! TSUBAME2.0's two QDR networks (seeds/004: "2つの独立した2段Fat tree").
use super::common::{add_hosts, assign_lids_hosts_first, require, RailTopology};
use crate::fabric::graph::{FabricGraph, GraphError};

/// `rails` copies of `topology` over one set of hosts, with LIDs assigned (HCA ports first,
/// rail by rail; then switches).
pub fn rails<T: RailTopology + ?Sized>(topology: &T, rails: u16) -> Result<FabricGraph, GraphError> {
    let mut g = rails_without_lids(topology, rails)?;
    assign_lids_hosts_first(&mut g)?;
    Ok(g)
}

/// As [`rails`], no LID assigned: for a generator that numbers its ports in another order
/// (fabric/build/lid_order.rs).
pub fn rails_without_lids<T: RailTopology + ?Sized>(topology: &T, rails: u16) -> Result<FabricGraph, GraphError> {
    require(rails >= 1, "rails", rails, "at least 1")?;
    let mut g = FabricGraph::new();
    let hosts = add_hosts(&mut g, topology.num_hosts()?);
    for rail in 0..rails {
        topology.attach(&mut g, &hosts, rail)?;
    }
    Ok(g)
}

/// One rail of `topology`: the plain, single-HCA fabric.
pub fn single_rail<T: RailTopology + ?Sized>(topology: &T) -> Result<FabricGraph, GraphError> {
    rails(topology, 1)
}
