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
    /// Also "never" (a disarmed timer, a QP with nothing to send, no pending kick).
    pub const MAX: Time = Time(u64::MAX);
    /// The clock's end: where a time computation that would pass 2^64 ps (about 213 days)
    /// saturates. One below `MAX` so that a saturated time is never taken for "never": it
    /// stays a time, whatever is due then is scheduled at `END`, and the run stops there
    /// naming it (`Simulation::step`). When it saturated at `MAX`, a post due past the end
    /// left its QP with "nothing before never", no event was scheduled, and the run stopped as
    /// "stalled" with a wrong reason ("no local ACK timer armed").
    pub const END: Time = Time(u64::MAX - 1);

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
    /// `self * 2^exp`, saturating at [`Time::END`] like `+`: used for 4.096 µs × 2^timeout.
    pub fn saturating_shl(self, exp: u32) -> Time {
        Time(self.0.checked_shl(exp).filter(|v| v >> exp == self.0).unwrap_or(Time::END.0))
    }
}

impl Add for Time {
    type Output = Time;
    /// Saturating at [`Time::END`], not at `Time::MAX` ("never"): see `END`. Branch-free (a
    /// flag recorded on overflow instead cost 1 % more instructions per event: the call on the
    /// cold path kept values from staying in registers around every addition).
    #[inline]
    fn add(self, rhs: Time) -> Time {
        let (t, over) = self.0.overflowing_add(rhs.0);
        Time(if over { Time::END.0 } else { t })
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

#[cfg(test)]
mod tests {
    use super::Time;

    /// A time past 2^64 ps saturates at the clock's end, never at "never" (`Time::MAX`), which
    /// adding zero leaves alone. (A sum of exactly 2^64 - 1 ps does not overflow and is MAX: one
    /// picosecond no run reaches, as the run stops at the first event at or past `END`.)
    #[test]
    fn overflow_saturates_at_the_clock_s_end_not_at_never() {
        assert_eq!(Time(u64::MAX - 5) + Time(10), Time::END);
        assert_eq!(Time(u64::MAX - 5) + Time(3), Time(u64::MAX - 2));
        let mut t = Time(u64::MAX - 1);
        t += Time(2);
        assert_eq!(t, Time::END);
        assert_eq!(Time::MAX + Time::ZERO, Time::MAX);
        assert_eq!(Time::ns(4_096).saturating_shl(60), Time::END);
        assert_eq!(Time::ns(4_096).saturating_shl(31), Time(4_096_000 << 31));
        assert!(Time::END < Time::MAX);
    }
}
