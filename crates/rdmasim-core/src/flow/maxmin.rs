//! Max-min fair rates by progressive filling (Bertsekas and Gallager, "Data Networks", 2nd ed.,
//! sec. 6.5.2): raise every flow's rate together until a link is full or a flow reaches its own
//! cap; freeze the flows that link carries (or that flow) at that level, take their rates off
//! the links they cross, and go on with the rest.
//!
//! The links are the directed links of the routed fabric, named by their sending port
//! ([`PortId`]); the next link to fill is the one with the smallest fair share
//! (residual capacity / unfrozen flows), kept in a heap. Freezing flows only raises the other
//! links' shares, so a heap entry whose share changed is stale and skipped when popped (its new
//! share was pushed when it changed). Ties go to the lower port id, then the lower flow id: the
//! same input gives the same rates, bit for bit.
//!
//! The solver works on one connected set of flows (every flow on a link of the set is in the
//! set: [`super::engine`] finds it), so the links' capacities are whole; its scratch vectors are
//! indexed by port and stamped per call, so a call costs O(flows × hops × log) and no clearing.
use super::stamps::Stamps;
use crate::ids::{FlowId, PortId, TiSlice, TiVec};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What the solver reads of the flows: each flow's route (sending ports) and its own cap.
pub trait FlowSet {
    fn route(&self, f: FlowId) -> &[PortId];
    /// The most the flow may get whatever the links give it (its NIC's injection rate).
    fn cap(&self, f: FlowId) -> f64;
    /// The flows active on the link out of `p` (all of them in the set being solved).
    fn on_link(&self, p: PortId) -> &[FlowId];
    /// The links into the input FIFOs that fill when flow `f` is held at link `at`, whose flows
    /// are then held at its rate (head-of-line blocking: flow/hol.rs, which solves with it).
    fn full_fifos(&self, _f: FlowId, _at: PortId) -> &[PortId] {
        &[]
    }
}

/// A link's fair share, ordered smallest first (then by port) for a max-heap.
#[derive(Clone, Copy, PartialEq)]
struct Share(f64, PortId);
impl Eq for Share {}
impl Ord for Share {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}
impl PartialOrd for Share {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Scratch space for the solver, sized once for the fabric and the flows.
pub struct MaxMin {
    residual: TiVec<PortId, f64>,
    unfrozen: TiVec<PortId, u32>,
    stamps: Stamps,
    heap: BinaryHeap<Share>,
    by_cap: Vec<FlowId>,
}

impl MaxMin {
    pub fn new(ports: usize, flows: usize) -> MaxMin {
        MaxMin {
            residual: vec![0.0; ports].into(),
            unfrozen: vec![0; ports].into(),
            // Generations stay below 2^31: the high bit marks a link pushed in `solve`.
            stamps: Stamps::new(ports, flows, (1 << 31) - 1),
            heap: BinaryHeap::new(),
            by_cap: Vec::new(),
        }
    }

    /// Sets `rate[f]` for every flow of `flows` (a connected set, see the module text), in
    /// bytes per second, from the links' `capacity` (bytes per second).
    pub fn solve(&mut self, set: &impl FlowSet, capacity: &TiSlice<PortId, f64>, flows: &[FlowId], rate: &mut TiSlice<FlowId, f64>) {
        let g = self.stamps.start_call();
        self.heap.clear();
        for &f in flows {
            for &p in set.route(f) {
                if self.stamps.port[p] != g {
                    self.stamps.port[p] = g;
                    self.residual[p] = capacity[p];
                    self.unfrozen[p] = 0;
                }
                self.unfrozen[p] += 1;
            }
        }
        // One heap entry per link to begin with; the stamp's high bit marks it pushed.
        let pushed = g | 1 << 31;
        for &f in flows {
            for &p in set.route(f) {
                if self.stamps.port[p] == g {
                    self.stamps.port[p] = pushed;
                    self.heap.push(Share(self.residual[p] / f64::from(self.unfrozen[p]), p));
                }
            }
        }
        self.by_cap.clear();
        self.by_cap.extend(flows.iter().copied().filter(|&f| set.cap(f).is_finite()));
        self.by_cap.sort_by(|&a, &b| set.cap(a).total_cmp(&set.cap(b)).then(a.cmp(&b)));
        let mut next_cap = 0usize;
        loop {
            while next_cap < self.by_cap.len() && self.stamps.flow[self.by_cap[next_cap]] == g {
                next_cap += 1;
            }
            let top = loop {
                match self.heap.peek().copied() {
                    Some(Share(s, p)) if self.unfrozen[p] == 0 || s != self.residual[p] / f64::from(self.unfrozen[p]) => {
                        self.heap.pop();
                    }
                    other => break other,
                }
            };
            let cap = self.by_cap.get(next_cap).map(|&f| (set.cap(f), f));
            match (top, cap) {
                (None, None) => break,
                (_, Some((c, f))) if top.is_none_or(|t| c <= t.0) => {
                    rate[f] = c;
                    self.freeze(set, f, c);
                }
                (Some(Share(level, p)), _) => {
                    self.heap.pop();
                    for &f in set.on_link(p) {
                        if self.stamps.flow[f] != g {
                            rate[f] = level;
                            self.freeze(set, f, level);
                        }
                    }
                }
                (None, Some(_)) => unreachable!("the guard takes a cap when the heap is empty"),
            }
        }
    }

