//! A store of values addressed by a reused `u32` index, for payloads that must not ride in the
//! event queue itself: every queued event is moved a few times per heap operation, so events
//! stay small (`world::Event`, 12 bytes) and bulky payloads (packets, completions, application
//! events) wait here, named by their slot. A slab's slots have an id type of their own
//! ([`SlotId`]: a typed id of ids.rs, or a bare `u32`), so a frame's slot cannot be passed where
//! a completion's is meant.
use std::marker::PhantomData;

/// The id a slab names its slots by: a slot number in a type of its own.
pub trait SlotId: Copy {
    fn from_slot(slot: u32) -> Self;
    fn slot(self) -> u32;
}

impl SlotId for u32 {
    #[inline]
    fn from_slot(slot: u32) -> u32 {
        slot
    }
    #[inline]
    fn slot(self) -> u32 {
        self
    }
}

pub struct Slab<T, I: SlotId = u32> {
    slots: Vec<T>,
    free: Vec<u32>,
    id: PhantomData<I>,
}

impl<T: Copy, I: SlotId> Slab<T, I> {
    pub fn new() -> Slab<T, I> {
        Slab { slots: Vec::new(), free: Vec::new(), id: PhantomData }
    }

    /// Stores `v`; the slot of the most recently freed value is reused first.
    #[inline]
    pub fn alloc(&mut self, v: T) -> I {
        I::from_slot(if let Some(i) = self.free.pop() {
            self.slots[i as usize] = v;
            i
        } else {
            self.slots.push(v);
            self.slots.len() as u32 - 1
        })
    }

    /// Frees `slot`; its value must not be read again.
    #[inline]
    pub fn release(&mut self, slot: I) {
        self.free.push(slot.slot());
    }

    /// Reads and frees `slot`.
    #[inline]
    pub fn take(&mut self, slot: I) -> T {
        let v = self.slots[slot.slot() as usize];
        self.free.push(slot.slot());
        v
    }

    #[inline]
    pub fn get(&self, slot: I) -> &T {
        &self.slots[slot.slot() as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, slot: I) -> &mut T {
        &mut self.slots[slot.slot() as usize]
    }

    /// Values stored and not yet freed.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Most values stored at once so far (freed slots are reused before the store grows).
    pub fn peak(&self) -> usize {
        self.slots.len()
    }
}

impl<T: Copy, I: SlotId> Default for Slab<T, I> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_freed_slots_last_freed_first() {
        let mut s: Slab<u64> = Slab::new();
        let a = s.alloc(10);
        let b = s.alloc(20);
        assert_eq!((a, b), (0, 1));
        assert_eq!(s.take(a), 10);
        s.release(b);
        assert_eq!(s.live(), 0);
        assert_eq!(s.alloc(30), 1, "the last freed slot comes back first");
        assert_eq!(s.alloc(40), 0);
        assert_eq!((*s.get(0), *s.get(1)), (40, 30));
        *s.get_mut(0) += 1;
        assert_eq!(s.take(0), 41);
        assert_eq!(s.live(), 1);
    }
}
