//! Ethernet framing on the wire (IEEE 802.3 clause 3, frame format, and clause 4, MAC
//! parameters): what a frame costs in line time beyond its payload, and the PM header it
//! carries under the local experimental EtherType 0x88B5.
//!
//! A frame on the wire: preamble + SFD (8 B), header (destination MAC 6, source MAC 6,
//! EtherType 2 = 14 B), payload, FCS (4 B), then the inter-frame gap (12 B of idle line time).
//! A frame shorter than 64 B (header to FCS) is padded to 64 B. Jumbo frames (not in 802.3,
//! but what the Foundry switch and the E1000 of seeds/003 ran, "Jumbo Frame利用") are bounded
//! by the NIC's and the switch's limits (`NicProfile::max_frame_bytes`,
//! `SwitchProfile::max_frame_bytes`).
//!
//! Sources for the constants: IEEE 802.3 §3.2 (frame fields) and §4.4.2 (MAC parameters:
//! interFrameGap 96 bits, minFrameSize 512 bits, maxUntaggedFrameSize 1518 octets; as listed in
//! HP NonStop "OSI PICS manual" p. 55, "MAC Parameter Values",
//! https://www.manualshelf.com/manual/hp/hp-nonstop-g-series/osi-pics-manual/page-55.html);
//! preamble 7 B + SFD 1 B (C. Spurgeon, Ethernet quick reference,
//! http://www.ethermanage.com/ethernet/10quickref/ch7_enet_confg_FootNote_102.html: "seven
//! bytes of an alternating pattern of ones and zeroes, followed by eight bits of the Start
//! Frame Delimiter"); PAUSE: IEEE 802.3 clause 31, Annex 31B (AMD/Xilinx UG1085, "MAC 802.3
//! Pause Frame", https://docs.amd.com/r/en-US/ug1085-zynq-ultrascale-trm/MAC-802.3-Pause-Frame:
//! destination 0x0180C2000001, type 0x8808, opcode 0x0001, 2 B pause time).
use crate::ids::HostId;

/// Preamble (7 B) and start-of-frame delimiter (1 B).
pub const PREAMBLE_SFD: u32 = 8;
/// Destination MAC, source MAC, EtherType: the RoCE framing's (wire/packet.rs).
pub const ETH_HEADER: u32 = crate::wire::ETHERNET_HEADER_SIZE as u32;
/// Frame check sequence (CRC-32), as wire/packet.rs.
pub const FCS: u32 = crate::wire::ETHERNET_FCS_SIZE as u32;
/// Minimum inter-frame gap: 96 bit times (802.3 §4.4.2, interFrameGap).
pub const IFG: u32 = 12;
/// Minimum frame, header to FCS (802.3 §4.4.2, minFrameSize 512 bits), as wire/packet.rs.
pub const MIN_FRAME: u32 = crate::wire::ETHERNET_MIN_FRAME as u32;
// The line time outside a frame is the same for RoCE's frames (wire/packet.rs).
const _: () = assert!(PREAMBLE_SFD + IFG == crate::wire::ROCE_WIRE_OVERHEAD as u32);
/// Largest payload of a standard frame (maxUntaggedFrameSize 1518 B less header and FCS).
pub const STD_MTU: u32 = 1500;
/// IEEE Std 802a-2003 §3.2 "Local Experimental Ethertypes": 0x88B5 is Local Experimental
/// Ethertype 1 (http://standards.ieee.org/reading/ieee/std_public/description/lanman/802a-2003_desc.html;
/// the value as Wireshark's EtherType table and other public code list it). What PM frames
/// carry in our captures. ASSUMPTION: which EtherType PM/Ethernet used was not found; it does
/// not change any timing.
pub const ETHERTYPE_PM: u16 = 0x88B5;
/// MAC control (802.3x PAUSE frames): 0x8808 (802.3 clause 31; UG1085, above).
pub const ETHERTYPE_MAC_CONTROL: u16 = 0x8808;

/// The largest payload a frame of at most `max_frame` bytes (destination MAC to FCS) carries.
pub const fn max_payload(max_frame: u32) -> u32 {
    max_frame - ETH_HEADER - FCS
}

/// Bytes from destination MAC to FCS for `payload` bytes of payload (padded to the minimum).
pub const fn frame_bytes(payload: u32) -> u32 {
    let f = ETH_HEADER + payload + FCS;
    if f < MIN_FRAME { MIN_FRAME } else { f }
}

