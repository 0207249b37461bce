//! Global Route Header (IBTA Vol. 1 §8.3): an IPv6-shaped header, present when a packet
//! crosses subnets (LRH LNH = IBA global) or always on RoCEv1. RoCEv2 replaces it with a real
//! IPv4/IPv6 header.
//!
//! ```text
//! +--------+-----------+--------------------+
//! | IPVer 4| TClass 8  | Flow Label 20      |  bytes 0-3
//! +--------+-----------+---------+----------+
//! | PayLen 16          | NxtHdr 8| HopLmt 8 |  bytes 4-7
//! +--------------------+---------+----------+
//! | SGID 128                                |  bytes 8-23
//! | DGID 128                                |  bytes 24-39
//! +-----------------------------------------+
//! ```
use super::{need, WireError};

/// `NxtHdr` value meaning "an IBA transport header (BTH) follows".
pub const GRH_NEXT_HEADER_IBA: u8 = 0x1B;

/// The Global Route Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Grh {
    /// IP version, 4 bits; always 6.
    pub ip_ver: u8,
    /// Traffic class (8 bits).
    pub tclass: u8,
    /// Flow label, 20 bits.
    pub flow_label: u32,
    /// Bytes after the GRH up to and including the ICRC (the VCRC is not counted).
    pub pay_len: u16,
    /// Next header: [`GRH_NEXT_HEADER_IBA`] for IBA transport.
    pub next_hdr: u8,
    /// Hop limit: routers decrement it.
    pub hop_limit: u8,
    /// Source GID.
    pub sgid: [u8; 16],
    /// Destination GID.
    pub dgid: [u8; 16],
}

impl Default for Grh {
    /// A GRH for IBA transport with zeroed addresses, hop limit 64 (an assumption: any value
    /// above the subnet count works; 64 matches common defaults).
    fn default() -> Grh {
        Grh {
            ip_ver: 6,
            tclass: 0,
            flow_label: 0,
            pay_len: 0,
            next_hdr: GRH_NEXT_HEADER_IBA,
            hop_limit: 64,
            sgid: [0; 16],
            dgid: [0; 16],
        }
    }
}

impl Grh {
    /// Bytes on the wire.
    pub const SIZE: usize = 40;
    /// Mask of the 20-bit flow label.
    pub const FLOW_LABEL_MASK: u32 = 0x000F_FFFF;

    /// Writes the header into `buf[..40]`, truncating fields to their wire width. Panics if
    /// `buf` is shorter than [`Grh::SIZE`].
    pub fn emit(&self, buf: &mut [u8]) {
        let b = &mut buf[..Self::SIZE];
        let word0 = (u32::from(self.ip_ver & 0xF) << 28)
            | (u32::from(self.tclass) << 20)
            | (self.flow_label & Self::FLOW_LABEL_MASK);
        b[0..4].copy_from_slice(&word0.to_be_bytes());
        b[4..6].copy_from_slice(&self.pay_len.to_be_bytes());
        b[6] = self.next_hdr;
        b[7] = self.hop_limit;
        b[8..24].copy_from_slice(&self.sgid);
        b[24..40].copy_from_slice(&self.dgid);
    }

    /// Reads a header from the start of `buf`; an IP version other than 6 is `BadValue`
    /// because the bytes are then not a GRH at all.
    pub fn parse(buf: &[u8]) -> Result<Grh, WireError> {
        let b = need(buf, Self::SIZE)?;
        let word0 = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        let ip_ver = (word0 >> 28) as u8;
        if ip_ver != 6 {
            return Err(WireError::BadValue { field: "grh.ip_ver" });
        }
        let mut sgid = [0; 16];
        let mut dgid = [0; 16];
        sgid.copy_from_slice(&b[8..24]);
        dgid.copy_from_slice(&b[24..40]);
        Ok(Grh {
            ip_ver,
            tclass: (word0 >> 20) as u8,
            flow_label: word0 & Self::FLOW_LABEL_MASK,
            pay_len: u16::from_be_bytes([b[4], b[5]]),
            next_hdr: b[6],
            hop_limit: b[7],
            sgid,
            dgid,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_fields_in_place() {
        let mut sgid = [0u8; 16];
        sgid[0] = 0xFE;
        sgid[1] = 0x80;
        sgid[15] = 1;
        let grh = Grh { tclass: 0xAB, flow_label: 0xC_DEF0, pay_len: 1052, hop_limit: 7, sgid, ..Grh::default() };
        let mut buf = [0u8; Grh::SIZE];
        grh.emit(&mut buf);
        assert_eq!(&buf[..8], &[0x6A, 0xBC, 0xDE, 0xF0, 0x04, 0x1C, 0x1B, 0x07]);
        assert_eq!(buf[8], 0xFE);
        assert_eq!(Grh::parse(&buf), Ok(grh));
    }

    #[test]
    fn rejects_non_v6_and_short_buffers() {
        let mut buf = [0u8; Grh::SIZE];
        Grh::default().emit(&mut buf);
        assert_eq!(Grh::parse(&buf[..39]), Err(WireError::Truncated));
        buf[0] = 0x45;
        assert_eq!(Grh::parse(&buf), Err(WireError::BadValue { field: "grh.ip_ver" }));
    }
}
