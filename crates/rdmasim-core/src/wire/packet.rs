//! One packet's headers together, and the byte counts that follow from them: how long the
//! packet occupies an InfiniBand link, and how long its RoCEv2 frame occupies an Ethernet link.
use super::{Aeth, Bth, Grh, ImmDt, Lnh, Lrh, Opcode, Reth, WireError};

/// Invariant CRC (IBTA Vol. 1 §7.8.1): CRC-32 over the fields no switch or router changes;
/// end to end, on IB and RoCE alike.
pub const ICRC_SIZE: usize = 4;
/// Variant CRC (IBTA Vol. 1 §7.8.2): CRC-16 over the whole IB packet, recomputed at each hop.
/// Native IB only; RoCE relies on the Ethernet FCS instead.
pub const VCRC_SIZE: usize = 2;

/// Ethernet II header: destination MAC 6, source MAC 6, EtherType 2. No 802.1Q tag is
/// modelled (an assumption: a PFC/VLAN deployment adds 4 bytes per frame).
pub const ETHERNET_HEADER_SIZE: usize = 14;
/// IPv4 header without options (RoCEv2 over IPv4).
pub const IPV4_HEADER_SIZE: usize = 20;
/// UDP header.
pub const UDP_HEADER_SIZE: usize = 8;
/// Ethernet frame check sequence (CRC-32) at the end of every frame.
pub const ETHERNET_FCS_SIZE: usize = 4;
/// Smallest Ethernet frame, FCS included (IEEE 802.3 §3.2.8); shorter frames are padded.
pub const ETHERNET_MIN_FRAME: usize = 64;
/// Per-frame Ethernet overhead outside the frame itself: preamble 7 + start-of-frame
/// delimiter 1 + minimum inter-frame gap 12 (IEEE 802.3). Add it to
/// [`PacketHeaders::roce_frame_bytes`] for the time a frame holds the link.
pub const ROCE_WIRE_OVERHEAD: usize = 20;

/// The headers of one RC packet, with its payload length.
///
/// Which extension headers are present is stated by the `Option`s; for a well-formed packet
/// that matches what the opcode requires ([`PacketHeaders::validate`] checks it, and
/// [`PacketHeaders::rc`] builds it that way). The LRH (and GRH) describe native IB; RoCEv2
/// framing ignores them and uses [`RoceEndpoints`](super::RoceEndpoints) instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketHeaders {
    pub lrh: Lrh,
    pub grh: Option<Grh>,
    pub bth: Bth,
    pub reth: Option<Reth>,
    pub aeth: Option<Aeth>,
    /// Immediate data (the ImmDt header).
    pub imm: Option<u32>,
    /// Payload bytes, before padding.
    pub payload_len: u32,
}

impl PacketHeaders {
    /// An RC packet between two ports of one subnet (no GRH): LRH on VL 0 / SL 0, a BTH with
    /// [`Bth::new`]'s defaults, and zero-valued extension headers exactly where `opcode`
    /// needs them (an ACK gets an ACK syndrome without credits); lengths are filled in. Set
    /// the extension-header values, `ack_req` etc. afterwards, and call
    /// [`fill_lengths`](Self::fill_lengths) again if the payload or the GRH change.
    pub fn rc(opcode: Opcode, slid: u16, dlid: u16, dest_qp: u32, psn: u32, payload_len: u32) -> Self {
        let mut h = PacketHeaders {
            lrh: Lrh { vl: 0, lver: 0, sl: 0, lnh: Lnh::IbaLocal, dlid, pkt_len: 0, slid },
            grh: None,
            bth: Bth::new(opcode, dest_qp, psn),
            reth: opcode.has_reth().then(Reth::default),
            aeth: opcode.has_aeth().then(|| Aeth::ack(0)),
            imm: opcode.has_immdt().then_some(0),
            payload_len,
        };
        h.fill_lengths();
        h
    }

    /// Bytes of the extension headers present (RETH 16, AETH 4, ImmDt 4).
    pub fn ext_bytes(&self) -> u32 {
        let reth = if self.reth.is_some() { Reth::SIZE } else { 0 };
        let aeth = if self.aeth.is_some() { Aeth::SIZE } else { 0 };
        let imm = if self.imm.is_some() { ImmDt::SIZE } else { 0 };
        (reth + aeth + imm) as u32
    }

    /// Pad bytes (0-3) after the payload: IBA packets are a whole number of 4-byte words, and
    /// the BTH's PadCnt says how many pad bytes the receiver must drop.
    pub fn pad(&self) -> u32 {
        (4 - self.payload_len % 4) % 4
    }

    /// The transport part shared by IB and RoCEv2: BTH + extension headers + payload + pad
    /// (everything the ICRC covers after the network header).
    pub fn transport_bytes(&self) -> u32 {
        Bth::SIZE as u32 + self.ext_bytes() + self.payload_len + self.pad()
    }

