//! OS noise on a busy core: the periodic scheduler tick. Even a thread that has its core to
//! itself (a busy-polling benchmark) is interrupted every 1/HZ by the local timer interrupt,
//! and whatever it was doing — posting, handling a completion, noticing a new CQE — waits
//! until the handler returns (a "detour", in the OS-noise literature's term). The NIC has no
//! OS: only host threads see it.
//!
//! Sources (parameters in `profile/params.rs`, reasoning in docs/isolation.md 2.6):
//! - period: `CONFIG_HZ` of the host's kernel (`os_tick_hz`; 0 = no tick, e.g. `nohz_full`).
//! - phase: Linux starts every CPU's tick at the same jiffy (kernel/time/tick-sched.c,
//!   `tick_setup_sched_timer`: the per-CPU offset applies only with the `skew_tick=1` boot
//!   option), so all cores of a host share one phase; it is drawn per host from the seed.
//! - length: the timer interrupt's own duration as Linux's osnoise tracer reports it
//!   (`os_tick_detour_min_ns` .. `os_tick_detour_max_ns`); each tick's length is drawn
//!   uniformly in that range from a hash of (host stream, tick index), so no state is kept.
//! - entry and exit: the tracer's duration is the handler's alone ("net"); the interrupt entry
//!   before it and the exit after it hold the core too (`os_tick_entry_exit_ns`, a fixed
//!   amount added to every detour; 0 = the handler only). Figures in docs/isolation.md 2.6.
//!
//! Everything is arithmetic on the tick index: O(1) per operation, no events, no allocation.
use crate::engine::{stream_seed, Time};
use crate::profile::HostParams;
use crate::host::CpuThread;

/// Random-stream ids: host h's tick draws from stream TICK_STREAM + h (channels use 1 << 32).
pub const TICK_STREAM: u64 = 2 << 32;

/// The tick of one host's cores. `period == 0` means no tick: every method is the identity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TickNoise {
    /// 1/HZ, ps; 0 = off.
    period: u64,
    /// Time of tick 0, ps, in [0, period).
    phase: u64,
    /// Shortest detour (handler plus entry/exit), ps, and the width of the range above it.
    detour_min: u64,
    detour_span: u64,
    /// Seed of this host's per-tick lengths.
    seed: u64,
}

impl TickNoise {
    pub const OFF: TickNoise = TickNoise { period: 0, phase: 0, detour_min: 0, detour_span: 0, seed: 0 };

    /// The tick of host `host` under profile `p` and scenario seed `seed`.
    pub fn for_host(p: &HostParams, seed: u64, host: u32) -> TickNoise {
        if p.os_tick_hz <= 0.0 {
            return TickNoise::OFF;
        }
        let period = (1e12 / p.os_tick_hz).round().max(1.0) as u64;
        let hseed = stream_seed(seed, TICK_STREAM + host as u64);
        // Entry/exit is the same for every tick: it shifts the handler's range.
        let entry_exit = Time::from_ns_f64(p.os_tick_entry_exit_ns.max(0.0)).as_ps();
        let lo = Time::from_ns_f64(p.os_tick_detour_min_ns).as_ps() + entry_exit;
        let hi = Time::from_ns_f64(p.os_tick_detour_max_ns.max(p.os_tick_detour_min_ns)).as_ps() + entry_exit;
        TickNoise { period, phase: hseed % period, detour_min: lo, detour_span: hi - lo, seed: hseed }
    }

    pub fn is_on(&self) -> bool {
        self.period > 0
    }

    /// When tick `k` fires, ps (saturating like `Time`: a tick past the clock's end never fires).
    #[inline]
    fn at(&self, k: u64) -> u64 {
        self.phase.saturating_add(k.saturating_mul(self.period))
    }

    /// How long tick `k` holds the core, ps (uniform in the range, a pure function of k).
    #[inline]
    fn detour(&self, k: u64) -> u64 {
        if self.detour_span == 0 {
            return self.detour_min;
        }
        self.detour_min + stream_seed(self.seed, k) % (self.detour_span + 1)
    }

    /// Work of length `cost` that is ready to run at `start`: when it ends. A detour in progress
    /// at `start` delays its start; every tick that fires before it ends lengthens it.
    #[inline]
    pub fn finish(&self, start: Time, cost: Time) -> Time {
        if self.period == 0 {
            return start + cost;
        }
        let s = start.as_ps();
        // First tick at or after s, and whether the one before it is still running at s.
        let (mut k, begin) = if s < self.phase {
            (0, s)
        } else {
            let last = (s - self.phase) / self.period;
            (last + 1, s.max(self.at(last).saturating_add(self.detour(last))))
        };
        // Saturating at the clock's end, as `Time`'s `+` is: work that would end past it ends
        // at `Time::END`, where the run stops naming it (engine/time.rs).
        let mut end = Time::ps(begin) + cost;
        while end < Time::END && self.at(k) < end.as_ps() {
            end += Time::ps(self.detour(k));
            k += 1;
        }
        end
    }
}

impl TickNoise {
    /// How much of `[a, b)` the tick's detours hold the core: the time in it that is not the
    /// thread's work when the thread runs throughout (`CpuThread::busy_at`).
    pub fn detours_in(&self, a: Time, b: Time) -> Time {
        if self.period == 0 || b <= a {
            return Time::ZERO;
        }
        let (a, b) = (a.as_ps(), b.as_ps());
        // From the tick before `a`: its detour may still be running at `a`.
        let mut k = if a < self.phase { 0 } else { (a - self.phase) / self.period };
        let mut held = 0;
        while self.at(k) < b {
            let from = self.at(k).max(a);
            let to = self.at(k).saturating_add(self.detour(k)).min(b);
            held += to.saturating_sub(from);
            k += 1;
        }
        Time::ps(held)
    }
}

