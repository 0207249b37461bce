//! The rank-by-rank Alltoall of [`super::rank_by_rank`] with each transfer at a rate fixed by
//! its own step: the dependencies exactly, the sharing approximately. It is cheap enough for
//! the TSUBAME2.0 sweeps (1300 ranks, 1299 steps), where the fluid event loop re-solves
//! max-min rates about once per transfer (n² solves).
//!
//! A transfer of step k takes the time its flows take in step k's lockstep round
//! ([`super::round_time::RoundLoads::bound`]: its busiest link's share, when every flow of the
//! step crosses the links at once). Its data starts as in the fluid model (both ranks at step k,
//! then the rendezvous's RTS and CTS over its path) and runs for that time whatever else is in
//! flight. So it leaves out that
//! ranks at different steps share links (the flows of steps k and k + 1 together) and that a
//! flow speeds up when its neighbours leave. `tools/alltoall_rank_by_rank.py` measures what this
//! costs against the fluid model; docs/tsubame.md gives the figures.
//!
//! Per step it costs O(ranks), after the round's loads, which the lockstep model computes
//! anyway.
use super::rendezvous::{data_start, one_after_the_other, second_start, Handshake, PathLatency};
use crate::traffic::patterns::alltoall_pairwise_partners;

/// The ranks' progress through the steps.
pub struct StepClock {
    ranks: u32,
    handshake: Handshake,
    /// When each rank reaches the current step.
    entered: Vec<f64>,
    next: Vec<f64>,
    /// XOR transfers run after their partner's.
    pub serialised: u64,
}

impl StepClock {
    /// Ranks that leave the barrier at `start_s` (seconds; empty: all at 0), their transfers
    /// timed through the rendezvous of `handshake` ([`super::rendezvous`]).
    pub fn new(ranks: u32, start_s: &[f64], handshake: Handshake) -> StepClock {
        let entered = (0..ranks as usize).map(|r| start_s.get(r).copied().unwrap_or(0.0)).collect();
        StepClock { ranks, handshake, entered, next: vec![0.0; ranks as usize], serialised: 0 }
    }

    /// Runs step `step`, where the data from rank r takes `took[r]` seconds on a path whose
    /// cables and switches take `way_ns[r]`; afterwards each rank's entry time is the next
    /// step's.
    pub fn step(&mut self, step: u32, took: &[f64], way_ns: &[f64]) {
        let n = self.ranks;
        self.next.iter_mut().for_each(|t| *t = 0.0);
        for r in 0..n {
            let (to, from) = alltoall_pairwise_partners(r, n, step, true);
            let (ri, ti) = (r as usize, to as usize);
            let path = self.handshake.through(way_ns[ri]);
            if to != from {
                let end = data_start(self.entered[ri], self.entered[ti], &path) + took[ri];
                self.through(ri, ti, end, &path);
                continue;
            }
            // One exchange between XOR partners, handled from the one that arrived first (the
            // lower rank on a tie): the other, if it arrived after the first one's RTS, sends
            // second (rendezvous.rs).
            let (early, late) = (self.entered[ri], self.entered[ti]);
            if late < early || (late == early && r > to) {
                continue;
            }
            let back = self.handshake.through(way_ns[ti]);
            let first_end = data_start(early, late, &path) + took[ri];
            let second_end = if one_after_the_other(late - early, &path) {
                self.serialised += 1;
                second_start(first_end, &path, &back) + took[ti]
            } else {
                data_start(late, early, &back) + took[ti]
            };
            self.through(ri, ti, first_end, &path);
            self.through(ti, ri, second_end, &back);
        }
        std::mem::swap(&mut self.entered, &mut self.next);
    }

    /// The data from rank `from` to `to` left at `end` on `path`: each side is through when it
    /// has polled its completion.
    fn through(&mut self, from: usize, to: usize, end: f64, path: &PathLatency) {
        self.next[from] = self.next[from].max(end + path.send_tail_s);
        self.next[to] = self.next[to].max(end + path.recv_tail_s);
    }

    /// When each rank reaches the next step (after `step`; before the first, its start).
    pub fn entered(&self) -> &[f64] {
        &self.entered
    }

    /// When the last rank is through the steps run so far.
    pub fn last(&self) -> f64 {
        self.entered.iter().copied().fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One microsecond for an RTS or a CTS, nothing else.
    fn one_us() -> Handshake {
        Handshake { ctrl_ns: 1000.0, ..Handshake::none() }
    }

    #[test]
    fn equal_steps_add_and_a_slow_transfer_delays_only_its_dependants_in_its_step() {
        // Seventeen ranks (shift), every transfer 1 s but 0 -> 1 at step 1 and 8 -> 10 at
        // step 2 (3 s each): 18 s, as the fluid model gives on a crossbar (rank_by_rank.rs).
        let mut c = StepClock::new(17, &[], Handshake::none());
        for step in 1..17 {
            let mut took = vec![1.0; 17];
            match step {
                1 => took[0] = 3.0,
                2 => took[8] = 3.0,
                _ => {}
            }
            c.step(step, &took, &[0.0; 17]);
        }
        assert_eq!(c.last(), 18.0);
    }

    #[test]
    fn xor_partners_apart_run_one_after_the_other() {
        // Rank 1 comes 2 µs late, after rank 0's RTS (1 µs): 0 -> 1 from 3 µs (rank 1's CTS),
        // 1 -> 0 once that data is out and rank 0's CTS has crossed: 1 s + 4 µs, done at
        // 2 s + 4 µs.
        let mut c = StepClock::new(2, &[0.0, 2e-6], one_us());
        c.step(1, &[1.0, 1.0], &[0.0; 2]);
        assert_eq!(c.serialised, 1);
        assert!((c.last() - (2.0 + 4e-6)).abs() < 1e-12, "{}", c.last());
        // 0.5 µs apart, both RTSs cross: 0 -> 1 from 2 µs, 1 -> 0 from 2.5 µs.
        let mut c = StepClock::new(2, &[0.0, 0.5e-6], one_us());
        c.step(1, &[1.0, 1.0], &[0.0; 2]);
        assert_eq!(c.serialised, 0);
        assert!((c.last() - (1.0 + 2.5e-6)).abs() < 1e-12, "{}", c.last());
    }

    #[test]
    fn a_longer_path_makes_its_ranks_late_for_the_next_step() {
        // Four ranks, XOR; at step 1 the pair (2, 3) crosses 600 ns more of switches and
        // cables each way than (0, 1). On the cx3-fdr profile's terms each rank of (2, 3)
        // reaches step 2 later.
        let (hw, _) = crate::profile::by_name("cx3-fdr").unwrap();
        let hs = Handshake::of(&hw);
        let mut c = StepClock::new(4, &[], hs);
        c.step(1, &[1e-3; 4], &[0.0, 0.0, 600.0, 600.0]);
        let e = c.entered().to_vec();
        assert_eq!(e[0], e[1]);
        assert_eq!(e[2], e[3]);
        // Data starts 2 × 600 ns later (RTS, CTS) and the sender's completion takes 2 × 600 more.
        assert!(((e[2] - e[0]) - 2400e-9).abs() < 1e-15, "{}", e[2] - e[0]);
        // Step 2 pairs 0 with 2 and 1 with 3: 2.4 µs apart is more than an RTS's flight
        // (0.85 µs on one switch), so each pair goes one after the other.
        c.step(2, &[1e-3; 4], &[0.0; 4]);
        assert_eq!(c.serialised, 2);
    }
}
