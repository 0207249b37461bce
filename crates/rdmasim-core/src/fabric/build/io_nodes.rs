//! I/O nodes on one rail of the TSUBAME2.0-like fabric (fabric/build/tsubame2.rs).
//!
//! The seed says the two rails are alike "except for whether they connect the I/O nodes"
//! (seeds/004 §1 and §4: "I/Oノードへの接続の有無を除いて相似"), so one rail carries the
//! storage servers and the other does not, and a routing engine that balances over every
//! destination routes the two rails differently. How many I/O nodes there were and where they
//! plugged in is not public (research notes §7). They sit on rail 0 here: the first rail is
//! the one the study could not run DFSSSP on (§4), the only hint of which rail differs
//! (ASSUMPTION). Each is a host `io0`, `io1`, … after the compute hosts, with one HCA; jobs
//! run on the compute hosts only (`fabric::compute_hosts`).
use super::common::{add_rail_hca, cable, require};
use crate::fabric::graph::{FabricGraph, GraphError, LinkProps};
use crate::fabric::rate::LinkSpeed;
use crate::ids::{HostId, NodeId};
use serde::{Deserialize, Serialize};

/// The rail the I/O nodes are on.
pub const IO_RAIL: u16 = 0;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IoAttach {
    /// On the compute edge switches' ports left over after the hosts and uplinks (36 − 16 −
    /// 18 = 2 per Grid Director 4036), spread evenly: I/O node i on edge ⌊i × edges / count⌋.
    #[default]
    Edge,
    /// On edge switches of their own (`hosts_per_edge` I/O nodes each, named `r0-L1-io0`, …),
    /// cabled to the directors as the compute edges are, after them.
    IoEdge,
}

impl IoAttach {
    pub fn name(self) -> &'static str {
        match self {
            IoAttach::Edge => "edge",
            IoAttach::IoEdge => "io-edge",
        }
    }
}

/// Adds `count` I/O hosts named `io0`, `io1`, ….
pub fn add_io_hosts(g: &mut FabricGraph, count: usize) -> Vec<HostId> {
    (0..count).map(|i| g.add_host(format!("io{i}"))).collect()
}

/// Checks that `count` I/O nodes fit on `edges` edges with `spare` free ports each.
pub fn check_spare_ports(count: usize, edges: usize, spare: usize) -> Result<(), GraphError> {
    let per_edge = count.div_ceil(edges.max(1));
    require(per_edge <= spare, "io_nodes", count, format_args!("at most {} on {edges} edges with {spare} spare ports each (io_attach = edge), or io_attach = io-edge", edges * spare))
}

/// Cables the I/O hosts' rail HCAs to the edges' spare ports, `first_spare` on, evenly spread.
pub fn attach_to_edges(g: &mut FabricGraph, io: &[HostId], edges: &[NodeId], first_spare: u16, speed: LinkSpeed, props: LinkProps) -> Result<(), GraphError> {
    let mut used = vec![0u16; edges.len()];
    for (i, &h) in io.iter().enumerate() {
        let e = i * edges.len() / io.len();
        let ca = add_rail_hca(g, h, IO_RAIL, 1, speed)?;
        cable(g, ca, 1, edges[e], first_spare + used[e], props)?;
        used[e] += 1;
    }
    Ok(())
}