/// Line time a frame takes, in bytes: preamble, frame and inter-frame gap.
pub const fn wire_bytes(payload: u32) -> u32 {
    PREAMBLE_SFD + frame_bytes(payload) + IFG
}

/// The interval between packets of `packet_bytes` arriving at `mb_per_s` (10^6 B/s), in µs:
/// seeds/003's design table (D1), which divides the packet size by the bandwidth.
pub fn arrival_interval_us(packet_bytes: u32, mb_per_s: f64) -> f64 {
    f64::from(packet_bytes) / mb_per_s
}

/// The PM header in every PM frame's payload (32 B). ASSUMPTION: PM/Ethernet's header layout
/// was not found (searched: the ICS 2006 PM/Ethernet-HXB paper, whose full text is not in any
/// corpus we could read, the HPDC 2000 PM/Ethernet abstract, SCore's manual pages; SCore's PM
/// sources are not on GitHub). So: these fields are what the seed says the protocol
/// needs (source and destination coordinates for relaying, "パケットヘッダに送信元、送信先の
/// 座標を格納"; a per-destination sequence number for the receive array; a cumulative
/// acknowledgement), padded to 32 B, which also makes a 8192 B packet's overhead match the
/// seed's 248 MB/s on two links (see docs/pm.md, D2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PmHeader {
    /// 1 data, 2 ack.
    pub kind: u8,
    /// Bit 0: last packet of a message; bit 1: a packet sent again (pm_resend.rs).
    pub flags: u8,
    /// Source and final destination coordinates (x, y, z).
    pub src: [u8; 3],
    pub dst: [u8; 3],
    /// Sequence number of this data packet on its (source, destination) channel.
    pub seq: u32,
    /// Cumulative acknowledgement: every packet before this one arrived.
    pub ack: u32,
    /// Selective acknowledgement (`[pm] resend = "selective"`): bit i set when the receiver
    /// holds packet `ack + 1 + i` (pm_resend.rs). In four of the six bytes the layout left
    /// reserved, so the header stays 32 B; 0 under go-back-N.
    pub held: u32,
    /// Message number on the channel.
    pub msg: u32,
    /// Payload bytes after the header.
    pub len: u32,
}

impl PmHeader {
    pub const BYTES: u32 = 32;
    pub const DATA: u8 = 1;
    pub const ACK: u8 = 2;

    pub fn emit(&self, out: &mut Vec<u8>) {
        out.push(self.kind);
        out.push(self.flags);
        out.extend_from_slice(&self.src);
        out.extend_from_slice(&self.dst);
        out.extend_from_slice(&[0, 0]); // reserved, keeps the words aligned
        for v in [self.seq, self.ack, self.msg, self.len, self.held] {
            out.extend_from_slice(&v.to_be_bytes());
        }
        out.extend_from_slice(&[0u8; 2]); // reserved
    }
}

/// A locally administered unicast MAC for a host's NIC: 02:00:hh:hh:dd:ll (host, dimension,
/// lane), so a capture shows which trunk lane carried each frame.
pub fn mac_of(host: HostId, dim: u8, lane: u8) -> [u8; 6] {
    let h = host.0.to_be_bytes();
    [0x02, 0x00, h[2], h[3], dim, lane]
}

/// The 802.3x PAUSE frame's payload: opcode 0x0001 and the pause time in quanta of 512 bit
/// times (512 ns at 1 Gb/s: Xilinx UG144, "Pause Control Frames", after 802.3-2005 clause 31),
/// padded to the minimum frame.
pub const PAUSE_PAYLOAD: u32 = 46;
/// The PAUSE frames' reserved multicast destination (802.3 Annex 31B).
pub const PAUSE_DST: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_and_jumbo_frames_on_the_wire() {
        assert_eq!(wire_bytes(0), 84); // the 64 B minimum frame: 672 ns at 1 Gb/s
        assert_eq!(wire_bytes(46), 84);
        assert_eq!(wire_bytes(1500), 1538);
        assert_eq!(wire_bytes(9000), 9038);
        assert_eq!(max_payload(9216), 9198);
        let mut b = Vec::new();
        PmHeader::default().emit(&mut b);
        assert_eq!(b.len() as u32, PmHeader::BYTES);
    }
}
