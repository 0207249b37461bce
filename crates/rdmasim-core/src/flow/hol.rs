//! Head-of-line blocking at flow level (`[flow] hol`, docs/flow.md "Where credits make the
//! packet engine slower than max-min").
//!
//! Max-min lets a flow be held only by its own bottleneck. In a credit-based lossless fabric (the
//! packet engine, as InfiniBand) a switch keeps one FIFO per input port and VL, and a packet
//! waits in it until its output can take it; the packets behind it wait too, whatever output
//! they go to. With `hol = "credit"` the solver adds the two rules the packet engine implements,
//! as equal-rate constraints, when a flow fills its bottleneck link:
//!
//! - the input FIFOs on its route before the bottleneck are full: its source sends greedily and
//!   its packets drain only at its share, so each FIFO back to its NIC fills, and each link into
//!   a full FIFO waits for credits (backpressure, the congestion tree);
//! - a flow that shares a full FIFO advances in FIFO order with the flow that fills it: it is
//!   frozen at the same rate. And its packets then back up the FIFOs upstream on its own route,
//!   which hold their flows in turn. The NIC's round robin over its QPs is the first of these
//!   FIFOs: a NIC whose port's buffer at the switch is full alternates its QPs.
//!
//! Progressive filling with these groups is still progressive filling (the groups freeze at the
//! level their bottleneck reaches, the lowest level that blocks them), so the result is feasible
//! and deterministic. A flow held by its own cap (the NIC's packet rate) fills nothing.
//! ASSUMPTION: every FIFO upstream of a full link is full at steady state (a 32 KiB VL buffer
//! fills in microseconds under a sustained overload; the flows here last hundreds), and the
//! flows of one FIFO get equal byte rates (equal packet rates at full-MTU packets).
use super::maxmin::{FlowSet, MaxMin};
use super::stamps::Stamps;
use crate::ids::{FlowId, PortId, TiSlice, TiVec};

pub use crate::scenario::flow_engine::{FlowSection, HolModel};

/// The input FIFOs that fill when a flow with route `route` is held at its hop `at`, as the
/// links into them (sending ports): every hop before `at` (empty when `at` is its first hop or
/// not on it, and with `HolModel::None`).
#[inline]
pub fn full_fifos<'r, P: PartialEq>(model: HolModel, route: &'r [P], at: &P) -> &'r [P] {
    match model {
        HolModel::None => &[],
        HolModel::Credit => &route[..route.iter().position(|p| p == at).unwrap_or(0)],
    }
}

/// The rate solver a [`HolModel`] asks for: max-min alone, or with head-of-line blocking. The
/// flow engine and the rank-by-rank fluid loop both solve through it.
pub enum Rates {
    MaxMin(MaxMin),
    Credit(InputFair),
}

impl Rates {
    pub fn new(hol: HolModel, ports: usize, flows: usize) -> Rates {
        match hol {
            HolModel::None => Rates::MaxMin(MaxMin::new(ports, flows)),
            HolModel::Credit => Rates::Credit(InputFair::new(ports, flows)),
        }
    }

    /// Sets `rate[f]` for every flow of `flows`, bytes per second.
    pub fn solve(&mut self, set: &impl FlowSet, capacity: &TiSlice<PortId, f64>, flows: &[FlowId], rate: &mut TiSlice<FlowId, f64>) {
        match self {
            Rates::MaxMin(s) => s.solve(set, capacity, flows, rate),
            Rates::Credit(s) => s.solve(set, capacity, flows, rate),
        }
    }
}

/// Group key of the first hop of a route: the NIC serves each QP in turn, so a flow there is
/// a group of its own (flow ids above any port id).
const OWN_GROUP: u64 = 1 << 40;

/// Rates with head-of-line blocking (`HolModel::Credit`): progressive filling where each
/// switch output shares among its input ports and a held flow holds its FIFO-mates (the module
/// text). Scratch indexed by port and flow, stamped per call as in [`super::maxmin`].
#[derive(Default)]
pub struct InputFair {
    residual: TiVec<PortId, f64>,
    stamps: Stamps,
    links: Vec<PortId>,
    /// (input group key, unfrozen flows of it on the link being looked at).
    groups: Vec<(u64, u32)>,
    held: Vec<(FlowId, PortId)>,
}

impl InputFair {
    pub fn new(ports: usize, flows: usize) -> InputFair {
        InputFair { residual: vec![0.0; ports].into(), stamps: Stamps::new(ports, flows, u32::MAX), ..InputFair::default() }
    }

