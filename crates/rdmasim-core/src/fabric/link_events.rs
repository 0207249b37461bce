//! Link events in time: a cable that now and then retrains (link error recovery) or flaps (goes
//! down and comes back), at rates per second (`[[faults]] retrains_per_s`, `flaps_per_s`).
//!
//! IBTA Vol. 1 ch. 5 (Shanley, *InfiniBand Network Architecture* ch. 26): "Major errors result
//! in the Physical Layer automatically transitioning to the Recovery state to attempt link
//! retraining"; a port counts each recovery that succeeds (LinkErrorRecoveryCounter) and each
//! that fails and downs the link (LinkDownedCounter). How long either takes is not published
//! for TSUBAME2.0's QDR HCAs and Voltaire Grid Director 4700 switches (docs/sources/issue34.md
//! §9), so both durations are inputs
//! (`retrain_us`, `flap_down_ms`) to be swept. What the model assumes of each (ASSUMPTIONS,
//! from the spec's states, not measured):
//! - A retrain stops the physical layer only: the link stays up, the ports keep what is queued
//!   for it and send it when the retrain ends; a packet on the wire when it starts is lost.
//! - A flap takes the link down until it is ACTIVE again (training, then the subnet manager's
//!   sweep that arms it: OpenSM sweeps on the trap 128 the flap raises): a packet on the wire
//!   when it starts is lost, and everything sent on it while it is down is discarded at the
//!   sending port (PortXmitDiscards), as a switch discards packets for a port that is not
//!   ACTIVE. Routes do not change (a re-route around the link is not modelled).
//!
//! Events are a Poisson process in time per cable, none while the link is already out: after
//! each outage the next starts an exponential gap later, a flap with probability
//! flaps / (retrains + flaps). Both directions of a cable draw from the same stream (seeded by
//! the scenario seed and the cable's ports), so both stop together without sharing state. The
//! schedule is drawn lazily as the channel's departures advance; it allocates nothing.
use crate::engine::{SimRng, Time};

/// Stream ids of link-event schedules start here (channel streams are `CHANNEL_STREAM + id`).
const LINK_EVENT_STREAM: u64 = 0x4C49_4E4B_0000_0000;

/// What an outage is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutageKind {
    /// Link error recovery: the link pauses and resumes (LinkErrorRecoveryCounter).
    Retrain,
    /// The link goes down and comes back (LinkDownedCounter).
    Flap,
}

/// One outage of a link: it carries nothing in [start, end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outage {
    pub start: Time,
    pub end: Time,
    pub kind: OutageKind,
}

/// How often a cable retrains and flaps, and how long each lasts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkEventRates {
    pub retrains_per_s: f64,
    pub retrain: Time,
    pub flaps_per_s: f64,
    pub flap_down: Time,
}

impl LinkEventRates {
    pub fn any(&self) -> bool {
        self.retrains_per_s > 0.0 || self.flaps_per_s > 0.0
    }
}

/// A cable direction's outages, drawn as time advances.
#[derive(Clone, Debug)]
pub struct LinkEvents {
    rates: LinkEventRates,
    rng: SimRng,
    /// The first outage that had not ended at the latest time asked (`current`).
    next: Outage,
    /// Outages before `next`, by kind.
    retrains_before: u64,
    flaps_before: u64,
}

impl LinkEvents {
    /// The schedule of the cable whose ports are `a` and `b` (either order), under `seed`.
    pub fn new(rates: LinkEventRates, seed: u64, a: u32, b: u32) -> LinkEvents {
        let (lo, hi) = (a.min(b), a.max(b));
        let rng = SimRng::new(
            seed,
            LINK_EVENT_STREAM ^ (u64::from(lo) << 20 | u64::from(hi)),
        );
        let placeholder = Outage {
            start: Time::ZERO,
            end: Time::ZERO,
            kind: OutageKind::Retrain,
        };
        let mut e = LinkEvents {
            rates,
            rng,
            next: placeholder,
            retrains_before: 0,
            flaps_before: 0,
        };
        e.next = e.draw_after(Time::ZERO);
        e
    }

