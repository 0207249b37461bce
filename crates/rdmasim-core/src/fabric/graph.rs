//! The fabric as a graph, pure data: nodes (switches and HCAs) with numbered ports, links with
//! their own width, speed, length, error rate and state, and the hosts that own the HCAs.
//! Generators (fabric/build/) and importers (fabric/io/) produce one; routing (fabric/routing/)
//! adds forwarding tables to make a [`RoutedFabric`]; the analysis and both engines start from
//! that. Nothing here knows of time.
//!
//! Ports are numbered from 1 as InfiniBand numbers them (a switch's port 0 is its management
//! port, which owns the switch's LID and is not in the port arena). A port's arena index
//! (`PortId`) is the same in the packet engine, which keeps its counters there.
use crate::fabric::rate::{LinkGen, LinkSpeed};
use crate::ids::{HostId, LinkId, NodeId, PortId, TiVec};

/// No LID assigned (LID 0 is reserved in InfiniBand).
pub const NO_LID: u16 = 0;
/// Highest unicast LID (0xBFFF; 0xC000.. are multicast).
pub const MAX_UNICAST_LID: u16 = 0xBFFF;
/// An LFT entry with no route, as OpenSM writes it (`OSM_NO_PATH`).
pub const NO_ROUTE: u8 = 0xFF;
/// Most ports a node may have (port numbers are 8-bit, 255 means "no route").
pub const MAX_PORTS: u16 = 254;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Switch,
    /// A channel adapter (HCA) of `host`; `rail` is its place among the host's HCAs.
    Ca { host: HostId, rail: u16 },
}

#[derive(Clone, Debug)]
pub struct Node {
    pub kind: NodeKind,
    /// Node description (ibnetdiscover's quoted name), unique in the fabric.
    pub name: String,
    pub guid: u64,
    /// Ports `1..=num_ports` are `first_port .. first_port + num_ports` in the port arena.
    pub first_port: PortId,
    pub num_ports: u16,
    /// A switch's LID (its port 0); CA LIDs are per port.
    pub lid: u16,
}

impl Node {
    pub fn is_switch(&self) -> bool {
        self.kind == NodeKind::Switch
    }
    /// The arena id of port `num` (1-based), if the node has it.
    pub fn port(&self, num: u16) -> Option<PortId> {
        (1..=self.num_ports).contains(&num).then(|| PortId(self.first_port.0 + u32::from(num) - 1))
    }
    /// The node's GUID as the importers name a host that has no name of its own.
    pub fn guid_name(&self) -> String {
        format!("{:#018x}", self.guid)
    }
    pub fn ports(&self) -> impl Iterator<Item = PortId> {
        let first = self.first_port.0;
        (first..first + u32::from(self.num_ports)).map(PortId)
    }
}

#[derive(Clone, Debug)]
pub struct GraphPort {
    pub node: NodeId,
    /// 1-based port number.
    pub num: u16,
    pub guid: u64,
    /// The LID of an HCA port (NO_LID on switch ports: a switch has one LID, on port 0).
    pub lid: u16,
    pub link: Option<LinkId>,
    /// The widest and fastest this port supports; a link below what both ends support is
    /// degraded (it trained down, as a bad cable or connector makes it).
    pub supported: LinkSpeed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkState {
    Up,
    Down,
}

/// A cable between two ports, with its own properties.
#[derive(Clone, Debug)]
pub struct Link {
    pub ends: [PortId; 2],
    /// Active width and speed (the encoding follows from the speed: fabric/rate.rs).
    pub speed: LinkSpeed,
    pub length_m: f64,
    /// Bit-error rate of each direction.
    pub ber: f64,
    pub state: LinkState,
}

impl Link {
    /// The end that is not `p`.
    pub fn other(&self, p: PortId) -> PortId {
        if self.ends[0] == p {
            self.ends[1]
        } else {
            self.ends[0]
        }
    }
}

/// A host: a name and its HCAs, in rail order.
#[derive(Clone, Debug)]
pub struct HostSpec {
    pub name: String,
    pub hcas: Vec<NodeId>,
}

/// The link properties a generator or an importer gives a new link.
#[derive(Clone, Copy, Debug)]
pub struct LinkProps {
    pub speed: LinkSpeed,
    pub length_m: f64,
    pub ber: f64,
    pub state: LinkState,
}

impl LinkProps {
    pub fn new(speed: LinkSpeed, length_m: f64) -> LinkProps {
        LinkProps { speed, length_m, ber: 0.0, state: LinkState::Up }
    }
}

#[derive(Clone, Debug, Default)]
pub struct FabricGraph {
    pub nodes: TiVec<NodeId, Node>,
    pub ports: TiVec<PortId, GraphPort>,
    pub links: TiVec<LinkId, Link>,
    pub hosts: TiVec<HostId, HostSpec>,
}

/// Why a graph could not be built as asked (an importer turns it into a file and line error).
#[derive(Clone, Debug, PartialEq)]
pub struct GraphError(pub String);

impl std::fmt::Display for GraphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl FabricGraph {
    pub fn new() -> FabricGraph {
        FabricGraph::default()
    }

