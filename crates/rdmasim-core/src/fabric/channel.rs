//! One direction of a full-duplex link: a serialiser at the sending port, a propagation delay,
//! the receiver's credit-based buffer per virtual lane, and the link's error model.
use crate::wire::in_flight::Damage;
use crate::engine::{EventKey, SimRng, Time};
use crate::ids::{HcaId, PortId, SwitchId};
use crate::fabric::link_events::{LinkEvents, OutageKind};
use crate::fabric::rate::serialize_time;

/// Data virtual lanes modelled per port (VL0..VL7; VL15 management traffic is not modelled).
pub const NUM_VL: usize = 8;
/// IB link-level flow control counts credits in 64-byte blocks (IBTA Vol. 1 7.9.4).
pub const CREDIT_BYTES: u32 = 64;

pub fn credit_blocks(wire_bytes: u32) -> u32 {
    wire_bytes.div_ceil(CREDIT_BYTES)
}

/// Credits that reach the channel's sender at `at`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CreditBack {
    pub at: Time,
    pub vl: u8,
    pub blocks: u32,
}

/// A channel's credit returns in flight, in order of arrival time: a ring over a power-of-two
/// buffer with u32 indices, and the arrival time of its last entry kept beside them, so that
/// queueing a return in time order (nearly every one) decides from the channel's line alone
/// and only stores into the buffer (reading its last entry there was a cache miss per
/// packet-hop in a large fabric). 32 bytes, like the `VecDeque` it replaces.
#[derive(Debug, Default)]
pub struct CreditRing {
    buf: Box<[CreditBack]>,
    head: u32,
    len: u32,
    /// `at` of the last entry; meaningless while `len == 0`.
    back_at: Time,
}

impl CreditRing {
    #[inline]
    fn slot(&self, i: u32) -> usize {
        (self.head.wrapping_add(i) as usize) & (self.buf.len() - 1)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn front(&self) -> Option<&CreditBack> {
        if self.len == 0 {
            return None;
        }
        self.buf.get(self.head as usize)
    }

    #[inline]
    pub fn pop_front(&mut self) {
        if self.len > 0 {
            self.head = (self.head + 1) & (self.buf.len() as u32 - 1);
            self.len -= 1;
        }
    }

    /// Entry `i` from the front.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&CreditBack> {
        if i >= self.len as usize {
            return None;
        }
        self.buf.get(self.slot(i as u32))
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(4);
        let mut buf = vec![CreditBack::default(); cap].into_boxed_slice();
        for (i, b) in buf.iter_mut().enumerate().take(self.len as usize) {
            *b = self.buf[self.slot(i as u32)];
        }
        self.buf = buf;
        self.head = 0;
    }

    /// Queues a return, after every entry that arrives no later (so that returns due at the
    /// same time keep the order they were queued in).
    #[inline]
    pub fn push(&mut self, r: CreditBack) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let in_order = self.len == 0 || self.back_at <= r.at;
        let s = self.slot(self.len);
        self.buf[s] = r;
        self.len += 1;
        if in_order {
            self.back_at = r.at;
        } else {
            self.sink_back();
        }
    }

    /// Moves the last entry towards the front past every entry that arrives later.
    #[cold]
    #[inline(never)]
    fn sink_back(&mut self) {
        let mut i = self.len - 1;
        while i > 0 {
            let (a, b) = (self.slot(i - 1), self.slot(i));
            if self.buf[a].at <= self.buf[b].at {
                break;
            }
            self.buf.swap(a, b);
            i -= 1;
        }
    }
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
    /// Symbol errors per picosecond (`[[faults]] symbol_errors_per_s` / 1e12): each corrupts
    /// the packet on the wire when it falls, so a packet that occupies the link for t ps is
    /// corrupted with probability rate × t (at most 1). On a link sending full MTU packets
    /// back to back that is rate / packets per second, the per-packet probability of errors
    /// spread evenly over the time the link is loaded. ASSUMPTION: errors are uniform in time
    /// and at most one falls in a packet (true while rate × t ≪ 1: 500 errors/s on 4x QDR
    /// give 5e-4 per 4 KiB packet); errors that fall between packets corrupt nothing and are
    /// not counted, where a real port's SymbolErrorCounter counts them too.
    pub symbol_errors_per_ps: f64,
    /// 1-based indices of packets (counted on this direction) to drop, sorted.
    pub drop_nth: Vec<u64>,
    /// The cable's retrains and flaps in time (fabric/link_events.rs), when it has any. Boxed:
    /// a channel without them carries a pointer, not the schedule.
    pub events: Option<Box<LinkEvents>>,
}

