//! A store of values addressed by a reused `u32` index, for payloads that must not ride in the
//! event queue itself: every queued event is moved a few times per heap operation, so events
//! stay small (`world::Event`, 12 bytes) and bulky payloads (packets, completions, application
//! events) wait here, named by their slot.
pub struct Slab<T> {
    slots: Vec<T>,
    free: Vec<u32>,
}

impl<T: Copy> Slab<T> {
    pub fn new() -> Slab<T> {
        Slab { slots: Vec::new(), free: Vec::new() }
    }

    /// Stores `v`; the slot of the most recently freed value is reused first.
    #[inline]
    pub fn alloc(&mut self, v: T) -> u32 {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = v;
            i
        } else {
            self.slots.push(v);
            self.slots.len() as u32 - 1
        }
    }

    /// Frees `slot`; its value must not be read again.
    #[inline]
    pub fn release(&mut self, slot: u32) {
        self.free.push(slot);
    }

    /// Reads and frees `slot`.
    #[inline]
    pub fn take(&mut self, slot: u32) -> T {
        let v = self.slots[slot as usize];
        self.free.push(slot);
        v
    }

    #[inline]
    pub fn get(&self, slot: u32) -> &T {
        &self.slots[slot as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, slot: u32) -> &mut T {
        &mut self.slots[slot as usize]
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

impl<T: Copy> Default for Slab<T> {
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
