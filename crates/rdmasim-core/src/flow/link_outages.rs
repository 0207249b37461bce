//! Link events in time at flow level: the retrains and flaps of the packet engine
//! (fabric/link_events.rs, where the assumptions are stated) on the TSUBAME2.0 rounds'
//! erroring links (apps/rounds.rs), so that a trial's slow rounds come from events per unit
//! time, as the seed's bad links had them (seeds/004 §3.2: counters rising at hundreds per
//! second, faults that clear when the link is restarted).
//!
//! Each erroring cable has a Poisson process of outages per trial (its own seeded stream):
//! a retrain of `retrain_s` or a flap of `flap_down_s`, none while it is out. A flow that
//! crosses the cable (its data or its ACKs) while it is out, from `cut` (the outage's start,
//! or the flow's if later) on:
//! - is held (retrain) or has what it sends discarded (flap) until the outage ends, then sends
//!   the rest (a retrain) or goes back to `cut` on the NAK its next packet brings (a flap that
//!   ends before the flow's last packet): it finishes `end − cut` later, as the packet engine
//!   shows (tests/link_flaps.rs: 1009 µs for a 1 ms retrain);
//! - a flap that outlasts the flow's last packet leaves nothing behind to reveal the loss: the
//!   requester resends at each local ACK timeout (`stall_s`, MVAPICH2's 4.29 s) until one
//!   finds the link up, then resends from `cut`.
//!
//! Left out: a retrain that cuts a flow's very last packet (its chance per crossing is the
//! retrain rate × a packet's time, µs: the symbol errors' tail loss, flow/tail_loss.rs, is that
//! mechanism), the re-route a flap triggers in OpenSM, and MVAPICH2's retry limit (7: a
//! path out for more than 8 × 4.29 s errors the QP; flaps are swept below that).
use crate::engine::SimRng;
use serde::{Deserialize, Serialize};

/// The erroring links' events: rates per cable and durations, seconds. Not published for
/// TSUBAME2.0 (docs/sources/issue34.md §9): swept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkEventPlan {
    pub retrains_per_s: f64,
    pub retrain_s: f64,
    pub flaps_per_s: f64,
    pub flap_down_s: f64,
    /// Whether the erroring links' symbol errors still stall tails (flow/tail_loss.rs) under
    /// this plan; false asks what the events alone give.
    pub tail_loss: bool,
}

impl Default for LinkEventPlan {
    fn default() -> LinkEventPlan {
        LinkEventPlan { retrains_per_s: 0.0, retrain_s: 0.0, flaps_per_s: 0.0, flap_down_s: 0.0, tail_loss: true }
    }
}

impl LinkEventPlan {
    pub fn any(&self) -> bool {
        self.retrains_per_s > 0.0 || self.flaps_per_s > 0.0
    }

    /// A problem with the plan, if any: rates >= 0, and a positive finite duration with each.
    pub fn problem(&self) -> Option<String> {
        let kinds = [("retrains_per_s", self.retrains_per_s, "retrain_s", self.retrain_s), ("flaps_per_s", self.flaps_per_s, "flap_down_s", self.flap_down_s)];
        for (rate_key, rate, time_key, time) in kinds {
            if !rate.is_finite() || rate < 0.0 {
                return Some(format!("link_events.{rate_key} = {rate}; expected a finite rate per second >= 0"));
            }
            if rate > 0.0 && !(time.is_finite() && time > 0.0) {
                return Some(format!("link_events.{time_key} = {time}; expected a duration in seconds > 0 with {rate_key} = {rate}"));
            }
        }
        None
    }
}

/// One outage, seconds into the trial.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Outage {
    start: f64,
    end: f64,
    flap: bool,
}

/// A cable's outages in one trial, drawn as the trial's time advances.
#[derive(Clone, Debug)]
pub struct CableClock {
    rng: SimRng,
    next: Outage,
}

impl CableClock {
    /// The clock of cable `cable` in the trial whose draws are `(seed, stream)`. The first
    /// outage may be under way when the trial starts: the process starts a flap's length before.
    pub fn new(plan: &LinkEventPlan, seed: u64, stream: u64, cable: u32) -> CableClock {
        let rng = SimRng::new(seed, stream ^ (u64::from(cable) + 1).wrapping_mul(0xA24B_AED4_963E_E407));
        let mut c = CableClock { rng, next: Outage { start: 0.0, end: 0.0, flap: false } };
        c.next = c.draw_after(plan, -plan.flap_down_s.max(plan.retrain_s));
        c
    }

    fn draw_after(&mut self, plan: &LinkEventPlan, from: f64) -> Outage {
        let total = plan.retrains_per_s + plan.flaps_per_s;
        if total <= 0.0 {
            return Outage { start: f64::INFINITY, end: f64::INFINITY, flap: false };
        }
        let start = from - (1.0 - self.rng.unit()).ln() / total;
        let flap = self.rng.unit() * total < plan.flaps_per_s;
        Outage { start, end: start + if flap { plan.flap_down_s } else { plan.retrain_s }, flap }
    }

