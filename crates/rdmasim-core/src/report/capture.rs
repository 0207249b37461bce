//! Packet capture: a copy of each packet as a host port sends it (a tap on the wire before any
//! loss, like ibdump on the sender), filtered by host and QP, turned into a RoCEv2 pcap at the end.
//!
//! Memory: the kept packets wait as records (64 B each) and the pcap is made only when asked
//! for, streamed to a writer ([`Capture::write_pcap`]: a file, or a buffer of exactly
//! [`Capture::pcap_bytes`] bytes). The file's size is bounded by `capture_max_bytes`, and the
//! records take less than the file (64 B against at least 78 B a frame with its record header,
//! an ACK's), so the budget bounds both whatever `capture_max_packets` says; a record that
//! finds no memory stops the capture instead of aborting the run.
use crate::engine::Time;
use crate::ids::{HostId};
use crate::wire::in_flight::{Packet, PktKind};
use crate::wire::{
    pcap_file_header, pcap_incl_len, pcap_record_header, udp_src_port_for_qps, Aeth, NakCode, Opcode, PacketHeaders, Reth, RoceEndpoints, Syndrome,
    CREDITS_INVALID, MASK_24, PCAP_FILE_HEADER_BYTES, PCAP_RECORD_HEADER_BYTES,
};
use std::io::{self, Write};

/// `capture_max_packets` when the scenario gives none.
pub const DEFAULT_MAX_PACKETS: u64 = 100_000;
/// `capture_max_bytes` when the scenario gives none: 1 GiB, 2.5 times the largest capture the
/// default packet limit makes (100 000 frames of a 4096 B MTU, 4.2 KB each with their record
/// headers: 0.42 GB), so it cuts no capture that the packet limit would have kept whole.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;
/// Largest `capture_max_bytes`: 4 GiB. Python's `Result.pcap` holds the whole file as one
/// bytes object, and the kept records take up to 0.82 times its size (64 B for a frame of at
/// least 78 B) while the run lasts; a larger capture is better cut down with `capture_hosts`,
/// `capture_qps` or a shorter run.
pub const MAX_MAX_BYTES: u64 = 1 << 32;

pub struct Capture {
    pub hosts: Vec<u32>,
    pub qps: Vec<u32>,
    pub max_packets: u64,
    /// Budget of the pcap file, headers included.
    pub max_bytes: u64,
    pub records: Vec<(Time, Packet)>,
    /// Packets kept (the length of `records` until they are handed over, [`Capture::hand_over`]).
    pub kept: u64,
    /// Packets that matched but were not kept because of a limit.
    pub truncated: u64,
    /// Size of the pcap file the kept packets make, its header included.
    pub pcap_bytes: u64,
    /// What stopped the capture: `"capture_max_packets"`, `"capture_max_bytes"` or
    /// `"out of memory"` (a record could not be stored); `None` while it keeps packets.
    pub stopped_by: Option<&'static str>,
    /// The records were moved out ([`Capture::hand_over`]); only the counts are left.
    pub handed_over: bool,
}

impl Capture {
    pub fn new(hosts: Vec<u32>, qps: Vec<u32>, max_packets: u64, max_bytes: u64) -> Capture {
        Capture { hosts, qps, max_packets, max_bytes, records: Vec::new(), kept: 0, truncated: 0, pcap_bytes: PCAP_FILE_HEADER_BYTES, stopped_by: None, handed_over: false }
    }

    /// Records a packet sent by host `src` to host `dst` (None: no host has its DLID).
    pub fn record(&mut self, at: Time, src: HostId, dst: Option<HostId>, p: &Packet) {
        let picked = |h: HostId| self.hosts.contains(&h.0);
        if !self.hosts.is_empty() && !picked(src) && !dst.is_some_and(picked) {
            return;
        }
        if !self.qps.is_empty() && !self.qps.contains(&p.src_qp) && !self.qps.contains(&p.dst_qp) {
            return;
        }
        if self.stopped_by.is_none() {
            let size = PCAP_RECORD_HEADER_BYTES + u64::from(pcap_incl_len(headers_of(p).roce_capture_bytes() as usize));
            self.stopped_by = if self.kept >= self.max_packets {
                Some("capture_max_packets")
            } else if self.pcap_bytes + size > self.max_bytes {
                Some("capture_max_bytes")
            } else if !self.room_for_one() {
                Some("out of memory")
            } else {
                self.records.push((at, *p));
                self.kept += 1;
                self.pcap_bytes += size;
                return;
            };
        }
        self.truncated += 1;
    }

