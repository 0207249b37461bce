//! The pairwise-exchange Alltoall run rank by rank at flow level (seeds/004 §2.2; issue 34
//! item 2). MVAPICH2's `MPIR_Alltoall_pairwise_MV2` is a loop of `MPIC_Sendrecv`: a rank starts
//! step k + 1 as soon as its own step-k send and receive are through, with no barrier between
//! steps. So a rank held back by a congested step starts the next one late, and its partners
//! there wait for it, while ranks elsewhere run ahead: shifts overlap, and a step's slow link
//! costs only the ranks that depend on it. The lockstep model ([`super::round_time`]) instead
//! ends every step with its slowest flow.
//!
//! The model:
//! - Rank r at step k sends to and receives from its partners of
//!   [`alltoall_pairwise_partners`] (XOR pairs on a power-of-two size, else the shift).
//! - A transfer r → d of step k starts when both r and d have reached step k: the message is
//!   large (rendezvous), so its data moves only once the receiver has matched it.
//! - Its payload is split evenly over the rails, one flow per rail. The transfer is through when
//!   all of its flows are.
//! - The flows in flight share the links at max-min fair rates ([`super::maxmin`]), re-solved
//!   whenever a flow leaves or joins: a fluid event loop.
//! - Flows that finish within a billionth of the same instant leave together, so one solve
//!   serves all of them. A symmetric fabric gives many such ties.
//! - Every solve covers all the flows in flight. The flow engine ([`super::engine`]) re-solves
//!   only the connected set an event touches, but it takes every flow's start up front; here a
//!   transfer's start depends on other transfers' ends. Letting the engine take arrivals from a
//!   departure hook would give this loop its cheaper solves (not done: docs/tsubame.md gives
//!   the cost).
//! - The handshake's few µs (RTS, CTS, FIN) and the per-step software time are left out, as in
//!   the lockstep model. What stays out: docs/tsubame.md, "The Alltoall rank by rank".
//! - Two XOR partners share one RC connection, and `MPIC_Sendrecv` posts its receive before its
//!   send. If one of them reaches the step after the other's request to send has arrived
//!   ([`one_after_the_other`]), it answers that request first, and the partner's data then goes
//!   ahead of the partner's own answer on their one queue pair. So the early rank's transfer runs
//!   first and the late rank's follows it. The packet engine shows this on its event log
//!   (docs/tsubame.md).
use super::maxmin::{FlowSet, MaxMin};
use crate::ids::{FlowId, PortId, TiSlice, TiVec};
use crate::traffic::patterns::alltoall_pairwise_partners;

/// The request to send's one-way time (ASSUMPTION: 1 µs, a small message's one-way latency on
/// QDR InfiniBand; the packet engine's is 1.0–1.3 µs on a fat tree). A rank that reaches an XOR
/// step later than this after its partner finds the partner's request already there.
pub const RTS_ONE_WAY_S: f64 = 1e-6;

/// Whether two XOR partners that reach their step `gap_s` apart run their transfers one after
/// the other (the late rank's CTS goes first: see the module text). Both models ask this.
pub fn one_after_the_other(gap_s: f64) -> bool {
    gap_s > RTS_ONE_WAY_S
}

/// What to run: ranks, rails, bytes, and when each rank leaves the barrier.
#[derive(Clone, Debug)]
pub struct RankByRank {
    pub ranks: u32,
    pub rails: usize,
    /// Wire bytes of one rail's share of one transfer.
    pub wire_per_rail: f64,
    /// When each rank starts step 1, seconds (empty: all at 0).
    pub start_s: Vec<f64>,
}

/// What a run gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    /// When the last rank is through its last step, seconds.
    pub last_s: f64,
    /// When each rank is through, seconds.
    pub rank_s: Vec<f64>,
    /// Rate solves (instants at which flows left or joined).
    pub solves: u64,
    /// Transfers run after their XOR partner's rather than beside it.
    pub serialised: u64,
}

/// A transfer's route could not be traced: the Alltoall never ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unroutable {
    pub from: u32,
    pub to: u32,
    pub rail: usize,
}

#[derive(Clone, Copy, Default)]
struct Rank {
    /// The step it is in (1..ranks), or `ranks` when through.
    step: u32,
    entered_s: f64,
    send_done: bool,
    recv_done: bool,
    /// Its send waits for its XOR partner's transfer to finish.
    held_send: bool,
}