    /// The outage under way at `t` or the next: the first not ended by `t`.
    fn current(&mut self, plan: &LinkEventPlan, t: f64) -> Outage {
        while self.next.end <= t {
            self.next = self.draw_after(plan, self.next.end);
        }
        self.next
    }

    /// Moves the clock to `t` (a round's start; never back).
    pub fn advance_to(&mut self, plan: &LinkEventPlan, t: f64) {
        self.current(plan, t);
    }

    /// How much later than `t0 + busy` a flow that starts at `t0` (not before the clock) and
    /// needs `busy` seconds across this cable finishes, given its outages (exactly 0 when none
    /// meets it); `stall_s` is the local ACK timeout. Looks ahead on a copy: flows of the same
    /// round ask from the same start.
    pub fn delay(&self, plan: &LinkEventPlan, t0: f64, busy: f64, stall_s: f64) -> f64 {
        let end = t0 + busy;
        if self.next.start >= end {
            return 0.0;
        }
        self.finish(plan, t0, end, stall_s) - end
    }

    /// When the flow of `delay` that would end at `end` finishes.
    fn finish(&self, plan: &LinkEventPlan, t0: f64, mut end: f64, stall_s: f64) -> f64 {
        let (mut c, mut from) = (self.clone(), t0);
        loop {
            let o = c.current(plan, from);
            if o.start >= end {
                return end;
            }
            let cut = o.start.max(from);
            if !o.flap || o.end <= end {
                // Held, or resent from `cut` on the NAK of the first packet after the flap.
                end += o.end - cut;
                from = o.end;
            } else {
                // Nothing follows the flow's last (discarded) packet: ACK timeouts until the
                // link is back, then go-back-N from `cut`.
                let timeouts = ((o.end - end) / stall_s).ceil().max(1.0);
                let resend = end - cut;
                from = end + timeouts * stall_s;
                end = from + resend;
            }
        }
    }
}

/// Moves the distinct values of a sorted slice to its front; returns how many there are.
pub fn dedup_sorted(v: &mut [u32]) -> usize {
    let mut n = 0;
    for i in 0..v.len() {
        if n == 0 || v[i] != v[n - 1] {
            v[n] = v[i];
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock with one outage at [start, end) and none after.
    fn one_outage(start: f64, end: f64, flap: bool) -> (LinkEventPlan, CableClock) {
        let plan = LinkEventPlan::default();
        let c = CableClock { rng: SimRng::new(0, 0), next: Outage { start, end, flap } };
        (plan, c)
    }

    #[test]
    fn a_retrain_holds_a_flow_for_the_part_of_it_the_flow_overlaps() {
        let (p, c) = one_outage(0.05, 0.051, false);
        assert!((c.delay(&p, 0.0, 0.1, 4.29) - 0.001).abs() < 1e-12);
        // Under way when the flow starts: only the rest of it.
        assert!((c.delay(&p, 0.0505, 0.1, 4.29) - 0.0005).abs() < 1e-12);
        // After the flow: nothing.
        assert_eq!(c.delay(&p, 0.0, 0.04, 4.29), 0.0);
    }

    #[test]
    fn a_flap_outlasting_the_flow_costs_whole_ack_timeouts_then_the_resend() {
        // Down from 0.05 s for 5 s; the flow would end at 0.1 s: its retries at 4.39 s (link
        // still down) and 8.68 s (up), then 0.05 s of resend.
        let (p, c) = one_outage(0.05, 5.05, true);
        assert!((c.delay(&p, 0.0, 0.1, 4.29) - (2.0 * 4.29 + 0.05)).abs() < 1e-9);
        // A flap that ends before the flow's last packet: resent on the NAK, like a retrain.
        let (p, c) = one_outage(0.05, 0.06, true);
        assert!((c.delay(&p, 0.0, 0.1, 4.29) - 0.01).abs() < 1e-12);
    }

    #[test]
    fn outages_per_trial_follow_the_rate() {
        let plan = LinkEventPlan { flaps_per_s: 2.0, flap_down_s: 0.01, ..LinkEventPlan::default() };
        let (mut hit, trials) = (0u32, 2000u32);
        for t in 0..trials {
            let c = CableClock::new(&plan, 1, u64::from(t), 0);
            hit += u32::from(c.delay(&plan, 0.0, 0.1, 4.29) > 0.0);
        }
        // P(an outage overlaps a 0.1 s flow) = 1 − exp(−2 × (0.1 + 0.01)) = 0.197.
        let p = f64::from(hit) / f64::from(trials);
        assert!((p - 0.197).abs() < 4.0 * (0.197f64 * 0.803 / 2000.0).sqrt(), "{p}");
    }
}
