//! What every generator shares: parameter checks that name the parameter, deterministic GUIDs,
//! host and HCA naming, cabling by port number, and the LID order the engine relies on.
use crate::fabric::graph::{FabricGraph, GraphError, LinkProps, MAX_PORTS};
use crate::fabric::rate::{LinkGen, LinkSpeed};
use crate::ids::{HostId, LinkId, NodeId};

/// Switch node GUIDs start here: Voltaire's OUI (00:08:f1), as TSUBAME2.0's switches would
/// report. The vendor prefix is cosmetic (assumption); uniqueness is what matters.
const SWITCH_GUID_BASE: u64 = 0x0008_f104_0000_0000;
/// HCA node GUIDs start here: Mellanox's OUI (00:02:c9), as ConnectX adapters report.
const HCA_GUID_BASE: u64 = 0x0002_c903_0000_0000;

/// One rail's topology: how many hosts it serves, and how to add its switches and one HCA per
/// host (which becomes the host's `hcas[rail]`) to a graph that already has the hosts. A
/// single-rail fabric is a one-rail `rails` (fabric/build/rails.rs).
pub trait RailTopology {
    fn num_hosts(&self) -> Result<usize, GraphError>;
    fn attach(&self, g: &mut FabricGraph, hosts: &[HostId], rail: u16) -> Result<(), GraphError>;
}

/// The default link: 4x QDR, as TSUBAME2.0 and the engine's default profile use.
pub fn qdr_4x() -> LinkSpeed {
    LinkSpeed { gen: LinkGen::Qdr, width: 4 }
}

/// An error naming a parameter, the value it had and what was expected.
pub fn bad_param(param: &str, got: impl std::fmt::Display, expected: impl std::fmt::Display) -> GraphError {
    GraphError(format!("{param} = {got}: expected {expected}"))
}

/// `Ok` when `ok`, else the `bad_param` error.
pub fn require(ok: bool, param: &str, got: impl std::fmt::Display, expected: impl std::fmt::Display) -> Result<(), GraphError> {
    if ok {
        Ok(())
    } else {
        Err(bad_param(param, got, expected))
    }
}

/// A port count as the graph takes it, or an error naming `param` when it does not fit.
pub fn port_count(param: &str, ports: usize) -> Result<u16, GraphError> {
    require((1..=MAX_PORTS as usize).contains(&ports), param, ports, format_args!("1..={MAX_PORTS} ports"))?;
    Ok(ports as u16)
}

/// A cable length must be a finite non-negative number of metres.
pub fn check_length(param: &str, length_m: f64) -> Result<(), GraphError> {
    require(length_m.is_finite() && length_m >= 0.0, param, length_m, "a finite length >= 0 (metres)")
}

/// GUIDs follow the node's arena index, so they are unique and the same on every build. The
/// index is shifted by 8 bits to leave room for an HCA's port GUIDs (node GUID + port number).
fn guid_for_next_node(g: &FabricGraph, base: u64) -> u64 {
    base + index_part(g.nodes.len())
}

/// The part of a generated node GUID that is its index (fabric/build/pseudo_guids.rs swaps it).
pub fn index_part(index: usize) -> u64 {
    (index as u64) << 8
}

pub fn add_switch(g: &mut FabricGraph, name: String, radix: u16, speed: LinkSpeed) -> Result<NodeId, GraphError> {
    let guid = guid_for_next_node(g, SWITCH_GUID_BASE);
    g.add_switch(name, guid, radix, speed)
}

/// Adds `host`'s HCA for `rail` (it must be the host's next HCA), named like `"h12 mlx4_1"`.
pub fn add_rail_hca(g: &mut FabricGraph, host: HostId, rail: u16, ports: u16, speed: LinkSpeed) -> Result<NodeId, GraphError> {
    let have = g.hosts[host].hcas.len();
    if have != usize::from(rail) {
        return Err(GraphError(format!("host {:?} has {have} HCAs, so its next one cannot be rail {rail}", g.hosts[host].name)));
    }
    let name = format!("{} mlx4_{rail}", g.hosts[host].name);
    let guid = guid_for_next_node(g, HCA_GUID_BASE);
    g.add_hca(host, name, guid, ports, speed)
}

/// Adds `n` hosts named `h0`, `h1`, ...
pub fn add_hosts(g: &mut FabricGraph, n: usize) -> Vec<HostId> {
    (0..n).map(|i| g.add_host(format!("h{i}"))).collect()
}

/// Cables port `a_port` of `a` to port `b_port` of `b`.
pub fn cable(g: &mut FabricGraph, a: NodeId, a_port: u16, b: NodeId, b_port: u16, props: LinkProps) -> Result<LinkId, GraphError> {
    let pa = g.port_of(a, a_port)?;
    let pb = g.port_of(b, b_port)?;
    g.connect(pa, pb, props)
}

/// Gives HCA ports their LIDs first, rail by rail and host by host (rail 0: host i's port gets
/// LID i + 1 when each HCA has one port), then switches in node order through `assign_lids`.
/// The packet engine assumes "LID = host index + 1" and a single switch's LID = hosts + 1;
/// this order keeps both, and keeps each rail's hosts on consecutive LIDs (d-mod-k spreads by
/// a destination's rank, fabric/routing/dmodk.rs).
pub fn assign_lids_hosts_first(g: &mut FabricGraph) -> Result<(), GraphError> {
    let rails = g.hosts.iter().map(|h| h.hcas.len()).max().unwrap_or(0);
    let mut next = g.max_lid() + 1;
    for rail in 0..rails {
        for h in 0..g.hosts.len() {
            let Some(&ca) = g.hosts[HostId::from(h)].hcas.get(rail) else { continue };
            for p in g.nodes[ca].ports() {
                if g.ports[p].link.is_some() && g.ports[p].lid == crate::fabric::graph::NO_LID {
                    if next > crate::fabric::graph::MAX_UNICAST_LID {
                        return Err(GraphError(format!("out of unicast LIDs at {}", g.port_name(p))));
                    }
                    g.ports[p].lid = next;
                    next += 1;
                }
            }
        }
    }
    g.assign_lids()
}
