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
//! - Each transfer is a rendezvous ([`super::rendezvous`]): the sender's RTS, the receiver's
//!   CTS once it has reached the step, then the data, each over the path's latency (its rail-0
//!   route's switches and cables and the profile's NIC and host terms). A rank is through its
//!   step when it has polled its data's arrival and its own WRITE's completion.
//! - The payload is split evenly over the rails, one flow per rail. The data is through when
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
//! - Two XOR partners share one RC connection, and `MPIC_Sendrecv` posts its receive before its
//!   send. If one of them reaches the step after the other's RTS has arrived
//!   ([`one_after_the_other`]), it answers that RTS first, and the partner's data then goes
//!   ahead of the partner's own CTS on their one queue pair. So the early rank's transfer runs
//!   first and the late rank's follows it ([`second_start`]). The packet engine shows this on
//!   its event log (docs/tsubame.md). The paths' different latencies are what put partners
//!   apart.
//! - Left out: the MPI library's own software time per step, and the latency of the data's
//!   first byte through the fabric (a flow is on every link of its route at once).
use super::hol::{HolModel, Rates};
use super::maxmin::FlowSet;
use super::barrier::slowest_since_start;
use super::rendezvous::{data_start, one_after_the_other, second_start, Handshake, PathLatency};
use crate::ids::{FlowId, PortId, TiSlice, TiVec};
use crate::traffic::patterns::alltoall_pairwise_partners;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What to run: ranks, rails, bytes, latencies, and when each rank leaves the barrier.
#[derive(Clone, Debug)]
pub struct RankByRank {
    pub ranks: u32,
    pub rails: usize,
    /// Wire bytes of one rail's share of one transfer.
    pub wire_per_rail: f64,
    /// The NICs' and hosts' part of the rendezvous latencies.
    pub handshake: Handshake,
    /// Head-of-line blocking in the rates ([`super::hol`]; `None`: max-min alone).
    pub hol: HolModel,
    /// When each rank starts step 1, seconds (empty: all at 0).
    pub start_s: Vec<f64>,
}

/// What a run gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    /// When the last rank is through its last step, seconds.
    pub last_s: f64,
    /// The slowest rank's time from its own start ([`slowest_since_start`]), seconds.
    pub slowest_s: f64,
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

/// The route of rank `from`'s rail `rail` to rank `to`: writes its sending ports into `out`
/// (cleared) and its hops' cable lengths into `lengths_m` (cleared); false if it has none.
pub trait RouteOf: FnMut(u32, u32, usize, &mut Vec<PortId>, &mut Vec<f64>) -> bool {}
impl<F: FnMut(u32, u32, usize, &mut Vec<PortId>, &mut Vec<f64>) -> bool> RouteOf for F {}

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

/// A rank's send of its current step.
#[derive(Clone, Copy, Default)]
struct Send {
    to: u32,
    path: PathLatency,
    /// Rails still in flight.
    rails_left: usize,
}

/// One flow in flight: a rail's share of the transfer from rank `from`.
#[derive(Default)]
struct Slot {
    route: Vec<PortId>,
    left: f64,
    from: u32,
}

struct Flows {
    hol: HolModel,
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
    fn full_fifos(&self, f: FlowId, at: PortId) -> &[PortId] {
        super::hol::full_fifos(self.hol, &self.slots[f].route, &at)
    }
}

/// What happens at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    /// The rank leaves the barrier.
    Start(u32),
    /// The rank's data WRITE goes on the wire.
    Data(u32),
    /// The rank has polled its own WRITE's completion.
    SendDone(u32),
    /// The rank has polled the arrival of the data it receives.
    RecvDone(u32),
}

/// A timed event; the heap pops the earliest, ties in the order they were scheduled.
struct Timer {
    at: f64,
    seq: u64,
    ev: Ev,
}

impl PartialEq for Timer {
    fn eq(&self, o: &Timer) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Timer {}
impl PartialOrd for Timer {
    fn partial_cmp(&self, o: &Timer) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Timer {
    fn cmp(&self, o: &Timer) -> Ordering {
        o.at.total_cmp(&self.at).then(o.seq.cmp(&self.seq))
    }
}

struct Loop<'a, R> {
    spec: &'a RankByRank,

