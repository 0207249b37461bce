//! Simulated time: an integer count of picoseconds. No floating point ever reaches the engine;
//! conversions to µs/ns for reports happen at the edges.
use serde::{Deserialize, Serialize};
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
    /// `self * 2^exp`, saturating: used for 4.096 µs × 2^timeout.
    pub fn saturating_shl(self, exp: u32) -> Time {
        Time(self.0.checked_shl(exp).filter(|v| v >> exp == self.0).unwrap_or(u64::MAX))
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 = self.0.saturating_add(rhs.0)
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
