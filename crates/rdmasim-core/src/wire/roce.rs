//! RoCEv2 framing (IBTA Vol. 1 Annex A17): the IB transport (BTH onwards) carried in
//! Ethernet / IPv4 / UDP to port 4791, with the ICRC still at the end. Used to write packet
//! captures that Wireshark decodes; the simulated fabric itself only needs the sizes.
//!
//! ```text
//! | Ethernet 14 | IPv4 20 | UDP 8 | BTH 12 | RETH/AETH/ImmDt | payload | pad | ICRC 4 | (FCS 4)
//! ```
use super::{
    icrc_roce_v2_ipv4, ipv4_header_checksum, Aeth, Bth, ImmDt, PacketHeaders, Reth, WireError, ETHERNET_FCS_SIZE,
    ETHERNET_HEADER_SIZE, ETHERNET_MIN_FRAME, ICRC_SIZE, IPV4_HEADER_SIZE, UDP_HEADER_SIZE,
};

/// The UDP destination port IANA assigned to RoCEv2.
pub const ROCE_V2_UDP_PORT: u16 = 4791;

const ETHERTYPE_IPV4: u16 = 0x0800;
const IP_PROTO_UDP: u8 = 17;
/// TTL of the frames we write (Linux's default `ip_default_ttl`; an assumption, it is masked
/// out of the ICRC anyway).
const IPV4_TTL: u8 = 64;
/// IPv4 flags/fragment field with Don't Fragment set: RoCE packets are never fragmented.
const IPV4_FLAGS_DF: u16 = 0x4000;

/// Addresses of one RoCEv2 packet: what Ethernet, IP and UDP need beyond the IB headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoceEndpoints {
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    /// UDP source port: RoCEv2 uses it as flow entropy for ECMP (see
    /// [`udp_src_port_for_qps`]); the destination port is always [`ROCE_V2_UDP_PORT`].
    pub udp_src_port: u16,
}

impl RoceEndpoints {
    /// Endpoints for a packet from LID `slid` to LID `dlid`, using [`mac_for_lid`] and
    /// [`ip_for_lid`] so every simulated port shows up as a distinct host in a capture.
    pub fn for_lids(slid: u16, dlid: u16, udp_src_port: u16) -> RoceEndpoints {
        RoceEndpoints {
            src_mac: mac_for_lid(slid),
            dst_mac: mac_for_lid(dlid),
            src_ip: ip_for_lid(slid),
            dst_ip: ip_for_lid(dlid),
            udp_src_port,
        }
    }
}

/// A deterministic MAC for a simulated port: `02:00:00:00:<lid hi>:<lid lo>` (the 0x02 bit
/// marks a locally administered unicast address, so it cannot clash with a vendor's).
pub fn mac_for_lid(lid: u16) -> [u8; 6] {
    let [hi, lo] = lid.to_be_bytes();
    [0x02, 0, 0, 0, hi, lo]
}

/// A deterministic IPv4 address for a simulated port: `10.0.<lid hi>.<lid lo>`, inside
/// 10.0.0.0/16. Unicast LIDs (1..=0xBFFF) never hit the network or broadcast address.
pub fn ip_for_lid(lid: u16) -> [u8; 4] {
    let [hi, lo] = lid.to_be_bytes();
    [10, 0, hi, lo]
}

/// The UDP source port Linux derives for an RC connection without a GRH flow label
/// (`rdma_get_udp_sport` in `include/rdma/ib_verbs.h`): a flow label hashed from the two QP
/// numbers, folded to 14 bits and placed in 0xC000..=0xFFFF. The product is symmetric, so
/// both directions of a connection use the same port, as on real hosts.
pub fn udp_src_port_for_qps(local_qpn: u32, remote_qpn: u32) -> u16 {
    let mut v = u64::from(local_qpn) * u64::from(remote_qpn);
    v ^= v >> 20;
    v ^= v >> 40;
    let flow_label = (v & 0xF_FFFF) as u32;
    let low = (flow_label & 0x3FFF) ^ ((flow_label & 0xF_C000) >> 14);
    (low as u16) | 0xC000
}

