//! One direction of a full-duplex link: a serialiser at the sending port, a propagation delay,
//! the receiver's credit-based buffer per virtual lane, and the link's error model.
use crate::engine::{EventKey, SimRng, Time};
use crate::ids::{HcaId, PortId, SwitchId};
use std::collections::VecDeque;
use crate::fabric::rate::serialize_time;

/// Data virtual lanes modelled per port (VL0..VL7; VL15 management traffic is not modelled).
pub const NUM_VL: usize = 8;
/// IB link-level flow control counts credits in 64-byte blocks (IBTA Vol. 1 7.9.4).
pub const CREDIT_BYTES: u32 = 64;

pub fn credit_blocks(wire_bytes: u32) -> u32 {
    wire_bytes.div_ceil(CREDIT_BYTES)
}

/// Credits that reach the channel's sender at `at`.
#[derive(Clone, Copy, Debug)]
pub struct CreditBack {
    pub at: Time,
    pub vl: u8,
    pub blocks: u32,
}

/// What sits at either end of a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeRef {
    Hca(HcaId),
    Switch { sw: SwitchId, port: u16 },
}

/// How a link direction damages packets.
#[derive(Clone, Debug, Default)]
pub struct ErrorModel {
    /// The link is down: it carries nothing, and what is sent on it is discarded at the
    /// sending port (PortXmitDiscards).
    pub down: bool,
    pub loss_rate: f64,
    pub ber: f64,
    /// 1-based indices of packets (counted on this direction) to drop, sorted.
    pub drop_nth: Vec<u64>,
}

/// Why a packet did not arrive intact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Damage {
    None,
    /// Lost (drop_nth or loss_rate): counted as PortRcvErrors at the receiver.
    Lost,
    /// Bit errors: counted as SymbolErrorCounter and PortRcvErrors; dropped by the CRC check.
    Corrupted,
    /// Sent on a link that is down: discarded at the sending port (PortXmitDiscards).
    Discarded,
}

pub struct Channel {
    pub from: NodeRef,
    pub to: NodeRef,
    /// Indices into the port arena for the sending and receiving port.
    pub src_port: PortId,
    pub dst_port: PortId,
    pub ps_per_byte_fp32: u64,
    pub prop: Time,
    pub busy_until: Time,
    /// Credits (64 B blocks) the receiver has advertised, per VL, as of the last `absorb`.
    pub credits: [u32; NUM_VL],
    /// Credits on their way back to the sender, in order of arrival time. They are added to
    /// `credits` lazily, when the sender next looks (`absorb`): an event per return would be a
    /// quarter of all events in a bulk transfer, and only a sender that is waiting for credits
    /// needs waking (`credit_wake`).
    pub returns: VecDeque<CreditBack>,
    /// Time of the wake-up event scheduled for a sender waiting on `returns` (MAX: none).
    pub credit_wake: Time,
    pub errors: ErrorModel,
    pub rng: SimRng,
    /// Packets sent on this direction so far.
    pub sent: u64,
    /// A TxDone or kick event for this channel is already scheduled.
    pub wake_scheduled: bool,
    /// The TxDone of an HCA that had no other work when its packet went out: its place in the
    /// event order is taken but it is scheduled only if the HCA gets work before then
    /// (`World::tx_done_pending`). Most such TxDones — every packet of a lone mouse and every
    /// ACK — would find nothing to send.
    pub idle_tx_done: Option<EventKey>,
    /// Since when the sender has had data but no credits (PortXmitWait).
    pub wait_since: Option<Time>,
    /// Word time in ps (PortXmitWait tick).
    pub word_ps: u64,
}

impl Channel {
    #[inline]
    pub fn ser_time(&self, wire_bytes: u32) -> Time {
        serialize_time(wire_bytes, self.ps_per_byte_fp32)
    }

    #[inline]
    pub fn has_credits(&self, vl: u8, wire_bytes: u32) -> bool {
        self.credits[vl as usize] >= credit_blocks(wire_bytes)
    }

    /// PortXmitWait ticks (one per 4-byte word time on the link) in `waited`.
    #[inline]
    pub fn wait_ticks(&self, waited: Time) -> u64 {
        // Most departures did not wait: skip the division.
        if waited == Time::ZERO {
            return 0;
        }
        waited.as_ps() / self.word_ps.max(1)
    }

    /// Adds every credit return that has arrived by `now`.
    #[inline]
    pub fn absorb(&mut self, now: Time) {
        while let Some(r) = self.returns.front() {
            if r.at > now {
                break;
            }
            self.credits[r.vl as usize] += r.blocks;
            self.returns.pop_front();
        }
    }

    /// Queues `blocks` credits of `vl` arriving at `at`, keeping `returns` ordered by time
    /// (returns are nearly always queued in time order, so the scan from the back is O(1) in
    /// practice). Scalars, not a `CreditBack`, so the entry is written straight into the queue
    /// (a struct built first on the stack and copied cost a store-forwarding stall per packet).
    #[inline]
    pub fn queue_return(&mut self, at: Time, vl: u8, blocks: u32) {
        if self.returns.back().is_none_or(|r| r.at <= at) {
            self.returns.push_back(CreditBack { at, vl, blocks });
            return;
        }
        let mut i = self.returns.len() - 1;
        while i > 0 && self.returns[i - 1].at > at {
            i -= 1;
        }
        self.returns.insert(i, CreditBack { at, vl, blocks });
    }

    /// Decides the fate of the packet about to be sent (counts it as sent).
    #[inline]
    pub fn draw_damage(&mut self, wire_bytes: u32) -> Damage {
        self.sent += 1;
        if self.errors.down {
            return Damage::Discarded;
        }
        if !self.errors.drop_nth.is_empty() && self.errors.drop_nth.binary_search(&self.sent).is_ok() {
            return Damage::Lost;
        }
        if self.rng.chance(self.errors.loss_rate) {
            return Damage::Lost;
        }
        if self.errors.ber > 0.0 {
            let p = 1.0 - (1.0 - self.errors.ber).powf(wire_bytes as f64 * 8.0);
            if self.rng.chance(p) {
                return Damage::Corrupted;
            }
        }
        Damage::None
    }
}
