//! What a corrupting link costs an RC transfer at flow level: not bandwidth but, now and then, a
//! whole local ACK timeout.
//!
//! An erroring link corrupts packets at `errors_per_s` per direction (seeds/004 §3.2: the
//! TSUBAME2.0 links counted `symbol_error_counter` / `port_rcv_errors` "on the order of hundreds
//! per second", even idle). The receiver drops a corrupt packet (its ICRC/VCRC fails). In the
//! middle of a message the next packet arrives out of sequence and the responder NAKs at once
//! (IBTA Vol. 1 9.7.5.2.2, PSN sequence error): go-back-N costs a round trip, which the fluid
//! model already spreads as a rate share (apps/doctor/error_cost.rs) and which is < 0.1 % of
//! a link here, so it is left out. A corrupt *last* packet of a transfer has no packet behind it
//! to expose the gap, and a corrupt final ACK none to replace it: the requester learns of either
//! only when its local ACK timer expires (IBTA 9.7.6.1.3), 4.096 µs × 2^`timeout`, then resends
//! and the transfer completes (one stall: a second loss of the same packet is ~1e-4 as likely).
//!
//! Errors are a Poisson process in time on each erroring direction, so a packet that occupies a
//! direction for `t` seconds is corrupt with probability 1 − exp(−λ t); the tail packet and the
//! final ACK of a flow cross each link of their routes once. A flow's stall probability is
//! therefore 1 − exp(−Σ λ_l t_l) over the erroring links of its data route (tail packet) and of
//! its ACK's route (the reverse way, as the LFTs route it).
//!
//! ASSUMPTION: one tail per flow. MVAPICH2 posts a striped rendezvous payload's RDMA WRITEs on
//! each rail back to back (ibv_rndv.c, `MV2_MAX_RDMA_SIZE` chunks), so only the last WRITE of a
//! rail has nothing behind it. The rate `errors_per_s` while loaded is taken equal to the idle
//! count the study read (the counter ticks per corrupted symbol or packet; a loaded link has
//! more bits to corrupt, so this may be low — docs/tsubame.md says what it implies).
use serde::{Deserialize, Serialize};

/// The tail-loss model's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TailLoss {
    /// IBTA local ACK timeout exponent: the timer is 4.096 µs × 2^timeout. Source: MVAPICH2's
    /// `RDMA_DEFAULT_TIME_OUT` (20) in ibv_param.h, the QP's `timeout` unless
    /// `MV2_DEFAULT_TIME_OUT` says otherwise: 4.29 s, as the doctor's outage
    /// (apps/doctor/error_cost.rs).
    pub timeout: u8,
    /// Bytes on the wire of the tail data packet: a full packet at MVAPICH2's default path MTU
    /// (2048 B: "MVAPICH2 defaults to an IB MTU size of 2048 bytes", QLogic OFED host software
    /// user guide, "Improving Performance of Other MPIs Over IB Verbs") plus LRH 8 + BTH 12 +
    /// ICRC 4 + VCRC 2 (IBTA ch. 5-7).
    pub tail_packet_bytes: f64,
    /// Bytes on the wire of an ACK: LRH 8 + BTH 12 + AETH 4 + ICRC 4 + VCRC 2 (IBTA ch. 9).
    pub ack_bytes: f64,
}

impl Default for TailLoss {
    fn default() -> TailLoss {
        use crate::wire::in_flight::{AETH, LRH_BTH_CRC};
        TailLoss { timeout: 20, tail_packet_bytes: f64::from(2048 + LRH_BTH_CRC), ack_bytes: f64::from(LRH_BTH_CRC + AETH) }
    }
}

impl TailLoss {
    /// How long a stalled transfer waits before its retransmission, seconds.
    pub fn stall_s(&self) -> f64 {
        crate::hca::timers::spec_ack_timeout(self.timeout.min(31)).as_secs_f64()
    }

    /// The expected number of corruptions of one packet of `bytes` crossing a direction that
    /// corrupts `errors_per_s` and carries `bytes_per_s` (the exponent of the miss probability).
    pub fn exposure(bytes: f64, errors_per_s: f64, bytes_per_s: f64) -> f64 {
        if errors_per_s <= 0.0 || bytes_per_s <= 0.0 {
            0.0
        } else {
            errors_per_s * bytes / bytes_per_s
        }
    }

    /// The probability a flow stalls, from the summed exposure of its tail packet and final ACK.
    pub fn stall_probability(exposure: f64) -> f64 {
        -(-exposure).exp_m1()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_timeout_is_mvapich2s_4_29_s_and_a_qdr_tail_packet_is_rarely_hit() {
        let m = TailLoss::default();
        assert!((m.stall_s() - 4.294967).abs() < 1e-5, "{}", m.stall_s());
        // 4x QDR carries 4 GB/s after 8b/10b: a 2074 B packet is 0.52 µs of it; at 300
        // corruptions per second one in ~6400 tail packets is hit.
        let e = TailLoss::exposure(m.tail_packet_bytes, 300.0, 4e9);
        let p = TailLoss::stall_probability(e);
        assert!((p - 1.555e-4).abs() < 1e-6, "{p}");
        assert_eq!(TailLoss::exposure(2074.0, 0.0, 4e9), 0.0);
    }
}