    route: R,
    ranks: Vec<Rank>,
    sends: Vec<Send>,
    flows: Flows,
    rate: TiVec<FlowId, f64>,
    timers: BinaryHeap<Timer>,
    seq: u64,
    /// A route traced for its latency alone, and its hops' cable lengths.
    scratch: Vec<PortId>,
    lengths: Vec<f64>,
    rank_s: Vec<f64>,
    serialised: u64,
}

impl<R: RouteOf> Loop<'_, R> {
    fn at(&mut self, at: f64, ev: Ev) {
        self.seq += 1;
        self.timers.push(Timer { at, seq: self.seq, ev });
    }

    /// The latencies of the transfer `from → to` (its rail-0 route).
    fn path(&mut self, from: u32, to: u32) -> Result<PathLatency, Unroutable> {
        if !(self.route)(from, to, 0, &mut self.scratch, &mut self.lengths) {
            return Err(Unroutable { from, to, rail: 0 });
        }
        Ok(self.spec.handshake.route(self.lengths.iter().copied()))
    }

    /// Schedules the data of `from → to`, which starts at `at`.
    fn send(&mut self, from: u32, to: u32, path: PathLatency, at: f64) {
        self.sends[from as usize] = Send { to, path, rails_left: 0 };
        self.at(at, Ev::Data(from));
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
        let (to, from) = alltoall_pairwise_partners(r, self.spec.ranks, step, true);
        if to == from {
            // XOR partners: one exchange, maybe one transfer after the other.
            let p = self.ranks[to as usize];
            if p.step != step {
                return Ok(());
            }
            let (early, late) = (self.path(to, r)?, self.path(r, to)?);
            self.send(to, r, early, data_start(p.entered_s, now, &early));
            if one_after_the_other(now - p.entered_s, &early) {
                self.ranks[r as usize].held_send = true;
                self.sends[r as usize] = Send { to, path: late, rails_left: 0 };
                self.serialised += 1;
            } else {
                self.send(r, to, late, data_start(now, p.entered_s, &late));
            }
            return Ok(());
        }
        let (t, f) = (self.ranks[to as usize], self.ranks[from as usize]);
        if t.step == step {
            let path = self.path(r, to)?;
            self.send(r, to, path, data_start(now, t.entered_s, &path));
        }
        if f.step == step {
            let path = self.path(from, r)?;
            self.send(from, r, path, data_start(f.entered_s, now, &path));
        }
        Ok(())
    }

