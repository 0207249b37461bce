//! InfiniBand and RoCEv2 wire formats.
//!
//! Each header is a small plain struct (in the manner of smoltcp's `Repr` types) whose fields
//! have the exact widths of the IBTA specification, with a documented `SIZE` in bytes, an
//! `emit` into a byte buffer and a `parse` back out. The simulator itself mostly needs the
//! *sizes* (how long a packet occupies a link); bytes are produced only for packet captures
//! (see [`PacketHeaders::emit_roce_v2`] and [`PcapWriter`]), and `parse` exists so tests can
//! round-trip them. Protocol logic (PSN tracking, retries, credits) lives in `hca`, not here.
//!
//! Sources (field layouts were cross-checked against these):
//! - IBTA Architecture Specification Vol. 1: ch. 5 (LRH, VCRC), ch. 8 (GRH), ch. 9 (BTH,
//!   RETH, AETH, ImmDt, ICRC, opcodes), Annex A17 (RoCEv2: UDP port 4791, ICRC over IP).
//! - Linux `include/rdma/ib_hdrs.h` and the soft-RoCE driver `drivers/infiniband/sw/rxe`
//!   (`rxe_hdr.h` field masks, `rxe_icrc.c` ICRC masking).
//! - Wireshark's `epan/dissectors/packet-infiniband.c` (field names, opcode names).
//!
//! All multi-byte fields are big-endian (network order), except the ICRC: it is the Ethernet
//! CRC-32 and, like Ethernet's FCS, goes on the wire least-significant byte first.
//!
//! Files, one idea each: [`opcode`](Opcode), [`lrh`](Lrh), [`grh`](Grh), [`bth`](Bth),
//! `ext` ([`Reth`], [`Aeth`], [`ImmDt`]), `packet` ([`PacketHeaders`] and the per-packet
//! byte counts), `icrc` (the invariant CRC), `roce` (RoCEv2 framing), `pcap` (capture files).

mod bth;
mod ext;
mod grh;
mod icrc;
pub mod in_flight;
mod lrh;
mod opcode;
mod packet;
mod pcap;
mod roce;

pub use bth::Bth;
pub use ext::{rnr_timer_micros, Aeth, ImmDt, NakCode, Reth, Syndrome, CREDITS_INVALID};
pub use grh::{Grh, GRH_NEXT_HEADER_IBA};
pub use icrc::{icrc_roce_v2_ipv4, ipv4_header_checksum};
pub use lrh::{Lnh, Lrh};
pub use opcode::{Opcode, Position};
pub use packet::{
    PacketHeaders, ETHERNET_FCS_SIZE, ETHERNET_HEADER_SIZE, ETHERNET_MIN_FRAME, ICRC_SIZE, IPV4_HEADER_SIZE,
    ROCE_WIRE_OVERHEAD, UDP_HEADER_SIZE, VCRC_SIZE,
};
pub use pcap::{
    pcap_file_header, pcap_incl_len, pcap_record_header, PcapWriter, PCAP_FILE_HEADER_BYTES, PCAP_LINKTYPE_ETHERNET, PCAP_MAGIC_NANOS,
    PCAP_RECORD_HEADER_BYTES, PCAP_SNAPLEN,
};
pub use roce::{
    ip_for_lid, mac_for_lid, parse_roce_v2, udp_src_port_for_qps, RoceEndpoints, RoceV2Packet, ROCE_V2_UDP_PORT,
};

use std::fmt;

/// Why bytes could not be parsed as a header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    /// The buffer is shorter than the header (or than a length field inside it says).
    Truncated,
    /// A field holds a value this model does not accept (named `header.field`).
    BadValue { field: &'static str },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated => write!(f, "buffer too short for the header"),
            WireError::BadValue { field } => write!(f, "bad value in field `{field}`"),
        }
    }
}

impl std::error::Error for WireError {}

/// `buf[..n]`, or `Truncated` when the buffer is shorter: every `parse` starts with this, so
/// the indexing that follows cannot panic.
fn need(buf: &[u8], n: usize) -> Result<&[u8], WireError> {
    buf.get(..n).ok_or(WireError::Truncated)
}

/// A 24-bit big-endian field (QPN, PSN, MSN) from three bytes.
fn get_u24(b: &[u8]) -> u32 {
    (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2])
}

/// Writes the low 24 bits of `v` big-endian into three bytes.
fn put_u24(b: &mut [u8], v: u32) {
    b[0] = (v >> 16) as u8;
    b[1] = (v >> 8) as u8;
    b[2] = v as u8;
}

/// Mask of a 24-bit field (QPN, PSN, MSN).
pub const MASK_24: u32 = 0x00FF_FFFF;
