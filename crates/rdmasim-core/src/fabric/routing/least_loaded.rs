//! OpenSM's table builder, shared by minhop and updn (its `ucast_mgr_build_lfts` with the
//! defaults: LMC 0, no port shifting, no scattering, no routing-order or port-profile files).
//! Each switch routes each LID out of the port with the fewest hops to the destination's
//! switch; among those, the one that carries the fewest HCA LIDs so far, the lowest port
//! number on a tie. LIDs are taken in OpenSM's order (fabric/routing/opensm_order.rs), which
//! decides what "so far" holds. Switch LIDs are routed last and are not counted, as OpenSM's
//! `port_profile_switch_nodes` default has it; an HCA port cabled to the switch itself is
//! routed to that port and counted.
//!
//! Engines differ only in the hop column they give for a destination switch
//! (fabric/routing/port_hops.rs). Work: one column per switch with HCAs and one per switch
//! LID, then one pass over each switch's least-hop ports per (LID, switch).
use super::opensm_order::{end_port_order, switch_table_order};
use super::port_hops::{PortHops, NO_HOPS};
use super::shortest::SwitchLinks;
use crate::fabric::graph::{FabricGraph, GraphError, Lfts, NO_LID};
use crate::ids::{NodeId, PortId, TiVec};

/// Which least-hop ports a switch chooses among.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidates {
    /// All of them (minhop, updn).
    All,
    /// Only those to the same neighbour as the first in port order: OpenSM's dor, where the
    /// port order is the dimension order, so a path uses up its first dimension first.
    FirstNeighbour,
}

/// Routes every LID of `g`; `column(dest, hops)` fills `hops` for destination switch `dest`.
pub fn route(g: &FabricGraph, links: &SwitchLinks, column: impl FnMut(NodeId, &mut PortHops)) -> Result<Lfts, GraphError> {
    route_among(g, links, column, Candidates::All)
}

/// [`route`], choosing among `candidates` of each switch's least-hop ports.
pub fn route_among(g: &FabricGraph, links: &SwitchLinks, mut column: impl FnMut(NodeId, &mut PortHops), candidates: Candidates) -> Result<Lfts, GraphError> {
    let mut lfts = Lfts::empty_for(g);
    let mut load: TiVec<PortId, u32> = TiVec::from(vec![0; g.ports.len()]);
    let mut hops = PortHops::new(g);
    let mut ways = LeastHopPorts { candidates, ..LeastHopPorts::default() };
    let table = switch_table_order(g);
    for group in end_port_order(g, &table).chunk_by(|a, b| a.switch == b.switch) {
        let dest = group[0].switch;
        column(dest, &mut hops);
        ways.collect(g, links, &hops, dest);
        for d in group {
            lfts.set(dest, d.lid, d.port);
            load[g.port_of(dest, d.port.into())?] += 1;
            for (s, ports) in ways.iter() {
                let (num, p) = least_loaded(ports, &load);
                lfts.set(s, d.lid, num);
                load[p] += 1;
            }
        }
    }
    for &dest in &table {
        let lid = g.nodes[dest].lid;
        if lid == NO_LID {
            continue;
        }
        column(dest, &mut hops);
        ways.collect(g, links, &hops, dest);
        lfts.set(dest, lid, 0);
        for (s, ports) in ways.iter() {
            lfts.set(s, lid, least_loaded(ports, &load).0);
        }
    }
    Ok(lfts)
}

/// The first of `ports` (in port order, never empty) with the fewest routes.
fn least_loaded(ports: &[(u8, PortId)], load: &TiVec<PortId, u32>) -> (u8, PortId) {
    let mut best = ports[0];
    for &(num, p) in &ports[1..] {
        if load[p] < load[best.1] {
            best = (num, p);
        }
    }
    best
}

/// For one destination switch, each other switch's ports with the fewest hops to it.
struct LeastHopPorts {
    candidates: Candidates,
    ports: Vec<(u8, PortId)>,
    /// (switch, start, end) into `ports`, for switches with at least one.
    spans: Vec<(NodeId, usize, usize)>,
}

impl Default for LeastHopPorts {
    fn default() -> LeastHopPorts {
        LeastHopPorts { candidates: Candidates::All, ports: Vec::new(), spans: Vec::new() }
    }
}

impl LeastHopPorts {
    fn collect(&mut self, g: &FabricGraph, links: &SwitchLinks, hops: &PortHops, dest: NodeId) {
        self.ports.clear();
        self.spans.clear();
        for s in g.switches() {
            let least = hops.least[s];
            if s == dest || least == NO_HOPS {
                continue;
            }
            let start = self.ports.len();
            let node = &g.nodes[s];
            let mut first_neighbour = None;
            for &(num, neighbour) in &links.links[s] {
                if let Some(p) = node.port(num.into()).filter(|&p| hops.via[p] == least) {
                    let first = *first_neighbour.get_or_insert(neighbour);
                    if self.candidates == Candidates::All || neighbour == first {
                        self.ports.push((num, p));
                    }
                }
            }
            if self.ports.len() > start {
                self.spans.push((s, start, self.ports.len()));
            }
        }
    }

    fn iter(&self) -> impl Iterator<Item = (NodeId, &[(u8, PortId)])> + '_ {
        self.spans.iter().map(|&(s, a, b)| (s, &self.ports[a..b]))
    }
}
