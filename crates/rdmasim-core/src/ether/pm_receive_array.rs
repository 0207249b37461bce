//! PM/Ethernet-HXB's lock-free packet ordering (seeds/003, "排他制御不要のPacket Ordering方式"):
//! one array per source, indexed by sequence number; 0 means the slot may receive, non-zero
//! that its packet has arrived. Two packets with the same sequence number never arrive at
//! once, so receivers on several NICs need no lock: the only check is that the number is in
//! the receivable range. Packets arriving out of order over the trunk wait in place; no
//! reordering queue.
//!
//! The cost is memory: a slot per packet of the window (4 B each, "8つとして32バイト") against
//! the 12 B (two pointers and a lock) of a queue.

/// Bytes of one slot.
pub const SLOT_BYTES: usize = 4;
/// Bytes of the queue it replaces (two pointers and a lock: seeds/003).
pub const QUEUE_BYTES: usize = 12;

pub struct ReceiveArray {
    /// Slot seq % len: 0 free, else the packet's payload bytes + 1.
    slots: Vec<u32>,
    /// The next sequence number to deliver: every packet before it has been delivered.
    pub expected: u32,
}

/// What became of an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Stored; `deliverable` packets (this one and any waiting after it) are now in order.
    Accepted,
    /// Already received (a retransmission of a packet that had arrived).
    Duplicate,
    /// Beyond the receivable range.
    OutOfWindow,
}

impl ReceiveArray {
    pub fn new(window: u32) -> ReceiveArray {
        ReceiveArray { slots: vec![0; window as usize], expected: 0 }
    }

    pub fn memory_bytes(&self) -> usize {
        self.slots.len() * SLOT_BYTES
    }

    /// The only check: is `seq` within [expected, expected + window)?
    pub fn arrive(&mut self, seq: u32, payload: u32) -> Arrival {
        let off = seq.wrapping_sub(self.expected);
        if off >= self.slots.len() as u32 {
            // Below `expected` (wrapped to a large offset) is an old duplicate.
            return if seq.wrapping_sub(self.expected) > u32::MAX / 2 { Arrival::Duplicate } else { Arrival::OutOfWindow };
        }
        let n = self.slots.len() as u32;
        let slot = &mut self.slots[(seq % n) as usize];
        if *slot != 0 {
            return Arrival::Duplicate;
        }
        *slot = payload + 1;
        Arrival::Accepted
    }

    /// The slots after `expected` that hold a packet, bit i for sequence number
    /// `expected + 1 + i` (at most `bits` of them): what a selective acknowledgement reports
    /// (pm_resend.rs). `expected` itself is empty whenever this is asked (a packet there is
    /// delivered on arrival).
    pub fn held_after_expected(&self, bits: u32) -> u32 {
        let n = self.slots.len() as u32;
        let mut map = 0;
        for i in 0..bits.min(n.saturating_sub(1)) {
            if self.slots[(self.expected.wrapping_add(1 + i) % n) as usize] != 0 {
                map |= 1 << i;
            }
        }
        map
    }

    /// Takes the next in-order packet, if it has arrived: its payload bytes.
    pub fn take_in_order(&mut self) -> Option<u32> {
        let n = self.slots.len() as u32;
        let slot = &mut self.slots[(self.expected % n) as usize];
        if *slot == 0 {
            return None;
        }
        let bytes = *slot - 1;
        *slot = 0;
        self.expected = self.expected.wrapping_add(1);
        Some(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_order_packets_wait_in_place_and_deliver_in_order() {
        let mut a = ReceiveArray::new(8);
        assert_eq!(a.memory_bytes(), 32);
        assert_eq!(a.arrive(1, 10), Arrival::Accepted);
        assert_eq!(a.take_in_order(), None);
        assert_eq!(a.arrive(0, 20), Arrival::Accepted);
        assert_eq!(a.arrive(1, 10), Arrival::Duplicate);
        assert_eq!(a.take_in_order(), Some(20));
        assert_eq!(a.take_in_order(), Some(10));
        assert_eq!(a.arrive(0, 20), Arrival::Duplicate);
        assert_eq!(a.arrive(10, 1), Arrival::OutOfWindow);
    }

    #[test]
    fn the_map_after_a_hole_names_the_slots_held() {
        let mut a = ReceiveArray::new(8);
        for seq in [1, 2, 5] {
            assert_eq!(a.arrive(seq, 10), Arrival::Accepted);
        }
        // Sequence 0 is the hole; 1, 2 and 5 are bits 0, 1 and 4.
        assert_eq!(a.held_after_expected(32), 0b1_0011);
        assert_eq!(a.held_after_expected(2), 0b11);
    }
}
