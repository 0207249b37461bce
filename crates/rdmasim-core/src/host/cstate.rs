//! CPU idle states (C-states) of the core a sleeping thread runs on. A thread that waits for a
//! completion event blocks; the kernel's idle governor puts its core into the deepest idle
//! state whose target residency fits the idle time it predicts, and the wake-up after the
//! interrupt pays that state's exit latency. This is a host-side cause of unfairness between
//! event-driven flows: a flow with short messages sleeps and wakes once per message, each time
//! leaving the link to the other flow for the exit latency.
//!
//! Tables are the kernel's `drivers/idle/intel_idle.c` (exit_latency, target_residency in µs).
//! Those exit latencies are the worst cases the kernel plans with; measured exits are often
//! shorter, so a table is an upper bound of this mechanism (see docs/isolation.md).
use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// Which idle states the host's cores have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CpuIdle {
    /// No idle states (idle=poll, or C-states disabled in the BIOS): a wake-up costs nothing extra.
    None,
    /// Intel Haswell / Haswell-EP (`hsw_cstates` in intel_idle.c): C1, C1E, C3, C6 (server
    /// parts stop at C6).
    Haswell,
}

/// (exit latency µs, target residency µs), shallowest first.
const HASWELL: &[(f64, f64)] = &[(2.0, 2.0), (10.0, 20.0), (33.0, 100.0), (133.0, 400.0)];

impl CpuIdle {
    pub fn states(self) -> &'static [(f64, f64)] {
        match self {
            CpuIdle::None => &[],
            CpuIdle::Haswell => HASWELL,
        }
    }
}

/// Exit latency of the deepest state whose target residency is at most the predicted idle
/// time (what the menu governor does when recent idle periods are regular); zero if none fits.
pub fn exit_latency(states: &[(f64, f64)], predicted_idle: Time) -> Time {
    let predicted_us = predicted_idle.as_us_f64();
    states.iter().rev().find(|(_, residency)| *residency <= predicted_us).map(|(exit, _)| Time::from_ns_f64(exit * 1e3)).unwrap_or(Time::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn governor_picks_the_deepest_state_that_fits() {
        let s = CpuIdle::Haswell.states();
        assert_eq!(exit_latency(s, Time::us(1)), Time::ZERO);
        assert_eq!(exit_latency(s, Time::us(50)), Time::us(10));
        assert_eq!(exit_latency(s, Time::us(300)), Time::us(33));
        assert_eq!(exit_latency(s, Time::ms(10)), Time::us(133));
        assert_eq!(exit_latency(CpuIdle::None.states(), Time::ms(10)), Time::ZERO);
    }
}
