//! The invariant CRC of RoCEv2 packets, and the IPv4 header checksum the framing needs.
//!
//! The ICRC (IBTA Vol. 1 §7.8.1; Annex A17 for RoCEv2) is the Ethernet CRC-32 taken over
//! every field that no switch or router may change, so that the receiver can check the
//! transport end to end. Fields that *may* change on the way are counted as all ones:
//!
//! - the LRH, which RoCEv2 does not have: 8 bytes of 0xFF stand in for it;
//! - IPv4: Type of Service (DSCP + ECN), Time to Live and the header checksum;
//! - UDP: the checksum;
//! - BTH byte 4 (FECN, BECN, resv6a — "resv8a" in older specs);
//!
//! followed by the rest of the BTH, the extension headers, the payload and the pad, as sent.
//! The CRC is stored least-significant byte first (like the Ethernet FCS).
//!
//! This follows Linux's soft-RoCE `rxe_icrc.c` (whose seed 0xDEBB20E3 is exactly the CRC state
//! after the eight 0xFF bytes) and is checked against an ICRC captured from a ConnectX-4 Lx
//! (see the tests).
use super::{Bth, WireError, UDP_HEADER_SIZE};

/// The ICRC of a RoCEv2-over-IPv4 packet. `ip_packet` starts at the IPv4 header and runs
/// through the pad bytes, without the ICRC itself (and without Ethernet padding or FCS).
/// Put the result on the wire with `to_le_bytes()`.
///
/// Errors: `Truncated` if the buffer cannot hold IPv4 + UDP + BTH, `BadValue` if the IP
/// header length field is impossible.
pub fn icrc_roce_v2_ipv4(ip_packet: &[u8]) -> Result<u32, WireError> {
    let first = *ip_packet.first().ok_or(WireError::Truncated)?;
    let ihl = usize::from(first & 0x0F) * 4;
    if ihl < 20 {
        return Err(WireError::BadValue { field: "ipv4.ihl" });
    }
    let bth_end = ihl + UDP_HEADER_SIZE + Bth::SIZE;
    if ip_packet.len() < bth_end {
        return Err(WireError::Truncated);
    }
    // Copy the headers with variant fields so they can be masked without touching the frame.
    let mut masked = [0u8; 60 + UDP_HEADER_SIZE + Bth::SIZE];
    let masked = &mut masked[..bth_end];
    masked.copy_from_slice(&ip_packet[..bth_end]);
    masked[1] = 0xFF; // TOS: DSCP and ECN (routers remark, ECN marks congestion)
    masked[8] = 0xFF; // TTL
    masked[10] = 0xFF; // header checksum (changes with TTL/ECN)
    masked[11] = 0xFF;
    masked[ihl + 6] = 0xFF; // UDP checksum
    masked[ihl + 7] = 0xFF;
    masked[ihl + UDP_HEADER_SIZE + 4] = 0xFF; // BTH FECN/BECN/resv6a

    let mut crc = crc32fast::Hasher::new();
    crc.update(&[0xFF; 8]); // the absent LRH
    crc.update(masked);
    crc.update(&ip_packet[bth_end..]);
    Ok(crc.finalize())
}

/// The IPv4 header checksum (RFC 791): ones' complement of the ones' complement sum of the
/// header's 16-bit words, computed with the checksum field itself taken as zero.
pub fn ipv4_header_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for (i, pair) in header.chunks(2).enumerate() {
        if i == 5 {
            continue; // the checksum field
        }
        let hi = u32::from(pair[0]) << 8;
        let lo = pair.get(1).copied().map_or(0, u32::from);
        sum += hi | lo;
    }
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses the `0x0000:  e41d 2dab ...` hex dump layout used in the vectors below.
    fn hexdump(s: &str) -> Vec<u8> {
        let mut out = Vec::new();
        for line in s.lines() {
            let Some((_, data)) = line.split_once(':') else { continue };
            for group in data.split_whitespace() {
                for i in (0..group.len()).step_by(2) {
                    out.push(u8::from_str_radix(&group[i..i + 2], 16).unwrap());
                }
            }
        }
        out
    }

    /// A RoCEv2 CNP (opcode 0x81, BECN set, 16 reserved bytes) captured on a Mellanox
    /// ConnectX-4 Lx. The dump is the "RoCE CNP captured on ConnectX-4 Lx" vector of Scapy's
    /// `test/contrib/roce.uts` (secdev/scapy); its last four bytes, 82 fd 00 2a, are the ICRC
    /// the hardware computed. Note TOS 0xC2 and the BECN bit: both are masked, so they test
    /// the masking too.
    const CX4_CNP: &str = "
