//! Packet capture: a copy of each packet as a host port sends it (a tap on the wire before any
//! loss, like ibdump on the sender), filtered by host and QP, turned into a RoCEv2 pcap at the end.
use crate::engine::Time;
use crate::hca::packet::{Packet, PktKind};
use crate::wire::{
    udp_src_port_for_qps, Aeth, NakCode, Opcode, PacketHeaders, PcapWriter, Reth, RoceEndpoints, Syndrome, CREDITS_INVALID, MASK_24,
};

pub struct Capture {
    pub hosts: Vec<u32>,
    pub qps: Vec<u32>,
    pub max_packets: u64,
    pub records: Vec<(Time, Packet)>,
    /// Packets that matched but were not kept because of `max_packets`.
    pub truncated: u64,
}

impl Capture {
    pub fn new(hosts: Vec<u32>, qps: Vec<u32>, max_packets: u64) -> Capture {
        Capture { hosts, qps, max_packets, records: Vec::new(), truncated: 0 }
    }

    /// Records a packet sent by host `h` (LIDs are host index + 1).
    pub fn record(&mut self, at: Time, h: u32, p: &Packet) {
        let dst_host = p.dlid as u32 - 1;
        if !self.hosts.is_empty() && !self.hosts.contains(&h) && !self.hosts.contains(&dst_host) {
            return;
        }
        if !self.qps.is_empty() && !self.qps.contains(&p.src_qp) && !self.qps.contains(&p.dst_qp) {
            return;
        }
        if self.records.len() as u64 >= self.max_packets {
            self.truncated += 1;
            return;
        }
        self.records.push((at, *p));
    }
}

impl Capture {
    /// The capture as a pcap file: each packet framed as RoCEv2 (Ethernet/IPv4/UDP 4791) so
    /// Wireshark and tshark decode opcodes, PSNs, AETH syndromes and RETH fields. Payload bytes
    /// are not simulated; they are filled with a constant.
    pub fn to_pcap(&self) -> Vec<u8> {
        let mut w = PcapWriter::new();
        let mut frame = Vec::with_capacity(4200);
        for (t, p) in &self.records {
            frame.clear();
            let h = headers_of(p);
            let ep = RoceEndpoints::for_lids(p.slid, p.dlid, udp_src_port_for_qps(p.src_qp, p.dst_qp));
            h.emit_roce_v2(&ep, 0xab, &mut frame);
            w.write_frame(t.as_ps(), &frame);
        }
        w.into_bytes()
    }
}

/// The wire opcode of a simulated packet.
pub fn opcode_of(kind: PktKind) -> Opcode {
    use Opcode::*;
    match kind {
        PktKind::Send { first, last, imm } => match (first, last, imm) {
            (true, true, false) => SendOnly,
            (true, true, true) => SendOnlyWithImmediate,
            (true, false, _) => SendFirst,
            (false, true, false) => SendLast,
            (false, true, true) => SendLastWithImmediate,
            (false, false, _) => SendMiddle,
        },
        PktKind::Write { first, last, imm } => match (first, last, imm) {
            (true, true, false) => RdmaWriteOnly,
            (true, true, true) => RdmaWriteOnlyWithImmediate,
            (true, false, _) => RdmaWriteFirst,
            (false, true, false) => RdmaWriteLast,
            (false, true, true) => RdmaWriteLastWithImmediate,
            (false, false, _) => RdmaWriteMiddle,
        },
        PktKind::ReadReq => RdmaReadRequest,
        PktKind::ReadResp { first, last } => match (first, last) {
            (true, true) => RdmaReadResponseOnly,
            (true, false) => RdmaReadResponseFirst,
            (false, true) => RdmaReadResponseLast,
            (false, false) => RdmaReadResponseMiddle,
        },
        PktKind::Ack | PktKind::NakSeq | PktKind::RnrNak { .. } | PktKind::SrqStop | PktKind::SrqResume => Acknowledge,
    }
}

/// Full headers of a simulated packet, as the wire module encodes them.
pub fn headers_of(p: &Packet) -> PacketHeaders {
    let mut h = PacketHeaders::rc(opcode_of(p.kind), p.slid, p.dlid, p.dst_qp & MASK_24, p.psn & MASK_24, p.payload);
    h.bth.ack_req = p.ack_req;
    if let Some(r) = h.reth.as_mut() {
        *r = Reth { va: p.remote_va, rkey: 0x1234, dma_len: p.dma_len };
    }
    if let Some(a) = h.aeth.as_mut() {
        let syndrome = match p.kind {
            PktKind::NakSeq => Syndrome::Nak(NakCode::PsnSequenceError),
            PktKind::RnrNak { timer } => Syndrome::RnrNak { timer },
            // No IBTA encoding exists for the proposed stop request: captured as an RNR NAK
            // with timer code 0 (the longest wait), the resume request as an ACK.
            PktKind::SrqStop => Syndrome::RnrNak { timer: 0 },
            _ => Syndrome::Ack { credits: CREDITS_INVALID },
        };
        *a = Aeth { syndrome, msn: p.msn & MASK_24 };
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::channel::Damage;
    use crate::hca::packet::ib_wire_bytes;

    /// The event loop's quick size formula agrees with the wire module's full headers.
    #[test]
    fn packet_sizes_agree_with_the_wire_module() {
        let kinds = [
            PktKind::Send { first: true, last: true, imm: false },
            PktKind::Send { first: false, last: true, imm: true },
            PktKind::Send { first: false, last: false, imm: false },
            PktKind::Write { first: true, last: false, imm: false },
            PktKind::Write { first: true, last: true, imm: true },
            PktKind::Write { first: false, last: true, imm: false },
            PktKind::ReadReq,
            PktKind::ReadResp { first: true, last: false },
            PktKind::ReadResp { first: false, last: false },
            PktKind::ReadResp { first: false, last: true },
            PktKind::Ack,
            PktKind::NakSeq,
            PktKind::RnrNak { timer: 14 },
        ];
        for kind in kinds {
            for payload in [0u32, 1, 2, 100, 4095, 4096] {
                let payload = if kind.is_control() || kind == PktKind::ReadReq { 0 } else { payload };
                let p = Packet {
                    slid: 1, dlid: 2, vl: 0, src_qp: 0x100, dst_qp: 0x101, kind, psn: 7, ack_req: false, payload,
                    wire_bytes: 0, msn: 0, dma_len: 0, remote_va: 0, damage: Damage::None, sent_at: Time::ZERO,
                };
                assert_eq!(ib_wire_bytes(kind, payload), headers_of(&p).ib_wire_bytes(), "{kind:?} {payload}");
            }
        }
    }
}
