//! Local Route Header (IBTA Vol. 1 §7.7): the link-layer header every native InfiniBand
//! packet starts with. Switches forward on DLID and pick the outgoing VL from SL; RoCE has no
//! LRH (Ethernet/IP take its place).
//!
//! ```text
//!  byte 0      byte 1             bytes 2-3   bytes 4-5               bytes 6-7
//! +----+-----+----+-----+-----+ +---------+ +---------+-------------+ +---------+
//! | VL | LVer| SL | rsv | LNH | |  DLID   | | rsv (5) | PktLen (11) | |  SLID   |
//! | 4  |  4  | 4  |  2  |  2  | |   16    | |         |             | |   16    |
//! +----+-----+----+-----+-----+ +---------+ +---------+-------------+ +---------+
//! ```
use super::{need, WireError};

/// Link Next Header: what follows the LRH.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Lnh {
    /// Raw packet, no IBA transport.
    Raw = 0,
    /// Raw IPv6 (non-IBA transport).
    IpNonIba = 1,
    /// IBA local: a BTH follows directly (same subnet).
    IbaLocal = 2,
    /// IBA global: a GRH follows, then the BTH.
    IbaGlobal = 3,
}

impl Lnh {
    fn from_bits(v: u8) -> Lnh {
        match v & 0b11 {
            0 => Lnh::Raw,
            1 => Lnh::IpNonIba,
            2 => Lnh::IbaLocal,
            _ => Lnh::IbaGlobal,
        }
    }
}

/// The Local Route Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lrh {
    /// Virtual lane, 4 bits (VL15 is the management lane).
    pub vl: u8,
    /// Link version, 4 bits; 0 in every released spec.
    pub lver: u8,
    /// Service level, 4 bits.
    pub sl: u8,
    /// Link next header, 2 bits.
    pub lnh: Lnh,
    /// Destination LID.
    pub dlid: u16,
    /// Packet length in 4-byte words, 11 bits: LRH through ICRC inclusive (the VCRC is not
    /// counted). [`PacketHeaders::fill_lengths`](super::PacketHeaders::fill_lengths) sets it.
    pub pkt_len: u16,
    /// Source LID.
    pub slid: u16,
}

impl Lrh {
    /// Bytes on the wire.
    pub const SIZE: usize = 8;
    /// Largest `pkt_len` (11 bits) — 8188 bytes, more than any IB MTU (4096) plus headers.
    pub const MAX_PKT_LEN_WORDS: u16 = 0x7FF;

    /// Writes the header into `buf[..8]`. Fields wider than their wire width are truncated to
    /// it; reserved bits are written as 0. Panics if `buf` is shorter than [`Lrh::SIZE`]
    /// (a caller bug, as in smoltcp).
    pub fn emit(&self, buf: &mut [u8]) {
        let b = &mut buf[..Self::SIZE];
        b[0] = (self.vl & 0xF) << 4 | (self.lver & 0xF);
        b[1] = (self.sl & 0xF) << 4 | (self.lnh as u8);
        b[2..4].copy_from_slice(&self.dlid.to_be_bytes());
        b[4..6].copy_from_slice(&(self.pkt_len & Self::MAX_PKT_LEN_WORDS).to_be_bytes());
        b[6..8].copy_from_slice(&self.slid.to_be_bytes());
    }

    /// Reads a header from the start of `buf`. Reserved bits are ignored, as the spec asks of
    /// receivers; every 2-bit LNH value has a meaning, so only a short buffer is an error.
    pub fn parse(buf: &[u8]) -> Result<Lrh, WireError> {
        let b = need(buf, Self::SIZE)?;
        Ok(Lrh {
            vl: b[0] >> 4,
            lver: b[0] & 0xF,
            sl: b[1] >> 4,
            lnh: Lnh::from_bits(b[1]),
            dlid: u16::from_be_bytes([b[2], b[3]]),
            pkt_len: u16::from_be_bytes([b[4], b[5]]) & Self::MAX_PKT_LEN_WORDS,
            slid: u16::from_be_bytes([b[6], b[7]]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_packs_bits_where_the_spec_puts_them() {
        let lrh = Lrh { vl: 0xA, lver: 0, sl: 0x5, lnh: Lnh::IbaGlobal, dlid: 0x1234, pkt_len: 0x7FE, slid: 0xBEEF };
        let mut buf = [0u8; Lrh::SIZE];
        lrh.emit(&mut buf);
        assert_eq!(buf, [0xA0, 0x53, 0x12, 0x34, 0x07, 0xFE, 0xBE, 0xEF]);
        assert_eq!(Lrh::parse(&buf), Ok(lrh));
    }

    #[test]
    fn reserved_bits_are_ignored_and_short_buffers_rejected() {
        // rsv2 bits (byte 1, bits 3:2) and rsv5 (byte 4, bits 7:3) set: still parses.
        let buf = [0x00, 0x0E, 0, 1, 0xF8, 0x05, 0, 2];
        let lrh = Lrh::parse(&buf).unwrap();
        assert_eq!((lrh.lnh, lrh.pkt_len), (Lnh::IbaLocal, 5));
        assert_eq!(Lrh::parse(&buf[..7]), Err(WireError::Truncated));
    }
}
