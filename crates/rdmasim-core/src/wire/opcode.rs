//! BTH opcodes of the Reliable Connection transport (IBTA Vol. 1 §9.2, table "OpCode field").
//!
//! The opcode byte is `transport (3 bits) | operation (5 bits)`; RC is transport `000`, so the
//! RC opcodes are simply 0x00..=0x11. The opcode alone decides which extended headers follow
//! the BTH, so the `has_*` methods here are what sizes and parsing rely on.
use super::WireError;

/// An RC opcode. Atomics (0x12-0x14) and the other transports are not modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Opcode {
    SendFirst = 0x00,
    SendMiddle = 0x01,
    SendLast = 0x02,
    SendLastWithImmediate = 0x03,
    SendOnly = 0x04,
    SendOnlyWithImmediate = 0x05,
    RdmaWriteFirst = 0x06,
    RdmaWriteMiddle = 0x07,
    RdmaWriteLast = 0x08,
    RdmaWriteLastWithImmediate = 0x09,
    RdmaWriteOnly = 0x0A,
    RdmaWriteOnlyWithImmediate = 0x0B,
    RdmaReadRequest = 0x0C,
    RdmaReadResponseFirst = 0x0D,
    RdmaReadResponseMiddle = 0x0E,
    RdmaReadResponseLast = 0x0F,
    RdmaReadResponseOnly = 0x10,
    Acknowledge = 0x11,
}

/// Where a packet sits in a multi-packet message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    First,
    Middle,
    Last,
    /// The message fits in one packet.
    Only,
}

impl Position {
    /// Position of packet `i` (0-based) of an `n`-packet message. A zero-length message is
    /// still one packet, so `n == 0` is read as `n == 1`; an `i` past the end counts as the
    /// last packet rather than panicking (callers should not ask, but a capture must not die).
    pub fn of(i: u32, n: u32) -> Position {
        let n = n.max(1);
        if n == 1 {
            Position::Only
        } else if i == 0 {
            Position::First
        } else if i >= n - 1 {
            Position::Last
        } else {
            Position::Middle
        }
    }
}

impl Opcode {
    /// Every RC opcode modelled, in value order.
    pub const ALL: [Opcode; 18] = [
        Opcode::SendFirst,
        Opcode::SendMiddle,
        Opcode::SendLast,
        Opcode::SendLastWithImmediate,
        Opcode::SendOnly,
        Opcode::SendOnlyWithImmediate,
        Opcode::RdmaWriteFirst,
        Opcode::RdmaWriteMiddle,
        Opcode::RdmaWriteLast,
        Opcode::RdmaWriteLastWithImmediate,
        Opcode::RdmaWriteOnly,
        Opcode::RdmaWriteOnlyWithImmediate,
        Opcode::RdmaReadRequest,
        Opcode::RdmaReadResponseFirst,
        Opcode::RdmaReadResponseMiddle,
        Opcode::RdmaReadResponseLast,
        Opcode::RdmaReadResponseOnly,
        Opcode::Acknowledge,
    ];

    /// The byte carried in the BTH.
    pub fn value(self) -> u8 {
        self as u8
    }

    /// The opcode for a BTH byte, or `BadValue` for anything that is not an RC opcode we
    /// model (atomics, UC/RD/UD, CNP 0x81, vendor opcodes).
    pub fn from_u8(v: u8) -> Result<Opcode, WireError> {
        Opcode::ALL.get(usize::from(v)).copied().ok_or(WireError::BadValue { field: "bth.opcode" })
    }

    /// RDMA Extended Transport Header (16 B) follows the BTH: the first packet of an RDMA
    /// WRITE (it names the target buffer for the whole message) and the READ request.
    pub fn has_reth(self) -> bool {
        matches!(
            self,
            Opcode::RdmaWriteFirst
                | Opcode::RdmaWriteOnly
                | Opcode::RdmaWriteOnlyWithImmediate
                | Opcode::RdmaReadRequest
        )
    }

    /// ACK Extended Transport Header (4 B): ACK/NAK, and the READ response packets that
    /// acknowledge (first, last, only; a middle packet carries no AETH).
    pub fn has_aeth(self) -> bool {
        matches!(
            self,
            Opcode::RdmaReadResponseFirst
                | Opcode::RdmaReadResponseLast
                | Opcode::RdmaReadResponseOnly
                | Opcode::Acknowledge
        )
    }