/// One flow in flight: a rail's share of the transfer `from → to`.
#[derive(Default)]
struct Slot {
    route: Vec<PortId>,
    left: f64,
    from: u32,
    to: u32,
}

struct Flows {
    slots: TiVec<FlowId, Slot>,
    free: Vec<FlowId>,
    active: Vec<FlowId>,
    on: TiVec<PortId, Vec<FlowId>>,
}

impl FlowSet for Flows {
    fn route(&self, f: FlowId) -> &[PortId] {
        &self.slots[f].route
    }
    fn cap(&self, _: FlowId) -> f64 {
        // The HCA's own link is the route's first hop.
        f64::INFINITY
    }
    fn on_link(&self, p: PortId) -> &[FlowId] {
        &self.on[p]
    }
}

struct Loop<'a, R> {
    spec: &'a RankByRank,
    route: R,
    ranks: Vec<Rank>,
    /// Rails of each transfer still in flight, by sending rank (a rank has one send at a time).
    rails_left: Vec<usize>,
    flows: Flows,
    rate: TiVec<FlowId, f64>,
    rank_s: Vec<f64>,
    serialised: u64,
}

impl<R: FnMut(u32, u32, usize, &mut Vec<PortId>) -> bool> Loop<'_, R> {
    fn partners(&self, r: u32, step: u32) -> (u32, u32) {
        alltoall_pairwise_partners(r, self.spec.ranks, step, true)
    }

    /// Rank `r` reaches its next step (or the end) at `now`.
    fn enter(&mut self, r: u32, now: f64) -> Result<(), Unroutable> {
        let rank = &mut self.ranks[r as usize];
        rank.step += 1;
        rank.entered_s = now;
        rank.send_done = false;
        rank.recv_done = false;
        let step = rank.step;
        if step >= self.spec.ranks {
            self.rank_s[r as usize] = now;
            return Ok(());
        }
        let (to, from) = self.partners(r, step);
        if to == from {
            // XOR partners: one exchange, maybe one transfer after the other.
            let p = self.ranks[to as usize];
            if p.step != step {
                return Ok(());
            }
            let late = one_after_the_other(now - p.entered_s);
            self.start(to, r)?;
            if late {
                self.ranks[r as usize].held_send = true;
                self.serialised += 1;
            } else {
                self.start(r, to)?;
            }
            return Ok(());
        }
        if self.ranks[to as usize].step == step {
            self.start(r, to)?;
        }
        if self.ranks[from as usize].step == step {
            self.start(from, r)?;
        }
        Ok(())
    }

    /// Starts the transfer `from → to`: one flow per rail.
    fn start(&mut self, from: u32, to: u32) -> Result<(), Unroutable> {
        let rails = self.spec.rails;
        self.rails_left[from as usize] = rails;
        for rail in 0..rails {
            let f = match self.flows.free.pop() {
                Some(f) => f,
                None => self.flows.slots.push_and_get_key(Slot::default()),
            };
            let slot = &mut self.flows.slots[f];
            slot.route.clear();
            if !(self.route)(from, to, rail, &mut slot.route) {
                return Err(Unroutable { from, to, rail });
            }
            slot.left = self.spec.wire_per_rail;
            slot.from = from;
            slot.to = to;
            for &p in &slot.route {
                self.flows.on[p].push(f);
            }
            if self.rate.len() <= f.idx() {
                self.rate.push(0.0);
            }
            self.flows.active.push(f);
        }
        Ok(())
    }

    /// Flow `f` is through; adds to `done` the ranks whose step it completes.
    fn finish(&mut self, f: FlowId, done: &mut Vec<u32>) -> Result<(), Unroutable> {
        let (from, to) = (self.flows.slots[f].from, self.flows.slots[f].to);
        for &p in &self.flows.slots[f].route {
            let on = &mut self.flows.on[p];
            if let Some(i) = on.iter().position(|&g| g == f) {
                on.swap_remove(i);
            }
        }
        self.flows.free.push(f);
        let left = &mut self.rails_left[from as usize];
        *left -= 1;
        if *left > 0 {
            return Ok(());
        }
        self.ranks[from as usize].send_done = true;
        self.ranks[to as usize].recv_done = true;
        for r in [from, to] {
            let rank = self.ranks[r as usize];
            if rank.send_done && rank.recv_done {
                done.push(r);
            }
        }
        // The late XOR partner's transfer was waiting for this one.
        if std::mem::take(&mut self.ranks[to as usize].held_send) {
            self.start(to, from)?;
        }
        Ok(())
    }
}