0x0000:  e41d 2dab 2bc2 7cfe 9064 3b32 0800 45c2
0x0010:  003c 718c 4000 4011 9161 0a00 1101 0a00
0x0020:  1201 0000 12b7 0028 0000 8100 ffff 4000
0x0030:  0118 0000 0000 0000 0000 0000 0000 0000
0x0040:  0000 0000 0000 82fd 002a
";

    #[test]
    fn icrc_matches_a_connectx4_capture() {
        let frame = hexdump(CX4_CNP);
        assert_eq!(frame.len(), 74);
        let ip = &frame[14..frame.len() - 4];
        let icrc = icrc_roce_v2_ipv4(ip).unwrap();
        assert_eq!(icrc.to_le_bytes(), [0x82, 0xFD, 0x00, 0x2A]);
        // The capture's IP checksum is right too, which checks ipv4_header_checksum.
        assert_eq!(ipv4_header_checksum(&ip[..20]), 0x9161);
    }

    /// Scapy's "RoCE layer" vector (same file): a UC SEND Only built by Scapy, whose ICRC
    /// 0x78f353f3 is Scapy's own computation (zlib CRC-32, independent of this code).
    #[test]
    fn icrc_matches_scapy_uc_send_vector() {
        let mut ip = vec![
            0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 192, 168, 0, 7, 192, 168, 0,
            7, // IPv4, tos 1, len 64, id 1144, DF, ttl 64, UDP
            0xC0, 0x00, 0x12, 0xB7, 0x00, 0x2C, 0xAC, 0xA2, // UDP 49152 -> 4791, len 44
            0x24, 0x60, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0xD3, 0x00, 0xCF, 0x17, 0x10, // BTH
        ];
        ip.extend_from_slice(b"F0\x81\x8b\xe2\x895\xd9\x0e\x9a\x95PT\x01\xbe\x88^P\x00\x00");
        let sum = ipv4_header_checksum(&ip[..20]);
        assert_eq!(sum, 0xB4D5); // Scapy's value for this header
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        assert_eq!(icrc_roce_v2_ipv4(&ip).unwrap().to_le_bytes(), 0x78F3_53F3u32.to_be_bytes());
    }

    #[test]
    fn variant_fields_do_not_change_the_icrc_but_others_do() {
        let frame = hexdump(CX4_CNP);
        let ip = frame[14..frame.len() - 4].to_vec();
        let base = icrc_roce_v2_ipv4(&ip).unwrap();
        for (i, what) in [(1, "tos"), (8, "ttl"), (10, "csum"), (26, "udp csum"), (32, "bth byte 4")] {
            let mut v = ip.clone();
            v[i] ^= 0x5A;
            assert_eq!(icrc_roce_v2_ipv4(&v).unwrap(), base, "{what} must be masked");
        }
        for i in [2, 6, 12, 20, 28, 30, 33, 36, 40, 55] {
            let mut v = ip.clone();
            v[i] ^= 0x01;
            assert_ne!(icrc_roce_v2_ipv4(&v).unwrap(), base, "byte {i} must be covered");
        }
    }

    #[test]
    fn short_or_odd_headers_are_errors_not_panics() {
        assert_eq!(icrc_roce_v2_ipv4(&[]), Err(WireError::Truncated));
        assert_eq!(icrc_roce_v2_ipv4(&[0x45; 30]), Err(WireError::Truncated));
        assert_eq!(icrc_roce_v2_ipv4(&[0x44; 60]), Err(WireError::BadValue { field: "ipv4.ihl" }));
        // IHL 15 (60-byte header) with enough bytes works.
        assert!(icrc_roce_v2_ipv4(&[0x4F; 80]).is_ok());
    }
}
