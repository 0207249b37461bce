//! Extended transport headers of RC (IBTA Vol. 1 §9.3): RETH, AETH and ImmDt. Which of them
//! follow the BTH is decided by the opcode alone ([`Opcode::has_reth`](super::Opcode) etc.);
//! when several are present the order is RETH, AETH, ImmDt.
use super::{get_u24, need, put_u24, WireError, MASK_24};

/// RDMA Extended Transport Header (§9.3.3): the remote buffer of an RDMA WRITE (first/only
/// packet) or READ request.
///
/// ```text
/// | Virtual Address 64 | R_Key 32 | DMA Length 32 |
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Reth {
    /// Remote virtual address.
    pub va: u64,
    /// Remote key of the memory region.
    pub rkey: u32,
    /// Length of the whole message in bytes (not of this packet).
    pub dma_len: u32,
}

impl Reth {
    /// Bytes on the wire.
    pub const SIZE: usize = 16;

    /// Writes the header into `buf[..16]`. Panics if `buf` is shorter than [`Reth::SIZE`].
    pub fn emit(&self, buf: &mut [u8]) {
        let b = &mut buf[..Self::SIZE];
        b[0..8].copy_from_slice(&self.va.to_be_bytes());
        b[8..12].copy_from_slice(&self.rkey.to_be_bytes());
        b[12..16].copy_from_slice(&self.dma_len.to_be_bytes());
    }

    pub fn parse(buf: &[u8]) -> Result<Reth, WireError> {
        let b = need(buf, Self::SIZE)?;
        let mut va = [0u8; 8];
        va.copy_from_slice(&b[0..8]);
        Ok(Reth {
            va: u64::from_be_bytes(va),
            rkey: u32::from_be_bytes([b[8], b[9], b[10], b[11]]),
            dma_len: u32::from_be_bytes([b[12], b[13], b[14], b[15]]),
        })
    }
}

/// AETH credit code meaning "no credit information" (the responder has unlimited receive
/// credits, e.g. an SRQ): IBTA Vol. 1 §9.7.5.1.
pub const CREDITS_INVALID: u8 = 31;

/// NAK codes (IBTA Vol. 1 §9.7.5.2.4, table "NAK Codes").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum NakCode {
    /// A request arrived with a PSN beyond the expected one (a packet was lost): the
    /// requester goes back to the NAK's PSN.
    PsnSequenceError = 0,
    InvalidRequest = 1,
    RemoteAccessError = 2,
    RemoteOperationalError = 3,
    /// Invalid RD request (Reliable Datagram only; listed for completeness).
    InvalidRdRequest = 4,
}

/// The AETH syndrome byte, typed.
///
/// ```text
/// bit 7: reserved | bits 6:5: 00 ACK, 01 RNR NAK, 10 reserved, 11 NAK | bits 4:0: value
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syndrome {
    /// Positive acknowledgement; `credits` is the 5-bit end-to-end credit code
    /// ([`CREDITS_INVALID`] = 31 means unlimited/not reported).
    Ack { credits: u8 },
    /// Receiver not ready: no receive WQE was posted. `timer` is the 5-bit min_rnr_timer code
    /// the requester must wait before retrying ([`rnr_timer_micros`] decodes it).
    RnrNak { timer: u8 },
    /// Negative acknowledgement.
    Nak(NakCode),
}

impl Syndrome {
    const ACK: u8 = 0b00;
    const RNR_NAK: u8 = 0b01;
    const NAK: u8 = 0b11;

    /// The syndrome byte. Values wider than 5 bits are truncated to 5.
    pub fn to_byte(self) -> u8 {
        let (kind, value) = match self {
            Syndrome::Ack { credits } => (Self::ACK, credits),
            Syndrome::RnrNak { timer } => (Self::RNR_NAK, timer),
            Syndrome::Nak(code) => (Self::NAK, code as u8),
        };
        kind << 5 | (value & 0x1F)
    }

    /// Decodes a syndrome byte. The reserved bit 7 is ignored; the reserved kind `10` and NAK
    /// codes above 4 are `BadValue { field: "aeth.syndrome" }`.
    pub fn from_byte(b: u8) -> Result<Syndrome, WireError> {
        let value = b & 0x1F;
        match (b >> 5) & 0b11 {
            Self::ACK => Ok(Syndrome::Ack { credits: value }),
            Self::RNR_NAK => Ok(Syndrome::RnrNak { timer: value }),
            Self::NAK => Ok(Syndrome::Nak(match value {
                0 => NakCode::PsnSequenceError,
                1 => NakCode::InvalidRequest,
                2 => NakCode::RemoteAccessError,
                3 => NakCode::RemoteOperationalError,
                4 => NakCode::InvalidRdRequest,
                _ => return Err(WireError::BadValue { field: "aeth.syndrome" }),
            })),
            _ => Err(WireError::BadValue { field: "aeth.syndrome" }),
        }
    }
}

/// The minimum RNR NAK delay, in microseconds, for a 5-bit timer code (IBTA Vol. 1 §9.7.5.2.8,
/// table "Encoding for RNR NAK Timer Field"; Wireshark lists the same values). Code 0 is the
/// longest, 655.36 ms. Codes above 31 are read modulo 32, as the field is 5 bits wide.
pub fn rnr_timer_micros(code: u8) -> u32 {
    const TABLE: [u32; 32] = [
        655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560, 3_840, 5_120, 7_680,
        10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840, 245_760, 327_680, 491_520,
    ];
    TABLE[usize::from(code & 0x1F)]
}