    /// Immediate data (4 B): only on the last (or only) packet of a "with immediate" message,
    /// since that is the one that generates the receive completion.
    pub fn has_immdt(self) -> bool {
        matches!(
            self,
            Opcode::SendLastWithImmediate
                | Opcode::SendOnlyWithImmediate
                | Opcode::RdmaWriteLastWithImmediate
                | Opcode::RdmaWriteOnlyWithImmediate
        )
    }

    /// Whether the packet may carry payload (READ requests and ACKs never do).
    pub fn has_payload(self) -> bool {
        !matches!(self, Opcode::RdmaReadRequest | Opcode::Acknowledge)
    }

    /// Sent by the requester (SEND, WRITE, READ request); the others are responses.
    pub fn is_request(self) -> bool {
        self <= Opcode::RdmaReadRequest
    }

    /// Position in a multi-packet message; `None` for the READ request and the ACK, which
    /// are single packets that are not part of a segmented message.
    pub fn position(self) -> Option<Position> {
        use Opcode::*;
        Some(match self {
            SendFirst | RdmaWriteFirst | RdmaReadResponseFirst => Position::First,
            SendMiddle | RdmaWriteMiddle | RdmaReadResponseMiddle => Position::Middle,
            SendLast | SendLastWithImmediate | RdmaWriteLast | RdmaWriteLastWithImmediate | RdmaReadResponseLast => {
                Position::Last
            }
            SendOnly | SendOnlyWithImmediate | RdmaWriteOnly | RdmaWriteOnlyWithImmediate | RdmaReadResponseOnly => {
                Position::Only
            }
            RdmaReadRequest | Acknowledge => return None,
        })
    }

    pub fn is_first(self) -> bool {
        self.position() == Some(Position::First)
    }
    pub fn is_middle(self) -> bool {
        self.position() == Some(Position::Middle)
    }
    pub fn is_last(self) -> bool {
        self.position() == Some(Position::Last)
    }
    pub fn is_only(self) -> bool {
        self.position() == Some(Position::Only)
    }

    /// Opcode of packet `i` (0-based) of an `n`-packet SEND; immediate data, if any, rides on
    /// the last packet.
    pub fn send(i: u32, n: u32, with_imm: bool) -> Opcode {
        match (Position::of(i, n), with_imm) {
            (Position::First, _) => Opcode::SendFirst,
            (Position::Middle, _) => Opcode::SendMiddle,
            (Position::Last, false) => Opcode::SendLast,
            (Position::Last, true) => Opcode::SendLastWithImmediate,
            (Position::Only, false) => Opcode::SendOnly,
            (Position::Only, true) => Opcode::SendOnlyWithImmediate,
        }
    }

    /// Opcode of packet `i` (0-based) of an `n`-packet RDMA WRITE.
    pub fn rdma_write(i: u32, n: u32, with_imm: bool) -> Opcode {
        match (Position::of(i, n), with_imm) {
            (Position::First, _) => Opcode::RdmaWriteFirst,
            (Position::Middle, _) => Opcode::RdmaWriteMiddle,
            (Position::Last, false) => Opcode::RdmaWriteLast,
            (Position::Last, true) => Opcode::RdmaWriteLastWithImmediate,
            (Position::Only, false) => Opcode::RdmaWriteOnly,
            (Position::Only, true) => Opcode::RdmaWriteOnlyWithImmediate,
        }
    }

    /// Opcode of packet `i` (0-based) of an `n`-packet RDMA READ response.
    pub fn read_response(i: u32, n: u32) -> Opcode {
        match Position::of(i, n) {
            Position::First => Opcode::RdmaReadResponseFirst,
            Position::Middle => Opcode::RdmaReadResponseMiddle,
            Position::Last => Opcode::RdmaReadResponseLast,
            Position::Only => Opcode::RdmaReadResponseOnly,
        }
    }

