//! Routes per directed link for all-to-all traffic: every endpoint sends to every endpoint of
//! its rail (connected component) on another host, and each link direction counts the routes
//! that cross it. The max, mean and histogram say how evenly the routing spreads them; the
//! busiest links are named.
//!
//! Counting without walking every pair: fix a destination. Its routes form a tree, since every
//! switch has one LFT entry for it, and [`DestinationWalk`] resolves each switch once
//! (O(switches)) and lists the switches that arrive in an order where each comes after its next
//! hop. Each source adds 1 to its own uplink and to the count of its first switch. Then, in the
//! reverse of that order, each switch adds its count (its own sources plus those of every
//! switch forwarding through it, all already added since they come earlier) to its out port
//! and to its next switch. A destination costs O(switches + sources) instead of O(sources ×
//! hops), with no allocation: the counts are flat vectors indexed by `NodeId` and `PortId`, and
//! each switch's count is zeroed as it is passed on.
//!
//! A directed link is named by its sending port (a port has one link).
use super::components::Components;
use super::reach::{DestinationWalk, Reach};
use crate::fabric::graph::{LinkState, RoutedFabric};
use crate::ids::{NodeId, PortId, TiVec};
use serde::Serialize;
use std::fmt;

/// The raw counts: routes leaving each port, and the pairs of each component.
#[derive(Clone, Debug)]
pub struct RouteCounts {
    /// Routes out of each port, i.e. over its link in the direction away from it.
    pub out_of: TiVec<PortId, u32>,
    pub components: Vec<ComponentPairs>,
}

#[derive(Clone, Debug)]
pub struct ComponentPairs {
    pub component: usize,
    pub rails: Vec<u16>,
    pub pairs: u64,
    pub routed_pairs: u64,
}

