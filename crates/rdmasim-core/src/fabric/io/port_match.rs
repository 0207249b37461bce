//! Finding the port of a [`FabricGraph`] a tool's line is about, by what the tool names it
//! with: a LID (a switch's, then the port number; or a CA port's own), a GUID (a switch's node
//! GUID, a CA's port GUID, or a CA's node GUID with the port number) or a node description.
//! Every miss is an error naming the line, so counters from another fabric (or a topology file
//! older than the counters) are not silently dropped. [`PortIndex`] is built once per graph:
//! a whole fabric's perfquery output names every port.
use super::port_counters::NodeAddr;
use super::IoError;
use crate::fabric::graph::{FabricGraph, NO_LID};
use crate::ids::{NodeId, PortId};
use std::collections::HashMap;

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

/// What a LID or a GUID names: a node (a switch, or a CA by node GUID) or one CA port.
#[derive(Clone, Copy)]
enum Named {
    Node(NodeId),
    Port(PortId),
}

pub struct PortIndex<'g> {
    g: &'g FabricGraph,
    lids: HashMap<u16, Named>,
    guids: HashMap<u64, Named>,
    names: HashMap<&'g str, NodeId>,
}

impl<'g> PortIndex<'g> {
    pub fn new(g: &'g FabricGraph) -> PortIndex<'g> {
        let mut ix = PortIndex { g, lids: HashMap::new(), guids: HashMap::new(), names: HashMap::new() };
        for (id, n) in g.nodes.iter_enumerated() {
            ix.names.insert(n.name.as_str(), id);
            if n.is_switch() && n.lid != NO_LID {
                ix.lids.insert(n.lid, Named::Node(id));
            }
        }
        for (p, gp) in g.ports.iter_enumerated() {
            // A switch's ports share its node GUID; a CA's port GUIDs are their own.
            ix.guids.entry(gp.guid).or_insert(if g.nodes[gp.node].is_switch() { Named::Node(gp.node) } else { Named::Port(p) });
            if gp.lid != NO_LID && !g.nodes[gp.node].is_switch() {
                ix.lids.entry(gp.lid).or_insert(Named::Port(p));
            }
        }
        // Node GUIDs last: a CA's node GUID names the CA (any of its ports by number).
        for (id, n) in g.nodes.iter_enumerated() {
            ix.guids.insert(n.guid, Named::Node(id));
        }
        ix
    }

    fn numbered(&self, node: NodeId, port: u16, what: &str, at: At) -> Result<PortId, IoError> {
        let n = &self.g.nodes[node];
        n.port(port).ok_or_else(|| at.err(format!("{what} is {:?}, which has ports 1..={}, not {port}", n.name, n.num_ports)))
    }

    fn resolve(&self, named: Named, port: u16, what: &str, at: At) -> Result<PortId, IoError> {
        match named {
            Named::Node(id) => self.numbered(id, port, what, at),
            Named::Port(p) if self.g.ports[p].num == port => Ok(p),
            Named::Port(p) => Err(at.err(format!("{what} is {}, not port {port} of {:?}", self.g.port_name(p), self.g.nodes[self.g.ports[p].node].name))),
        }
    }

    /// The port at `lid` and `port`: a switch's LID with any of its port numbers, or a CA
    /// port's LID with that port's number.
    pub fn by_lid(&self, lid: u16, port: u16, at: At) -> Result<PortId, IoError> {
        match self.lids.get(&lid) {
            Some(&named) => self.resolve(named, port, &format!("LID {lid}"), at),
            None => Err(at.err(format!("LID {lid} port {port}: no switch or CA port of the topology has LID {lid}"))),
        }
    }

    /// The port a GUID and port number name.
    pub fn by_guid(&self, guid: u64, port: u16, at: At) -> Result<PortId, IoError> {
        match self.guids.get(&guid) {
            Some(&named) => self.resolve(named, port, &format!("GUID {guid:#018x}"), at),
            None => Err(at.err(format!("GUID {guid:#018x} port {port}: no node or port of the topology has GUID {guid:#018x}"))),
        }
    }

    /// The port `port` of the node named `name`.
    pub fn by_name(&self, name: &str, port: u16, at: At) -> Result<PortId, IoError> {
        match self.names.get(name) {
            Some(&id) => self.numbered(id, port, &format!("{name:?}"), at),
            None => Err(at.err(format!("{name:?} port {port}: no node of the topology is named {name:?}"))),
        }
    }

    /// The port a counter record's node and port number name.
    pub fn by_addr(&self, node: &NodeAddr, port: u16, at: At) -> Result<PortId, IoError> {
        match node {
            NodeAddr::Lid(lid) => self.by_lid(*lid, port, at),
            NodeAddr::Guid(guid) => self.by_guid(*guid, port, at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::graph::LinkProps;
    use crate::fabric::rate::{LinkGen, LinkSpeed};

    #[test]
    fn lids_guids_and_names_find_their_ports() {
        let qdr = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
        let mut g = FabricGraph::new();
        let sw = g.add_switch("sw", 0x100, 8, qdr).unwrap();
        let h = g.add_host("h");
        let ca = g.add_hca(h, "h HCA-1", 0x200, 2, qdr).unwrap();
        let (ca2, sw3) = (g.port_of(ca, 2).unwrap(), g.port_of(sw, 3).unwrap());
        g.connect(ca2, sw3, LinkProps::new(qdr, 1.0)).unwrap();
        g.assign_lids().unwrap();
        let ix = PortIndex::new(&g);
        let at = At { source: "f", line: 7 };
        assert_eq!(ix.by_lid(g.nodes[sw].lid, 3, at).unwrap(), sw3);
        assert_eq!(ix.by_lid(g.ports[ca2].lid, 2, at).unwrap(), ca2);
        assert_eq!(ix.by_guid(0x100, 3, at).unwrap(), sw3, "a switch by its node GUID");
        assert_eq!(ix.by_guid(0x202, 2, at).unwrap(), ca2, "a CA port by its port GUID");
        assert_eq!(ix.by_guid(0x200, 2, at).unwrap(), ca2, "a CA by its node GUID and the port number");
        assert_eq!(ix.by_name("h HCA-1", 2, at).unwrap(), ca2);
        assert_eq!(ix.by_guid(0x202, 1, at).unwrap_err().to_string(), "f:7: GUID 0x0000000000000202 is \"h HCA-1\"[2], not port 1 of \"h HCA-1\"");
        assert_eq!(ix.by_name("sw", 9, at).unwrap_err().to_string(), "f:7: \"sw\" is \"sw\", which has ports 1..=8, not 9");
        assert!(ix.by_name("nobody", 1, at).unwrap_err().message.contains("no node of the topology is named"));
    }
}
