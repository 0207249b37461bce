//! The rank-by-rank Alltoall of [`super::rank_by_rank`] with each transfer at a rate fixed by
//! its own step: the dependencies exactly, the sharing approximately. It is cheap enough for
//! the TSUBAME2.0 sweeps (1300 ranks, 1299 steps), where the fluid event loop re-solves
//! max-min rates about once per transfer (n² solves).
//!
//! A transfer of step k takes the time its flows take in step k's lockstep round
//! ([`super::round_time::RoundLoads::bound`]: its busiest link's share, when every flow of the
//! step crosses the links at once). It starts when both of its ranks have reached step k, as in
//! the fluid model, and runs for that time whatever else is in flight. So it leaves out that
//! ranks at different steps share links (the flows of steps k and k + 1 together) and that a
//! flow speeds up when its neighbours leave. `tools/alltoall_rank_by_rank.py` measures what this
//! costs against the fluid model; docs/tsubame.md gives the figures.
//!
//! Per step it costs O(ranks), after the round's loads, which the lockstep model computes
//! anyway.
use super::rank_by_rank::one_after_the_other;
use crate::traffic::patterns::alltoall_pairwise_partners;

/// The ranks' progress through the steps.
pub struct StepClock {
    ranks: u32,
    /// When each rank reaches the current step.
    entered: Vec<f64>,
    next: Vec<f64>,
    /// XOR transfers run after their partner's.
    pub serialised: u64,
}

impl StepClock {
    /// Ranks that leave the barrier at `start_s` (seconds; empty: all at 0).
    pub fn new(ranks: u32, start_s: &[f64]) -> StepClock {
        let entered = (0..ranks as usize).map(|r| start_s.get(r).copied().unwrap_or(0.0)).collect();
        StepClock { ranks, entered, next: vec![0.0; ranks as usize], serialised: 0 }
    }

    /// Runs step `step`, where the transfer from rank r takes `took[r]` seconds; afterwards each
    /// rank's entry time is the next step's.
    pub fn step(&mut self, step: u32, took: &[f64]) {
        let n = self.ranks;
        self.next.iter_mut().for_each(|t| *t = 0.0);
        for r in 0..n {
            let (to, from) = alltoall_pairwise_partners(r, n, step, true);
            let (ri, ti) = (r as usize, to as usize);
            let start = self.entered[ri].max(self.entered[ti]);
            if to == from {
                // One exchange between XOR partners: the one that arrived later than the
                // request's flight after the other sends second (rank_by_rank.rs).
                if r > to {
                    continue;
                }
                let end = if one_after_the_other((self.entered[ri] - self.entered[ti]).abs()) {
                    self.serialised += 1;
                    start + took[ri] + took[ti]
                } else {
                    start + took[ri].max(took[ti])
                };
                self.next[ri] = end;
                self.next[ti] = end;
                continue;
            }
            let end = start + took[ri];
            self.next[ri] = self.next[ri].max(end);
            self.next[ti] = self.next[ti].max(end);
        }
        std::mem::swap(&mut self.entered, &mut self.next);
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

    #[test]
    fn equal_steps_add_and_a_slow_transfer_delays_only_its_dependants_in_its_step() {
        // Seventeen ranks (shift), every transfer 1 s but 0 -> 1 at step 1 and 8 -> 10 at
        // step 2 (3 s each): 18 s, as the fluid model gives on a crossbar (rank_by_rank.rs).
        let mut c = StepClock::new(17, &[]);
        for step in 1..17 {
            let mut took = vec![1.0; 17];
            match step {
                1 => took[0] = 3.0,
                2 => took[8] = 3.0,
                _ => {}
            }
            c.step(step, &took);
        }
        assert_eq!(c.last(), 18.0);
    }

    #[test]
    fn xor_partners_apart_run_one_after_the_other() {
        let mut c = StepClock::new(2, &[0.0, 2e-6]);
        c.step(1, &[1.0, 1.0]);
        assert_eq!(c.serialised, 1);
        assert!((c.last() - (2.0 + 2e-6)).abs() < 1e-12);
        let mut c = StepClock::new(2, &[0.0, 0.5e-6]);
        c.step(1, &[1.0, 1.0]);
        assert_eq!((c.serialised, c.last()), (0, 1.0 + 0.5e-6));
    }
}
