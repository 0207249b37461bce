//! Finding the port of a [`FabricGraph`] a tool's line is about, by what the tool names it
//! with: a LID (a switch's, then the port number; or a CA port's own), a GUID (a switch's node
//! GUID, a CA's port GUID, or a CA's node GUID with the port number) or a node description.
//! Every miss is an error naming the line, so counters from another fabric (or a topology file
//! older than the counters) are not silently dropped.
use super::port_counters::NodeAddr;
use super::IoError;
use crate::fabric::graph::{FabricGraph, NO_LID};
use crate::ids::PortId;

/// Where in the input a name was read, for the error.
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub source: &'a str,
    pub line: usize,
}

impl At<'_> {
    fn err(&self, m: String) -> IoError {
        IoError::at(self.source, self.line, m)
    }
}

fn numbered(g: &FabricGraph, node: crate::ids::NodeId, port: u16, what: &str, at: At) -> Result<PortId, IoError> {
    let n = &g.nodes[node];
    n.port(port).ok_or_else(|| at.err(format!("{what} is {:?}, which has ports 1..={}, not {port}", n.name, n.num_ports)))
}

/// The port at `lid` and `port`: a switch's LID with any of its port numbers, or a CA port's
/// LID with that port's number.
pub fn by_lid(g: &FabricGraph, lid: u16, port: u16, at: At) -> Result<PortId, IoError> {
    if lid != NO_LID {
        if let Some((id, _)) = g.nodes.iter_enumerated().find(|(_, n)| n.is_switch() && n.lid == lid) {
            return numbered(g, id, port, &format!("LID {lid}"), at);
        }
        if let Some((p, gp)) = g.ports.iter_enumerated().find(|(_, gp)| gp.lid == lid && !g.nodes[gp.node].is_switch()) {
            if gp.num != port {
                return Err(at.err(format!("LID {lid} is {}, not port {port} of {:?}", g.port_name(p), g.nodes[gp.node].name)));
            }
            return Ok(p);
        }
    }
    Err(at.err(format!("LID {lid} port {port}: no switch or CA port of the topology has LID {lid}")))
}

/// The port a GUID and port number name: a switch's node GUID (or port GUID: its ports share
/// it), a CA port's GUID (whose number must be `port`), or a CA's node GUID.
pub fn by_guid(g: &FabricGraph, guid: u64, port: u16, at: At) -> Result<PortId, IoError> {
    if let Some((id, _)) = g.nodes.iter_enumerated().find(|(_, n)| n.guid == guid) {
        return numbered(g, id, port, &format!("GUID {guid:#018x}"), at);
    }
    if let Some((p, gp)) = g.ports.iter_enumerated().find(|(_, gp)| gp.guid == guid) {
        if gp.num != port && !g.nodes[gp.node].is_switch() {
            return Err(at.err(format!("GUID {guid:#018x} is {}, not port {port}", g.port_name(p))));
        }
        return numbered(g, gp.node, port, &format!("GUID {guid:#018x}"), at);
    }
    Err(at.err(format!("GUID {guid:#018x} port {port}: no node or port of the topology has GUID {guid:#018x}")))
}

/// The port `port` of the node named `name`.
pub fn by_name(g: &FabricGraph, name: &str, port: u16, at: At) -> Result<PortId, IoError> {
    match g.nodes.iter_enumerated().find(|(_, n)| n.name == name) {
        Some((id, _)) => numbered(g, id, port, &format!("{name:?}"), at),
        None => Err(at.err(format!("{name:?} port {port}: no node of the topology is named {name:?}"))),
    }
}

/// The port a counter record's node and port number name.
pub fn by_addr(g: &FabricGraph, node: &NodeAddr, port: u16, at: At) -> Result<PortId, IoError> {
    match node {
        NodeAddr::Lid(lid) => by_lid(g, *lid, port, at),
        NodeAddr::Guid(guid) => by_guid(g, *guid, port, at),
    }
}
