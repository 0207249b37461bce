//! The bandwidth share of every flow of one traffic pattern under static routing, as ORCS
//! computes it (Schneider, Hoefler, Lumsdaine: "ORCS: An Oblivious Routing Congestion
//! Simulator", Indiana University TR 675, 2009; its `hist_acc_band` metric): follow each flow's
//! route through the LFTs, count the flows on every directed link (each direction of a cable is
//! its own channel, as ORCS's dot graph has one edge per direction), and give each flow
//! 1 / (the most flows on any link of its route): a flow can go no faster than its fair part of
//! its busiest link. The pattern's bandwidth is the mean share (ORCS `get_acc_bandwidth`).
//!
//! ORCS counts flows and ignores link rates. [`Weighting::Rate`] is our extension for degraded
//! links: a link of rate r carrying c flows gives each r / c, and a flow's share is its worst
//! link's part over the rate its own cable would have trained to (so a fabric of equal rates gives
//! the same figures as [`Weighting::Flows`]).
//!
//! A flow the LFTs do not deliver (no route, a loop, a down link) gets share 0 and is counted as
//! unroutable; ORCS would count the links of the part it traced.
//!
//! Per pattern the cost is O(flows × hops) with no allocation: routes are traced by the
//! reference tracer ([`trace_route_into`]) into one flat buffer reused across patterns, and the
//! counts live in a vector indexed by the sending port with a generation stamp, so a new pattern
//! starts from zero without clearing it.
use super::components::Endpoint;
use super::paths::{trace_route_into, Hop};
use crate::engine::Generation;
use crate::fabric::graph::RoutedFabric;
use crate::ids::{PortId, TiVec};
use serde::{Deserialize, Serialize};

/// How a link's capacity is split among its flows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Weighting {
    /// ORCS: every link carries one unit; a flow's share is 1 / (most flows on its route).
    #[default]
    Flows,
    /// Ours: links carry their trained rate, so a degraded link is a narrower channel.
    Rate,
}

/// What one pattern gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PatternShares {
    pub flows: u32,
    pub unroutable: u32,
    /// Mean share over the flows (unroutable ones count 0): the pattern's bandwidth.
    pub mean: f64,
    /// The smallest share: the slowest flow, which ends a bulk-synchronous phase.
    pub slowest: f64,
}

/// Scratch space for evaluating patterns on one routed fabric, reused from pattern to pattern.
pub struct FlowShares {
    weighting: Weighting,
    /// Flows leaving each port in the current pattern; valid where `stamp` is `generation`.
    count: TiVec<PortId, u32>,
    stamp: TiVec<PortId, u32>,
    generation: Generation,
    /// What a flow out of each port can get from its link when alone on it.
    capacity: TiVec<PortId, f64>,
    /// The sending ports of every routed flow's hops, flow after flow.
    route_ports: Vec<PortId>,
    /// Per flow, the end of its ports in `route_ports`, or `None` when it is unroutable.
    route_end: Vec<Option<u32>>,
    hops: Vec<Hop>,
}

impl FlowShares {
    pub fn new(rf: &RoutedFabric, weighting: Weighting) -> FlowShares {
        let g = &rf.graph;
        let capacity = g
            .ports
            .iter()
            .map(|p| match (weighting, p.link) {
                (Weighting::Rate, Some(l)) => g.links[l].speed.data_bps_f64(),
                _ => 1.0,
            })
            .collect();
        let n = g.ports.len();
        FlowShares { weighting, count: vec![0; n].into(), stamp: vec![0; n].into(), generation: Generation::default(), capacity, route_ports: Vec::new(), route_end: Vec::new(), hops: Vec::new() }
    }

    /// The shares of `flows`, each a (source, destination) pair of indices into `endpoints`.
    pub fn evaluate(&mut self, rf: &RoutedFabric, endpoints: &[Endpoint], flows: &[(u32, u32)]) -> PatternShares {
        self.generation.advance(|| self.stamp.iter_mut().for_each(|s| *s = 0));
        self.route_ports.clear();
        self.route_end.clear();
        for &(s, d) in flows {
            let (src, dst) = (&endpoints[s as usize], &endpoints[d as usize]);
            let routed = trace_route_into(rf, src.port, dst.lid, &mut self.hops).is_ok();
            self.route_end.push(routed.then(|| {
                for hop in &self.hops {
                    let p = hop.from;
                    if self.stamp[p] != self.generation.get() {
                        self.stamp[p] = self.generation.get();
                        self.count[p] = 0;
                    }
                    self.count[p] += 1;
                    self.route_ports.push(p);
                }
                self.route_ports.len() as u32
            }));
        }
        let (mut sum, mut slowest, mut unroutable, mut start) = (0.0, f64::INFINITY, 0, 0usize);
        for (&(s, _), end) in flows.iter().zip(&self.route_end) {
            let share = match *end {
                None => {
                    unroutable += 1;
                    0.0
                }
                Some(end) => {
                    let route = &self.route_ports[start..end as usize];
                    start = end as usize;
                    let worst = route.iter().map(|&p| self.capacity[p] / f64::from(self.count[p])).fold(f64::INFINITY, f64::min);
                    (worst / self.alone(rf, endpoints[s as usize].port)).min(1.0)
                }
            };
            sum += share;
            slowest = slowest.min(share);
        }
        let n = flows.len() as u32;
        PatternShares { flows: n, unroutable, mean: if n == 0 { 0.0 } else { sum / f64::from(n) }, slowest: if n == 0 { 0.0 } else { slowest } }
    }

    /// What a flow from HCA port `src` gets alone: its cable's capacity as both ends would train
    /// it (1 when counting flows), so that a degraded host cable shows as a share below 1.
    fn alone(&self, rf: &RoutedFabric, src: PortId) -> f64 {
        let g = &rf.graph;
        match (self.weighting, g.peer(src)) {
            (Weighting::Rate, Some(peer)) => g.ports[src].supported.trained_with(g.ports[peer].supported).data_bps_f64(),
            _ => 1.0,
        }
    }

}
