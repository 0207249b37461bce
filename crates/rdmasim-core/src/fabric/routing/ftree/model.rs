//! What ftree knows of a fabric: per switch its rank, its index (OpenSM's "tuple") and its
//! links grouped by neighbour into port groups (down, sibling, up), each port and group with
//! the counters of routes assigned through it; per CA its ports cabled to switches.
//!
//! Switches and CAs are visited in the order OpenSM keeps them: a map keyed by the node GUID
//! as it is on the wire (big-endian) compared as a host integer, which on the x86 hosts
//! OpenSM runs on is the GUID with its bytes reversed ([`opensm_order`]). The first leaf in
//! that order starts the indexing, and the switches' own LIDs are routed in it.
use crate::fabric::graph::{FabricGraph, NodeKind};
use crate::ids::{NodeId, TiVec};

/// A switch's index: its rank, then one byte per level (OpenSM's 8-byte tuple); 0xFF: unset.
/// Compared byte by byte, as OpenSM orders switches and port groups by it.
pub type Tuple = [u8; 8];
pub const NO_TUPLE: Tuple = [0xFF; 8];
/// Rank of a switch no ranking reached.
pub const UNRANKED: u32 = u32::MAX;

/// Index of a port group in [`Fabric::groups`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupId(u32);
impl From<usize> for GroupId {
    fn from(i: usize) -> GroupId {
        GroupId(i as u32)
    }
}
impl From<GroupId> for usize {
    fn from(g: GroupId) -> usize {
        g.0 as usize
    }
}

/// Which way a port group points from its switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// To a CA or a switch of higher rank (farther from the roots).
    Down,
    /// To a switch of the same rank.
    Sibling,
    /// To a switch of lower rank.
    Up,
}

/// One port of a group, with the routes assigned through it: `up` counts destinations whose
/// upward path from below arrives through this port, `down` the downward paths leaving the
/// switch below through it (kept on the lower switch's port, as OpenSM keeps them).
#[derive(Clone, Debug)]
pub struct GroupPort {
    pub num: u8,
    pub remote_num: u8,
    pub counter_up: u32,
    pub counter_down: u32,
}

/// What a group leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remote {
    Switch(NodeId),
    /// A CA port (its LID is the group's `remote_lid`).
    Ca(NodeId),
}

/// All the links from one switch to one neighbour (one LID: a switch, or one CA port).
#[derive(Clone, Debug)]
pub struct PortGroup {
    pub remote: Remote,
    pub remote_lid: u16,
    /// In port order.
    pub ports: Vec<GroupPort>,
    pub counter_up: u32,
    pub counter_down: u32,
    /// The remote switch's tuple (NO_TUPLE for CAs), copied once the indexing is done: the
    /// last tie-breaker of every sort.
    pub remote_tuple: Tuple,
}

impl PortGroup {
    /// The first port with the fewest routes by `counter` (OpenSM scans in port order and
    /// keeps the first strict minimum).
    pub fn least_loaded(&self, counter: impl Fn(&GroupPort) -> u32) -> usize {
        let mut best = 0;
        for (i, p) in self.ports.iter().enumerate() {
            if counter(p) < counter(&self.ports[best]) {
                best = i;
            }
        }
        best
    }
}

#[derive(Clone, Debug)]
pub struct FtSwitch {
    pub lid: u16,
    pub guid: u64,
    pub rank: u32,
    pub tuple: Tuple,
    /// Cabled to a compute node at the leaf rank.
    pub is_leaf: bool,
    pub down: Vec<GroupId>,
    pub siblings: Vec<GroupId>,
    pub up: Vec<GroupId>,
}

impl FtSwitch {
    pub fn groups(&self, dir: Direction) -> &Vec<GroupId> {
        match dir {
            Direction::Down => &self.down,
            Direction::Sibling => &self.siblings,
            Direction::Up => &self.up,
        }
    }
    pub fn groups_mut(&mut self, dir: Direction) -> &mut Vec<GroupId> {
        match dir {
            Direction::Down => &mut self.down,
            Direction::Sibling => &mut self.siblings,
            Direction::Up => &mut self.up,
        }
    }
}

/// A CA port cabled to a switch: every one is a compute node (no CN or I/O GUID files).
#[derive(Clone, Debug)]
pub struct CaPort {
    pub port_guid: u64,
    pub switch: NodeId,
}