    /// Starts the data of rank `from`'s send: one flow per rail.
    fn start(&mut self, from: u32) -> Result<(), Unroutable> {
        let (rails, to) = (self.spec.rails, self.sends[from as usize].to);
        self.sends[from as usize].rails_left = rails;
        for rail in 0..rails {
            let f = match self.flows.free.pop() {
                Some(f) => f,
                None => self.flows.slots.push_and_get_key(Slot::default()),
            };
            let slot = &mut self.flows.slots[f];
            if !(self.route)(from, to, rail, &mut slot.route, &mut self.lengths) {
                return Err(Unroutable { from, to, rail });
            }
            slot.left = self.spec.wire_per_rail;
            slot.from = from;
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

    /// Flow `f` is through at `now`.
    fn finish(&mut self, f: FlowId, now: f64) {
        let from = self.flows.slots[f].from;
        for &p in &self.flows.slots[f].route {
            let on = &mut self.flows.on[p];
            if let Some(i) = on.iter().position(|&g| g == f) {
                on.swap_remove(i);
            }
        }
        self.flows.free.push(f);
        let send = &mut self.sends[from as usize];
        send.rails_left -= 1;
        if send.rails_left > 0 {
            return;
        }
        let Send { to, path, .. } = *send;
        self.at(now + path.recv_tail_s, Ev::RecvDone(to));
        self.at(now + path.send_tail_s, Ev::SendDone(from));
        // The late XOR partner's data was waiting for this one.
        if std::mem::take(&mut self.ranks[to as usize].held_send) {
            let second = self.sends[to as usize].path;
            self.at(second_start(now, &path, &second), Ev::Data(to));
        }
    }

    fn fire(&mut self, ev: Ev, now: f64) -> Result<(), Unroutable> {
        let r = match ev {
            Ev::Start(r) => return self.enter(r, now),
            Ev::Data(r) => return self.start(r),
            Ev::SendDone(r) => {
                self.ranks[r as usize].send_done = true;
                r
            }
            Ev::RecvDone(r) => {
                self.ranks[r as usize].recv_done = true;
                r
            }
        };
        let rank = self.ranks[r as usize];
        if rank.send_done && rank.recv_done {
            self.enter(r, now)?;
        }
        Ok(())
    }
}

/// Runs the Alltoall. `route` gives each rail's route between two ranks ([`RouteOf`]);
/// `capacity` is each link's bytes per second.
pub fn run(spec: &RankByRank, capacity: &TiSlice<PortId, f64>, route: impl RouteOf) -> Result<Finished, Unroutable> {
    let n = spec.ranks as usize;
    let rails = spec.rails.max(1);
    let flows = Flows { hol: spec.hol, slots: TiVec::new(), free: Vec::new(), active: Vec::new(), on: vec![Vec::new(); capacity.len()].into() };
    let mut lp = Loop {
        spec,
        route,
        ranks: vec![Rank::default(); n],
        sends: vec![Send::default(); n],
        flows,
        rate: TiVec::new(),
        timers: BinaryHeap::new(),
        seq: 0,
        scratch: Vec::new(),
        lengths: Vec::new(),
        rank_s: vec![0.0; n],
        serialised: 0,
    };
    let mut solver = Rates::new(spec.hol, capacity.len(), 2 * n * rails);
    // Ranks leave the barrier in time order (ties by rank).
    for r in 0..spec.ranks {
        lp.at(spec.start_s.get(r as usize).copied().unwrap_or(0.0), Ev::Start(r));
    }
    let (mut now, mut solves) = (0.0f64, 0u64);
    let mut ending = Vec::new();
    loop {
        while lp.timers.peek().is_some_and(|t| t.at <= now) {
            let t = lp.timers.pop().unwrap();
            lp.fire(t.ev, now)?;
        }
        let next_timer = lp.timers.peek().map_or(f64::INFINITY, |t| t.at);
        if lp.flows.active.is_empty() {
            if next_timer.is_infinite() {
                break;
            }
            now = next_timer;
            continue;
        }
        // Sorted, so the solve and the ties see the flows in one order whatever the history.
        lp.flows.active.sort_unstable();
        solver.solve(&lp.flows, capacity, &lp.flows.active, &mut lp.rate);
        solves += 1;
        let (slots, rate) = (&lp.flows.slots, &lp.rate);
        let dt = lp.flows.active.iter().map(|&f| slots[f].left / rate[f]).fold(f64::INFINITY, f64::min);
        let step = dt.min(next_timer - now);
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
        for &f in &ending {
            lp.finish(f, now);
        }
    }
    let last_s = lp.rank_s.iter().copied().fold(0.0, f64::max);
    let slowest_s = slowest_since_start(&lp.rank_s, &spec.start_s);
    Ok(Finished { last_s, slowest_s, rank_s: lp.rank_s, solves, serialised: lp.serialised })
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
        run(&spec, &cap, |from, to, _rail, out, lengths| {
            out.clear();
            lengths.clear();
            out.push(PortId(2 * from));
            out.extend(extra.iter().filter(|e| e.0 == from && e.1 == to).map(|e| PortId(e.2)));
            out.push(PortId(2 * to + 1));
            lengths.resize(out.len(), 0.0);
            true
        })
        .unwrap()
    }

    fn spec(ranks: u32) -> RankByRank {
        RankByRank { ranks, rails: 1, wire_per_rail: 1.0, handshake: Handshake::none(), hol: HolModel::None, start_s: Vec::new() }
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
        // An RTS or a CTS takes 1 µs. Rank 1 leaves the barrier 2 µs late, after rank 0's
        // RTS: its CTS goes first, rank 0's data runs from 3 µs to 1 s + 3 µs, then rank 0's
        // CTS crosses and rank 1's data runs: both are through at 2 s + 4 µs.
        let hs = Handshake { ctrl_ns: 1000.0, ..Handshake::none() };
        let late = crossbar(2, &[], RankByRank { start_s: vec![0.0, 2e-6], handshake: hs, ..spec(2) }, &[]);
        assert_eq!(late.serialised, 1);
        assert!((late.last_s - (2.0 + 4e-6)).abs() < 1e-12, "{}", late.last_s);
        // 0.5 µs apart, within the RTS's flight, both RTSs cross and both go at once: rank 0's
        // data from 2 µs, rank 1's from 2.5 µs.
        let near = crossbar(2, &[], RankByRank { start_s: vec![0.0, 0.5e-6], handshake: hs, ..spec(2) }, &[]);
        assert_eq!(near.serialised, 0);
        assert!((near.last_s - (1.0 + 2.5e-6)).abs() < 1e-12, "{}", near.last_s);
    }

    #[test]
    fn the_handshake_and_the_completions_add_to_every_step() {
        // Three ranks (shift), two steps of 1 s on a crossbar, each transfer's RTS and CTS
        // 1 µs, the WRITE's post 0.5 µs, the receiver's poll 0.25 µs after the data, the
        // sender's 2 µs: a step is 1 s + 2.5 µs of data start and 2 µs of the sender's tail.
        let hs = Handshake { ctrl_ns: 1000.0, head_ns: 500.0, recv_tail_ns: 250.0, send_tail_ns: 2000.0, ..Handshake::none() };
        let f = crossbar(3, &[], RankByRank { handshake: hs, ..spec(3) }, &[]);
        assert!((f.last_s - 2.0 * (1.0 + 4.5e-6)).abs() < 1e-12, "{}", f.last_s);
    }

    #[test]
    fn a_transfer_split_over_two_rails_is_through_when_both_halves_are() {
        // Rail 1 of 0→1 crosses a link of capacity 1/2: its half (1 byte) takes 2 s.
        let cap: TiVec<PortId, f64> = vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5].into();
        let spec = RankByRank { rails: 2, ..spec(2) };
        let f = run(&spec, &cap, |from, to, rail, out, lengths| {
            out.clear();
            lengths.clear();
            out.push(PortId(4 * from + rail as u32));
            if (from, rail) == (0, 1) {
                out.push(PortId(8));
            }
            out.push(PortId(4 * to + 2 + rail as u32));
            lengths.resize(out.len(), 0.0);
            true
        })
        .unwrap();
        assert_eq!(f.rank_s, vec![2.0, 2.0]);
    }

