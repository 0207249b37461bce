//! Base Transport Header (IBTA Vol. 1 §9.2): present on every IBA transport packet, native IB
//! and RoCE alike. It names the destination QP, the operation and the PSN.
//!
//! ```text
//!  byte 0    byte 1                 bytes 2-3  byte 4                 bytes 5-7
//! +--------+----+---+------+------+ +-------+ +---+---+--------+ +-----------+
//! | OpCode | SE | M |PadCnt| TVer | | P_Key | | F | B | resv6a | |  DestQP   |
//! |   8    | 1  | 1 |  2   |  4   | |  16   | | 1 | 1 |   6    | |    24     |
//! +--------+----+---+------+------+ +-------+ +---+---+--------+ +-----------+
//!  byte 8          bytes 9-11
//! +---+---------+ +-----------+
//! | A | resv7   | |    PSN    |
//! | 1 |   7     | |    24     |
//! +---+---------+ +-----------+
//! ```
//! Byte 4 was "resv8a" before FECN/BECN were defined in it; it is a *variant* field (switches
//! may set F/B), so the ICRC treats it as all ones.
use super::{get_u24, need, put_u24, Opcode, WireError, MASK_24};

/// The Base Transport Header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bth {
    pub opcode: Opcode,
    /// Solicited event: ask the responder to raise a completion event.
    pub solicited: bool,
    /// Migration state (APM). 1 means "migrated", which is what a QP without an armed
    /// alternate path reports, so that is the default (as Linux rxe and ConnectX send it).
    pub mig_req: bool,
    /// Pad bytes (0-3) after the payload that bring it to a multiple of 4, 2 bits.
    pub pad_count: u8,
    /// Transport header version, 4 bits; 0.
    pub tver: u8,
    /// Partition key; 0xFFFF is the default full-membership partition.
    pub pkey: u16,
    /// Forward explicit congestion notification (set by a congested switch).
    pub fecn: bool,
    /// Backward explicit congestion notification (echoed to the sender).
    pub becn: bool,
    /// Destination queue pair number, 24 bits.
    pub dest_qp: u32,
    /// Acknowledge request: the responder must ACK this packet.
    pub ack_req: bool,
    /// Packet sequence number, 24 bits (wraps modulo 2^24).
    pub psn: u32,
}

impl Bth {
    /// Bytes on the wire.
    pub const SIZE: usize = 12;
    /// The default partition key (full member of the default partition).
    pub const DEFAULT_PKEY: u16 = 0xFFFF;

    /// A BTH with the usual defaults: no SE, MigReq set, no pad, TVer 0, default P_Key, no
    /// congestion marks, no ACK request.
    pub fn new(opcode: Opcode, dest_qp: u32, psn: u32) -> Bth {
        Bth {
            opcode,
            solicited: false,
            mig_req: true,
            pad_count: 0,
            tver: 0,
            pkey: Self::DEFAULT_PKEY,
            fecn: false,
            becn: false,
            dest_qp,
            ack_req: false,
            psn,
        }
    }

    /// Writes the header into `buf[..12]`, truncating fields to their wire width and writing
    /// reserved bits as 0. Panics if `buf` is shorter than [`Bth::SIZE`].
    pub fn emit(&self, buf: &mut [u8]) {
        let b = &mut buf[..Self::SIZE];
        b[0] = self.opcode.value();
        b[1] = u8::from(self.solicited) << 7
            | u8::from(self.mig_req) << 6
            | (self.pad_count & 0b11) << 4
            | (self.tver & 0xF);
        b[2..4].copy_from_slice(&self.pkey.to_be_bytes());
        b[4] = u8::from(self.fecn) << 7 | u8::from(self.becn) << 6;
        put_u24(&mut b[5..8], self.dest_qp & MASK_24);
        b[8] = u8::from(self.ack_req) << 7;
        put_u24(&mut b[9..12], self.psn & MASK_24);
    }

    /// Reads a header from the start of `buf`. An opcode outside the modelled RC set is
    /// `BadValue { field: "bth.opcode" }`; reserved bits are ignored.
    pub fn parse(buf: &[u8]) -> Result<Bth, WireError> {
        let b = need(buf, Self::SIZE)?;
        Ok(Bth {
            opcode: Opcode::from_u8(b[0])?,
            solicited: b[1] & 0x80 != 0,
            mig_req: b[1] & 0x40 != 0,
            pad_count: (b[1] >> 4) & 0b11,
            tver: b[1] & 0xF,
            pkey: u16::from_be_bytes([b[2], b[3]]),
            fecn: b[4] & 0x80 != 0,
            becn: b[4] & 0x40 != 0,
            dest_qp: get_u24(&b[5..8]),
            ack_req: b[8] & 0x80 != 0,
            psn: get_u24(&b[9..12]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_every_bit_in_place() {
        let bth = Bth {
            solicited: true,
            pad_count: 3,
            fecn: true,
            becn: false,
            ack_req: true,
            ..Bth::new(Opcode::RdmaWriteLastWithImmediate, 0xAB_CDEF, 0x12_3456)
        };
        let mut buf = [0u8; Bth::SIZE];
        bth.emit(&mut buf);
        assert_eq!(buf, [0x09, 0xF0, 0xFF, 0xFF, 0x80, 0xAB, 0xCD, 0xEF, 0x80, 0x12, 0x34, 0x56]);
        assert_eq!(Bth::parse(&buf), Ok(bth));
    }

    #[test]
    fn wide_values_are_truncated_to_24_bits() {
        let mut buf = [0u8; Bth::SIZE];
        Bth::new(Opcode::Acknowledge, 0x0100_0002, 0xFF00_0003).emit(&mut buf);
        let back = Bth::parse(&buf).unwrap();
        assert_eq!((back.dest_qp, back.psn), (2, 3));
    }

    #[test]
    fn unknown_opcode_and_short_buffer_are_errors() {
        let mut buf = [0u8; Bth::SIZE];
        Bth::new(Opcode::SendOnly, 1, 1).emit(&mut buf);
        assert_eq!(Bth::parse(&buf[..11]), Err(WireError::Truncated));
        buf[0] = 0x81; // RoCEv2 CNP
        assert_eq!(Bth::parse(&buf), Err(WireError::BadValue { field: "bth.opcode" }));
    }
}