/// Counts the routes of every pair of endpoints on one component and different hosts.
pub fn count_routes(rf: &RoutedFabric, comps: &Components) -> RouteCounts {
    let g = &rf.graph;
    let mut out_of: TiVec<PortId, u32> = vec![0; g.ports.len()].into();
    let mut sources_at: TiVec<NodeId, u32> = vec![0; g.nodes.len()].into();
    let mut components = Vec::new();
    let mut walk = DestinationWalk::new(rf);
    for c in comps.with_pairs() {
        let endpoints = &comps.endpoints[c];
        let mut cp = ComponentPairs { component: c, rails: comps.rails(c), pairs: 0, routed_pairs: 0 };
        for dst in endpoints {
            walk.start(dst.lid);
            for src in endpoints.iter().filter(|src| src.host != dst.host) {
                cp.pairs += 1;
                let Reach::Arrives { switches } = walk.from_port(src.port) else { continue };
                cp.routed_pairs += 1;
                out_of[src.port] += 1;
                if switches > 0 {
                    if let Some(first) = g.peer(src.port) {
                        sources_at[g.ports[first].node] += 1;
                    }
                }
            }
            for &sw in walk.arriving().iter().rev() {
                let n = std::mem::take(&mut sources_at[sw]);
                let Some(out) = walk.out_port(sw).filter(|_| n > 0) else { continue };
                out_of[out] += n;
                if let Some(to) = g.peer(out) {
                    let next = g.ports[to].node;
                    if g.nodes[next].is_switch() {
                        sources_at[next] += n;
                    }
                }
            }
        }
        components.push(cp);
    }
    RouteCounts { out_of, components }
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkLoads {
    pub pairs: u64,
    pub routed_pairs: u64,
    pub unroutable_pairs: u64,
    /// Both directions of every up link between two switches.
    pub switch_links: LoadStats,
    /// Both directions of every up link with an HCA at one end.
    pub host_links: LoadStats,
    /// The busiest switch-to-switch directions (a host link carries at most one route per
    /// destination, whatever the routing, so only these say something about it).
    pub busiest: Vec<BusyLink>,
    pub per_rail: Vec<RailLoads>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RailLoads {
    pub component: usize,
    pub rails: Vec<u16>,
    pub pairs: u64,
    pub routed_pairs: u64,
    pub switch_links: LoadStats,
    pub host_links: LoadStats,
    pub busiest: Vec<BusyLink>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LoadStats {
    pub directed_links: usize,
    /// Sum over the directed links (a route of k hops counts k times).
    pub routes: u64,
    pub max: u32,
    pub mean: f64,
    /// Directed links by their number of routes, ascending.
    pub histogram: Vec<HistogramBin>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HistogramBin {
    pub routes: u32,
    pub links: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BusyLink {
    /// `"sw-a"[3]`, the sending end.
    pub from: String,
    pub to: String,
    pub routes: u32,
}

/// A directed link: its sending port, its component, and whether both ends are switches.
#[derive(Clone, Copy)]
struct Directed {
    from: PortId,
    to: PortId,
    component: u32,
    between_switches: bool,
}

/// The loads of all-to-all traffic, naming the `top` busiest switch-to-switch directions
/// (overall and per rail).
pub fn link_loads(rf: &RoutedFabric, top: usize) -> LinkLoads {
    let comps = Components::of(&rf.graph);
    let counts = count_routes(rf, &comps);
    loads_from_counts(rf, &comps, &counts, top)
}

/// [`link_loads`] from counts already made, for a caller that also wants them per link
/// (apps/fabric_report: the links table) without walking every destination twice.
pub fn loads_from_counts(rf: &RoutedFabric, comps: &Components, counts: &RouteCounts, top: usize) -> LinkLoads {
    let g = &rf.graph;
    let mut directed = Vec::with_capacity(2 * g.links.len());
    for link in g.links.iter().filter(|l| l.state == LinkState::Up) {
        let [a, b] = link.ends;
        let between_switches = link.ends.iter().all(|p| g.nodes[g.ports[*p].node].is_switch());
        let component = comps.of_node[g.ports[a].node];
        directed.push(Directed { from: a, to: b, component, between_switches });
        directed.push(Directed { from: b, to: a, component, between_switches });
    }
    let scope = |c: Option<u32>| directed.iter().filter(move |d| c.is_none_or(|c| d.component == c));
    let stats = |c: Option<u32>, switches: bool| load_stats(scope(c).filter(|d| d.between_switches == switches).map(|d| counts.out_of[d.from]));
    let busiest = |c: Option<u32>| {
        let mut v: Vec<&Directed> = scope(c).filter(|d| d.between_switches && counts.out_of[d.from] > 0).collect();
        v.sort_by_key(|d| (std::cmp::Reverse(counts.out_of[d.from]), d.from));
        v.iter().take(top).map(|d| BusyLink { from: g.port_name(d.from), to: g.port_name(d.to), routes: counts.out_of[d.from] }).collect()
    };
    let per_rail = counts
        .components
        .iter()
        .map(|cp| {
            let c = Some(cp.component as u32);
            RailLoads { component: cp.component, rails: cp.rails.clone(), pairs: cp.pairs, routed_pairs: cp.routed_pairs, switch_links: stats(c, true), host_links: stats(c, false), busiest: busiest(c) }
        })
        .collect();
    let pairs = counts.components.iter().map(|c| c.pairs).sum();
    let routed_pairs = counts.components.iter().map(|c| c.routed_pairs).sum();
    LinkLoads { pairs, routed_pairs, unroutable_pairs: pairs - routed_pairs, switch_links: stats(None, true), host_links: stats(None, false), busiest: busiest(None), per_rail }
}

fn load_stats(routes: impl Iterator<Item = u32>) -> LoadStats {
    let mut v: Vec<u32> = routes.collect();
    v.sort_unstable();
    let mut histogram: Vec<HistogramBin> = Vec::new();
    for &r in &v {
        match histogram.last_mut() {
            Some(bin) if bin.routes == r => bin.links += 1,
            _ => histogram.push(HistogramBin { routes: r, links: 1 }),
        }
    }
    let total: u64 = v.iter().map(|&r| u64::from(r)).sum();
    LoadStats {
        directed_links: v.len(),
        routes: total,
        max: v.last().copied().unwrap_or(0),
        mean: if v.is_empty() { 0.0 } else { total as f64 / v.len() as f64 },
        histogram,
    }
}

/// At most this many histogram rows in the text table; the JSON has them all.
const HISTOGRAM_ROWS: usize = 12;

fn write_stats(f: &mut fmt::Formatter<'_>, what: &str, s: &LoadStats) -> fmt::Result {
    writeln!(f, "  {what}: {} directed links, max {} routes, mean {:.2}", s.directed_links, s.max, s.mean)?;
    for bin in s.histogram.iter().rev().take(HISTOGRAM_ROWS) {
        writeln!(f, "    {:>8} routes  {:>7} links", bin.routes, bin.links)?;
    }
    if s.histogram.len() > HISTOGRAM_ROWS {
        writeln!(f, "    ... {} more rows", s.histogram.len() - HISTOGRAM_ROWS)?;
    }
    Ok(())
}

fn write_busiest(f: &mut fmt::Formatter<'_>, busiest: &[BusyLink]) -> fmt::Result {
    for b in busiest {
        writeln!(f, "    {:>8}  {} -> {}", b.routes, b.from, b.to)?;
    }
    Ok(())
}

impl fmt::Display for LinkLoads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "all-to-all: {} pairs, {} routed, {} unroutable", self.pairs, self.routed_pairs, self.unroutable_pairs)?;
        write_stats(f, "switch-to-switch", &self.switch_links)?;
        write_stats(f, "host links", &self.host_links)?;
        writeln!(f, "  busiest switch-to-switch:")?;
        write_busiest(f, &self.busiest)?;
        // One component's breakdown would repeat the totals above.
        for r in self.per_rail.iter().filter(|_| self.per_rail.len() > 1) {
            let rails: Vec<String> = r.rails.iter().map(u16::to_string).collect();
            writeln!(f, "component {} (rail {}): {} pairs, {} routed", r.component, rails.join(","), r.pairs, r.routed_pairs)?;
            write_stats(f, "switch-to-switch", &r.switch_links)?;
            write_stats(f, "host links", &r.host_links)?;
            writeln!(f, "  busiest switch-to-switch:")?;
            write_busiest(f, &r.busiest)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fabrics::line;
    use super::*;

    #[test]
    fn stats_count_links_by_routes() {
        let s = load_stats([3, 0, 3, 5].into_iter());
        assert_eq!((s.directed_links, s.routes, s.max, s.mean), (4, 11, 5, 2.75));
        assert_eq!(s.histogram, [HistogramBin { routes: 0, links: 1 }, HistogramBin { routes: 3, links: 2 }, HistogramBin { routes: 5, links: 1 }]);
    }

    #[test]
    fn a_line_carries_one_route_each_way_on_every_link() {
        let (rf, _, _) = line();
        let loads = link_loads(&rf, 10);
        assert_eq!((loads.pairs, loads.routed_pairs), (2, 2));
        assert_eq!(loads.switch_links.histogram, [HistogramBin { routes: 1, links: 4 }]);
        assert_eq!(loads.host_links.histogram, [HistogramBin { routes: 1, links: 4 }]);
        assert_eq!(loads.busiest[0], BusyLink { from: "\"s0\"[2]".into(), to: "\"s1\"[1]".into(), routes: 1 });
    }
}
