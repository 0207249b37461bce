//! A frame in flight: what the event engine moves between NICs and switches. Plain data,
//! stored in a slab and named by its slot in events.
use super::framing::{wire_bytes, PmHeader, PAUSE_PAYLOAD};
use crate::ids::{HostId, PmChannelId, PortId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FrameKind {
    #[default]
    Data,
    Ack,
    /// 802.3x PAUSE, `quanta` 0 is XON.
    Pause,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Frame {
    pub kind: FrameKind,
    pub last: bool,
    /// A data packet sent again (the PM header's flag, pm_resend.rs).
    pub resent: bool,
    /// Source and final destination hosts (the PM header's coordinates).
    pub src: HostId,
    pub dst: HostId,
    /// The PM channel (data: source→destination; ack: the channel it acknowledges).
    pub chan: PmChannelId,
    pub seq: u32,
    pub ack: u32,
    /// A selective acknowledgement's map of the packets held past `ack` (pm_resend.rs); 0
    /// otherwise.
    pub held: u32,
    pub msg: u32,
    pub payload: u32,
    /// Its payload is copied by the application on both sides (an MPI library's data).
    pub copy: bool,
    /// This hop's sending and receiving NIC ports (the Ethernet header's MACs).
    pub from_port: PortId,
    pub to_port: PortId,
    /// While in a switch: the input and output port indices holding its buffer.
    pub sw_in: u16,
    pub sw_out: u16,
    pub quanta: u16,
}

impl Frame {
    /// Line time in bytes.
    pub fn wire(&self) -> u32 {
        match self.kind {
            FrameKind::Data => wire_bytes(PmHeader::BYTES + self.payload),
            FrameKind::Ack => wire_bytes(PmHeader::BYTES),
            FrameKind::Pause => wire_bytes(PAUSE_PAYLOAD),
        }
    }
    /// Bytes the NIC moves over the bus: the frame without preamble, gap and FCS.
    pub fn dma_bytes(&self) -> u32 {
        self.wire() - 24
    }
}
