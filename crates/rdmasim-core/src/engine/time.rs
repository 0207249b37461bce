//! Simulated time: an integer count of picoseconds. No floating point ever reaches the engine;
//! conversions to µs/ns for reports happen at the edges.
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in (or span of) simulated time, in picoseconds. `u64` picoseconds covers ~213 days.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn ps(ps: u64) -> Time {
        Time(ps)
    }
    pub const fn ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    pub const fn us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    pub const fn ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    /// From a (possibly fractional) number of nanoseconds, as profiles state them; rounded to
    /// the nearest picosecond. Only used when building the model, never in the event loop.
    pub fn from_ns_f64(ns: f64) -> Time {
        Time((ns * 1_000.0).round().max(0.0) as u64)
    }
    pub fn as_ps(self) -> u64 {
        self.0
    }
    pub fn as_ns_f64(self) -> f64 {
        self.0 as f64 / 1e3
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e12
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    pub fn max(self, other: Time) -> Time {
        if self >= other { self } else { other }
    }
    pub fn min(self, other: Time) -> Time {
        if self <= other { self } else { other }
    }
    /// `self * 2^exp`, saturating like `+` (and recorded the same way, [`past_the_end`]):
    /// used for 4.096 µs × 2^timeout.
    pub fn saturating_shl(self, exp: u32) -> Time {
        match self.0.checked_shl(exp).filter(|v| v >> exp == self.0) {
            Some(t) => Time(t),
            None => past_the_end(),
        }
    }
}

thread_local! {
    /// Set when a time computation on this thread ran past the clock's end (2^64 ps, about 213
    /// days) and saturated. `Time::MAX` also means "never" (a disarmed timer, a QP with nothing
    /// to send), so a saturated time is silently taken for one: a post due after the end
    /// leaves its QP with "nothing before never" and the run used to stop as "stalled" with a
    /// wrong reason. `Simulation::step` clears this before its events and checks it after each
    /// one, so the run stops with the overflow named. Thread-local, not global: simulations on
    /// other threads (a sweep's thread pool) must not see it; one `step` call runs one
    /// simulation on one thread, so the flag is never mixed between two.
    static PASSED_END: Cell<bool> = const { Cell::new(false) };
}

/// Records that a time computation ran past the clock's end; returns the saturated value.
#[cold]
#[inline(never)]
pub fn past_the_end() -> Time {
    PASSED_END.with(|c| c.set(true));
    Time::MAX
}

/// Whether a time computation on this thread ran past the clock's end since the last
/// [`clear_past_the_end`].
#[inline]
pub fn passed_the_end() -> bool {
    PASSED_END.with(|c| c.get())
}

pub fn clear_past_the_end() {
    PASSED_END.with(|c| c.set(false));
}

impl Add for Time {
    type Output = Time;
    /// Saturating, and recording a saturation ([`past_the_end`]).
    #[inline]
    fn add(self, rhs: Time) -> Time {
        match self.0.checked_add(rhs.0) {
            Some(t) => Time(t),
            None => past_the_end(),
        }
    }
}
impl AddAssign for Time {
    #[inline]
    fn add_assign(&mut self, rhs: Time) {
        *self = *self + rhs
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        Time(self.0 - rhs.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} us", self.as_us_f64())
    }
}