    /// The next outage after the link came back at `from`.
    fn draw_after(&mut self, from: Time) -> Outage {
        let r = &self.rates;
        let total = r.retrains_per_s + r.flaps_per_s;
        if total <= 0.0 {
            return Outage {
                start: Time::END,
                end: Time::END,
                kind: OutageKind::Retrain,
            };
        }
        // 1 - unit() lies in (0, 1]: the gap is finite.
        let gap_s = -(1.0 - self.rng.unit()).ln() / total;
        let flap = self.rng.unit() * total < r.flaps_per_s;
        let (kind, len) = if flap {
            (OutageKind::Flap, r.flap_down)
        } else {
            (OutageKind::Retrain, r.retrain)
        };
        let start = from + Time((gap_s * 1e12).min(Time::END.0 as f64) as u64);
        Outage {
            start,
            end: start + len,
            kind,
        }
    }

    /// The outage under way at `t` or the next to come: the first that has not ended by `t`.
    /// `t` must not go back in time between calls (a channel's departures do not).
    #[inline]
    pub fn current(&mut self, t: Time) -> Outage {
        while self.next.end <= t && self.next.start < Time::END {
            match self.next.kind {
                OutageKind::Retrain => self.retrains_before += 1,
                OutageKind::Flap => self.flaps_before += 1,
            }
            self.next = self.draw_after(self.next.end);
        }
        self.next
    }

    /// Retrains and flaps begun by `t` (for the port counters at a report: drawn on a copy, so
    /// the run's own schedule is not moved).
    pub fn begun_by(&self, t: Time) -> (u64, u64) {
        let mut e = self.clone();
        let n = e.current(t);
        let started = u64::from(n.start <= t && n.start < Time::END);
        match n.kind {
            OutageKind::Retrain => (e.retrains_before + started, e.flaps_before),
            OutageKind::Flap => (e.retrains_before, e.flaps_before + started),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(retrains: f64, flaps: f64) -> LinkEventRates {
        LinkEventRates {
            retrains_per_s: retrains,
            retrain: Time::us(100),
            flaps_per_s: flaps,
            flap_down: Time::ms(200),
        }
    }

    #[test]
    fn both_directions_of_a_cable_draw_the_same_outages_and_other_cables_others() {
        let (mut ab, mut ba, mut other) = (
            LinkEvents::new(rates(50.0, 5.0), 7, 3, 9),
            LinkEvents::new(rates(50.0, 5.0), 7, 9, 3),
            LinkEvents::new(rates(50.0, 5.0), 7, 3, 10),
        );
        let (mut t, mut same_as_other) = (Time::ZERO, 0);
        for _ in 0..100 {
            let o = ab.current(t);
            assert_eq!(o, ba.current(t));
            same_as_other += usize::from(o == other.current(t));
            t = o.end;
        }
        assert_eq!(same_as_other, 0);
    }

    #[test]
    fn counts_over_ten_simulated_seconds_match_the_rates() {
        let r = LinkEventRates {
            retrains_per_s: 200.0,
            retrain: Time::us(100),
            flaps_per_s: 20.0,
            flap_down: Time::ms(1),
        };
        let e = LinkEvents::new(r, 1, 0, 1);
        let (retrains, flaps) = e.begun_by(Time::ms(10_000));
        // No event starts while the link is out: it is up 1 / (1 + 200 × 1e-4 + 20 × 1e-3)
        // of the time, which thins both counts alike.
        let up = 1.0 / (1.0 + 200.0 * 1e-4 + 20.0 * 1e-3);
        let (er, ef) = (200.0 * 10.0 * up, 20.0 * 10.0 * up);
        assert!(
            (retrains as f64 - er).abs() < 4.0 * er.sqrt(),
            "{retrains} retrains, expected {er:.0}"
        );
        assert!(
            (flaps as f64 - ef).abs() < 4.0 * ef.sqrt(),
            "{flaps} flaps, expected {ef:.0}"
        );
        // Counting on a copy leaves the schedule where it was.
        assert_eq!(e.begun_by(Time::ZERO), (0, 0));
    }

    #[test]
    fn no_rate_no_outage() {
        let mut e = LinkEvents::new(LinkEventRates::default(), 1, 0, 1);
        assert_eq!(e.current(Time::ms(1_000_000)).start, Time::END);
        assert_eq!(e.begun_by(Time::END), (0, 0));
    }
}