    /// Sets `rate[f]` for every flow of `flows` (a connected set), bytes per second.
    ///
    /// Each round finds the lowest rate any link would give any of its unfrozen flows: a link
    /// shares its residual equally among its input groups with unfrozen flows (the flows that
    /// reach its switch by one input port; ASSUMPTION: an output queue served in arrival order
    /// gives each input a share in proportion to the packets it holds there, and a congested
    /// output holds a full input buffer of each input's, so equal shares per input), and a
    /// group equally among its flows; the flows of the group with the most unfrozen flows get
    /// the least. That group freezes at that rate, and the flows of the FIFOs it fills with it
    /// ([`full_fifos`]). A flow's own cap freezes it first when lower. With every group of one
    /// flow this is max-min's progressive filling; it costs O(rounds × links × flows per
    /// link), more than [`super::maxmin`] (fine at hundreds of flows).
    pub fn solve(&mut self, set: &impl FlowSet, capacity: &TiSlice<PortId, f64>, flows: &[FlowId], rate: &mut TiSlice<FlowId, f64>) {
        let g = self.stamps.start_call();
        self.links.clear();
        for &f in flows {
            for &p in set.route(f) {
                if self.stamps.port[p] != g {
                    self.stamps.port[p] = g;
                    self.residual[p] = capacity[p];
                    self.links.push(p);
                }
            }
        }
        let mut left = flows.len();
        while left > 0 {
            // The link and group whose flows would get the least, ties to the first link found.
            let mut best: Option<(f64, PortId, u64)> = None;
            for i in 0..self.links.len() {
                let p = self.links[i];
                let Some((key, n, groups)) = self.largest_group(set, p) else { continue };
                let r = self.residual[p] / (f64::from(n) * groups as f64);
                if best.is_none_or(|(b, _, _)| r < b) {
                    best = Some((r, p, key));
                }
            }
            let capped = flows.iter().copied().filter(|&f| self.stamps.flow[f] != g).min_by(|&a, &b| set.cap(a).total_cmp(&set.cap(b)).then(a.cmp(&b)));
            match (best, capped) {
                (_, Some(f)) if best.is_none_or(|(r, _, _)| set.cap(f) <= r) => {
                    rate[f] = set.cap(f);
                    self.freeze(set, f, set.cap(f));
                    left -= 1;
                }
                (Some((r, p, key)), _) => {
                    for &f in set.on_link(p) {
                        if self.stamps.flow[f] != g && group_key(set, f, p) == key {
                            rate[f] = r;
                            self.freeze(set, f, r);
                            left -= 1;
                            self.held.push((f, p));
                        }
                    }
                    while let Some((f, at)) = self.held.pop() {
                        for &q in set.full_fifos(f, at) {
                            for &b in set.on_link(q) {
                                if self.stamps.flow[b] != g {
                                    rate[b] = r;
                                    self.freeze(set, b, r);
                                    left -= 1;
                                    self.held.push((b, q));
                                }
                            }
                        }
                    }
                }
                (None, _) => break,
            }
        }
    }

    /// On link `p`: the key and unfrozen flow count of its largest input group (ties: lowest
    /// key), and how many groups have unfrozen flows; None when none has.
    fn largest_group(&mut self, set: &impl FlowSet, p: PortId) -> Option<(u64, u32, usize)> {
        let g = self.stamps.current();
        self.groups.clear();
        for &f in set.on_link(p) {
            if self.stamps.flow[f] == g {
                continue;
            }
            let key = group_key(set, f, p);
            match self.groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => self.groups.push((key, 1)),
            }
        }
        let &(key, n) = self.groups.iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))?;
        Some((key, n, self.groups.len()))
    }

    fn freeze(&mut self, set: &impl FlowSet, f: FlowId, r: f64) {
        self.stamps.flow[f] = self.stamps.current();
        for &q in set.route(f) {
            self.residual[q] = (self.residual[q] - r).max(0.0);
        }
    }

}

/// The input group of flow `f` at link `p`: the link it reached `p`'s switch by, or its own
/// at its first hop.
fn group_key(set: &impl FlowSet, f: FlowId, p: PortId) -> u64 {
    let route = set.route(f);
    match route.iter().position(|&q| q == p) {
        Some(i) if i > 0 => u64::from(route[i - 1].0),
        _ => OWN_GROUP + u64::from(f.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fifos_before_the_hold_point_fill() {
        let route = [10u32, 11, 12, 13];
        assert_eq!(full_fifos(HolModel::Credit, &route, &12), &[10, 11]);
        assert!(full_fifos(HolModel::Credit, &route, &10).is_empty(), "held at its NIC's link: nothing upstream");
        assert!(full_fifos(HolModel::None, &route, &12).is_empty());
    }
}
