//! A round's time when each pair's payload is split over its rails by the rates they give it
//! (`striping = "rate"` in [`super::rounds`]): a pair keeps pulling on both rails until its
//! payload is through, so both rails finish together and the pair goes at `r_0 + r_1`, the sum
//! of its flows' max-min fair rates ([`super::maxmin`], progressive filling over every flow of
//! the round). As pairs finish the rates re-share and the surviving pairs' splits follow them:
//! [`RailShare::drained`] is that fluid event loop, the flow engine's ([`super::engine`]) with
//! a pair's flows leaving together. Re-solving max-min at every departure costs a few ms per
//! event on a 1300-node round, so a random-pair case is well under a second.
//!
//! This is what any scheme converges to where each rail takes the next piece of the payload
//! when it is free (pieces small against the payload: 4 MiB `MV2_MAX_RDMA_SIZE` chunks are
//! 1/128 of the study's 512 MiB): MVAPICH2's adaptive striping (HSAM, the `has_hsam` branch of
//! `ibv_rndv.c`, which weighs each rail by its measured throughput; ASSUMPTION: switched on by
//! `MV2_USE_HSAM`, off by default — not verified against the 1.8 user guide), or a pull-based
//! multi-rail transport. It is *not* MVAPICH2's default (`inc = nbytes / rdma_num_rails`: the
//! `even` policy, [`super::round_time`]).
//!
//! [`RailShare::worst`] is the same split held at the starting rates, `b / (r_0 + r_1)`: an
//! upper bound in practice (a pair only gains when its neighbours leave), used as a stalled
//! flow's bound. `tests/flow_rounds.rs` checks the event loop against the flow engine (one rail:
//! identical) and the starting-rate split run as two fixed flows on the flow engine (within
//! 6 % of the formula; the event loop up to 22 % faster on those small rounds).
use super::maxmin::{FlowSet, MaxMin};
use crate::ids::{FlowId, PortId, TiSlice, TiVec};

/// The flows of one round (one per pair and rail), their routes and the pairs they belong to.
pub struct RailShare {
    route_of: TiVec<FlowId, std::ops::Range<usize>>,
    hops: Vec<PortId>,
    pair_of: TiVec<FlowId, u32>,
    on: TiVec<PortId, Vec<FlowId>>,
    touched: Vec<PortId>,
    rate: TiVec<FlowId, f64>,
    pair_rate: Vec<f64>,
    solver: Option<MaxMin>,
    solver_flows: usize,
}

impl FlowSet for RailShare {
    fn route(&self, f: FlowId) -> &[PortId] {
        &self.hops[self.route_of[f].clone()]
    }
    fn cap(&self, _: FlowId) -> f64 {
        // The HCA's own link is the first hop of the route: no separate NIC cap.
        f64::INFINITY
    }
    fn on_link(&self, p: PortId) -> &[FlowId] {
        &self.on[p]
    }
}

impl RailShare {
    pub fn new(ports: usize) -> RailShare {
        RailShare {
            route_of: TiVec::new(),
            hops: Vec::new(),
            pair_of: TiVec::new(),
            on: vec![Vec::new(); ports].into(),
            touched: Vec::new(),
            rate: TiVec::new(),
            pair_rate: Vec::new(),
            solver: None,
            solver_flows: 0,
        }
    }

    /// Empties the round (only the links it touched are reset).
    pub fn clear(&mut self) {
        for &p in &self.touched {
            self.on[p].clear();
        }
        self.touched.clear();
        self.route_of.clear();
        self.hops.clear();
        self.pair_of.clear();
        self.pair_rate.clear();
    }

    /// Adds pair `pair`'s flow on one rail along `route` (its sending ports, in order).
    pub fn add(&mut self, pair: u32, route: &[PortId]) {
        let f = FlowId::from(self.route_of.len());
        let start = self.hops.len();
        self.hops.extend_from_slice(route);
        self.route_of.push(start..self.hops.len());
        self.pair_of.push(pair);
        for &p in route {
            if self.on[p].is_empty() {
                self.touched.push(p);
            }
            self.on[p].push(f);
        }
    }

    /// Solves the round's max-min rates and sums them per pair (`pairs`: the round's pairs).
    pub fn solve(&mut self, capacity: &TiSlice<PortId, f64>, pairs: usize) {
        let n = self.route_of.len();
        if self.solver.is_none() || self.solver_flows < n {
            self.solver = Some(MaxMin::new(self.on.len(), n.max(1)));
            self.solver_flows = n.max(1);
        }
        self.rate.clear();
        self.rate.resize(n, 0.0);
        let flows: Vec<FlowId> = (0..n).map(FlowId::from).collect();
        let mut solver = self.solver.take().expect("made above");
        let mut rate = std::mem::take(&mut self.rate);
        solver.solve(self, capacity, &flows, &mut rate);
        self.solver = Some(solver);
        self.pair_rate.clear();
        self.pair_rate.resize(pairs, 0.0);
        for (f, &r) in rate.iter().enumerate() {
            self.pair_rate[self.pair_of[FlowId::from(f)] as usize] += r;
        }
        self.rate = rate;
    }