    fn freeze(&mut self, set: &impl FlowSet, f: FlowId, r: f64) {
        self.stamps.flow[f] = self.stamps.current();
        for &q in set.route(f) {
            self.residual[q] = (self.residual[q] - r).max(0.0);
            self.unfrozen[q] -= 1;
            if self.unfrozen[q] > 0 {
                self.heap.push(Share(self.residual[q] / f64::from(self.unfrozen[q]), q));
            }
        }
    }

}

#[cfg(test)]
mod tests {
    use super::*;

    struct Set {
        routes: Vec<Vec<PortId>>,
        caps: Vec<f64>,
        on: TiVec<PortId, Vec<FlowId>>,
    }
    impl Set {
        fn new(ports: usize, routes: &[&[u32]], caps: &[f64]) -> Set {
            let routes: Vec<Vec<PortId>> = routes.iter().map(|r| r.iter().map(|&p| PortId(p)).collect()).collect();
            let mut on: TiVec<PortId, Vec<FlowId>> = vec![Vec::new(); ports].into();
            for (f, r) in routes.iter().enumerate() {
                for &p in r {
                    on[p].push(FlowId::from(f));
                }
            }
            Set { routes, caps: caps.to_vec(), on }
        }
    }
    impl FlowSet for Set {
        fn route(&self, f: FlowId) -> &[PortId] {
            &self.routes[f.idx()]
        }
        fn cap(&self, f: FlowId) -> f64 {
            self.caps[f.idx()]
        }
        fn on_link(&self, p: PortId) -> &[FlowId] {
            &self.on[p]
        }
    }

    fn solve(capacity: &[f64], routes: &[&[u32]], caps: &[f64]) -> Vec<f64> {
        let set = Set::new(capacity.len(), routes, caps);
        let flows: Vec<FlowId> = (0..routes.len()).map(FlowId::from).collect();
        let mut rate: TiVec<FlowId, f64> = vec![0.0; routes.len()].into();
        let cap: TiVec<PortId, f64> = capacity.to_vec().into();
        MaxMin::new(capacity.len(), routes.len()).solve(&set, &cap, &flows, &mut rate);
        rate.raw
    }

    #[test]
    fn the_textbook_example_fills_the_busiest_link_first() {
        // Link 1 carries three flows and fills first at 10/3; flow 0 takes the rest of link 0.
        let r = solve(&[10.0, 10.0], &[&[0], &[0, 1], &[1], &[1]], &[f64::INFINITY; 4]);
        let third = 10.0 / 3.0;
        assert_eq!(r, vec![10.0 - third, third, third, third]);
    }

    #[test]
    fn a_capped_flow_leaves_its_share_to_the_others() {
        // Three flows on one link of 12: one capped at 2, the other two get 5 each.
        assert_eq!(solve(&[12.0], &[&[0], &[0], &[0]], &[f64::INFINITY, 2.0, f64::INFINITY]), vec![5.0, 2.0, 5.0]);
        // A slow link downstream (2) holds its flow; the fast shared link gives the rest away.
        assert_eq!(solve(&[10.0, 2.0], &[&[0, 1], &[0]], &[f64::INFINITY; 2]), vec![2.0, 8.0]);
    }
}