    /// Header bytes of a native IB packet: LRH 8 + GRH 40 (if present) + BTH 12 + extension
    /// headers. Payload, pad and CRCs are not included.
    pub fn ib_header_bytes(&self) -> u32 {
        let grh = if self.grh.is_some() { Grh::SIZE } else { 0 };
        (Lrh::SIZE + grh + Bth::SIZE) as u32 + self.ext_bytes()
    }

    /// Bytes the packet occupies on an InfiniBand link: LRH, GRH (if any), BTH, extension
    /// headers, payload, pad, ICRC 4 and VCRC 2. Link-layer framing (start/end delimiters,
    /// 8b/10b or 64b/66b coding) belongs to the link model, not here.
    pub fn ib_wire_bytes(&self) -> u32 {
        self.ib_header_bytes() + self.payload_len + self.pad() + (ICRC_SIZE + VCRC_SIZE) as u32
    }

    /// The LRH PktLen value: LRH through ICRC in 4-byte words (the VCRC is not counted).
    /// Saturates at `u16::MAX`; [`validate`](Self::validate) rejects anything past 11 bits.
    pub fn lrh_pkt_len_words(&self) -> u16 {
        let bytes = self.ib_wire_bytes() - VCRC_SIZE as u32;
        u16::try_from(bytes / 4).unwrap_or(u16::MAX)
    }

    /// The GRH PayLen value: bytes after the GRH through the ICRC.
    pub fn grh_pay_len(&self) -> u16 {
        u16::try_from(self.transport_bytes() + ICRC_SIZE as u32).unwrap_or(u16::MAX)
    }

    /// Bytes of the RoCEv2 frame as it crosses the wire, preamble excluded: Ethernet 14 +
    /// IPv4 20 + UDP 8 + BTH + extension headers + payload + pad + ICRC 4 + FCS 4, and at
    /// least the 64-byte Ethernet minimum (a zero-length SEND would be 62). Add
    /// [`ROCE_WIRE_OVERHEAD`] for preamble, SFD and inter-frame gap.
    pub fn roce_frame_bytes(&self) -> u32 {
        let frame = (ETHERNET_HEADER_SIZE + IPV4_HEADER_SIZE + UDP_HEADER_SIZE) as u32
            + self.transport_bytes()
            + (ICRC_SIZE + ETHERNET_FCS_SIZE) as u32;
        frame.max(ETHERNET_MIN_FRAME as u32)
    }

    /// Bytes of the frame as a capture holds it: [`roce_frame_bytes`](Self::roce_frame_bytes)
    /// without the FCS (captures on Linux do not include it), which is what
    /// [`emit_roce_v2`](Self::emit_roce_v2) writes.
    pub fn roce_capture_bytes(&self) -> u32 {
        self.roce_frame_bytes() - ETHERNET_FCS_SIZE as u32
    }

    /// Sets the length fields from the structure: LRH PktLen and LNH, GRH PayLen, BTH PadCnt.
    pub fn fill_lengths(&mut self) {
        self.lrh.lnh = if self.grh.is_some() { Lnh::IbaGlobal } else { Lnh::IbaLocal };
        self.lrh.pkt_len = self.lrh_pkt_len_words();
        let pay_len = self.grh_pay_len();
        if let Some(grh) = self.grh.as_mut() {
            grh.pay_len = pay_len;
        }
        self.bth.pad_count = self.pad() as u8;
    }