    /// Seconds per wire byte pair `pair` takes: 1 / (the sum of its rails' rates).
    pub fn pair_time(&self, pair: u32) -> f64 {
        1.0 / self.pair_rate[pair as usize]
    }

    /// Seconds per wire byte of the round's slowest pair (infinite when a pair gets nothing).
    pub fn worst(&self) -> f64 {
        self.pair_rate.iter().map(|&r| 1.0 / r).fold(0.0, f64::max)
    }

    /// Seconds per wire byte until the round's last pair is through when the rates re-share as
    /// pairs finish: the event loop of the flow engine with each pair's flows leaving together
    /// (a pair keeps pulling on both rails until its payload is through, so its split follows
    /// the rates as they change). Re-solves max-min at every departure: a few ms per event on
    /// a 1300-node round. Leaves the round's flows as they were added.
    pub fn drained(&mut self, capacity: &TiSlice<PortId, f64>, pairs: usize) -> f64 {
        let n = self.route_of.len();
        self.solve(capacity, pairs);
        let mut left = vec![1.0f64; pairs];
        let mut active: Vec<FlowId> = (0..n).map(FlowId::from).collect();
        let mut done = vec![false; pairs];
        let mut t = 0.0;
        let mut solver = self.solver.take().expect("solve made it");
        let mut rate = std::mem::take(&mut self.rate);
        while !active.is_empty() {
            self.pair_rate.iter_mut().for_each(|r| *r = 0.0);
            for &f in &active {
                self.pair_rate[self.pair_of[f] as usize] += rate[f];
            }
            let dt = active.iter().map(|&f| self.pair_of[f] as usize).map(|p| left[p] / self.pair_rate[p]).fold(f64::INFINITY, f64::min);
            if !dt.is_finite() {
                t = f64::INFINITY;
                break;
            }
            t += dt;
            for (p, l) in left.iter_mut().enumerate() {
                if !done[p] {
                    *l -= self.pair_rate[p] * dt;
                    // Pairs within a rounding error of the first are through with it.
                    if *l <= 1e-12 {
                        done[p] = true;
                    }
                }
            }
            let on = &mut self.on;
            active.retain(|&f| {
                let keep = !done[self.pair_of[f] as usize];
                if !keep {
                    for &q in &self.hops[self.route_of[f].clone()] {
                        on[q].retain(|&g| g != f);
                    }
                }
                keep
            });
            if !active.is_empty() {
                solver.solve(self, capacity, &active, &mut rate);
            }
        }
        self.solver = Some(solver);
        self.rate = rate;
        // Put the round back as it was added.
        for (f, r) in self.route_of.iter().enumerate() {
            for &q in &self.hops[r.clone()] {
                self.on[q].push(FlowId::from(f));
            }
        }
        for &q in &self.touched {
            self.on[q].sort_unstable();
            self.on[q].dedup();
        }
        // And the starting rates, for [`Self::pair_time`] and [`Self::rate`].
        self.solve(capacity, pairs);
        t
    }

    /// A flow's rate after [`Self::solve`], bytes per second (flows numbered in `add` order).
    pub fn rate(&self, f: FlowId) -> f64 {
        self.rate[f]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_adds_its_rails_fair_shares() {
        // Rail 0: pair 0 alone on link 0 (10). Rail 1: pairs 0, 1, 2 on link 1 (10).
        let cap: TiVec<PortId, f64> = vec![10.0, 10.0, 10.0].into();
        let mut s = RailShare::new(3);
        s.add(0, &[PortId(0)]);
        s.add(0, &[PortId(1)]);
        s.add(1, &[PortId(1), PortId(2)]);
        s.add(2, &[PortId(1)]);
        s.solve(&cap, 3);
        let third = 10.0 / 3.0;
        assert!((s.pair_time(0) - 1.0 / (10.0 + third)).abs() < 1e-12);
        assert!((s.worst() - 1.0 / third).abs() < 1e-12);
        // Draining: pair 0 (1 byte at 13.3) is through at 0.075; pairs 1 and 2 then share
        // link 1 at 5 each and finish their remaining 0.75 at 0.075 + 0.15 = 0.225, not 0.3.
        let t = s.drained(&cap, 3);
        assert!((t - 0.225).abs() < 1e-12, "{t}");
        assert!((s.worst() - 1.0 / third).abs() < 1e-12, "the starting rates are back");
        s.clear();
        s.add(0, &[PortId(2)]);
        s.solve(&cap, 1);
        assert_eq!(s.worst(), 0.1, "cleared: only the new flow");
    }
}
