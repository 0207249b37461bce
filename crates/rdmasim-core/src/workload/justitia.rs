//! An opt-in sender-side scheduler in the spirit of Justitia (Zhang et al., NSDI'22, "Software
//! Multi-Tenancy in Hardware Kernel-Bypass Networks"): a flow's large messages are split into
//! work requests of `split_bytes` ("Split Connection with message-level shaping"), at most
//! `window` of them outstanding, optionally paced to a rate by a token bucket. Splitting bounds
//! how long another QP's packet can wait behind this flow at the NIC (the NIC arbitrates per
//! work request or chunk of one), and pacing below the line rate leaves it room.
//!
//! What is not modelled: Justitia's passive latency monitoring that adapts the rate, and its
//! receiver-side updates; here the rate is fixed by the scenario.
use crate::engine::Time;

/// What the scheduler says about the current message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Post a chunk of this many bytes now.
    Post(u32),
    /// The next chunk may be posted at this time (pacing).
    Wait(Time),
    /// Nothing to post until a chunk completes (window full, or message fully posted).
    Blocked,
}

pub struct Shaper {
    chunk: u64,
    window: u32,
    /// Picoseconds per byte at the paced rate (0 = no pacing).
    ps_per_byte: f64,
    /// Bytes of the current message not yet posted.
    remaining: u64,
    inflight: u32,
    next_ok: Time,
}

impl Shaper {
    pub fn new(chunk: u64, window: u32, pace_gbps: Option<f64>) -> Shaper {
        let ps_per_byte = pace_gbps.map(|g| 8.0 * 1e3 / g).unwrap_or(0.0);
        Shaper { chunk, window: window.max(1), ps_per_byte, remaining: 0, inflight: 0, next_ok: Time::ZERO }
    }

    /// A new message of `len` bytes is to be sent.
    pub fn begin(&mut self, len: u64) {
        self.remaining = len;
    }

    pub fn next(&mut self, now: Time) -> Step {
        if self.remaining == 0 || self.inflight >= self.window {
            return Step::Blocked;
        }
        if self.next_ok > now {
            return Step::Wait(self.next_ok);
        }
        let n = self.chunk.min(self.remaining);
        self.remaining -= n;
        self.inflight += 1;
        if self.ps_per_byte > 0.0 {
            self.next_ok = now.max(self.next_ok) + Time::ps((n as f64 * self.ps_per_byte).round() as u64);
        }
        Step::Post(n as u32)
    }

    /// A chunk completed; returns true when it was the message's last.
    pub fn chunk_done(&mut self) -> bool {
        self.inflight = self.inflight.saturating_sub(1);
        self.remaining == 0 && self.inflight == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn splits_within_the_window_and_paces() {
        // 10 Gb/s: 1000 B take 800 ns.
        let mut s = Shaper::new(1000, 2, Some(10.0));
        s.begin(2500);
        assert_eq!(s.next(Time::ZERO), Step::Post(1000));
        assert_eq!(s.next(Time::ZERO), Step::Wait(Time::ns(800)));
        assert_eq!(s.next(Time::ns(800)), Step::Post(1000));
        assert_eq!(s.next(Time::us(5)), Step::Blocked); // window of 2 full
        assert!(!s.chunk_done());
        assert_eq!(s.next(Time::us(5)), Step::Post(500));
        assert!(!s.chunk_done());
        assert!(s.chunk_done());
    }
}