impl PacketHeaders {
    /// Appends this packet to `out` as a RoCEv2 frame as a capture would hold it: Ethernet
    /// (EtherType 0x0800) / IPv4 (DSCP/ECN 0, DF, TTL 64, id 0, proper header checksum) /
    /// UDP (`ep.udp_src_port` → 4791, checksum 0, which RoCEv2 allows) / BTH / RETH, AETH,
    /// ImmDt as present / `payload_len` bytes of `payload_fill` / zero pad / ICRC, then zero
    /// Ethernet padding up to the 60-byte minimum. The FCS is not written (Linux captures do
    /// not include it), so `out` grows by [`roce_capture_bytes`](Self::roce_capture_bytes).
    ///
    /// The LRH and GRH are not used; the BTH PadCnt is written from [`pad`](Self::pad)
    /// whatever `bth.pad_count` holds, so the frame is always self-consistent. Extension
    /// headers are written as present in `self`: call [`validate`](Self::validate) first if
    /// they may not match the opcode, or Wireshark will misread the frame.
    ///
    /// Reading captures: Wireshark (checked with 4.0) hands SEND Only / SEND Last payloads to
    /// its RPC-over-RDMA heuristic, which marks those under 15 bytes "[Malformed Packet:
    /// RPCoRDMA]" whatever they hold. Open such captures with
    /// `--disable-heuristic rpcrdma_infiniband` (tests/wire_tshark.rs pins this).
    pub fn emit_roce_v2(&self, ep: &RoceEndpoints, payload_fill: u8, out: &mut Vec<u8>) {
        let start = out.len();
        let transport = self.transport_bytes() as usize;
        let udp_len = UDP_HEADER_SIZE + transport + ICRC_SIZE;
        let ip_len = IPV4_HEADER_SIZE + udp_len;

        // Ethernet II.
        out.extend_from_slice(&ep.dst_mac);
        out.extend_from_slice(&ep.src_mac);
        out.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());

        // IPv4. Lengths past 64 KiB cannot be expressed; they saturate rather than panic
        // (no IB MTU comes near).
        let ip_start = out.len();
        let mut ip = [0u8; IPV4_HEADER_SIZE];
        ip[0] = 0x45; // version 4, IHL 5 words
        ip[1] = 0; // DSCP 0, ECN not-ECT
        ip[2..4].copy_from_slice(&u16::try_from(ip_len).unwrap_or(u16::MAX).to_be_bytes());
        ip[6..8].copy_from_slice(&IPV4_FLAGS_DF.to_be_bytes());
        ip[8] = IPV4_TTL;
        ip[9] = IP_PROTO_UDP;
        ip[12..16].copy_from_slice(&ep.src_ip);
        ip[16..20].copy_from_slice(&ep.dst_ip);
        let sum = ipv4_header_checksum(&ip);
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        out.extend_from_slice(&ip);

        // UDP.
        out.extend_from_slice(&ep.udp_src_port.to_be_bytes());
        out.extend_from_slice(&ROCE_V2_UDP_PORT.to_be_bytes());
        out.extend_from_slice(&u16::try_from(udp_len).unwrap_or(u16::MAX).to_be_bytes());
        out.extend_from_slice(&0u16.to_be_bytes());

        // BTH and extension headers, in IBTA order.
        let mut hdr = [0u8; Bth::SIZE + Reth::SIZE + Aeth::SIZE + ImmDt::SIZE];
        let bth = Bth { pad_count: self.pad() as u8, ..self.bth };
        bth.emit(&mut hdr);
        let mut n = Bth::SIZE;
        if let Some(reth) = &self.reth {
            reth.emit(&mut hdr[n..]);
            n += Reth::SIZE;
        }
        if let Some(aeth) = &self.aeth {
            aeth.emit(&mut hdr[n..]);
            n += Aeth::SIZE;
        }
        if let Some(imm) = self.imm {
            ImmDt(imm).emit(&mut hdr[n..]);
            n += ImmDt::SIZE;
        }
        out.extend_from_slice(&hdr[..n]);

        // Payload and pad.
        out.resize(out.len() + self.payload_len as usize, payload_fill);
        out.resize(out.len() + self.pad() as usize, 0);

        // ICRC over IPv4 .. pad. The headers above are well formed by construction, so the
        // error arm is unreachable in practice; write zeros rather than panic.
        let icrc = icrc_roce_v2_ipv4(&out[ip_start..]).unwrap_or(0);
        out.extend_from_slice(&icrc.to_le_bytes());

