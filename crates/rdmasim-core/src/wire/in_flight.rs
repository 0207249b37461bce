//! The simulator's packet: a compact description of one InfiniBand packet in flight. The exact
//! header layouts are beside it in `wire` (parsed and emitted for captures); here is what the
//! transport and the fabric act on, and the packet's size on the wire, from those layouts'
//! sizes. Packets live in a slab and are passed around by index, so the event loop allocates
//! nothing per packet.
use super::{Aeth, Bth, ImmDt, Lrh, Reth, ICRC_SIZE, VCRC_SIZE};
use crate::engine::Slab;

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

/// What a packet is, with its position in a multi-packet message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PktKind {
    Send { first: bool, last: bool, imm: bool },
    Write { first: bool, last: bool, imm: bool },
    ReadReq,
    ReadResp { first: bool, last: bool },
    Ack,
    /// NAK, PSN sequence error.
    NakSeq,
    /// RNR NAK carrying the responder's min_rnr_timer code.
    RnrNak { timer: u8 },
    /// Stop/resume SRQ flow control (seeds/001, not in the IBTA): the responder's SRQ was empty,
    /// the packet at `psn` was dropped; the requester holds the QP until a resume request.
    SrqStop,
    /// The receiving process refilled its SRQ: the requester retransmits from the stopped PSN.
    SrqResume,
}

impl PktKind {
    /// Packets that travel from requester to responder (the others are responses).
    pub fn is_request(self) -> bool {
        matches!(self, PktKind::Send { .. } | PktKind::Write { .. } | PktKind::ReadReq)
    }
    pub fn is_control(self) -> bool {
        matches!(self, PktKind::Ack | PktKind::NakSeq | PktKind::RnrNak { .. } | PktKind::SrqStop | PktKind::SrqResume)
    }
}

/// Header bytes on an IB link beyond the payload, per packet kind (IBTA Vol. 1 ch. 5, 9):
/// LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26, plus RETH 16 (first WRITE, READ request),
/// AETH 4 (ACK/NAK, first/last/only READ response), ImmDt 4 (with immediate).
pub const LRH_BTH_CRC: u32 = (Lrh::SIZE + Bth::SIZE + ICRC_SIZE + VCRC_SIZE) as u32;
pub const RETH: u32 = Reth::SIZE as u32;
pub const AETH: u32 = Aeth::SIZE as u32;
pub const IMMDT: u32 = ImmDt::SIZE as u32;

pub fn ib_wire_bytes(kind: PktKind, payload: u32) -> u32 {
    let ext = match kind {
        PktKind::Send { imm, last, .. } => if imm && last { IMMDT } else { 0 },
        PktKind::Write { first, last, imm } => (if first { RETH } else { 0 }) + if imm && last { IMMDT } else { 0 },
        PktKind::ReadReq => RETH,
        PktKind::ReadResp { first, last } => if first || last { AETH } else { 0 },
        // Stop and resume requests are sized like an ACK (BTH + AETH), as the study proposes
        // them as transport-level messages.
        PktKind::Ack | PktKind::NakSeq | PktKind::RnrNak { .. } | PktKind::SrqStop | PktKind::SrqResume => AETH,
    };
    let pad = (4 - payload % 4) % 4;
    LRH_BTH_CRC + ext + payload + pad
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub slid: u16,
    pub dlid: u16,
    pub vl: u8,
    /// Service level (LRH.SL): the VL at each hop follows from it.
    pub sl: u8,
    pub src_qp: u32,
    pub dst_qp: u32,
    pub kind: PktKind,
    pub psn: u32,
    pub ack_req: bool,
    pub payload: u32,
    pub wire_bytes: u32,
    /// AETH MSN for responses; immediate data for *_WITH_IMM.
    pub msn: u32,
    /// RETH DMA length (first WRITE packet, READ request).
    pub dma_len: u32,
    pub remote_va: u64,
    /// Set by the link when the packet was corrupted or lost in flight (a packet is made
    /// intact, and one that is not goes no further).
    pub damage: Damage,
}

impl Packet {
    /// What the fabric reads of it at each hop (`Hop`).
    #[inline]
    pub fn hop(&self) -> Hop {
        Hop { wire_bytes: self.wire_bytes, dlid: self.dlid, vl: self.vl }
    }
}

/// What links and switches read of a packet to carry it: its size on the wire, its
/// destination and its VL, none of which change on the way. A switch keeps them with the
/// packet in its output queue (fabric/switch.rs `Queued`) and passes them on to the next
/// hop, so a packet crossing the fabric reads the packet store only at its ends: on a k = 16
/// fat tree the store (some 10 000 packets in flight) does not stay in cache, and reading a
/// packet was a cache miss on every switch hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    pub wire_bytes: u32,
    pub dlid: u16,
    pub vl: u8,
}

/// The packets in flight, by id (ids are reused).
pub type Packets = Slab<Packet, PacketId>;
pub use crate::ids::PacketId;