impl CpuThread {
    /// A busy-polling thread notices a CQE that became visible at `now`: one poll iteration
    /// after it is free — later if a tick's detour holds its core (the poll is not counted as
    /// the thread's work: it spins anyway).
    #[inline]
    pub fn notice(&self, now: Time, poll: Time) -> Time {
        self.tick.finish(now.max(self.cpu_free), poll)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(hz: f64, min_ns: f64, max_ns: f64, seed: u64) -> TickNoise {
        tick_with_entry_exit(hz, min_ns, max_ns, 0.0, seed)
    }

    fn tick_with_entry_exit(hz: f64, min_ns: f64, max_ns: f64, entry_exit_ns: f64, seed: u64) -> TickNoise {
        let mut p = crate::profile::by_name("cx3-fdr").unwrap().0.host;
        p.os_tick_hz = hz;
        p.os_tick_detour_min_ns = min_ns;
        p.os_tick_detour_max_ns = max_ns;
        p.os_tick_entry_exit_ns = entry_exit_ns;
        TickNoise::for_host(&p, seed, 0)
    }

    #[test]
    fn entry_exit_lengthens_every_detour_by_its_amount() {
        let net = tick(250.0, 1845.0, 2848.0, 3);
        let gross = tick_with_entry_exit(250.0, 1845.0, 2848.0, 898.0, 3);
        // Same seed: same phase, same handler draws, each tick 898 ns longer.
        assert_eq!(net.phase, gross.phase);
        for k in 0..1000 {
            assert_eq!(gross.detour(k), net.detour(k) + 898_000);
        }
        let at = Time::ps(gross.phase + gross.period);
        assert_eq!(gross.finish(at, Time::ns(10)), net.finish(at, Time::ns(10)) + Time::ns(898));
    }

    #[test]
    fn off_is_the_identity() {
        let t = tick(0.0, 2000.0, 3000.0, 1);
        assert!(!t.is_on());
        assert_eq!(t.finish(Time::ns(123), Time::ns(70)), Time::ns(193));
    }

    #[test]
    fn work_overlapping_a_tick_is_lengthened_by_its_detour() {
        let t = tick(250.0, 2000.0, 2000.0, 7);
        let tick0 = Time::ps(t.phase);
        let period = Time::ps(t.period);
        assert_eq!(period, Time::ms(4));
        // Work far from any tick is not touched.
        let quiet = tick0 + Time::ms(2);
        assert_eq!(t.finish(quiet, Time::ns(70)), quiet + Time::ns(70));
        // Work that spans the next tick ends one detour later.
        let before = tick0 + period - Time::ns(30);
        assert_eq!(t.finish(before, Time::ns(70)), before + Time::ns(70) + Time::us(2));
        // Work that becomes ready during a detour starts when it ends.
        let during = tick0 + period + Time::ns(500);
        assert_eq!(t.finish(during, Time::ns(30)), tick0 + period + Time::us(2) + Time::ns(30));
        // Right after the detour: untouched.
        let after = tick0 + period + Time::us(2);
        assert_eq!(t.finish(after, Time::ns(30)), after + Time::ns(30));
    }

    #[test]
    fn detours_in_counts_the_part_of_each_detour_inside_the_span() {
        let t = tick(250.0, 2000.0, 2000.0, 7);
        let next = Time::ps(t.phase + t.period);
        // Work lengthened by a detour: its span less the detour is the work.
        let start = next - Time::ns(30);
        let end = t.finish(start, Time::ns(70));
        assert_eq!((end - start) - t.detours_in(start, end), Time::ns(70));
        // A span starting inside the detour of the tick before it, and one ending inside one.
        assert_eq!(t.detours_in(next + Time::ns(500), next + Time::us(3)), Time::ns(1500));
        assert_eq!(t.detours_in(next - Time::us(1), next + Time::ns(200)), Time::ns(200));
        // Two ticks, and none; off: none.
        assert_eq!(t.detours_in(next - Time::us(1), next + Time::ms(5)), Time::us(4));
        assert_eq!(t.detours_in(next + Time::us(3), next + Time::ms(1)), Time::ZERO);
        assert_eq!(tick(0.0, 2000.0, 2000.0, 7).detours_in(Time::ZERO, Time::ms(100)), Time::ZERO);
    }

    #[test]
    fn work_near_the_clock_s_end_saturates_instead_of_overflowing() {
        let t = tick(250.0, 2000.0, 2000.0, 7);
        let late = Time::ps(u64::MAX - 1000);
        assert_eq!(t.finish(late, Time::ns(70)), Time::END, "saturated at the clock's end, not at \"never\"");
        assert_eq!(t.finish(Time::ZERO, Time::MAX), Time::MAX);
        // A tick rate so low that tick 1 lies past the clock's end: tick 0 still holds the core.
        let slow = tick(1e-300, 2000.0, 2000.0, 7);
        assert_eq!(slow.finish(Time::ps(slow.phase) + Time::ns(1), Time::ns(70)), Time::ps(slow.phase) + Time::ns(2070), "a tick in progress at the start delays the work; the next never fires");
    }

    #[test]
    fn phase_and_lengths_follow_the_seed() {
        let a = tick(250.0, 1845.0, 2848.0, 1);
        assert_eq!(a, tick(250.0, 1845.0, 2848.0, 1));
        let b = tick(250.0, 1845.0, 2848.0, 2);
        assert_ne!(a.phase, b.phase);
        for k in 0..1000 {
            let d = a.detour(k);
            assert!((1_845_000..=2_848_000).contains(&d), "detour {d} ps out of range");
        }
        assert_ne!(a.detour(0), a.detour(1));
    }
}