        // Ethernet minimum frame (60 bytes before the FCS).
        let min = start + ETHERNET_MIN_FRAME - ETHERNET_FCS_SIZE;
        if out.len() < min {
            out.resize(min, 0);
        }
    }
}

/// A RoCEv2 frame read back by [`parse_roce_v2`]: the addresses and the IB transport headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoceV2Packet {
    pub endpoints: RoceEndpoints,
    pub bth: Bth,
    pub reth: Option<Reth>,
    pub aeth: Option<Aeth>,
    pub imm: Option<u32>,
    pub payload_len: u32,
    /// The ICRC as carried (already checked against the frame).
    pub icrc: u32,
}

/// Reads a RoCEv2-over-IPv4 Ethernet frame (without FCS; trailing Ethernet padding is
/// allowed) and checks it: IPv4 header checksum, UDP port 4791, extension headers as the
/// opcode requires, pad count, and the ICRC. Meant for tests and capture round trips.
///
/// Errors name the first thing that is wrong: `Truncated` when a length field points past the
/// buffer, `BadValue { field }` otherwise (`"eth.type"`, `"ipv4.version"`, `"ipv4.ihl"`,
/// `"ipv4.protocol"`, `"ipv4.checksum"`, `"udp.dst_port"`, `"udp.length"`, `"bth.opcode"`,
/// `"bth.pad_count"`, `"aeth.syndrome"`, `"icrc"`).
pub fn parse_roce_v2(frame: &[u8]) -> Result<RoceV2Packet, WireError> {
    let bad = |field| WireError::BadValue { field };
    let eth = frame.get(..ETHERNET_HEADER_SIZE).ok_or(WireError::Truncated)?;
    if u16::from_be_bytes([eth[12], eth[13]]) != ETHERTYPE_IPV4 {
        return Err(bad("eth.type"));
    }
    let mut dst_mac = [0u8; 6];
    let mut src_mac = [0u8; 6];
    dst_mac.copy_from_slice(&eth[0..6]);
    src_mac.copy_from_slice(&eth[6..12]);

    // IPv4, cut to its total length so Ethernet padding is dropped.
    let ip = &frame[ETHERNET_HEADER_SIZE..];
    let ip_hdr = ip.get(..IPV4_HEADER_SIZE).ok_or(WireError::Truncated)?;
    if ip_hdr[0] >> 4 != 4 {
        return Err(bad("ipv4.version"));
    }
    let ihl = usize::from(ip_hdr[0] & 0xF) * 4;
    let total = usize::from(u16::from_be_bytes([ip_hdr[2], ip_hdr[3]]));
    if ihl < IPV4_HEADER_SIZE || total < ihl + UDP_HEADER_SIZE {
        return Err(bad("ipv4.ihl"));
    }
    let ip = ip.get(..total).ok_or(WireError::Truncated)?;
    if ip[9] != IP_PROTO_UDP {
        return Err(bad("ipv4.protocol"));
    }
    if ipv4_header_checksum(&ip[..ihl]) != u16::from_be_bytes([ip[10], ip[11]]) {
        return Err(bad("ipv4.checksum"));
    }
    let mut src_ip = [0u8; 4];
    let mut dst_ip = [0u8; 4];
    src_ip.copy_from_slice(&ip[12..16]);
    dst_ip.copy_from_slice(&ip[16..20]);

    // UDP.
    let udp = &ip[ihl..];
    if u16::from_be_bytes([udp[2], udp[3]]) != ROCE_V2_UDP_PORT {
        return Err(bad("udp.dst_port"));
    }
    let udp_len = usize::from(u16::from_be_bytes([udp[4], udp[5]]));
    if udp_len < UDP_HEADER_SIZE + Bth::SIZE + ICRC_SIZE {
        return Err(bad("udp.length"));
    }
    let udp = udp.get(..udp_len).ok_or(WireError::Truncated)?;

    // BTH and the extension headers its opcode calls for.
    let transport = &udp[UDP_HEADER_SIZE..];
    let bth = Bth::parse(transport)?;
    let mut n = Bth::SIZE;
    let op = bth.opcode;
    let reth = if op.has_reth() {
        let r = Reth::parse(&transport[n..])?;
        n += Reth::SIZE;
        Some(r)
    } else {
        None
    };
    let aeth = if op.has_aeth() {
        let a = Aeth::parse(&transport[n..])?;
        n += Aeth::SIZE;
        Some(a)
    } else {
        None
    };
    let imm = if op.has_immdt() {
        let i = ImmDt::parse(&transport[n..])?;
        n += ImmDt::SIZE;
        Some(i.0)
    } else {
        None
    };

    // What is left is payload + pad + ICRC; payload + pad is whole 4-byte words.
    let padded = transport.len().checked_sub(n + ICRC_SIZE).ok_or(WireError::Truncated)?;
    if !padded.is_multiple_of(4) {
        return Err(bad("udp.length"));
    }
    let pad = usize::from(bth.pad_count);
    let payload_len = padded.checked_sub(pad).ok_or(bad("bth.pad_count"))?;

    let icrc_at = ihl + udp_len - ICRC_SIZE;
    let icrc = u32::from_le_bytes([ip[icrc_at], ip[icrc_at + 1], ip[icrc_at + 2], ip[icrc_at + 3]]);
    if icrc_roce_v2_ipv4(&ip[..icrc_at])? != icrc {
        return Err(bad("icrc"));
    }

    Ok(RoceV2Packet {
        endpoints: RoceEndpoints {
            src_mac,
            dst_mac,
            src_ip,
            dst_ip,
            udp_src_port: u16::from_be_bytes([udp[0], udp[1]]),
        },
        bth,
        reth,
        aeth,
        imm,
        payload_len: payload_len as u32,
        icrc,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{NakCode, Opcode, Syndrome};

    fn endpoints() -> RoceEndpoints {
        RoceEndpoints::for_lids(1, 2, udp_src_port_for_qps(0x11, 0x12))
    }

    /// An independent ICRC for checking `emit_roce_v2`: bitwise CRC-32 (no table, no
    /// crc32fast) over a pseudo-packet built by overwriting the variant fields of a copy of
    /// the whole frame, rather than by the masking code under test.
    fn reference_icrc(frame: &[u8]) -> u32 {
        let ip_len = usize::from(u16::from_be_bytes([frame[16], frame[17]]));
        let mut p = vec![0xFF; 8];
        p.extend_from_slice(&frame[14..14 + ip_len - 4]);
        for off in [8 + 1, 8 + 8, 8 + 10, 8 + 11, 8 + 20 + 6, 8 + 20 + 7, 8 + 28 + 4] {
            p[off] = 0xFF;
        }
        let mut crc = 0xFFFF_FFFFu32;
        for byte in p {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    fn conversation() -> Vec<PacketHeaders> {
        let mut v = Vec::new();
        let mut w = PacketHeaders::rc(Opcode::RdmaWriteFirst, 1, 2, 0x12, 7, 1024);
        w.reth = Some(Reth { va: 0x7F00_0000_1000, rkey: 0xABCD, dma_len: 2500 });
        v.push(w);
        let mut imm = PacketHeaders::rc(Opcode::RdmaWriteOnlyWithImmediate, 1, 2, 0x12, 8, 13);
        imm.reth = Some(Reth { va: 0x10, rkey: 1, dma_len: 13 });
        imm.imm = Some(0xDEAD_BEEF);
        v.push(imm);
        let mut nak = PacketHeaders::rc(Opcode::Acknowledge, 2, 1, 0x11, 9, 0);
        nak.aeth = Some(Aeth { syndrome: Syndrome::Nak(NakCode::PsnSequenceError), msn: 4 });
        v.push(nak);
        v.push(PacketHeaders::rc(Opcode::SendOnly, 1, 2, 0x12, 10, 0));
        v.push(PacketHeaders::rc(Opcode::RdmaReadResponseMiddle, 2, 1, 0x11, 11, 1));
        v
    }

    #[test]
    fn emitted_frames_parse_back_with_a_valid_icrc() {
        let ep = endpoints();
        for h in conversation() {
            assert_eq!(h.validate(), Ok(()));
            let mut frame = Vec::new();
            h.emit_roce_v2(&ep, 0xA5, &mut frame);
            assert_eq!(frame.len() as u32, h.roce_capture_bytes(), "{:?}", h.bth.opcode);
            let p = parse_roce_v2(&frame).unwrap();
            assert_eq!(p.endpoints, ep);
            assert_eq!(p.bth, h.bth);
            assert_eq!((p.reth, p.aeth, p.imm, p.payload_len), (h.reth, h.aeth, h.imm, h.payload_len));
            assert_eq!(p.icrc, reference_icrc(&frame));
        }
    }

    #[test]
    fn frame_layout_is_ethernet_ipv4_udp_bth() {
        let h = &conversation()[1]; // WRITE Only with Immediate, 13 bytes: pad 3
        let mut f = Vec::new();
        h.emit_roce_v2(&endpoints(), 0xA5, &mut f);
        assert_eq!(&f[0..6], &[2, 0, 0, 0, 0, 2]);
        assert_eq!(&f[6..12], &[2, 0, 0, 0, 0, 1]);
        assert_eq!(&f[12..14], &[0x08, 0x00]);
        assert_eq!(f[14], 0x45);
        assert_eq!(f[15], 0); // DSCP/ECN
        let ip_len = 20 + 8 + 12 + 16 + 4 + 16 + 4;
        assert_eq!(u16::from_be_bytes([f[16], f[17]]), ip_len);
        assert_eq!(&f[20..22], &[0x40, 0x00]); // DF
        assert_eq!((f[22], f[23]), (64, 17));
        assert_eq!(&f[26..30], &[10, 0, 0, 1]);
        assert_eq!(&f[30..34], &[10, 0, 0, 2]);
        assert_eq!(u16::from_be_bytes([f[36], f[37]]), 4791);
        assert_eq!(u16::from_be_bytes([f[38], f[39]]), ip_len - 20);
        assert_eq!(&f[40..42], &[0, 0]); // UDP checksum unused
        assert_eq!(f[42], 0x0B);
        assert_eq!((f[43] >> 4) & 3, 3); // PadCnt
        assert_eq!(&f[42 + 28..42 + 32], &[0xDE, 0xAD, 0xBE, 0xEF]); // ImmDt after RETH
        assert!(f[74..87].iter().all(|&b| b == 0xA5));
        assert_eq!(&f[87..90], &[0, 0, 0]); // pad
        assert_eq!(f.len(), 14 + usize::from(ip_len));
    }

    #[test]
    fn small_frames_get_ethernet_padding_that_parse_ignores() {
        let h = PacketHeaders::rc(Opcode::SendOnly, 1, 2, 0x12, 10, 0);
        let mut f = vec![0xEE]; // emit appends: earlier bytes stay
        h.emit_roce_v2(&endpoints(), 0, &mut f);
        assert_eq!(f.len(), 1 + 60);
        assert_eq!(&f[1 + 58..], &[0, 0]);
        assert_eq!(parse_roce_v2(&f[1..]).unwrap().payload_len, 0);
    }

    #[test]
    fn corrupted_frames_are_reported_not_panicked_on() {
        let h = conversation()[0];
        let mut f = Vec::new();
        h.emit_roce_v2(&endpoints(), 0x5A, &mut f);
        let flip = |i: usize| {
            let mut g = f.clone();
            g[i] ^= 0x01;
            parse_roce_v2(&g)
        };
        assert_eq!(flip(200), Err(WireError::BadValue { field: "icrc" })); // payload bit
        assert_eq!(flip(25), Err(WireError::BadValue { field: "ipv4.checksum" }));
        assert_eq!(flip(37), Err(WireError::BadValue { field: "udp.dst_port" }));
        // A variant field (ECN) may change in flight: the ICRC must still verify once the IP
        // checksum is fixed, as a router would.
        let mut g = f.clone();
        g[15] = 0x03; // ECN CE
        let sum = ipv4_header_checksum(&g[14..34]);
        g[24..26].copy_from_slice(&sum.to_be_bytes());
        assert!(parse_roce_v2(&g).is_ok());
        for len in 0..f.len() {
            assert!(parse_roce_v2(&f[..len]).is_err(), "truncated to {len}");
        }
    }

    #[test]
    fn lid_and_qp_mappings_are_deterministic_and_distinct() {
        assert_eq!(mac_for_lid(0x0102), [2, 0, 0, 0, 1, 2]);
        assert_eq!(ip_for_lid(0x0102), [10, 0, 1, 2]);
        assert_ne!(ip_for_lid(1), ip_for_lid(2));
        let p = udp_src_port_for_qps(0x11, 0x12);
        assert_eq!(p, udp_src_port_for_qps(0x12, 0x11));
        assert!(p >= 0xC000);
        // 0x11 * 0x12 = 0x132: below 2^14, so the port is 0xC000 | 0x132.
        assert_eq!(p, 0xC132);
    }
}