    fn add_node(&mut self, kind: NodeKind, name: String, guid: u64, num_ports: u16, supported: LinkSpeed) -> Result<NodeId, GraphError> {
        if num_ports == 0 || num_ports > MAX_PORTS {
            return Err(GraphError(format!("node {name:?}: {num_ports} ports, expected 1..={MAX_PORTS}")));
        }
        let id = self.nodes.next_key();
        let first_port = self.ports.next_key();
        for num in 1..=num_ports {
            // Port GUIDs: a switch's ports share the node GUID (as real switches report);
            // an HCA's port n has node GUID + n, as ConnectX numbers them.
            let port_guid = if kind == NodeKind::Switch { guid } else { guid.wrapping_add(u64::from(num)) };
            self.ports.push(GraphPort { node: id, num, guid: port_guid, lid: NO_LID, link: None, supported });
        }
        self.nodes.push(Node { kind, name, guid, first_port, num_ports, lid: NO_LID });
        Ok(id)
    }

    /// Adds a switch of `radix` ports, each supporting `supported`.
    pub fn add_switch(&mut self, name: impl Into<String>, guid: u64, radix: u16, supported: LinkSpeed) -> Result<NodeId, GraphError> {
        self.add_node(NodeKind::Switch, name.into(), guid, radix, supported)
    }

    /// Adds a host with no HCA yet.
    pub fn add_host(&mut self, name: impl Into<String>) -> HostId {
        self.hosts.push_and_get_key(HostSpec { name: name.into(), hcas: Vec::new() })
    }

    /// Adds an HCA of `num_ports` ports to `host`, as its next rail.
    pub fn add_hca(&mut self, host: HostId, name: impl Into<String>, guid: u64, num_ports: u16, supported: LinkSpeed) -> Result<NodeId, GraphError> {
        let rail = self.hosts[host].hcas.len() as u16;
        let id = self.add_node(NodeKind::Ca { host, rail }, name.into(), guid, num_ports, supported)?;
        self.hosts[host].hcas.push(id);
        Ok(id)
    }

    /// Cables port `a` to port `b`. Both must be free and on different nodes.
    pub fn connect(&mut self, a: PortId, b: PortId, props: LinkProps) -> Result<LinkId, GraphError> {
        for p in [a, b] {
            if let Some(l) = self.ports[p].link {
                let other = self.links[l].other(p);
                return Err(GraphError(format!("{} is already cabled to {}", self.port_name(p), self.port_name(other))));
            }
        }
        if self.ports[a].node == self.ports[b].node {
            return Err(GraphError(format!("{} and {} are ports of one node", self.port_name(a), self.port_name(b))));
        }
        let id = self.links.push_and_get_key(Link { ends: [a, b], speed: props.speed, length_m: props.length_m, ber: props.ber, state: props.state });
        self.ports[a].link = Some(id);
        self.ports[b].link = Some(id);
        Ok(id)
    }