// Laid out by use, in 64-byte lines (`repr(C)`, so the order is the declared one), because a
// fat tree's channels do not stay in cache: 6144 of them at k = 16, and each packet-hop reads
// its outgoing channel's sender fields, its credits and its counters, and the incoming
// channel's credit returns. Line 0 is what a send reads and writes; line 1 the credits and
// their returns; line 2 the propagation delay, the PortXmitWait state and the port counters
// of both ends; the error model and its random stream, which a lossless link never reads,
// come last. (It was 256 bytes with the fields of one send over four lines.)
#[repr(C, align(64))]
pub struct Channel {
    // --- line 0: the sender
    pub busy_until: Time,
    pub ps_per_byte_fp32: u64,
    pub from: NodeRef,
    pub to: NodeRef,
    /// Indices into the port arena for the sending and receiving port.
    pub src_port: PortId,
    pub dst_port: PortId,
    /// The TxDone of a sender that had no other work when its packet went out: its place in
    /// the event order is taken but it is scheduled only if the sender gets work before then
    /// (`Forwarding::tx_done_pending`, fabric/forward.rs). Most such TxDones — every packet of a lone mouse and every
    /// ACK — would find nothing to send. Valid while `idle_tx_done_pending`.
    pub idle_tx_done: EventKey,
    pub idle_tx_done_pending: bool,
    /// A TxDone or kick event for this channel is already scheduled.
    pub wake_scheduled: bool,
    /// The error model can damage or discard a packet (`errors`: down, loss, bit errors or
    /// drops): false lets a send skip `draw_damage` and the cold lines. Set by
    /// `Net::plan_switch_outputs` (fabric/switch_fifo.rs), after the faults are applied; errors do not change after.
    pub faulty: bool,
    // --- line 1: credits (`returns` first: its alignment starts the line)
    /// Credits on their way back to the sender, in order of arrival time. They are added to
    /// `credits` lazily, when the sender next looks (`absorb`): an event per return would be a
    /// quarter of all events in a bulk transfer, and only a sender that is waiting for credits
    /// needs waking (`credit_wake`).
    pub returns: CreditRing,
    /// Credits (64 B blocks) the receiver has advertised, per VL, as of the last `absorb`.
    pub credits: [u32; NUM_VL],
    // --- line 2
    pub prop: Time,
    /// Since when the sender has had data but no credits (PortXmitWait); `Time::MAX`: it has not.
    pub wait_since: Time,
    /// Time of the wake-up event scheduled for a sender waiting on `returns` (MAX: none).
    pub credit_wake: Time,
    /// The counters of the packets this direction carries, kept here rather than with the
    /// ports (fabric/port.rs) because a send has this channel in cache: the sending port's
    /// transmit counters and the receiving port's receive counters
    /// (`Net::port_counters_at` adds them to the ports').
    pub counts: LinkCounts,
    // --- cold
    pub errors: ErrorModel,
    pub rng: SimRng,
    /// Packets sent on this direction so far (counted only on a `faulty` channel: `drop_nth`
    /// is all that reads it).
    pub sent: u64,
    /// Word time in ps (PortXmitWait tick).
    pub word_ps: u64,
}

/// The port counters a channel keeps for the ports at its ends (`Channel::counts`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounts {
    /// The sending port's PortXmitPkts, PortXmitData (4-byte words) and PortXmitWait.
    pub xmit_pkts: u64,
    pub xmit_words: u64,
    pub xmit_wait: u64,
    /// The receiving port's PortRcvPkts and PortRcvData.
    pub rcv_pkts: u64,
    pub rcv_words: u64,
}

// The layout the comment above describes: three hot lines, then the cold fields.
const _: () = {
    assert!(std::mem::offset_of!(Channel, faulty) < 64);
    assert!(std::mem::offset_of!(Channel, returns) == 64);
    assert!(std::mem::size_of::<CreditRing>() == 32);
    assert!(std::mem::offset_of!(Channel, prop) == 128);
    assert!(std::mem::offset_of!(Channel, errors) == 192);
};

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
        self.returns.push(CreditBack { at, vl, blocks });
    }

    /// Decides the fate of the packet about to be sent at `at` (counts it as sent), and when
    /// it leaves: at `at`, or when a retrain under way ends (the port holds it till then).
    /// Only for a `faulty` channel: on another every packet leaves at once and arrives intact.
    #[inline(never)]
    pub fn draw_damage(&mut self, at: Time, wire_bytes: u32) -> (Damage, Time) {
        self.sent += 1;
        if self.errors.down {
            return (Damage::Discarded, at);
        }
        let mut at = at;
        if let Some(events) = self.errors.events.as_deref_mut() {
            // The packet is on this direction's wire from `at` until its tail arrives.
            let on_wire = serialize_time(wire_bytes, self.ps_per_byte_fp32) + self.prop;
            loop {
                let o = events.current(at);
                if o.start > at {
                    if o.start < at + on_wire {
                        return (Damage::Lost, at);
                    }
                    break;
                }
                match o.kind {
                    OutageKind::Retrain => at = o.end,
                    OutageKind::Flap => return (Damage::Discarded, at),
                }
            }
        }
        (self.draw_packet_damage(wire_bytes), at)
    }

    /// When a retrain under way at `now` ends, if one is (a sender holds its packets till then).
    #[inline(never)]
    pub fn retrain_end(&mut self, now: Time) -> Option<Time> {
        let o = self.errors.events.as_deref_mut()?.current(now);
        (o.kind == OutageKind::Retrain && o.start <= now).then_some(o.end)
    }

    /// The per-packet part of the error model: drops, losses and bit errors.
    fn draw_packet_damage(&mut self, wire_bytes: u32) -> Damage {
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
        if self.errors.symbol_errors_per_ps > 0.0 {
            let p = self.errors.symbol_errors_per_ps * self.ser_time(wire_bytes).as_ps() as f64;
            if self.rng.chance(p) {
                return Damage::Corrupted;
            }
        }
        Damage::None
    }

    /// Whether the error model can damage or discard a packet (`faulty`).
    pub fn can_damage(&self) -> bool {
        let e = &self.errors;
        e.down || e.loss_rate > 0.0 || e.ber > 0.0 || e.symbol_errors_per_ps > 0.0 || !e.drop_nth.is_empty() || e.events.is_some()
    }
}
