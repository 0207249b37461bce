//! Host-to-host routes of one routed fabric, each traced once and kept. The TSUBAME2.0 sweeps
//! run the Alltoall at every node count from 100 to 1300, and a job's nodes are a prefix of one
//! list (apps/rounds.rs), so the same (host, host, rail) route comes back in every case that
//! holds both hosts, and again as the ACK route of the pair the other way: tracing was 70 % of
//! an Alltoall case's time (perf, 1300 ranks) for about five traces of every route.
//!
//! The routes are the reference tracer's ([`trace_route_into`]), as sending ports. The index
//! has a slot per (from, to, rail), allocated zeroed (the pages of pairs never asked for are
//! never touched), laid out by rail, then by `to - from` (mod the hosts), then by `from`: a
//! shift's pairs (r, r + k), an Alltoall step, sit side by side, so a step reads its slots in
//! order instead of one cache line and page apart each. The ports of the routes traced so far
//! sit in one flat vector.
//!
//! Keeping costs when each route is asked for once (one Alltoall case alone: 0.80-0.92 s
//! traced, 1.12-1.29 s kept, 1300 ranks), so a caller that knows it asks once does not keep.
use crate::fabric::analysis::paths::{trace_route_into, Hop};
use crate::fabric::graph::RoutedFabric;
use crate::ids::{HostId, PortId};

/// A slot: 0 not traced yet, 1 no route, else the route's start + 2 in the low 40 bits and its
/// length above them.
const UNTRACED: u64 = 0;
const NO_ROUTE: u64 = 1;
const LEN_SHIFT: u32 = 40;

/// The most slots kept (512 MB of index, allocated zeroed): a fabric of more hosts traces each
/// route when asked, rather than reserve an index it could not fill.
pub const MAX_SLOTS: usize = 1 << 26;

pub struct HostRoutes {
    /// Whether routes are kept; if not, each is traced into `scratch` when asked for.
    keep: bool,
    scratch: Vec<PortId>,
    hosts: usize,
    rails: usize,
    slot: Vec<u64>,
    ports: Vec<PortId>,
    hops: Vec<Hop>,
}

impl HostRoutes {
    /// Routes of `hosts` hosts with up to `rails` rails, kept if `keep` and the index fits
    /// [`MAX_SLOTS`].
    pub fn new(hosts: usize, rails: usize, keep: bool) -> HostRoutes {
        let keep = keep && hosts.saturating_mul(hosts).saturating_mul(rails) <= MAX_SLOTS;
        let slots = if keep { hosts * hosts * rails } else { 0 };
        HostRoutes { keep, scratch: Vec::new(), hosts, rails, slot: vec![UNTRACED; slots], ports: Vec::new(), hops: Vec::new() }
    }

    /// The sending ports of the route from host `from`'s rail `rail` (its HCA port in `ends`)
    /// to host `to`'s LID on that rail, or None when the LFTs give none.
    pub fn get(&mut self, rf: &RoutedFabric, ends: &[Vec<(PortId, u16)>], from: HostId, to: HostId, rail: usize) -> Option<&[PortId]> {
        if !self.keep {
            let (src, _) = ends[from.idx()][rail];
            let (_, dlid) = ends[to.idx()][rail];
            trace_route_into(rf, src, dlid, &mut self.hops).ok()?;
            self.scratch.clear();
            self.scratch.extend(self.hops.iter().map(|h| h.from));
            return Some(&self.scratch);
        }
        debug_assert!(rail < self.rails, "rail {rail} of {}", self.rails);
        let h = self.hosts;
        let i = (rail * h + (to.idx() + h - from.idx()) % h) * h + from.idx();
        let mut s = self.slot[i];
        if s == UNTRACED {
            let (src, _) = ends[from.idx()][rail];
            let (_, dlid) = ends[to.idx()][rail];
            s = match trace_route_into(rf, src, dlid, &mut self.hops) {
                Ok(()) => {
                    let start = self.ports.len() as u64;
                    self.ports.extend(self.hops.iter().map(|h| h.from));
                    (start + 2) | (self.hops.len() as u64) << LEN_SHIFT
                }
                Err(_) => NO_ROUTE,
            };
            self.slot[i] = s;
        }
        if s == NO_ROUTE {
            return None;
        }
        let start = ((s & ((1 << LEN_SHIFT) - 1)) - 2) as usize;
        Some(&self.ports[start..start + (s >> LEN_SHIFT) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::analysis::test_fabrics::line;

    #[test]
    fn a_route_is_the_tracers_and_is_traced_once() {
        let (rf, _, h) = line();
        let ends: Vec<Vec<(PortId, u16)>> = h.iter().map(|&p| vec![(p, rf.graph.ports[p].lid)]).collect();
        let mut routes = HostRoutes::new(h.len(), 1, true);
        let mut hops = Vec::new();
        trace_route_into(&rf, h[0], rf.graph.ports[h[1]].lid, &mut hops).unwrap();
        let want: Vec<PortId> = hops.iter().map(|x| x.from).collect();
        assert_eq!(routes.get(&rf, &ends, HostId(0), HostId(1), 0), Some(&want[..]));
        let kept = routes.ports.len();
        assert_eq!(routes.get(&rf, &ends, HostId(0), HostId(1), 0), Some(&want[..]));
        assert_eq!(routes.ports.len(), kept, "asked again, not traced again");
        let mut traced = HostRoutes::new(h.len(), 1, false);
        assert_eq!(traced.get(&rf, &ends, HostId(0), HostId(1), 0), Some(&want[..]));
        assert!(traced.slot.is_empty() && traced.ports.is_empty());
        // An index past the cap is not reserved: the routes are traced when asked.
        let big = HostRoutes::new(1 << 14, 1, true);
        assert!(!big.keep && big.slot.is_empty());
    }
}