    /// Port `num` of `node`, or an error naming both.
    pub fn port_of(&self, node: NodeId, num: u16) -> Result<PortId, GraphError> {
        let n = &self.nodes[node];
        n.port(num).ok_or_else(|| GraphError(format!("node {:?} has no port {num} (it has ports 1..={})", n.name, n.num_ports)))
    }

    /// The port at the other end of `p`'s link, if it is cabled (up or down).
    pub fn peer(&self, p: PortId) -> Option<PortId> {
        self.ports[p].link.map(|l| self.links[l].other(p))
    }

    /// The rails of `host`: its cabled HCA ports (the packet engine makes one HCA of each,
    /// fabric/topology.rs).
    pub fn rails_of_host(&self, host: HostId) -> usize {
        self.hosts.get(host).map_or(0, |h| h.hcas.iter().flat_map(|&ca| self.nodes[ca].ports()).filter(|&p| self.ports[p].link.is_some()).count())
    }

    /// The port at the other end of `p`'s link, if the link is up.
    pub fn peer_up(&self, p: PortId) -> Option<PortId> {
        let l = self.ports[p].link?;
        (self.links[l].state == LinkState::Up).then(|| self.links[l].other(p))
    }

    /// `"name"[port]`, as ibnetdiscover names a port.
    pub fn port_name(&self, p: PortId) -> String {
        let port = &self.ports[p];
        format!("{:?}[{}]", self.nodes[port.node].name, port.num)
    }

    pub fn switches(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes.iter_enumerated().filter(|(_, n)| n.is_switch()).map(|(id, _)| id)
    }

    pub fn num_switches(&self) -> usize {
        self.nodes.iter().filter(|n| n.is_switch()).count()
    }

    /// The speed a link should train to: the best both of its ends support (the narrower
    /// width, the slower generation).
    pub fn supported_speed(&self, l: LinkId) -> LinkSpeed {
        let [a, b] = self.links[l].ends.map(|p| self.ports[p].supported);
        a.trained_with(b)
    }

    /// True when the link trained below what both of its ends support (narrower or slower).
    pub fn is_degraded(&self, l: LinkId) -> bool {
        let (active, want) = (self.links[l].speed, self.supported_speed(l));
        active.width < want.width || active.gen.rank() < want.gen.rank()
    }

    /// The LID of a node's port as routing sees it: the switch's LID for any switch port, the
    /// port's own for an HCA.
    pub fn lid_of_port(&self, p: PortId) -> u16 {
        let port = &self.ports[p];
        let node = &self.nodes[port.node];
        if node.is_switch() {
            node.lid
        } else {
            port.lid
        }
    }

    /// Every (LID, node) pair: switches by their port-0 LID, HCA ports by theirs.
    pub fn lids(&self) -> Vec<(u16, NodeId, Option<PortId>)> {
        let mut v = Vec::new();
        for (id, n) in self.nodes.iter_enumerated() {
            if n.is_switch() {
                if n.lid != NO_LID {
                    v.push((n.lid, id, None));
                }
            } else {
                for p in n.ports() {
                    if self.ports[p].lid != NO_LID {
                        v.push((self.ports[p].lid, id, Some(p)));
                    }
                }
            }
        }
        v
    }

    /// The highest LID assigned.
    pub fn max_lid(&self) -> u16 {
        self.lids().iter().map(|l| l.0).max().unwrap_or(0)
    }

    /// Takes every LID away (before new ones are given: fabric/lid_assign.rs, io/guid2lid.rs).
    pub fn clear_lids(&mut self) {
        for n in self.nodes.iter_mut() {
            n.lid = NO_LID;
        }
        for p in self.ports.iter_mut() {
            p.lid = NO_LID;
        }
    }

