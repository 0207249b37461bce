//! One route, hop by hop: from a source HCA port, over its link to the first switch, then by
//! each switch's LFT entry for the destination LID, to the destination — or the typed reason
//! there is none. This is the reference the all-pairs passes ([`super::reach`]) must agree with;
//! it is also what `rdmasim fabric --route` prints.
use crate::fabric::graph::{FabricGraph, LinkState, RoutedFabric, NO_ROUTE};
use crate::ids::{LinkId, NodeId, PortId};
use super::reach::FailureKind;

/// One hop: the packet leaves by `from`, crosses `link`, and arrives at `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    pub from: PortId,
    pub to: PortId,
    pub link: LinkId,
}

/// Why a route does not reach its destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteError {
    /// Switch `at` has no LFT entry for `lid` (`NO_ROUTE`, or beyond its table).
    NoRoute { at: NodeId, lid: u16 },
    /// The route comes back to a switch it has passed: `switches` is the cycle, from the first
    /// switch that repeats.
    Loop { switches: Vec<NodeId> },
    /// The route leaves by `port`, whose link is down.
    LinkDown { port: PortId },
    /// Node `at` sends to its port `port`, which leads nowhere useful: no such port, an uncabled
    /// port, an HCA that is not the destination, or (port 0) the switch itself when the LID is
    /// not the switch's.
    DeadEnd { at: NodeId, port: u8 },
}

impl RouteError {
    pub fn kind(&self) -> FailureKind {
        match self {
            RouteError::NoRoute { .. } => FailureKind::NoRoute,
            RouteError::Loop { .. } => FailureKind::Loop,
            RouteError::LinkDown { .. } => FailureKind::LinkDown,
            RouteError::DeadEnd { .. } => FailureKind::DeadEnd,
        }
    }

    /// One line naming the nodes and ports, as ibnetdiscover names them.
    pub fn describe(&self, g: &FabricGraph) -> String {
        match self {
            RouteError::NoRoute { at, lid } => format!("no route to LID {lid} at {:?}", g.nodes[*at].name),
            RouteError::Loop { switches } => {
                let mut names: Vec<String> = switches.iter().map(|s| format!("{:?}", g.nodes[*s].name)).collect();
                if let Some(first) = names.first().cloned() {
                    names.push(first);
                }
                format!("loop {}", names.join(" -> "))
            }
            RouteError::LinkDown { port } => match g.peer(*port) {
                Some(peer) => format!("link down {} -> {}", g.port_name(*port), g.port_name(peer)),
                None => format!("link down at {}", g.port_name(*port)),
            },
            RouteError::DeadEnd { at, port } => {
                let node = &g.nodes[*at];
                let why = match node.port(u16::from(*port)) {
                    None if *port == 0 => "the LFT names the switch itself".to_string(),
                    None => format!("it has no port {port}"),
                    Some(p) => match g.peer(p) {
                        None => format!("{} is not cabled", g.port_name(p)),
                        Some(peer) => format!("{} leads to {}, not the destination", g.port_name(p), g.port_name(peer)),
                    },
                };
                format!("dead end at {:?}: {why}", node.name)
            }
        }
    }
}

/// The route from HCA port `src` to `dlid`, as the list of hops.
pub fn trace_route(rf: &RoutedFabric, src: PortId, dlid: u16) -> Result<Vec<Hop>, RouteError> {
    let mut hops = Vec::new();
    trace_route_into(rf, src, dlid, &mut hops)?;
    Ok(hops)
}

/// As [`trace_route`], into a buffer the caller reuses (cleared first; on an error it holds the
/// hops up to the failure).
pub fn trace_route_into(rf: &RoutedFabric, src: PortId, dlid: u16, hops: &mut Vec<Hop>) -> Result<(), RouteError> {
    hops.clear();
    let g = &rf.graph;
    let node = g.ports[src].node;
    if g.nodes[node].is_switch() {
        return follow_switches(rf, node, dlid, hops);
    }
    let src_num = g.ports[src].num as u8;
    match cross(g, src, hops, node, src_num)? {
        Arrival::Switch(sw) => follow_switches(rf, sw, dlid, hops),
        Arrival::Ca(p) if g.ports[p].lid == dlid => Ok(()),
        Arrival::Ca(_) => Err(RouteError::DeadEnd { at: node, port: src_num }),
    }
}

