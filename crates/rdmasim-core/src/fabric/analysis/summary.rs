//! What a fabric is and whether its routes work: node and link counts, links by width and
//! speed, degraded and down links, and over every pair of endpoints on one rail (connected
//! component) the unroutable pairs and the routing loops, with a few named examples of each.
//!
//! The pairs are counted with [`DestinationWalk`] (each switch walked once per destination);
//! only the few examples are traced again with [`trace_route`] to name every switch of the
//! failure.
use super::components::Components;
use super::paths::{follow_switches, trace_route, RouteError};
use super::reach::{DestinationWalk, FailureKind, Reach};
use crate::fabric::graph::{LinkState, RoutedFabric};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// How many unroutable pairs and loops a summary names.
pub const EXAMPLES: usize = 5;

#[derive(Clone, Debug, Serialize)]
pub struct FabricSummary {
    pub hosts: usize,
    /// Hosts that are one HCA named by its GUID, because its node description names no host
    /// (the rest were grouped by the hostname their descriptions share).
    pub hosts_by_guid: usize,
    pub hcas: usize,
    pub hca_ports: usize,
    pub switches: usize,
    pub links: usize,
    /// Links by active width and speed, e.g. {"4X QDR": 2816, "1X QDR": 1}.
    pub links_by_speed: BTreeMap<String, usize>,
    pub degraded_links: Vec<DegradedLink>,
    pub down_links: Vec<DownLink>,
    /// One per connected component with pairs to route (a rail, in a multi-rail cluster).
    pub components: Vec<ComponentSummary>,
    /// Ordered (source, destination) endpoint pairs on different hosts of one component.
    pub pairs: u64,
    pub unroutable: Unroutable,
    pub loops: Loops,
    /// Cycles of the channel dependency graph of each VL (analysis/credit_loops.rs).
    pub credit_loops: super::credit_loops::CreditLoopCheck,
    /// What the import set aside or assumed, per file (fabric/io/notes.rs).
    pub warnings: Vec<crate::fabric::io::notes::Note>,
}