    /// Checks that this is a well-formed packet: extension headers exactly as the opcode
    /// requires, no payload where the opcode has none, length fields as
    /// [`fill_lengths`](Self::fill_lengths) sets them, and a length the 11-bit PktLen can hold.
    pub fn validate(&self) -> Result<(), WireError> {
        let op = self.bth.opcode;
        let bad = |field| Err(WireError::BadValue { field });
        if self.reth.is_some() != op.has_reth() {
            return bad("reth");
        }
        if self.aeth.is_some() != op.has_aeth() {
            return bad("aeth");
        }
        if self.imm.is_some() != op.has_immdt() {
            return bad("immdt");
        }
        if !op.has_payload() && self.payload_len != 0 {
            return bad("payload_len");
        }
        if self.lrh_pkt_len_words() > Lrh::MAX_PKT_LEN_WORDS || self.lrh.pkt_len != self.lrh_pkt_len_words() {
            return bad("lrh.pkt_len");
        }
        let lnh = if self.grh.is_some() { Lnh::IbaGlobal } else { Lnh::IbaLocal };
        if self.lrh.lnh != lnh {
            return bad("lrh.lnh");
        }
        if let Some(grh) = &self.grh {
            if grh.pay_len != self.grh_pay_len() {
                return bad("grh.pay_len");
            }
        }
        if u32::from(self.bth.pad_count) != self.pad() {
            return bad("bth.pad_count");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{NakCode, Syndrome};

    fn pkt(op: Opcode, payload: u32) -> PacketHeaders {
        PacketHeaders::rc(op, 1, 2, 0x11, 100, payload)
    }

    #[test]
    fn write_first_carries_reth_in_its_size() {
        let p = pkt(Opcode::RdmaWriteFirst, 1024);
        assert_eq!(p.ib_header_bytes(), 8 + 12 + 16);
        assert_eq!(p.ib_wire_bytes(), 8 + 12 + 16 + 1024 + 4 + 2);
        assert_eq!(p.lrh.pkt_len, (8 + 12 + 16 + 1024 + 4) / 4);
        assert_eq!(p.roce_frame_bytes(), 14 + 20 + 8 + 12 + 16 + 1024 + 4 + 4);
        assert_eq!(p.roce_capture_bytes() + 4, p.roce_frame_bytes());
        assert_eq!(p.validate(), Ok(()));
    }

    #[test]
    fn middle_and_last_packets_have_no_extension_headers() {
        for op in [Opcode::RdmaWriteMiddle, Opcode::RdmaWriteLast, Opcode::SendMiddle] {
            assert_eq!(pkt(op, 4096).ib_wire_bytes(), 8 + 12 + 4096 + 4 + 2);
        }
        assert_eq!(pkt(Opcode::RdmaWriteLastWithImmediate, 4096).ib_wire_bytes(), 8 + 12 + 4 + 4096 + 4 + 2);
        assert_eq!(pkt(Opcode::RdmaWriteOnlyWithImmediate, 8).ib_wire_bytes(), 8 + 12 + 16 + 4 + 8 + 4 + 2);
    }

    #[test]
    fn acks_and_read_requests_are_header_only() {
        let ack = pkt(Opcode::Acknowledge, 0);
        assert_eq!(ack.ib_wire_bytes(), 8 + 12 + 4 + 4 + 2);
        assert_eq!(ack.roce_frame_bytes(), 14 + 20 + 8 + 12 + 4 + 4 + 4);
        let rr = pkt(Opcode::RdmaReadRequest, 0);
        assert_eq!(rr.ib_wire_bytes(), 8 + 12 + 16 + 4 + 2);
        assert_eq!(pkt(Opcode::RdmaReadResponseMiddle, 256).ib_wire_bytes(), 8 + 12 + 256 + 4 + 2);
        assert_eq!(pkt(Opcode::RdmaReadResponseFirst, 256).ib_wire_bytes(), 8 + 12 + 4 + 256 + 4 + 2);
    }

    #[test]
    fn payload_is_padded_to_four_bytes() {
        for (len, pad) in [(0, 0), (1, 3), (2, 2), (3, 1), (4, 0), (13, 3)] {
            let p = pkt(Opcode::SendOnly, len);
            assert_eq!(p.pad(), pad);
            assert_eq!(u32::from(p.bth.pad_count), pad);
            assert_eq!(p.ib_wire_bytes(), 8 + 12 + len + pad + 4 + 2);
            assert_eq!(p.ib_wire_bytes() % 2, 0);
        }
    }

    #[test]
    fn tiny_roce_frames_are_padded_to_the_ethernet_minimum() {
        // 14 + 20 + 8 + 12 + 0 + 4 + 4 = 62 < 64.
        assert_eq!(pkt(Opcode::SendOnly, 0).roce_frame_bytes(), 64);
        assert_eq!(pkt(Opcode::SendOnly, 4).roce_frame_bytes(), 66);
    }

    #[test]
    fn grh_adds_forty_bytes_and_sets_lnh_and_pay_len() {
        let mut p = pkt(Opcode::SendOnly, 100);
        let local = p.ib_wire_bytes();
        p.grh = Some(Grh::default());
        assert_eq!(p.validate(), Err(WireError::BadValue { field: "lrh.pkt_len" }));
        p.fill_lengths();
        assert_eq!(p.ib_wire_bytes(), local + 40);
        assert_eq!(p.lrh.lnh, Lnh::IbaGlobal);
        assert_eq!(p.grh.unwrap().pay_len, 12 + 100 + 4); // BTH + payload (no pad) + ICRC
        assert_eq!(p.validate(), Ok(()));
    }

    #[test]
    fn validate_catches_headers_that_do_not_match_the_opcode() {
        let mut p = pkt(Opcode::RdmaWriteMiddle, 64);
        p.reth = Some(Reth::default());
        p.fill_lengths();
        assert_eq!(p.validate(), Err(WireError::BadValue { field: "reth" }));
        let mut a = pkt(Opcode::Acknowledge, 0);
        a.aeth = Some(Aeth { syndrome: Syndrome::Nak(NakCode::PsnSequenceError), msn: 3 });
        assert_eq!(a.validate(), Ok(()));
        a.payload_len = 4;
        a.fill_lengths();
        assert_eq!(a.validate(), Err(WireError::BadValue { field: "payload_len" }));
        let mut w = pkt(Opcode::SendOnly, 16);
        w.imm = Some(1);
        w.fill_lengths();
        assert_eq!(w.validate(), Err(WireError::BadValue { field: "immdt" }));
        let huge = pkt(Opcode::SendOnly, 8192);
        assert_eq!(huge.validate(), Err(WireError::BadValue { field: "lrh.pkt_len" }));
    }
}