/// ACK Extended Transport Header (§9.3.5): syndrome and the responder's MSN (count of
/// completed messages, 24 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Aeth {
    pub syndrome: Syndrome,
    /// Message sequence number, 24 bits.
    pub msn: u32,
}

impl Aeth {
    /// Bytes on the wire.
    pub const SIZE: usize = 4;

    /// An ACK without credit information.
    pub fn ack(msn: u32) -> Aeth {
        Aeth { syndrome: Syndrome::Ack { credits: CREDITS_INVALID }, msn }
    }

    /// Writes the header into `buf[..4]`. Panics if `buf` is shorter than [`Aeth::SIZE`].
    pub fn emit(&self, buf: &mut [u8]) {
        let b = &mut buf[..Self::SIZE];
        b[0] = self.syndrome.to_byte();
        put_u24(&mut b[1..4], self.msn & MASK_24);
    }

    pub fn parse(buf: &[u8]) -> Result<Aeth, WireError> {
        let b = need(buf, Self::SIZE)?;
        Ok(Aeth { syndrome: Syndrome::from_byte(b[0])?, msn: get_u24(&b[1..4]) })
    }
}

/// Immediate data (§9.3.4): 32 bits handed to the receiver's completion. Kept opaque, in
/// network order, as verbs do (`wc.imm_data` is `__be32`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ImmDt(pub u32);

impl ImmDt {
    /// Bytes on the wire.
    pub const SIZE: usize = 4;

    /// Writes the value big-endian into `buf[..4]`. Panics if `buf` is shorter.
    pub fn emit(&self, buf: &mut [u8]) {
        buf[..Self::SIZE].copy_from_slice(&self.0.to_be_bytes());
    }

    pub fn parse(buf: &[u8]) -> Result<ImmDt, WireError> {
        let b = need(buf, Self::SIZE)?;
        Ok(ImmDt(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reth_round_trips_big_endian() {
        let reth = Reth { va: 0x0102_0304_0506_0708, rkey: 0x1122_3344, dma_len: 65536 };
        let mut buf = [0u8; Reth::SIZE];
        reth.emit(&mut buf);
        assert_eq!(buf, [1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x22, 0x33, 0x44, 0, 1, 0, 0]);
        assert_eq!(Reth::parse(&buf), Ok(reth));
        assert_eq!(Reth::parse(&buf[..15]), Err(WireError::Truncated));
    }

    #[test]
    fn syndrome_bytes_match_the_ibta_encoding() {
        assert_eq!(Syndrome::Ack { credits: CREDITS_INVALID }.to_byte(), 0x1F);
        assert_eq!(Syndrome::Ack { credits: 0 }.to_byte(), 0x00);
        assert_eq!(Syndrome::RnrNak { timer: 14 }.to_byte(), 0x2E);
        assert_eq!(Syndrome::Nak(NakCode::PsnSequenceError).to_byte(), 0x60);
        assert_eq!(Syndrome::Nak(NakCode::RemoteAccessError).to_byte(), 0x62);
        assert_eq!(Syndrome::Nak(NakCode::InvalidRdRequest).to_byte(), 0x64);
    }

    #[test]
    fn every_valid_syndrome_byte_round_trips() {
        let mut valid = 0;
        for b in 0u8..=0x7F {
            match Syndrome::from_byte(b) {
                Ok(s) => {
                    assert_eq!(s.to_byte(), b);
                    valid += 1;
                }
                // Reserved kind 10, or a NAK code above 4.
                Err(e) => {
                    assert_eq!(e, WireError::BadValue { field: "aeth.syndrome" });
                    assert!(b >> 5 == 0b10 || (b >> 5 == 0b11 && b & 0x1F > 4), "{b:#x}");
                }
            }
        }
        assert_eq!(valid, 32 + 32 + 5);
        // The reserved top bit is ignored.
        assert_eq!(Syndrome::from_byte(0x80 | 0x2E), Ok(Syndrome::RnrNak { timer: 14 }));
    }

    #[test]
    fn aeth_and_immdt_round_trip() {
        for syndrome in
            [Syndrome::Ack { credits: 5 }, Syndrome::RnrNak { timer: 14 }, Syndrome::Nak(NakCode::PsnSequenceError)]
        {
            let aeth = Aeth { syndrome, msn: 0xAB_CDEF };
            let mut buf = [0u8; Aeth::SIZE];
            aeth.emit(&mut buf);
            assert_eq!(&buf[1..], &[0xAB, 0xCD, 0xEF]);
            assert_eq!(Aeth::parse(&buf), Ok(aeth));
        }
        assert_eq!(Aeth::parse(&[0x40, 0, 0, 0]), Err(WireError::BadValue { field: "aeth.syndrome" }));
        let mut buf = [0u8; 4];
        ImmDt(0xDEAD_BEEF).emit(&mut buf);
        assert_eq!(buf, [0xDE, 0xAD, 0xBE, 0xEF]);
        assert_eq!(ImmDt::parse(&buf), Ok(ImmDt(0xDEAD_BEEF)));
        assert_eq!(ImmDt::parse(&buf[..3]), Err(WireError::Truncated));
    }

    #[test]
    fn rnr_timer_codes_decode_per_ibta_table() {
        assert_eq!(rnr_timer_micros(0), 655_360);
        assert_eq!(rnr_timer_micros(1), 10);
        assert_eq!(rnr_timer_micros(14), 1_280);
        assert_eq!(rnr_timer_micros(31), 491_520);
        assert_eq!(rnr_timer_micros(32 + 14), 1_280);
    }
}