    /// The IBTA name (the spec's opcode table, prefixed with the transport), e.g.
    /// `"RC RDMA WRITE First"`. Wireshark's detail view uses the same words
    /// ([`Opcode::wireshark_name`]); its packet list has shorter ones ([`Opcode::wireshark_info`]).
    pub fn name(self) -> &'static str {
        use Opcode::*;
        match self {
            SendFirst => "RC SEND First",
            SendMiddle => "RC SEND Middle",
            SendLast => "RC SEND Last",
            SendLastWithImmediate => "RC SEND Last with Immediate",
            SendOnly => "RC SEND Only",
            SendOnlyWithImmediate => "RC SEND Only with Immediate",
            RdmaWriteFirst => "RC RDMA WRITE First",
            RdmaWriteMiddle => "RC RDMA WRITE Middle",
            RdmaWriteLast => "RC RDMA WRITE Last",
            RdmaWriteLastWithImmediate => "RC RDMA WRITE Last with Immediate",
            RdmaWriteOnly => "RC RDMA WRITE Only",
            RdmaWriteOnlyWithImmediate => "RC RDMA WRITE Only with Immediate",
            RdmaReadRequest => "RC RDMA READ Request",
            // The IBTA table (and Wireshark) write "response" in lower case.
            RdmaReadResponseFirst => "RC RDMA READ response First",
            RdmaReadResponseMiddle => "RC RDMA READ response Middle",
            RdmaReadResponseLast => "RC RDMA READ response Last",
            RdmaReadResponseOnly => "RC RDMA READ response Only",
            Acknowledge => "RC Acknowledge",
        }
    }

    /// The name in the detail view of Wireshark (the value string of `infiniband.bth.opcode`),
    /// e.g. `"Reliable Connection (RC) - RDMA WRITE First"`: [`Opcode::name`] with the
    /// transport spelled out. Checked against tshark 4.0 by `tests/wire_tshark.rs`.
    pub fn wireshark_name(self) -> String {
        let rest = self.name().strip_prefix("RC ").unwrap_or(self.name());
        format!("Reliable Connection (RC) - {rest}")
    }

    /// The name Wireshark puts in the Info column of the packet list (its own short table,
    /// `OpCodeMap` in packet-infiniband.c), e.g. `"RC RDMA Write First"`; note "Immediate"
    /// without "with". Checked against tshark 4.0 by `tests/wire_tshark.rs`.
    pub fn wireshark_info(self) -> &'static str {
        use Opcode::*;
        match self {
            SendFirst => "RC Send First",
            SendMiddle => "RC Send Middle",
            SendLast => "RC Send Last",
            SendLastWithImmediate => "RC Send Last Immediate",
            SendOnly => "RC Send Only",
            SendOnlyWithImmediate => "RC Send Only Immediate",
            RdmaWriteFirst => "RC RDMA Write First",
            RdmaWriteMiddle => "RC RDMA Write Middle",
            RdmaWriteLast => "RC RDMA Write Last",
            RdmaWriteLastWithImmediate => "RC RDMA Write Last Immediate",
            RdmaWriteOnly => "RC RDMA Write Only",
            RdmaWriteOnlyWithImmediate => "RC RDMA Write Only Immediate",
            RdmaReadRequest => "RC RDMA Read Request",
            RdmaReadResponseFirst => "RC RDMA Read Response First",
            RdmaReadResponseMiddle => "RC RDMA Read Response Middle",
            RdmaReadResponseLast => "RC RDMA Read Response Last",
            RdmaReadResponseOnly => "RC RDMA Read Response Only",
            Acknowledge => "RC Acknowledge",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_match_ibta_table() {
        for (i, op) in Opcode::ALL.iter().enumerate() {
            assert_eq!(op.value() as usize, i);
            assert_eq!(Opcode::from_u8(op.value()), Ok(*op));
        }
        assert_eq!(Opcode::SendOnlyWithImmediate.value(), 0x05);
        assert_eq!(Opcode::RdmaWriteOnlyWithImmediate.value(), 0x0B);
        assert_eq!(Opcode::RdmaReadRequest.value(), 0x0C);
        assert_eq!(Opcode::RdmaReadResponseOnly.value(), 0x10);
        assert_eq!(Opcode::Acknowledge.value(), 0x11);
        // Atomics, UC SEND First and the RoCE CNP are not modelled.
        for v in [0x12, 0x13, 0x20, 0x81, 0xFF] {
            assert_eq!(Opcode::from_u8(v), Err(WireError::BadValue { field: "bth.opcode" }));
        }
    }

    #[test]
    fn extended_headers_follow_the_opcode() {
        let reth: Vec<_> = Opcode::ALL.iter().filter(|o| o.has_reth()).map(|o| o.value()).collect();
        assert_eq!(reth, [0x06, 0x0A, 0x0B, 0x0C]);
        let aeth: Vec<_> = Opcode::ALL.iter().filter(|o| o.has_aeth()).map(|o| o.value()).collect();
        assert_eq!(aeth, [0x0D, 0x0F, 0x10, 0x11]);
        let imm: Vec<_> = Opcode::ALL.iter().filter(|o| o.has_immdt()).map(|o| o.value()).collect();
        assert_eq!(imm, [0x03, 0x05, 0x09, 0x0B]);
        assert!(!Opcode::RdmaReadRequest.has_payload());
        assert!(!Opcode::Acknowledge.has_payload());
        assert!(Opcode::RdmaReadRequest.is_request());
        assert!(!Opcode::RdmaReadResponseFirst.is_request());
    }

    fn seq(f: impl Fn(u32, u32) -> Opcode, n: u32) -> Vec<Opcode> {
        (0..n).map(|i| f(i, n)).collect()
    }

    #[test]
    fn one_packet_messages_use_only_opcodes() {
        assert_eq!(seq(|i, n| Opcode::send(i, n, false), 1), [Opcode::SendOnly]);
        assert_eq!(seq(|i, n| Opcode::send(i, n, true), 1), [Opcode::SendOnlyWithImmediate]);
        assert_eq!(seq(|i, n| Opcode::rdma_write(i, n, false), 1), [Opcode::RdmaWriteOnly]);
        assert_eq!(seq(|i, n| Opcode::rdma_write(i, n, true), 1), [Opcode::RdmaWriteOnlyWithImmediate]);
        assert_eq!(seq(Opcode::read_response, 1), [Opcode::RdmaReadResponseOnly]);
        // A zero-length message is one packet.
        assert_eq!(Opcode::send(0, 0, false), Opcode::SendOnly);
        assert!(Opcode::SendOnly.is_only() && !Opcode::SendOnly.is_first());
    }

    #[test]
    fn two_packet_messages_are_first_then_last() {
        assert_eq!(seq(|i, n| Opcode::send(i, n, false), 2), [Opcode::SendFirst, Opcode::SendLast]);
        assert_eq!(seq(|i, n| Opcode::send(i, n, true), 2), [Opcode::SendFirst, Opcode::SendLastWithImmediate]);
        assert_eq!(
            seq(|i, n| Opcode::rdma_write(i, n, true), 2),
            [Opcode::RdmaWriteFirst, Opcode::RdmaWriteLastWithImmediate]
        );
        assert_eq!(seq(Opcode::read_response, 2), [Opcode::RdmaReadResponseFirst, Opcode::RdmaReadResponseLast]);
    }

    #[test]
    fn five_packet_messages_have_three_middles() {
        use Opcode::*;
        assert_eq!(
            seq(|i, n| Opcode::rdma_write(i, n, false), 5),
            [RdmaWriteFirst, RdmaWriteMiddle, RdmaWriteMiddle, RdmaWriteMiddle, RdmaWriteLast]
        );
        assert_eq!(
            seq(|i, n| Opcode::send(i, n, true), 5),
            [SendFirst, SendMiddle, SendMiddle, SendMiddle, SendLastWithImmediate]
        );
        let rr = seq(Opcode::read_response, 5);
        assert_eq!(
            rr,
            [
                RdmaReadResponseFirst,
                RdmaReadResponseMiddle,
                RdmaReadResponseMiddle,
                RdmaReadResponseMiddle,
                RdmaReadResponseLast
            ]
        );
        // Only the first and last READ response packets carry an AETH; only the first WRITE
        // packet carries the RETH.
        let aeth: Vec<bool> = rr.iter().map(|o| o.has_aeth()).collect();
        assert_eq!(aeth, [true, false, false, false, true]);
        assert!(RdmaWriteFirst.has_reth() && !RdmaWriteMiddle.has_reth() && !RdmaWriteLast.has_reth());
        assert!(rr[0].is_first() && rr[2].is_middle() && rr[4].is_last());
    }

    #[test]
    fn names_follow_ibta_and_wireshark() {
        assert_eq!(Opcode::RdmaWriteFirst.name(), "RC RDMA WRITE First");
        assert_eq!(Opcode::Acknowledge.name(), "RC Acknowledge");
        assert_eq!(Opcode::RdmaReadResponseLast.wireshark_name(), "Reliable Connection (RC) - RDMA READ response Last");
        assert_eq!(Opcode::RdmaWriteOnlyWithImmediate.wireshark_info(), "RC RDMA Write Only Immediate");
    }
}
