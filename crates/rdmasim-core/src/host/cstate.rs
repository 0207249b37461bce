//! CPU idle states (C-states) of the core a sleeping thread runs on. A thread that waits for a
//! completion event blocks; the kernel's idle governor puts its core into the deepest idle
//! state whose target residency fits the idle time it predicts, and the wake-up after the
//! interrupt pays that state's exit latency. This is a host-side cause of unfairness between
//! event-driven flows: a flow with short messages sleeps and wakes once per message, each time
//! leaving the link to the other flow for the exit latency.
//!
//! Core and package. A core's idle state is its own; the package (on Intel Xeons the whole
//! system: "PC6 ... is entered only when all CPUs across all sockets have transitioned to CC6",
//! intel/pepc docs/misc-c6p-c6sp.md) enters a package C-state only when every core is at least
//! that deep, so the package state is the shallowest core state of the host. A core woken while
//! another core runs (a busy-polling thread) pays its core exit only; with the package asleep
//! it also pays the package's exit ("Additional core-exit latency may be applicable depending
//! on the actual C-state the core is in", Intel SDM vol. 3C, MSR_PKGC6_IRTL).
//!
//! The kernel's `drivers/idle/intel_idle.c` tables give one exit latency per requestable state,
//! the worst case with the package in that state too: "PC3 max exit latency is 33usec on HSW"
//! (commit "intel_idle: Broadwell support", Len Brown), and C6 is described by PC6 ("cpuidle
//! assumes worst-case C-state parameters, PC6 parameters are used for describing C6", commit
//! 64233338 "intel_idle: Adjust the SKX C6 parameters if PC6 is disabled"). See docs/isolation.md
//! sec. 2.2 for which figures are measured and which are assumptions.
use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// Which idle states the host's cores have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CpuIdle {
    /// No idle states (idle=poll, or C-states disabled in the BIOS): a wake-up costs nothing extra.
    None,
    /// Intel Haswell / Haswell-EP (`hsw_cstates` in intel_idle.c): C1, C1E, C3, C6 (server
    /// parts stop at C6), every wake-up paying the table's package-inclusive worst case.
    Haswell,
    /// The same states and residencies; a wake-up pays the core-only exit while another core of
    /// the host is shallower (e.g. busy polling), the table's figure when the package sleeps too.
    HaswellPkg,
    /// Intel Sandy Bridge / Sandy Bridge-EP and -EN (`snb_cstates`, which intel_idle.c uses for
    /// both INTEL_FAM6_SANDYBRIDGE and INTEL_FAM6_SANDYBRIDGE_X): C1, C1E, C3, C6, every wake-up
    /// paying the table's figure (no core-only figure is published, so no package split).
    Sandybridge,
}

/// One requestable idle state, µs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IdleState {
    /// Exit latency with the package awake (another core shallower or running).
    pub core_exit_us: f64,
    /// Exit latency with the package in this state too: the kernel table's worst case.
    pub package_exit_us: f64,
    /// The governor picks the state only for a predicted idle at least this long.
    pub residency_us: f64,
}

const fn state(core_exit_us: f64, package_exit_us: f64, residency_us: f64) -> IdleState {
    IdleState { core_exit_us, package_exit_us, residency_us }
}

/// intel_idle.c `hsw_cstates` (exit_latency, target_residency), shallowest first; every exit is
/// the table's, with or without the package.
const HASWELL: &[IdleState] = &[state(2.0, 2.0, 2.0), state(10.0, 10.0, 20.0), state(33.0, 33.0, 100.0), state(133.0, 133.0, 400.0)];

/// `hsw_cstates` with core-only exits where one is published:
/// - C1, C1E: per-core states without a package part; the table's figures.
/// - C3: package-inclusive 33 µs (PC3, the table). Core-only: no published Haswell-EP figure
///   was found; assumption: the table's 33 µs (no reduction claimed).
/// - C6: package-inclusive 133 µs (PC6, the table). Core-only 92 µs: CC6 measured with wult via
///   NIC wake-up at the 99.99th percentile on Skylake-SP, whose intel_idle C6 is the same
///   133 µs (kernel commit 64233338); a proxy from the next server generation, an assumption for
///   Haswell-EP.
const HASWELL_PKG: &[IdleState] = &[state(2.0, 2.0, 2.0), state(10.0, 10.0, 20.0), state(33.0, 33.0, 100.0), state(92.0, 133.0, 400.0)];