/// The fabric as ftree sees it.
pub struct Fabric {
    /// Switch state for every node (unused for CAs), indexed by node.
    pub sw: TiVec<NodeId, FtSwitch>,
    pub groups: TiVec<GroupId, PortGroup>,
    /// Switches and CAs in OpenSM's order.
    pub switches: Vec<NodeId>,
    pub cas: Vec<NodeId>,
    /// Per CA, its ports cabled to a switch, in port order.
    pub ca_ports: TiVec<NodeId, Vec<CaPort>>,
    pub max_rank: u32,
    pub leaf_rank: u32,
    /// The leaf switches in index order, from the first to the last with compute nodes.
    pub leaves: Vec<NodeId>,
    pub max_cn_per_leaf: usize,
}

/// OpenSM's order of nodes: by GUID with its bytes reversed (see the module doc).
pub fn opensm_order(guid: u64) -> u64 {
    crate::fabric::routing::opensm_order::guid_key(guid)
}

impl Fabric {
    /// Switches and CAs of `g`, unranked, with no port groups yet.
    pub fn new(g: &FabricGraph) -> Fabric {
        let sw = g
            .nodes
            .iter()
            .map(|n| FtSwitch { lid: n.lid, guid: n.guid, rank: UNRANKED, tuple: NO_TUPLE, is_leaf: false, down: Vec::new(), siblings: Vec::new(), up: Vec::new() })
            .collect();
        let switches = crate::fabric::routing::opensm_order::switch_table_order(g);
        let mut cas: Vec<NodeId> = g.nodes.iter_enumerated().filter(|(_, n)| matches!(n.kind, NodeKind::Ca { .. })).map(|(id, _)| id).collect();
        cas.sort_by_key(|&c| opensm_order(g.nodes[c].guid));
        let ca_ports = g
            .nodes
            .iter()
            .map(|n| {
                if n.is_switch() {
                    return Vec::new();
                }
                n.ports()
                    .filter_map(|p| {
                        let peer = g.peer_up(p)?;
                        let switch = g.ports[peer].node;
                        g.nodes[switch].is_switch().then_some(CaPort { port_guid: g.ports[p].guid, switch })
                    })
                    .collect()
            })
            .collect();
        Fabric { sw, groups: TiVec::new(), switches, cas, ca_ports, max_rank: 0, leaf_rank: 0, leaves: Vec::new(), max_cn_per_leaf: 0 }
    }

    /// The port groups of every switch, from its links that are up, by the ranks: a
    /// neighbour of higher rank or a CA is down, of equal rank a sibling, of lower rank up.
    /// Groups and their ports are in port order; loops back to the same switch are ignored.
    pub fn build_groups(&mut self, g: &FabricGraph) {
        for &s in &self.switches {
            for p in g.nodes[s].ports() {
                let Some(peer) = g.peer_up(p) else { continue };
                let other = g.ports[peer].node;
                if other == s {
                    continue;
                }
                let (remote, remote_lid, dir) = if g.nodes[other].is_switch() {
                    let dir = match self.sw[s].rank.cmp(&self.sw[other].rank) {
                        std::cmp::Ordering::Greater => Direction::Up,
                        std::cmp::Ordering::Equal => Direction::Sibling,
                        std::cmp::Ordering::Less => Direction::Down,
                    };
                    (Remote::Switch(other), g.nodes[other].lid, dir)
                } else {
                    (Remote::Ca(other), g.ports[peer].lid, Direction::Down)
                };
                let port = GroupPort { num: g.ports[p].num as u8, remote_num: g.ports[peer].num as u8, counter_up: 0, counter_down: 0 };
                let existing = self.sw[s].groups(dir).iter().copied().find(|&id| self.groups[id].remote_lid == remote_lid);
                match existing {
                    Some(id) => self.groups[id].ports.push(port),
                    None => {
                        let id = self.groups.push_and_get_key(PortGroup { remote, remote_lid, ports: vec![port], counter_up: 0, counter_down: 0, remote_tuple: NO_TUPLE });
                        self.sw[s].groups_mut(dir).push(id);
                    }
                }
            }
        }
    }

    /// The switch a group leads to (None for a CA).
    pub fn remote_switch(&self, id: GroupId) -> Option<NodeId> {
        match self.groups[id].remote {
            Remote::Switch(s) => Some(s),
            Remote::Ca(_) => None,
        }
    }
}

/// A tuple as OpenSM prints it: its set bytes joined by dots.
pub fn tuple_str(t: &Tuple) -> String {
    if t[0] == 0xFF {
        return "INDEX.NOT.ASSIGNED".into();
    }
    t.iter().take_while(|&&b| b != 0xFF).map(|b| b.to_string()).collect::<Vec<_>>().join(".")
}
