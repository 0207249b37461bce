//! When the slowest flow of a round is through, without running the event loop: for flows of
//! equal wire bytes `b` that all start at 0 and share links at max-min fair rates, it is
//! `b × max over links of (flows on the link / link capacity)`.
//!
//! Why (the property the flow engine's progressive filling has, docs/flow.md): a flow's rate is
//! the fair share of its bottleneck link, and a saturated link's fair share is at least its
//! capacity over the flows on it, so at every instant every flow goes at least at
//! `min over its links of C_l / n_l(0)` (flows only leave). The link of smallest `C_l / n_l`
//! is filled first, its flows frozen at exactly that share, and they keep it until they finish
//! together at `b n_l / C_l`: nothing finishes later. So the round's time is exact, and each
//! flow's own time is at most `b × max over its route of n_l / C_l` (its bound, used for a
//! flow that also stalls). `tests/flow_rounds.rs` checks the round's time against
//! [`super::fixed::completion_times`] on the TSUBAME2.0 fabric.
//!
//! A round of the TSUBAME2.0 Alltoall on 1300 nodes is 2600 flows; the study's sweeps are
//! hundreds of thousands of such rounds, which this makes a count per link.
use crate::ids::{PortId, TiSlice, TiVec};

/// Flows per directed link (named by its sending port) of the round being built.
pub struct RoundLoads {
    load: TiVec<PortId, u32>,
    touched: Vec<PortId>,
}

impl RoundLoads {
    pub fn new(ports: usize) -> RoundLoads {
        RoundLoads { load: vec![0; ports].into(), touched: Vec::new() }
    }

    /// Adds one flow along `route` (its sending ports, in order).
    pub fn add(&mut self, route: &[PortId]) {
        for &p in route {
            if self.load[p] == 0 {
                self.touched.push(p);
            }
            self.load[p] += 1;
        }
    }

    /// Seconds per wire byte of the round's slowest flow: max over the links in use of
    /// flows / capacity (infinite when a link in use carries nothing). 0 for an empty round.
    pub fn worst(&self, capacity: &TiSlice<PortId, f64>) -> f64 {
        self.touched.iter().map(|&p| f64::from(self.load[p]) / capacity[p]).fold(0.0, f64::max)
    }

    /// The link that sets [`Self::worst`] (first of equals in the order the round touched them)
    /// and its flows.
    pub fn worst_link(&self, capacity: &TiSlice<PortId, f64>) -> Option<(PortId, u32)> {
        let mut best: Option<(PortId, f64)> = None;
        for &p in &self.touched {
            let v = f64::from(self.load[p]) / capacity[p];
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((p, v));
            }
        }
        best.map(|(p, _)| (p, self.load[p]))
    }

    /// Seconds per wire byte a flow along `route` takes at most.
    pub fn bound(&self, route: &[PortId], capacity: &TiSlice<PortId, f64>) -> f64 {
        route.iter().map(|&p| f64::from(self.load[p]) / capacity[p]).fold(0.0, f64::max)
    }

    /// Empties the round (only the links it touched are reset).
    pub fn clear(&mut self) {
        for &p in &self.touched {
            self.load[p] = 0;
        }
        self.touched.clear();
    }
}
