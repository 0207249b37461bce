//! An Ethernet link: its rate, its propagation delay, and the flow control it runs. Each
//! direction is a channel that sends one frame at a time from the queue in front of it (a
//! NIC's transmit ring or a switch's output queue); what happens when the far end has no room
//! is the link's flow control, chosen per link:
//!
//! - `credits`: lossless as InfiniBand: a frame starts only when the receiving switch input
//!   has buffer for it (credits come back as frames leave the switch);
//! - `none`: lossy, as plain Ethernet: the frame is sent and the switch drops what it cannot
//!   buffer (tail drop);
//! - `pause`: IEEE 802.3x PAUSE (or PFC per priority, the same here with one class): the
//!   receiver sends XOFF when its buffer for that input passes `xoff_bytes` and XON below
//!   `xon_bytes`; the sender stops after the frame on the wire, the PAUSE frame itself taking
//!   its line time and the propagation delay to arrive (802.3 Annex 31B).
use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// Line rates, as data: 1, 10, 25 and 100 Gb/s Ethernet (802.3 clauses 35/36, 46/49, 107, 80).
/// The rate is the MAC data rate; the PCS encoding (8b/10b, 64b/66b) sits below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum EthRate {
    #[default]
    #[serde(rename = "1g")]
    G1,
    #[serde(rename = "10g")]
    G10,
    #[serde(rename = "25g")]
    G25,
    #[serde(rename = "100g")]
    G100,
}

impl EthRate {
    pub fn bits_per_s(self) -> u64 {
        match self {
            EthRate::G1 => 1_000_000_000,
            EthRate::G10 => 10_000_000_000,
            EthRate::G25 => 25_000_000_000,
            EthRate::G100 => 100_000_000_000,
        }
    }
    /// Picoseconds per byte: exact for every rate here (8000, 800, 320, 80).
    pub fn ps_per_byte(self) -> u64 {
        8_000_000_000_000 / self.bits_per_s()
    }
    /// Line time of `wire_bytes` (preamble and gap included).
    pub fn time_of(self, wire_bytes: u32) -> Time {
        Time(u64::from(wire_bytes) * self.ps_per_byte())
    }
    /// One PAUSE quantum: 512 bit times (802.3 clause 31; "For 1-Gigabit Ethernet, a single
    /// pause_quantum corresponds to 512 ns", Xilinx UG144, "Pause Control Frames").
    pub fn pause_quantum(self) -> Time {
        Time(512 * 1_000_000_000_000 / self.bits_per_s())
    }
    /// MAC data rate in 10^6 B/s.
    pub fn mb_per_s(self) -> f64 {
        self.bits_per_s() as f64 / 8e6
    }
}

/// A link's flow control (see the module comment).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase", tag = "kind", deny_unknown_fields)]
pub enum FlowControl {
    Credits,
    #[default]
    None,
    Pause {
        /// Buffer held for one input above which the receiver sends XOFF.
        xoff_bytes: u32,
        /// Below which it sends XON.
        xon_bytes: u32,
    },
}

/// Signal speed in copper or fibre: 5 ns per metre (about 2/3 c). ASSUMPTION: the seed gives no
/// cable lengths; at 2 m a cable adds 10 ns, under 0.1 % of any D row.
pub const PROPAGATION_PS_PER_M: u64 = 5_000;

/// Propagation delay of a cable.
pub fn propagation(length_m: f64) -> Time {
    Time((length_m.max(0.0) * PROPAGATION_PS_PER_M as f64).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_pause_quanta_are_exact() {
        assert_eq!(EthRate::G1.ps_per_byte(), 8_000);
        assert_eq!(EthRate::G100.ps_per_byte(), 80);
        assert_eq!(EthRate::G1.pause_quantum(), Time::ns(512));
        assert_eq!(EthRate::G10.pause_quantum(), Time(51_200));
        assert_eq!(EthRate::G1.time_of(84), Time::ns(672));
    }
}
