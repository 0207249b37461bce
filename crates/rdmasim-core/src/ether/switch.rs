//! A store-and-forward Ethernet switch: a frame is forwarded once it is wholly received, after
//! the profile's latency, to the output queue of the port toward its destination MAC, if the
//! packet buffer has room; otherwise it is dropped at that output (tail drop) and counted
//! there, as switches count egress drops (IF-MIB `ifOutDiscards`).
//!
//! The buffer is accounted twice: per output (what the drop decision reads) and per input
//! (what PAUSE thresholds and credits read: the bytes a given upstream sender has in the
//! switch).
use super::framing::{IFG, PREAMBLE_SFD};
use super::switch_hol::HolState;
use super::switch_profiles::SwitchProfile;
use crate::ids::PortId;

/// Per-port counters, named as IF-MIB (RFC 2863) and EtherLike-MIB (RFC 3635) name them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortCounters {
    pub if_hc_in_octets: u64,
    pub if_hc_in_ucast_pkts: u64,
    pub if_hc_out_octets: u64,
    pub if_hc_out_ucast_pkts: u64,
    /// Frames dropped at this output for want of buffer.
    pub if_out_discards: u64,
    pub dot3_in_pause_frames: u64,
    pub dot3_out_pause_frames: u64,
}

pub struct EthSwitch {
    pub name: String,
    pub profile: SwitchProfile,
    /// Graph ports by port number - 1.
    pub ports: Vec<PortId>,
    /// Bytes held for each output (index: port number - 1).
    pub held_out: Vec<u32>,
    /// Bytes held that came in on each input.
    pub held_in: Vec<u32>,
    pub held: u32,
    /// An input's upstream has been sent XOFF and not yet XON.
    pub paused_in: Vec<bool>,
    pub peak_held: u32,
    /// Cell-counted HOL limits, when the profile has them (switch_hol.rs).
    pub hol: Option<HolState>,
}

/// A frame's bytes in the switch's memory: its line time less preamble, SFD and gap.
fn stored(wire: u32) -> u32 {
    wire - PREAMBLE_SFD - IFG
}

impl EthSwitch {
    pub fn new(name: String, profile: SwitchProfile, ports: Vec<PortId>) -> EthSwitch {
        let n = ports.len();
        let hol = profile.hol.map(|_| HolState::new(n));
        EthSwitch { name, profile, ports, held_out: vec![0; n], held_in: vec![0; n], held: 0, paused_in: vec![false; n], peak_held: 0, hol }
    }

    /// Whether a frame of `bytes` fits at output `out` (port index): the pool and the output's
    /// cap have room, and the output is not discarding under its HOL limit (switch_hol.rs).
    pub fn fits(&self, out: usize, bytes: u32) -> bool {
        let hol_ok = self.hol.as_ref().is_none_or(|h| h.admits(out));
        hol_ok && self.held + bytes <= self.profile.buffer_bytes && self.held_out[out] + bytes <= self.profile.output_limit()
    }

    /// Whether a frame fits in the pool, whatever its output holds: the admission of a lossless
    /// (PAUSE) input, whose XOFF threshold bounds what it holds, as switches keep lossless
    /// classes out of egress drop limits and give them headroom instead.
    pub fn fits_pool(&self, bytes: u32) -> bool {
        self.held + bytes <= self.profile.buffer_bytes
    }

    /// Buffer an input may use under credit flow control: an equal share of the pool.
    pub fn credit_bytes_per_input(&self) -> u32 {
        self.profile.buffer_bytes / self.ports.len().max(1) as u32
    }

    pub fn hold(&mut self, input: usize, out: usize, bytes: u32) {
        self.held += bytes;
        self.held_out[out] += bytes;
        self.held_in[input] += bytes;
        self.peak_held = self.peak_held.max(self.held);
        if let (Some(h), Some(lim)) = (&mut self.hol, &self.profile.hol) {
            h.hold(lim, out, stored(bytes));
        }
    }

    pub fn release(&mut self, input: usize, out: usize, bytes: u32) {
        self.held -= bytes;
        self.held_out[out] -= bytes;
        self.held_in[input] -= bytes;
        if let (Some(h), Some(lim)) = (&mut self.hol, &self.profile.hol) {
            h.release(lim, out, stored(bytes));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ether::switch_profiles::broadcom_12port;

    #[test]
    fn an_output_s_128_kib_drops_before_the_pool_is_full() {
        // The BCM5690's 128 KB a port: 14 jumbo frames of 8838 B (8800 B of PM payload) fit
        // at one output, a 15th does not, while another output still has room.
        let ports = (0..12).map(PortId).collect();
        // Without its HOL cell limit, which would stop the third frame (switch_hol.rs).
        let profile = SwitchProfile { hol: None, ..broadcom_12port() };
        let mut s = EthSwitch::new("s".into(), profile, ports);
        for i in 0..14 {
            assert!(s.fits(3, 8838), "frame {i}");
            s.hold(i % 3, 3, 8838);
        }
        assert!(!s.fits(3, 8838), "a 15th jumbo frame exceeds the output's 128 KiB");
        assert!(s.fits(4, 8838), "another output still has room");
        s.release(0, 3, 8838);
        assert!(s.fits(3, 8838));
    }
}