/// The route from switch `start` to `dlid`, appended to `hops`. At most as many switches as the
/// fabric has: one more would be a repeat, so the walk always ends.
pub fn follow_switches(rf: &RoutedFabric, start: NodeId, dlid: u16, hops: &mut Vec<Hop>) -> Result<(), RouteError> {
    let g = &rf.graph;
    let first_hop = hops.len();
    let mut sw = start;
    loop {
        let entry = rf.lfts.tables.get(sw).and_then(|t| t.get(usize::from(dlid))).copied().unwrap_or(NO_ROUTE);
        if entry == NO_ROUTE {
            return Err(RouteError::NoRoute { at: sw, lid: dlid });
        }
        if entry == 0 {
            return if g.nodes[sw].lid == dlid { Ok(()) } else { Err(RouteError::DeadEnd { at: sw, port: 0 }) };
        }
        let Some(out) = g.nodes[sw].port(u16::from(entry)) else {
            return Err(RouteError::DeadEnd { at: sw, port: entry });
        };
        match cross(g, out, hops, sw, entry)? {
            Arrival::Ca(p) if g.ports[p].lid == dlid => return Ok(()),
            Arrival::Ca(_) => return Err(RouteError::DeadEnd { at: sw, port: entry }),
            Arrival::Switch(next) => {
                // The switches entered so far are the `to` ends of this walk's hops; a repeat
                // closes a cycle. Routes are a handful of hops, so the scan is short.
                let entered = &hops[first_hop..hops.len() - 1];
                let seen = |h: &Hop| g.ports[h.to].node == next;
                if next == start || entered.iter().any(seen) {
                    let from = entered.iter().position(seen).map_or(0, |i| i + 1);
                    let mut switches = vec![start];
                    switches.extend(entered.iter().map(|h| g.ports[h.to].node));
                    return Err(RouteError::Loop { switches: switches.split_off(from) });
                }
                sw = next;
            }
        }
    }
}

enum Arrival {
    Switch(NodeId),
    Ca(PortId),
}

/// Leaves node `at` by `out` (its port number `num`), pushing the hop.
fn cross(g: &FabricGraph, out: PortId, hops: &mut Vec<Hop>, at: NodeId, num: u8) -> Result<Arrival, RouteError> {
    let Some(link) = g.ports[out].link else {
        return Err(RouteError::DeadEnd { at, port: num });
    };
    if g.links[link].state == LinkState::Down {
        return Err(RouteError::LinkDown { port: out });
    }
    let to = g.links[link].other(out);
    hops.push(Hop { from: out, to, link });
    let node = g.ports[to].node;
    Ok(if g.nodes[node].is_switch() { Arrival::Switch(node) } else { Arrival::Ca(to) })
}

#[cfg(test)]
mod tests {
    use super::super::test_fabrics::line;
    use super::*;

    #[test]
    fn a_line_is_four_hops_and_its_failures_are_named() {
        let (mut rf, s, h) = line();
        let lid1 = rf.graph.ports[h[1]].lid;
        let hops = trace_route(&rf, h[0], lid1).unwrap();
        assert_eq!(hops.len(), 4);
        assert_eq!((hops[0].from, hops[3].to), (h[0], h[1]));
        // s1 sends h1's packets to its uncabled port 3.
        rf.lfts.set(s[1], lid1, 3);
        let e = trace_route(&rf, h[0], lid1).unwrap_err();
        assert_eq!(e, RouteError::DeadEnd { at: s[1], port: 3 });
        assert_eq!(e.describe(&rf.graph), "dead end at \"s1\": \"s1\"[3] is not cabled");
        rf.lfts.set(s[1], lid1, 0);
        assert_eq!(trace_route(&rf, h[0], lid1).unwrap_err().describe(&rf.graph), "dead end at \"s1\": the LFT names the switch itself");
        // s2 sends them back to s1, s1 on to s2: a 2-cycle met at s1.
        rf.lfts.set(s[1], lid1, 2);
        rf.lfts.set(s[2], lid1, 1);
        assert_eq!(trace_route(&rf, h[0], lid1), Err(RouteError::Loop { switches: vec![s[1], s[2]] }));
    }

    #[test]
    fn a_switch_lid_is_reached_at_the_switch() {
        let (mut rf, s, h) = line();
        let lid = rf.graph.nodes[s[2]].lid;
        for sw in s {
            rf.lfts.set(sw, lid, if sw == s[2] { 0 } else { 2 });
        }
        assert_eq!(trace_route(&rf, h[0], lid).unwrap().len(), 3, "h0 -> s0 -> s1 -> s2");
    }
}