    /// Gives LIDs to every switch and cabled HCA port that has none, from the next free one:
    /// switches first in node order, then HCA ports in host and rail order. (OpenSM assigns by
    /// discovery order; the routing-engines issue reproduces that. A generator's own order is
    /// enough until then, and files keep theirs.)
    pub fn assign_lids(&mut self) -> Result<(), GraphError> {
        let mut next = self.max_lid() + 1;
        let mut take = |what: &str| -> Result<u16, GraphError> {
            if next > MAX_UNICAST_LID {
                return Err(GraphError(format!("out of unicast LIDs assigning {what} (at most {MAX_UNICAST_LID})")));
            }
            next += 1;
            Ok(next - 1)
        };
        for i in 0..self.nodes.len() {
            let id = NodeId::from(i);
            if self.nodes[id].is_switch() && self.nodes[id].lid == NO_LID {
                let lid = take(&self.nodes[id].name)?;
                self.nodes[id].lid = lid;
            }
        }
        for h in 0..self.hosts.len() {
            for &ca in &self.hosts[HostId::from(h)].hcas {
                for p in self.nodes[ca].ports() {
                    if self.ports[p].link.is_some() && self.ports[p].lid == NO_LID {
                        self.ports[p].lid = take(&self.nodes[ca].name)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks what every importer must guarantee: unique node names and GUIDs, unique LIDs,
    /// and links whose ends point back at them.
    pub fn check(&self) -> Result<(), GraphError> {
        let mut names = std::collections::HashMap::new();
        let mut guids = std::collections::HashMap::new();
        for (id, n) in self.nodes.iter_enumerated() {
            if let Some(prev) = names.insert(n.name.as_str(), id) {
                return Err(GraphError(format!("two nodes are named {:?} (nodes {prev} and {id})", n.name)));
            }
            if let Some(prev) = guids.insert(n.guid, id) {
                return Err(GraphError(format!("nodes {:?} and {:?} have the same GUID {:#018x}", self.nodes[prev].name, n.name, n.guid)));
            }
        }
        let mut lids = std::collections::HashMap::new();
        for (lid, node, port) in self.lids() {
            let here = port.map_or_else(|| format!("{:?}", self.nodes[node].name), |p| self.port_name(p));
            if let Some(prev) = lids.insert(lid, here.clone()) {
                return Err(GraphError(format!("LID {lid} is assigned twice: to {prev} and to {here}")));
            }
        }
        for (l, link) in self.links.iter_enumerated() {
            for p in link.ends {
                if self.ports[p].link != Some(l) {
                    return Err(GraphError(format!("link {l} names {} but that port is not cabled to it", self.port_name(p))));
                }
            }
        }
        Ok(())
    }
}

/// The forwarding tables of a routed fabric: per switch, the output port by destination LID.
#[derive(Clone, Debug, Default)]
pub struct Lfts {
    /// Indexed by `NodeId`; empty for HCAs. Entry `lid` is a port number, 0 for the switch
    /// itself, `NO_ROUTE` for none.
    pub tables: TiVec<NodeId, Vec<u8>>,
    /// For tables read from a tool's files: per switch, the first LID its file did not dump
    /// (0 when the files hold no table for it, u32::MAX when it was dumped whole). A missing
    /// route there is the dump's gap, not the subnet manager's; None when every table is whole.
    pub not_dumped_from: Option<TiVec<NodeId, u32>>,
}

impl Lfts {
    /// Tables for every node of `g`, all entries `NO_ROUTE`, long enough for every LID of `g`.
    pub fn empty_for(g: &FabricGraph) -> Lfts {
        let len = g.max_lid() as usize + 1;
        Lfts { tables: g.nodes.iter().map(|n| if n.is_switch() { vec![NO_ROUTE; len] } else { Vec::new() }).collect(), not_dumped_from: None }
    }

    /// The port switch `sw` forwards `lid` to, if any.
    pub fn route(&self, sw: NodeId, lid: u16) -> Option<u8> {
        self.tables.get(sw).and_then(|t| t.get(lid as usize)).copied().filter(|p| *p != NO_ROUTE)
    }

    /// Whether `sw`'s entry for `lid` is one its file did not dump.
    pub fn not_dumped(&self, sw: NodeId, lid: u16) -> bool {
        self.not_dumped_from.as_ref().is_some_and(|f| f.get(sw).is_some_and(|&from| u32::from(lid) >= from))
    }

    pub fn set(&mut self, sw: NodeId, lid: u16, port: u8) {
        let t = &mut self.tables[sw];
        if t.len() <= lid as usize {
            t.resize(lid as usize + 1, NO_ROUTE);
        }
        t[lid as usize] = port;
    }
}

/// A graph with its forwarding tables and, when the engine assigns them, the SL of each path:
/// what both engines and the static analysis start from.
#[derive(Clone, Debug)]
pub struct RoutedFabric {
    pub graph: FabricGraph,
    pub lfts: Lfts,
    /// dfsssp's virtual layers; None: every path on the SL its traffic asks for.
    pub sls: Option<PathSls>,
}

impl RoutedFabric {
    /// Tables alone, no SLs per path.
    pub fn new(graph: FabricGraph, lfts: Lfts) -> RoutedFabric {
        RoutedFabric { graph, lfts, sls: None }
    }
}

impl LinkGen {
    /// Order of the generations, slowest first.
    pub fn rank(self) -> u8 {
        match self {
            LinkGen::Sdr => 0,
            LinkGen::Ddr => 1,
            LinkGen::Qdr => 2,
            LinkGen::Fdr10 => 3,
            LinkGen::Fdr => 4,
            LinkGen::Edr => 5,
            LinkGen::Hdr => 6,
            LinkGen::Ndr => 7,
            LinkGen::Xdr => 8,
        }
    }
}

/// The SL of every (source LID, destination LID) path, dense: `sl[src * stride + dst]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathSls {
    pub stride: usize,
    pub sl: Vec<u8>,
}

impl PathSls {
    /// All paths on SL 0, for LIDs up to `max_lid`.
    pub fn new(max_lid: u16) -> PathSls {
        let stride = usize::from(max_lid) + 1;
        PathSls { stride, sl: vec![0; stride * stride] }
    }
    pub fn get(&self, src: u16, dst: u16) -> u8 {
        self.sl.get(usize::from(src) * self.stride + usize::from(dst)).copied().unwrap_or(0)
    }
    pub fn set(&mut self, src: u16, dst: u16, sl: u8) {
        let i = usize::from(src) * self.stride + usize::from(dst);
        self.sl[i] = sl;
    }
    /// The highest SL any path uses.
    pub fn max_sl(&self) -> u8 {
        self.sl.iter().copied().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qdr4() -> LinkSpeed {
        LinkSpeed { gen: LinkGen::Qdr, width: 4 }
    }

    #[test]
    fn ports_links_and_lids_hang_together() {
        let mut g = FabricGraph::new();
        let sw = g.add_switch("sw0", 0x100, 36, qdr4()).unwrap();
        let h = g.add_host("h0");
        let ca = g.add_hca(h, "h0 mlx4_0", 0x200, 2, qdr4()).unwrap();
        let p1 = g.port_of(ca, 1).unwrap();
        let s5 = g.port_of(sw, 5).unwrap();
        let l = g.connect(p1, s5, LinkProps::new(LinkSpeed { gen: LinkGen::Qdr, width: 1 }, 2.0)).unwrap();
        assert_eq!(g.peer(p1), Some(s5));
        assert!(g.is_degraded(l), "1x on two 4x ports is degraded");
        assert!(g.connect(p1, g.port_of(sw, 6).unwrap(), LinkProps::new(qdr4(), 2.0)).unwrap_err().0.contains("already cabled"));
        assert!(g.port_of(sw, 37).is_err());
        g.assign_lids().unwrap();
        assert_eq!(g.nodes[sw].lid, 1);
        assert_eq!(g.ports[p1].lid, 2);
        assert_eq!(g.ports[g.port_of(ca, 2).unwrap()].lid, NO_LID, "an uncabled port gets no LID");
        g.check().unwrap();
        g.nodes[sw].lid = 2;
        assert!(g.check().unwrap_err().0.contains("LID 2 is assigned twice"));
    }
}