    /// Room for one more record, growing by a quarter (at least 4096 records) when full, so
    /// the slack stays small; false when the memory cannot be had (the capture then stops, as
    /// at a limit, rather than the allocation failure aborting the process and the run's
    /// results with it).
    fn room_for_one(&mut self) -> bool {
        let r = &mut self.records;
        r.len() < r.capacity() || r.try_reserve_exact((r.len() / 4).max(4096)).is_ok()
    }

    /// Moves the kept records out into a capture of their own (to write or hand to Python
    /// after the run, while the simulation itself can be dropped); this one keeps its counts,
    /// so the run's table still reports them.
    pub fn hand_over(&mut self) -> Capture {
        self.handed_over = true;
        Capture { hosts: self.hosts.clone(), qps: self.qps.clone(), records: std::mem::take(&mut self.records), handed_over: false, ..*self }
    }
}

impl Capture {
    /// Writes the capture as a pcap file of exactly [`pcap_bytes`](Self::pcap_bytes) bytes:
    /// each packet framed as RoCEv2 (Ethernet/IPv4/UDP 4791) so Wireshark and tshark decode
    /// opcodes, PSNs, AETH syndromes and RETH fields. Payload bytes are not simulated; they are
    /// filled with a constant. One frame at a time: nothing the size of the file is built.
    pub fn write_pcap<W: Write>(&self, out: &mut W) -> io::Result<()> {
        out.write_all(&pcap_file_header())?;
        let mut frame = Vec::with_capacity(4200);
        for (t, p) in &self.records {
            frame.clear();
            let h = headers_of(p);
            let ep = RoceEndpoints::for_lids(p.slid, p.dlid, udp_src_port_for_qps(p.src_qp, p.dst_qp));
            h.emit_roce_v2(&ep, 0xab, &mut frame);
            out.write_all(&pcap_record_header(t.as_ps(), frame.len()))?;
            out.write_all(&frame[..pcap_incl_len(frame.len()) as usize])?;
        }
        Ok(())
    }

    /// The capture as a pcap file in memory ([`write_pcap`](Self::write_pcap)).
    pub fn to_pcap(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(usize::try_from(self.pcap_bytes).unwrap_or(usize::MAX));
        self.write_pcap(&mut v).expect("writing to a Vec cannot fail");
        v
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
    use crate::wire::in_flight::Damage;
    use crate::wire::in_flight::ib_wire_bytes;

    /// The memory claims of the module doc: a record is at most 64 B, and the smallest frame
    /// (an ACK) takes 78 B of the file with its record header.
    #[test]
    fn a_record_takes_less_memory_than_its_frame_in_the_file() {
        assert!(std::mem::size_of::<(Time, Packet)>() <= 64, "{} B", std::mem::size_of::<(Time, Packet)>());
        let mut c = Capture::new(vec![], vec![], 10, DEFAULT_MAX_BYTES);
        let ack = Packet {
            slid: 2, dlid: 1, vl: 0, sl: 0, src_qp: 0x100, dst_qp: 0x100, kind: PktKind::Ack, psn: 7, ack_req: false, payload: 0,
            wire_bytes: 0, msn: 0, dma_len: 0, remote_va: 0, damage: Damage::None,
        };
        c.record(Time::ZERO, HostId(1), Some(HostId(0)), &ack);
        assert_eq!(c.pcap_bytes, 24 + 78);
        assert_eq!(c.to_pcap().len(), 24 + 78);
    }

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
                    slid: 1, dlid: 2, vl: 0, sl: 0, src_qp: 0x100, dst_qp: 0x101, kind, psn: 7, ack_req: false, payload,
                    wire_bytes: 0, msn: 0, dma_len: 0, remote_va: 0, damage: Damage::None,
                };
                assert_eq!(ib_wire_bytes(kind, payload), headers_of(&p).ib_wire_bytes(), "{kind:?} {payload}");
            }
        }
    }
}