/// Runs the Alltoall. `route(from, to, rail, out)` writes the sending ports of the rail's route
/// from rank `from` to rank `to` into `out` (cleared), or returns false if there is none;
/// `capacity` is each link's bytes per second.
pub fn run(spec: &RankByRank, capacity: &TiSlice<PortId, f64>, route: impl FnMut(u32, u32, usize, &mut Vec<PortId>) -> bool) -> Result<Finished, Unroutable> {
    let n = spec.ranks as usize;
    let rails = spec.rails.max(1);
    let flows = Flows { slots: TiVec::new(), free: Vec::new(), active: Vec::new(), on: vec![Vec::new(); capacity.len()].into() };
    let mut lp = Loop { spec, route, ranks: vec![Rank::default(); n], rails_left: vec![0; n], flows, rate: TiVec::new(), rank_s: vec![0.0; n], serialised: 0 };
    let mut solver = MaxMin::new(capacity.len(), 2 * n * rails);
    // Ranks leave the barrier in time order (ties by rank).
    let mut starts: Vec<(f64, u32)> = (0..spec.ranks).map(|r| (spec.start_s.get(r as usize).copied().unwrap_or(0.0), r)).collect();
    starts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut next_start = 0usize;
    let (mut now, mut solves) = (0.0f64, 0u64);
    let (mut done, mut ending) = (Vec::new(), Vec::new());
    loop {
        while next_start < starts.len() && starts[next_start].0 <= now {
            lp.enter(starts[next_start].1, now)?;
            next_start += 1;
        }
        if lp.flows.active.is_empty() {
            match starts.get(next_start) {
                Some(&(t, _)) => {
                    now = t;
                    continue;
                }
                None => break,
            }
        }
        // Sorted, so the solve and the ties see the flows in one order whatever the history.
        lp.flows.active.sort_unstable();
        solver.solve(&lp.flows, capacity, &lp.flows.active, &mut lp.rate);
        solves += 1;
        let (slots, rate) = (&lp.flows.slots, &lp.rate);
        let dt = lp.flows.active.iter().map(|&f| slots[f].left / rate[f]).fold(f64::INFINITY, f64::min);
        let until = starts.get(next_start).map_or(f64::INFINITY, |s| s.0);
        let step = dt.min(until - now);
        let tie = step * (1.0 + 1e-9);
        ending.clear();
        for &f in &lp.flows.active {
            let slot = &mut lp.flows.slots[f];
            if slot.left / rate[f] <= tie {
                slot.left = 0.0;
                ending.push(f);
            } else {
                slot.left -= rate[f] * step;
            }
        }
        now += step;
        lp.flows.active.retain(|&f| lp.flows.slots[f].left > 0.0);
        done.clear();
        for &f in &ending {
            lp.finish(f, &mut done)?;
        }
        // Ranks through their step start the next, in rank order.
        done.sort_unstable();
        done.dedup();
        for &r in &done {
            lp.enter(r, now)?;
        }
    }
    let last_s = lp.rank_s.iter().copied().fold(0.0, f64::max);
    Ok(Finished { last_s, rank_s: lp.rank_s, solves, serialised: lp.serialised })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rank has its own injection link (port 2r) and its own ejection link (port 2r + 1),
    /// all of capacity 1: a crossbar. `extra` lists (from, to, port) hops added to a route.
    fn crossbar(ranks: u32, extra: &[(u32, u32, u32)], spec: RankByRank, capacity: &[f64]) -> Finished {
        let mut cap: Vec<f64> = vec![1.0; 2 * ranks as usize];
        cap.extend_from_slice(capacity);
        let cap: TiVec<PortId, f64> = cap.into();
        run(&spec, &cap, |from, to, _rail, out| {
            out.push(PortId(2 * from));
            out.extend(extra.iter().filter(|e| e.0 == from && e.1 == to).map(|e| PortId(e.2)));
            out.push(PortId(2 * to + 1));
            true
        })
        .unwrap()
    }

    fn spec(ranks: u32) -> RankByRank {
        RankByRank { ranks, rails: 1, wire_per_rail: 1.0, start_s: Vec::new() }
    }

    #[test]
    fn on_a_crossbar_every_step_takes_one_transfer_time() {
        // Three ranks (shift): two steps, each a permutation of whole links: 1 s each.
        let f = crossbar(3, &[], spec(3), &[]);
        assert_eq!(f.rank_s, vec![2.0, 2.0, 2.0]);
        // Four ranks (XOR): three steps, each partner pair both ways at once.
        let f = crossbar(4, &[], spec(4), &[]);
        assert_eq!(f.rank_s, vec![3.0, 3.0, 3.0, 3.0]);
        assert_eq!(f.serialised, 0);
    }

    #[test]
    fn a_slow_link_holds_back_only_the_ranks_that_wait_on_it() {
        // Three ranks, shift. Step 1: 0→1, 1→2, 2→0; step 2: 0→2, 1→0, 2→1. The transfer 0→1
        // of step 1 crosses a link of capacity 1/4 (port 6): it takes 4 s.
        // Step 1: 1→2 and 2→0 end at 1 s. Rank 2 (sent to 0, got from 1) starts step 2 at 1 s;
        // rank 0 (its send not through) and rank 1 (its receive not through) wait until 4 s.
        // Step 2: 2→1 waits for rank 1 (4 s), 0→2 and 1→0 start at 4 s: all three end at 5 s.
        let f = crossbar(3, &[(0, 1, 6)], spec(3), &[0.25]);
        assert_eq!(f.rank_s, vec![5.0, 5.0, 5.0]);
    }

    #[test]
    fn delays_in_different_steps_overlap_where_lockstep_adds_them() {
        // Seventeen ranks (shift), sixteen steps of 1 s on a crossbar. The step-1 transfer
        // 0 -> 1 and the step-2 transfer 8 -> 10 each cross a link of capacity 1/3: 3 s.
        // Lockstep: 3 + 3 + 14 = 20 s. Rank by rank, 8 -> 10 starts at 1 s, when 8 and 10 are
        // through step 1, and does not wait for 0 -> 1: the two delays of 2 s run at once, and
        // every rank, which by the end depends on both, is 2 s late: 16 + 2 = 18 s.
        let f = crossbar(17, &[(0, 1, 34), (8, 10, 35)], spec(17), &[1.0 / 3.0, 1.0 / 3.0]);
        assert_eq!(f.last_s, 18.0);
        // One of them alone costs the same 2 s.
        let f = crossbar(17, &[(0, 1, 34)], spec(17), &[1.0 / 3.0]);
        assert_eq!(f.last_s, 18.0);
    }

    #[test]
    fn xor_partners_that_leave_the_barrier_apart_send_one_after_the_other() {
        // Two ranks, one XOR step, each transfer 1 s alone. Together: both at once, 1 s.
        let together = crossbar(2, &[], spec(2), &[]);
        assert_eq!(together.last_s, 1.0);
        // Rank 1 leaves the barrier 2 µs late: rank 0's transfer goes first (2 µs..1 s + 2 µs),
        // then rank 1's: both are through at 2 s + 2 µs.
        let late = crossbar(2, &[], RankByRank { start_s: vec![0.0, 2e-6], ..spec(2) }, &[]);
        assert_eq!(late.serialised, 1);
        assert!((late.last_s - (2.0 + 2e-6)).abs() < 1e-12, "{}", late.last_s);
        // Within the request's flight (0.5 µs apart) they still go together.
        let near = crossbar(2, &[], RankByRank { start_s: vec![0.0, 0.5e-6], ..spec(2) }, &[]);
        assert_eq!(near.serialised, 0);
        assert!((near.last_s - (1.0 + 0.5e-6)).abs() < 1e-12, "{}", near.last_s);
    }

    #[test]
    fn a_transfer_split_over_two_rails_is_through_when_both_halves_are() {
        // Rail 1 of 0→1 crosses a link of capacity 1/2: its half (1 byte) takes 2 s.
        let cap: TiVec<PortId, f64> = vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5].into();
        let spec = RankByRank { rails: 2, ..spec(2) };
        let f = run(&spec, &cap, |from, to, rail, out| {
            out.push(PortId(4 * from + rail as u32));
            if (from, rail) == (0, 1) {
                out.push(PortId(8));
            }
            out.push(PortId(4 * to + 2 + rail as u32));
            true
        })
        .unwrap();
        assert_eq!(f.rank_s, vec![2.0, 2.0]);
    }

    #[test]
    fn an_unroutable_transfer_is_an_error_naming_it() {
        let cap: TiVec<PortId, f64> = vec![1.0; 8].into();
        let e = run(&spec(4), &cap, |from, to, _, out| {
            out.push(PortId(2 * from));
            out.push(PortId(2 * to + 1));
            (from, to) != (2, 1)
        });
        assert_eq!(e, Err(Unroutable { from: 2, to: 1, rail: 0 }));
    }
}