/// intel_idle.c `snb_cstates` (exit_latency, target_residency), shallowest first: C1 2/2,
/// C1E 10/20, C3 80/211, C6 104/345 µs. The table's C7 (109/345) is left out: it is a client
/// part's state; Xeon E5 parts are assumed not to report its MWAIT sub-state (intel_idle skips
/// states CPUID leaf 5 does not list), an assumption worth 5 µs per deep wake-up.
const SANDYBRIDGE: &[IdleState] = &[state(2.0, 2.0, 2.0), state(10.0, 10.0, 20.0), state(80.0, 80.0, 211.0), state(104.0, 104.0, 345.0)];

impl CpuIdle {
    pub fn states(self) -> &'static [IdleState] {
        match self {
            CpuIdle::None => &[],
            CpuIdle::Haswell => HASWELL,
            CpuIdle::HaswellPkg => HASWELL_PKG,
            CpuIdle::Sandybridge => SANDYBRIDGE,
        }
    }
}

/// The state the governor picks for a predicted idle time: 0 = none fits (the core stays in
/// C0/polls), i = `states[i - 1]`, the deepest whose target residency is at most the prediction
/// (what the menu governor does when recent idle periods are regular, see docs/isolation.md).
pub fn state_for(states: &[IdleState], predicted_idle: Time) -> usize {
    let predicted_us = predicted_idle.as_us_f64();
    states.iter().rposition(|s| s.residency_us <= predicted_us).map_or(0, |i| i + 1)
}

/// Exit latency of a core in state `core` while the package is in state `package` (the
/// shallowest core state of the host, so `package <= core`; 0 = package awake): the core's own
/// exit plus the part of the package state's table figure that is not core exit.
pub fn exit_latency(states: &[IdleState], core: usize, package: usize) -> Time {
    if core == 0 {
        return Time::ZERO;
    }
    let own = states[core - 1].core_exit_us;
    let pkg = if package == 0 { 0.0 } else { states[package - 1].package_exit_us - states[package - 1].core_exit_us };
    Time::from_ns_f64((own + pkg) * 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn governor_picks_the_deepest_state_that_fits() {
        let s = CpuIdle::Haswell.states();
        let exit = |predicted| {
            let st = state_for(s, predicted);
            exit_latency(s, st, st)
        };
        assert_eq!(exit(Time::us(1)), Time::ZERO);
        assert_eq!(exit(Time::us(50)), Time::us(10));
        assert_eq!(exit(Time::us(300)), Time::us(33));
        assert_eq!(exit(Time::ms(10)), Time::us(133));
        assert_eq!(state_for(CpuIdle::None.states(), Time::ms(10)), 0);
    }

    #[test]
    fn sandy_bridge_sleeps_deeper_sooner_and_wakes_slower_from_c3() {
        // snb_cstates: C3 from 211 µs of predicted idle (exit 80), C6 from 345 µs (exit 104).
        let s = CpuIdle::Sandybridge.states();
        let exit = |predicted| {
            let st = state_for(s, predicted);
            exit_latency(s, st, st)
        };
        assert_eq!(exit(Time::us(150)), Time::us(10));
        assert_eq!(exit(Time::us(300)), Time::us(80));
        assert_eq!(exit(Time::us(600)), Time::us(104));
        assert_eq!(exit(Time::ms(10)), Time::us(104));
    }

    #[test]
    fn package_part_is_paid_only_while_the_package_sleeps() {
        let s = CpuIdle::HaswellPkg.states();
        let c6 = state_for(s, Time::ms(1));
        let c3 = state_for(s, Time::us(300));
        assert_eq!(exit_latency(s, c6, c6), Time::us(133), "whole package in C6: the table");
        assert_eq!(exit_latency(s, c6, 0), Time::us(92), "package awake: core C6 only");
        assert_eq!(exit_latency(s, c6, c3), Time::us(92), "package in C3 (no package part known)");
        // The table variant has no core/package split: same exit whatever the package does.
        let h = CpuIdle::Haswell.states();
        assert_eq!(exit_latency(h, c6, 0), Time::us(133));
    }
}
