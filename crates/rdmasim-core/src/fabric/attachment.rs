//! What the fabric of a packet run needs from the world it is part of, and no more: its own
//! state with the event queue and the packets in flight, the events it schedules, and the
//! endpoints (HCAs) at the ends of its links. The world implements `Attachment`
//! (world/attach.rs); the fabric never names the world, the NIC or the host.
//!
//! An endpoint is told three things: a packet reaches it (`admit`, then `process_at`), its
//! link can take another packet (`pull`), and a packet it sent left (`sent`, for a capture);
//! it answers when it could send next (`next_send`).
use crate::engine::{EventQueue, Time};
use crate::fabric::net::Net;
use crate::ids::{ChannelId, HcaId};
use crate::wire::in_flight::{PacketId, Packets};

/// The events the fabric schedules; the world's event type carries each as one of its own.
#[derive(Clone, Copy, Debug)]
pub enum FabricEvent {
    /// A channel finished serialising a packet and may send the next.
    TxDone { ch: ChannelId },
    /// A packet reaches the far end of a channel (tail for an HCA, head for a switch).
    Arrive { ch: ChannelId, pkt: PacketId },
    /// Credits came back to a channel's sender that was waiting for them.
    CreditWake { ch: ChannelId },
    /// A switch output's head packet became ready.
    SwitchKick { ch: ChannelId },
}

/// The fabric's state, the event queue and the packets in flight, borrowed together.
pub struct FabricParts<'a, E> {
    pub net: &'a mut Net,
    pub q: &'a mut EventQueue<E>,
    pub packets: &'a mut Packets,
}

pub trait Attachment {
    type Event: From<FabricEvent> + Copy;

    fn parts(&mut self) -> FabricParts<'_, Self::Event>;
    fn net(&self) -> &Net;
    fn queue(&self) -> &EventQueue<Self::Event>;
    fn packets(&self) -> &Packets;
    /// Whether events that would do nothing are left out (docs/model.md §1).
    fn skip_idle_events(&self) -> bool;

    /// HCA `h` takes the intact packet `pkt`, arriving at `arrive_at`, into its receive
    /// buffer. Returns when it leaves that buffer (its credits go back then) and when the HCA
    /// is ready to process it (`process_at`).
    fn admit(&mut self, h: HcaId, pkt: PacketId, arrive_at: Time) -> (Time, Time);
    /// HCA `h` processes the admitted packet `pkt` at `ready`.
    fn process_at(&mut self, h: HcaId, pkt: PacketId, ready: Time);
    /// HCA `h`'s link can take a packet: it sends its next one if it has one.
    fn pull(&mut self, h: HcaId);
    /// HCA `h` put `pkt` on its link at `at` (after any damage was drawn).
    fn sent(&mut self, at: Time, h: HcaId, pkt: PacketId);
    /// When HCA `h`, whose link frees at `port_free`, could send its next packet, and whether
    /// it has one to send.
    fn next_send(&self, h: HcaId, port_free: Time) -> (Time, bool);
}