    #[test]
    fn a_flow_held_in_a_full_fifo_keeps_its_ranks_in_step_with_the_congested_ones() {
        // Four ranks (XOR), two rails, 1 byte per rail, every link of capacity 1. Step 1: the
        // rail-0 flow of 0 -> 1 enters output O by link X, beside both rails of 1 -> 0 (by Y
        // and Y2): a third each, 3 s. The rail-0 flow of 2 -> 3 leaves by X too, to an output
        // of its own. Everything else has links of its own.
        let (x, o, y, y2, v) = (0u32, 1, 2, 3, 4);
        let route = |from: u32, to: u32, rail: usize, out: &mut Vec<PortId>, lengths: &mut Vec<f64>| {
            out.clear();
            match (from, to, rail) {
                (0, 1, 0) => out.extend([PortId(x), PortId(o)]),
                (1, 0, 0) => out.extend([PortId(y), PortId(o)]),
                (1, 0, 1) => out.extend([PortId(y2), PortId(o)]),
                (2, 3, 0) => out.extend([PortId(x), PortId(v)]),
                _ => out.push(PortId(10 + from * 8 + to * 2 + rail as u32)),
            }
            lengths.clear();
            lengths.resize(out.len(), 0.0);
            true
        };
        let cap: TiVec<PortId, f64> = vec![1.0; 48].into();
        let spec = |hol| RankByRank { rails: 2, hol, ..spec(4) };
        // Max-min: 2 -> 3's rail 0 takes X's other two thirds (1.5 s), so ranks 2 and 3 reach
        // step 2 at 1.5 s and 0 and 1 at 3 s: each step-2 pair goes one after the other
        // (3..4 s, then 4..5 s), step 3 from 5 s: 6 s.
        let maxmin = run(&spec(HolModel::None), &cap, route).unwrap();
        assert_eq!((maxmin.last_s, maxmin.serialised), (6.0, 2));
        // Credit: 0 -> 1 held at O fills X's buffer, and 2 -> 3 behind it advances at its third
        // too: every rank reaches step 2 at 3 s, and steps 2 and 3 take 1 s each: 5 s.
        let credit = run(&spec(HolModel::Credit), &cap, route).unwrap();
        assert_eq!((credit.last_s, credit.serialised), (5.0, 0));
    }

    #[test]
    fn an_unroutable_transfer_is_an_error_naming_it() {
        let cap: TiVec<PortId, f64> = vec![1.0; 8].into();
        let e = run(&spec(4), &cap, |from, to, _, out, _| {
            out.clear();
            out.push(PortId(2 * from));
            out.push(PortId(2 * to + 1));
            (from, to) != (2, 1)
        });
        assert_eq!(e, Err(Unroutable { from: 2, to: 1, rail: 0 }));
    }
}
