//! The hosts a job runs on: those with an HCA on every rail. A host on fewer rails is a
//! server the fabric carries besides the compute nodes (the TSUBAME2.0 generator's I/O nodes,
//! on one rail: fabric/build/io_nodes.rs), not a node a batch system hands out.
use crate::fabric::graph::FabricGraph;
use crate::ids::HostId;

/// The compute hosts in host order: every host when all have the same number of HCAs.
pub fn compute_hosts(g: &FabricGraph) -> Vec<HostId> {
    let rails = g.hosts.iter().map(|h| h.hcas.len()).max().unwrap_or(0);
    g.hosts.iter_enumerated().filter(|(_, h)| h.hcas.len() == rails).map(|(id, _)| id).collect()
}