/// A link that trained below what both of its ends support.
#[derive(Clone, Debug, Serialize)]
pub struct DegradedLink {
    pub a: String,
    pub b: String,
    pub active: String,
    pub supported: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct DownLink {
    pub a: String,
    pub b: String,
    pub speed: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ComponentSummary {
    pub component: usize,
    /// The HCA rails of its endpoints.
    pub rails: Vec<u16>,
    pub switches: usize,
    pub endpoints: usize,
    pub pairs: u64,
    pub unroutable_pairs: u64,
    /// The most switches a routed pair passes.
    pub max_switch_hops: u16,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Unroutable {
    pub pairs: u64,
    /// No route at a switch whose table the LFT files did not dump there (a dump cut short by
    /// the tool's error, or a switch with no table in the files): the files' gap, not the SM's.
    pub not_dumped: u64,
    pub no_route: u64,
    pub link_down: u64,
    pub dead_end: u64,
    /// Pairs whose route enters a loop.
    pub in_loop: u64,
    /// The first pair of each distinct failure (same reason at the same switch or port), so
    /// that one broken entry serving many pairs does not hide the others.
    pub examples: Vec<PairExample>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PairExample {
    pub src: String,
    pub dst: String,
    pub dlid: u16,
    pub kind: FailureKind,
    pub reason: String,
}

/// Distinct cycles in the LFTs that some pair's route enters, counted once per destination LID.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Loops {
    pub count: u64,
    pub examples: Vec<LoopExample>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LoopExample {
    pub dst: String,
    pub dlid: u16,
    /// The switches of the cycle, in forwarding order.
    pub switches: Vec<String>,
}

/// Summarises `rf`; see the module comment.
pub fn summarize(rf: &RoutedFabric) -> FabricSummary {
    let g = &rf.graph;
    let comps = Components::of(g);
    let mut s = FabricSummary {
        hosts: g.hosts.len(),
        hosts_by_guid: g.hosts.iter().filter(|h| h.hcas.len() == 1 && g.nodes[h.hcas[0]].guid_name() == h.name).count(),
        hcas: g.nodes.iter().filter(|n| !n.is_switch()).count(),
        hca_ports: g.nodes.iter().filter(|n| !n.is_switch()).map(|n| usize::from(n.num_ports)).sum(),
        switches: g.num_switches(),
        links: g.links.len(),
        links_by_speed: BTreeMap::new(),
        degraded_links: Vec::new(),
        down_links: Vec::new(),
        components: Vec::new(),
        pairs: 0,
        unroutable: Unroutable::default(),
        loops: Loops::default(),
        credit_loops: super::credit_loops::check_credit_loops(rf),
        warnings: Vec::new(),
    };
    for (l, link) in g.links.iter_enumerated() {
        *s.links_by_speed.entry(link.speed.label()).or_default() += 1;
        let [a, b] = link.ends.map(|p| g.port_name(p));
        if g.is_degraded(l) {
            s.degraded_links.push(DegradedLink { a: a.clone(), b: b.clone(), active: link.speed.label(), supported: g.supported_speed(l).label() });
        }
        if link.state == LinkState::Down {
            s.down_links.push(DownLink { a, b, speed: link.speed.label() });
        }
    }
    let mut walk = DestinationWalk::new(rf);
    let mut failures_named: Vec<Reach> = Vec::new();
    for c in comps.with_pairs() {
        let endpoints = &comps.endpoints[c];
        let mut cs = ComponentSummary { component: c, rails: comps.rails(c), switches: comps.switches[c], endpoints: endpoints.len(), pairs: 0, unroutable_pairs: 0, max_switch_hops: 0 };
        for dst in endpoints {
            walk.start(dst.lid);
            for src in endpoints.iter().filter(|src| src.host != dst.host) {
                cs.pairs += 1;
                let reach = walk.from_port(src.port);
                let Some(kind) = reach.failure() else {
                    if let Reach::Arrives { switches } = reach {
                        cs.max_switch_hops = cs.max_switch_hops.max(switches);
                    }
                    continue;
                };
                cs.unroutable_pairs += 1;
                let u = &mut s.unroutable;
                let not_dumped = matches!(reach, Reach::NoRoute { at } if rf.lfts.not_dumped(at, dst.lid));
                *match kind {
                    FailureKind::NoRoute if not_dumped => &mut u.not_dumped,
                    FailureKind::NoRoute => &mut u.no_route,
                    FailureKind::Loop => &mut u.in_loop,
                    FailureKind::LinkDown => &mut u.link_down,
                    FailureKind::DeadEnd => &mut u.dead_end,
                } += 1;
                if u.examples.len() < EXAMPLES && !failures_named.contains(&reach) {
                    failures_named.push(reach);
                    let reason = match trace_route(rf, src.port, dst.lid) {
                        Err(e) if not_dumped => format!("{} (the LFT files did not dump it)", e.describe(g)),
                        Err(e) => e.describe(g),
                        Ok(_) => "routed when traced again (analysis bug)".to_string(),
                    };
                    u.examples.push(PairExample { src: g.port_name(src.port), dst: g.port_name(dst.port), dlid: dst.lid, kind, reason });
                }
            }
            for &entry in walk.loops() {
                s.loops.count += 1;
                if s.loops.examples.len() < EXAMPLES {
                    let mut hops = Vec::new();
                    let cycle = match follow_switches(rf, entry, dst.lid, &mut hops) {
                        Err(RouteError::Loop { switches }) => switches,
                        _ => vec![entry],
                    };
                    let switches = cycle.iter().map(|sw| g.nodes[*sw].name.clone()).collect();
                    s.loops.examples.push(LoopExample { dst: g.port_name(dst.port), dlid: dst.lid, switches });
                }
            }
        }
        s.pairs += cs.pairs;
        s.unroutable.pairs += cs.unroutable_pairs;
        s.components.push(cs);
    }
    s
}

impl fmt::Display for FabricSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        writeln!(f, "{} hosts, {} HCAs, {} HCA ports, {} switches, {} links", self.hosts, self.hcas, self.hca_ports, self.switches, self.links)?;
        if self.hosts_by_guid > 0 {
            writeln!(f, "  hosts: {} grouped by the hostname in their HCAs' descriptions, {} one HCA each named by GUID (default description)", self.hosts - self.hosts_by_guid, self.hosts_by_guid)?;
        }
        for (speed, n) in &self.links_by_speed {
            writeln!(f, "  {speed:>10}  {n:>7} links")?;
        }
        writeln!(f, "degraded links: {}", self.degraded_links.len())?;
        for d in &self.degraded_links {
            writeln!(f, "  {} <-> {}  {} (supports {})", d.a, d.b, d.active, d.supported)?;
        }
        writeln!(f, "down links: {}", self.down_links.len())?;
        for d in &self.down_links {
            writeln!(f, "  {} <-> {}  {}", d.a, d.b, d.speed)?;
        }
        writeln!(f, "{:>9}  {:>6}  {:>8}  {:>9}  {:>12}  {:>10}  {:>8}", "component", "rails", "switches", "endpoints", "pairs", "unroutable", "max hops")?;
        for c in &self.components {
            let rails: Vec<String> = c.rails.iter().map(u16::to_string).collect();
            writeln!(f, "{:>9}  {:>6}  {:>8}  {:>9}  {:>12}  {:>10}  {:>8}", c.component, rails.join(","), c.switches, c.endpoints, c.pairs, c.unroutable_pairs, c.max_switch_hops)?;
        }
        let u = &self.unroutable;
        let gap = if u.not_dumped > 0 { format!("table not dumped {}, ", u.not_dumped) } else { String::new() };
        writeln!(f, "unroutable pairs: {} of {} ({gap}no route {}, link down {}, dead end {}, loop {})", u.pairs, self.pairs, u.no_route, u.link_down, u.dead_end, u.in_loop)?;
        for e in &u.examples {
            writeln!(f, "  {} -> {} (LID {}): {}", e.src, e.dst, e.dlid, e.reason)?;
        }
        writeln!(f, "routing loops: {}", self.loops.count)?;
        for l in &self.loops.examples {
            // Closed, as the unroutable examples print it: back to the first switch.
            let back = l.switches.first().map(|s| format!(" -> {s}")).unwrap_or_default();
            writeln!(f, "  to {} (LID {}): {}{back}", l.dst, l.dlid, l.switches.join(" -> "))?;
        }
        match &self.credit_loops.credit_loop {
            None => {
                let vls: Vec<String> = self.credit_loops.dependencies.iter().enumerate().filter(|(_, &n)| n > 0).map(|(vl, _)| vl.to_string()).collect();
                writeln!(f, "credit loops: none (channel dependencies on VL {})", if vls.is_empty() { "-".to_string() } else { vls.join(",") })?;
            }
            Some(l) => writeln!(f, "{l}")?,
        }
        Ok(())
    }
}
