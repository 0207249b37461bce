//! The subnet as OpenSM's (df)sssp sees it: switches numbered in the order of OpenSM's switch
//! table, each with its switch-to-switch links in port order (a link per cable, so parallel
//! cables are separate edges with separate weights), the number of LIDs each switch delivers,
//! and the order in which the destinations are routed.
use crate::fabric::graph::{FabricGraph, LinkState, NO_LID};
use crate::fabric::routing::opensm_order::{end_port_order, switch_table_order};
use crate::ids::{NodeId, TiVec};

/// One direction of a switch-to-switch cable, stored at the switch Dijkstra relaxes from:
/// traffic crosses it the other way, from `to` out of `to_port` into `from_port`.
#[derive(Clone, Debug)]
pub struct Link {
    pub to: u32,
    pub from_port: u8,
    pub to_port: u8,
    /// Paths routed over it so far (weighted by the LIDs behind each), plus the start value.
    pub weight: u64,
}

/// A LID that gets routed: an HCA port (on `switch` at `switch_port`) or a switch's own LID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub lid: u16,
    pub switch: u32,
    /// The switch port facing the HCA; None for the switch's own LID.
    pub switch_port: Option<u8>,
}

pub struct Network {
    /// Vertex `v` is switch `switches[v]`.
    pub switches: Vec<NodeId>,
    pub vertex_of: TiVec<NodeId, u32>,
    pub links: Vec<Vec<Link>>,
    /// LIDs a switch delivers: its own and one per HCA port cabled to it.
    pub lids_behind: Vec<u64>,
    /// Destinations in routing order (also the order dfsssp pairs sources and destinations).
    pub targets: Vec<Target>,
}

pub const NO_VERTEX: u32 = u32::MAX;

impl Network {
    pub fn new(g: &FabricGraph) -> Network {
        let switches = switch_table_order(g);
        let mut vertex_of: TiVec<NodeId, u32> = g.nodes.keys().map(|_| NO_VERTEX).collect();
        for (v, &s) in switches.iter().enumerate() {
            vertex_of[s] = v as u32;
        }
        // Every LID in the subnet, squared: the start weight of a link, so that a path with
        // one hop more always weighs more than any balancing of shorter ones.
        let hca_ports = g.ports.iter().filter(|p| !g.nodes[p.node].is_switch() && p.link.is_some_and(|l| g.links[l].state == LinkState::Up)).count();
        let all_lids = (switches.len() + hca_ports) as u64;
        let mut links = vec![Vec::new(); switches.len()];
        let mut lids_behind = vec![1u64; switches.len()];
        for (v, &s) in switches.iter().enumerate() {
            for p in g.nodes[s].ports() {
                let Some(peer) = g.peer_up(p) else { continue };
                let other = g.ports[peer].node;
                if other == s {
                    continue;
                }
                let port = g.ports[p].num as u8;
                if g.nodes[other].is_switch() {
                    links[v].push(Link { to: vertex_of[other], from_port: port, to_port: g.ports[peer].num as u8, weight: all_lids * all_lids });
                } else {
                    lids_behind[v] += 1;
                }
            }
        }
        // The HCA ports in OpenSM's routing order (opensm_order.rs: switches with more end
        // ports first, each one's in port order), then every switch's own LID in that switch
        // order (a stable sort: glibc's qsort is a merge sort whenever it can allocate).
        let mut targets: Vec<Target> = end_port_order(g, &switches).iter().map(|d| Target { lid: d.lid, switch: vertex_of[d.switch], switch_port: Some(d.port) }).collect();
        let mut by_load: Vec<u32> = (0..switches.len() as u32).collect();
        by_load.sort_by_key(|&v| std::cmp::Reverse(lids_behind[v as usize]));
        for &v in &by_load {
            let lid = g.nodes[switches[v as usize]].lid;
            if lid != NO_LID {
                targets.push(Target { lid, switch: v, switch_port: None });
            }
        }
        Network { switches, vertex_of, links, lids_behind, targets }
    }
}
