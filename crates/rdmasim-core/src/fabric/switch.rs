//! A switch: a linear forwarding table (LID → output port), a fixed traversal latency
//! (cut-through), and per-output, per-VL FIFO queues served round robin across VLs.
use crate::engine::Time;
use crate::ids::{ChannelId, PortId};
use crate::fabric::channel::NUM_VL;
use crate::hca::packet::PacketId;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub pkt: PacketId,
    /// The channel it came in on (its credits return when it leaves).
    pub in_ch: ChannelId,
    /// Earliest departure: head arrival + traversal latency.
    pub ready_at: Time,
}

pub struct OutPort {
    /// Channel leaving this port.
    pub ch: ChannelId,
    pub queues: [VecDeque<Queued>; NUM_VL],
    /// Next VL to serve (round robin).
    pub next_vl: u8,
    /// Each packet's departure is decided when it is queued (fabric/switch_fifo.rs); the
    /// queues stay empty.
    pub departs_on_arrival: bool,
}

/// An LFT entry with no output (no route, or a port without a cable).
pub const NO_OUTPUT: u16 = u16::MAX;

pub struct Switch {
    pub name: String,
    pub lid: u16,
    /// Its port 1 in the port arena (port n is `first_port + n - 1`).
    pub first_port: PortId,
    /// LFT: output index (into `outputs`) by destination LID (NO_OUTPUT = no route).
    pub lft: Vec<u16>,
    pub outputs: Vec<OutPort>,
    pub latency: Time,
    /// Every link into the switch has the same rate and length, so packets reach it in the
    /// order they were put on those links (fabric/forward.rs switch_receive relies on it).
    pub inputs_in_send_order: bool,
}

impl Switch {
    pub fn route(&self, dlid: u16) -> Option<u16> {
        self.lft.get(dlid as usize).copied().filter(|p| *p != NO_OUTPUT)
    }
}

impl OutPort {
    pub fn new(ch: ChannelId) -> OutPort {
        OutPort { ch, queues: Default::default(), next_vl: 0, departs_on_arrival: false }
    }
    /// The VL whose head packet should go next among those with a packet, round robin.
    pub fn pick_vl(&self) -> Option<u8> {
        (0..NUM_VL as u8).map(|i| (self.next_vl + i) % NUM_VL as u8).find(|vl| !self.queues[*vl as usize].is_empty())
    }
}
