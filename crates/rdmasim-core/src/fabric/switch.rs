//! A switch: a linear forwarding table (LID → output port), a fixed traversal latency
//! (cut-through), and per-output, per-VL FIFO queues served round robin across VLs.
use crate::engine::Time;
use crate::ids::{ChannelId, PortId};
use crate::fabric::channel::NUM_VL;
use crate::wire::in_flight::{Hop, PacketId};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub pkt: PacketId,
    /// The channel it came in on (its credits return when it leaves).
    pub in_ch: ChannelId,
    /// Earliest departure: head arrival + traversal latency.
    pub ready_at: Time,
    /// The packet's size, destination and VL, so that sending it on does not read the packet
    /// (hca/packet.rs `Hop`). 24 bytes an entry with it, against 16.
    pub hop: Hop,
}

/// Where a switch output leads and how it decides departures: what a packet reads first
/// after the forwarding table, kept apart from the output's queues (`OutPort`, 512 bytes) in a
/// small table per switch (`Switch::links`, 8 bytes an output) that stays in cache. With the
/// channel in the output's line, reading the table, then the output, then its channel were
/// three cache misses one after the other on every packet-hop through a k = 16 fat tree;
/// now the output's queues and the channel are fetched together.
#[derive(Clone, Copy, Debug)]
pub struct OutLink {
    /// Channel leaving this port.
    pub ch: ChannelId,
    /// Each packet's departure is decided when it is queued (fabric/switch_fifo.rs); the
    /// output's queues stay empty.
    pub departs_on_arrival: bool,
}

/// One VL's FIFO at a switch output: its head packet kept in place, the packets behind it in
/// `rest`. Most outputs of a large fabric hold one packet at a time, which then never leaves
/// the output's line: a `VecDeque` alone put every packet in a buffer of its own, a second
/// miss after the output's line on each queueing and each departure.
#[derive(Clone, Debug)]
struct Lane {
    /// Valid while the VL's bit of `OutPort::nonempty` is set.
    head: Queued,
    rest: VecDeque<Queued>,
}

impl Default for Lane {
    fn default() -> Self {
        let none = Queued { pkt: PacketId(u32::MAX), in_ch: ChannelId(u32::MAX), ready_at: Time::MAX, hop: Hop { wire_bytes: 0, dlid: 0, vl: 0 } };
        Lane { head: none, rest: VecDeque::new() }
    }
}

// Aligned to a cache line with the hot fields first, so that VL 0 (all HCA traffic) — the
// round robin state, its head packet and its queue's header — is the output's first line.
// (Unaligned, the outputs of a switch's `Vec` started 8 bytes apart from one line to the next,
// and most of them had those fields across two lines.)
#[repr(C, align(64))]
#[derive(Default)]
pub struct OutPort {
    /// Next VL to serve (round robin).
    pub next_vl: u8,
    /// Bit v set when `lanes[v]` holds a packet: the round robin finds the next VL from it
    /// without reading the eight lanes.
    nonempty: u8,
    lanes: [Lane; NUM_VL],
}

const _: () = assert!(std::mem::offset_of!(OutPort, lanes) + std::mem::size_of::<Lane>() <= 64);

// `OutPort::nonempty` has a bit per VL.
const _: () = assert!(NUM_VL <= 8);

/// An LFT entry with no output (no route, or a port without a cable).
pub const NO_OUTPUT: u8 = u8::MAX;

pub struct Switch {
    pub name: String,
    pub lid: u16,
    /// Its port 1 in the port arena (port n is `first_port + n - 1`).
    pub first_port: PortId,
    /// LFT: output index (into `outputs`) by destination LID (NO_OUTPUT = no route). One
    /// byte an entry, as the IB LFT's port numbers (fabric/routing), so an output index fits:
    /// the outputs are the cabled ports in port order, so the output of port n is below n.
    /// Half the size of `u16` entries: every packet-hop reads one at random, and a k = 16 fat
    /// tree's 320 tables did not fit in the cache.
    pub lft: Vec<u8>,
    /// Each output's channel and departure rule, by output index (`OutLink`).
    pub links: Vec<OutLink>,
    /// Each output's queues, by output index.
    pub outputs: Vec<OutPort>,
    pub latency: Time,
    /// Every link into the switch has the same rate and length, so packets reach it in the
    /// order they were put on those links (fabric/forward.rs switch_receive relies on it).
    pub inputs_in_send_order: bool,
}

impl Switch {
    pub fn route(&self, dlid: u16) -> Option<u16> {
        self.lft.get(dlid as usize).copied().filter(|p| *p != NO_OUTPUT).map(u16::from)
    }
}

impl OutPort {
    /// The VL whose head packet should go next among those with a packet, round robin.
    #[inline]
    pub fn pick_vl(&self) -> Option<u8> {
        // Rotating the mask right by `next_vl` puts that VL at bit 0: the lowest set bit is the
        // first VL with a packet at or after it, wrapping round.
        let rotated = self.nonempty.rotate_right(u32::from(self.next_vl));
        (rotated != 0).then(|| ((rotated.trailing_zeros() as u8) + self.next_vl) % NUM_VL as u8)
    }
    /// The earliest ready time of the VLs' head packets (`Time::MAX`: none queued).
    #[inline]
    pub fn earliest_ready(&self) -> Time {
        let mut mask = self.nonempty;
        let mut earliest = Time::MAX;
        while mask != 0 {
            let vl = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            earliest = earliest.min(self.lanes[vl].head.ready_at);
        }
        earliest
    }
    /// No packet waits on any VL.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.nonempty == 0
    }
    #[inline]
    pub fn push(&mut self, vl: u8, q: Queued) {
        let lane = &mut self.lanes[vl as usize];
        if self.nonempty & (1 << vl) == 0 {
            lane.head = q;
            self.nonempty |= 1 << vl;
        } else {
            lane.rest.push_back(q);
        }
    }
    /// The head packet of `vl`, if it has one.
    #[inline]
    pub fn front(&self, vl: u8) -> Option<&Queued> {
        (self.nonempty & (1 << vl) != 0).then(|| &self.lanes[vl as usize].head)
    }
    /// The head packet of `vl`, which has one.
    #[inline]
    pub fn head(&self, vl: u8) -> Queued {
        assert!(self.nonempty & (1 << vl) != 0, "picked VL has a packet");
        self.lanes[vl as usize].head
    }
    /// Takes the head packet of `vl` and moves the round robin past it.
    #[inline]
    pub fn pop(&mut self, vl: u8) {
        let lane = &mut self.lanes[vl as usize];
        match lane.rest.pop_front() {
            Some(next) => lane.head = next,
            None => self.nonempty &= !(1 << vl),
        }
        self.next_vl = (vl + 1) % NUM_VL as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mask's round robin picks what a scan of the queues from `next_vl` picks.
    #[test]
    fn pick_vl_matches_a_scan() {
        let q = Queued { pkt: PacketId(0), in_ch: ChannelId(0), ready_at: Time::ZERO, hop: Hop { wire_bytes: 64, dlid: 1, vl: 0 } };
        for mask in 0u16..256 {
            for next in 0..NUM_VL as u8 {
                let mut op = OutPort::default();
                for vl in 0..NUM_VL as u8 {
                    if mask & (1 << vl) != 0 {
                        op.push(vl, q);
                    }
                }
                op.next_vl = next;
                let scan = (0..NUM_VL as u8).map(|i| (next + i) % NUM_VL as u8).find(|vl| op.front(*vl).is_some());
                assert_eq!(op.pick_vl(), scan, "mask {mask:#x} next {next}");
            }
        }
    }
}
