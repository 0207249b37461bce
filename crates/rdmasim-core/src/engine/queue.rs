//! The event queue: a binary min-heap keyed by (time, insertion sequence). The sequence number
//! makes the order of simultaneous events the order they were scheduled, which keeps runs
//! deterministic.
//!
//! Hand-rolled rather than `std::collections::BinaryHeap` for one reason: std's `pop` writes the
//! last element into the root and then reads the root back to sift it down, and that read of a
//! just-written slot misses store forwarding — a quarter of the simulator's time in a bulk
//! transfer went to that one load (perf). Here the root is copied out, the last element's key
//! stays in registers and the hole moves down; no slot is read after it was written. Events are
//! `Copy`, so the holes need no unsafe code.
//!
//! The heap is 1-based and stored in 64-byte lines of two entries (`Pair`): the children of
//! node i, 2i and 2i+1, share line i, so a level of the sift-down reads one line, not two (the
//! fat-tree bench keeps some 5000 events queued, more than L1 holds: the comparisons missed it
//! about six times a pop). Fat-tree bench: 0.53 s -> 0.48 s wall, for more instructions
//! (cachegrind: 22 M -> 14 M L1 misses in the loop, +26 % instructions there; the misses are on
//! the sift's dependency chain, the extra instructions are not).
use super::Time;

#[derive(Clone, Copy)]
struct Entry<E> {
    /// `time << 64 | seq`: one comparison orders by time, then by scheduling order.
    key: u128,
    event: E,
}

#[inline]
fn key(time: Time, seq: u64) -> u128 {
    (u128::from(time.0) << 64) | u128::from(seq)
}

/// An event's place in the order (its time and scheduling sequence), taken with
/// [`EventQueue::reserve`] for an event that may never need to be scheduled: scheduled later
/// with [`EventQueue::at_key`], it runs exactly where it would have run had it been scheduled
/// when the key was taken.
///
/// Two `u64`s rather than the heap's `u128` key: a `u128` is 16-byte aligned, and a channel
/// keeps one in the cache line it packs by hand (fabric/channel.rs). The derived order is the
/// key's: time, then sequence.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Default)]
pub struct EventKey {
    time: u64,
    seq: u64,
}

impl EventKey {
    #[inline(always)]
    fn key(self) -> u128 {
        key(Time(self.time), self.seq)
    }
}

/// Heap nodes 2i and 2i+1, on one cache line. Node 0 does not exist: its slot holds a copy of
/// node 1, never read.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Pair<E>([Entry<E>; 2]);

pub struct EventQueue<E> {
    heap: Vec<Pair<E>>,
    /// Nodes in the heap: 1..=len.
    len: usize,
    seq: u64,
    now: Time,
    popped: u64,
    /// Key of the event popped last (0 before the first).
    current: u128,
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::with_capacity(1 << 11),
            len: 0,
            seq: 0,
            now: Time::ZERO,
            popped: 0,
            current: 0,
        }
    }
    #[inline(always)]
    fn get(&self, node: usize) -> Entry<E> {
        self.heap[node / 2].0[node % 2]
    }
    #[inline(always)]
    fn set(&mut self, node: usize, e: Entry<E>) {
        self.heap[node / 2].0[node % 2] = e;
    }
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }
    /// Events handled so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Schedules `event` at absolute time `at` (never before now).
    // Always inlined: the caller builds the event field by field, and a call would pass it
    // through memory and reload it whole — a store-forwarding stall per event.
    #[inline(always)]
    pub fn at(&mut self, at: Time, event: E) {
        let k = self.reserve(at);
        self.at_key(k, event)
    }
    /// Takes the place in the order an event scheduled now at `at` would get, without
    /// scheduling one.
    #[inline(always)]
    pub fn reserve(&mut self, at: Time) -> EventKey {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let time = at.max(self.now);
        self.seq += 1;
        EventKey { time: time.0, seq: self.seq }
    }
    /// True when an event at `k` would already have run.
    #[inline]
    pub fn has_passed(&self, k: EventKey) -> bool {
        k.key() <= self.current
    }
    /// Schedules `event` at a reserved place that has not passed yet.
    #[inline(always)]
    pub fn at_key(&mut self, k: EventKey, event: E) {
        debug_assert!(!self.has_passed(k), "event scheduled at a place already passed");
        let new = Entry { key: k.key(), event };
        // Sift up: parents move down into the hole until the new entry's place is found.
        let mut pos = self.len + 1;
        self.len = pos;
        if pos / 2 == self.heap.len() {
            self.heap.push(Pair([new; 2]));
        }
        while pos > 1 {
            let parent = pos / 2;
            let p = self.get(parent);
            if p.key <= new.key {
                break;
            }
            self.set(pos, p);
            pos = parent;
        }
        self.set(pos, new);
    }
    /// Schedules `event` `delay` after now.
    #[inline(always)]
    pub fn after(&mut self, delay: Time, event: E) {
        let t = self.now + delay;
        self.at(t, event)
    }
    /// The events still queued, in no particular order.
    pub fn pending(&self) -> impl Iterator<Item = &E> + '_ {
        (1..=self.len).map(|i| &self.heap[i / 2].0[i % 2].event)
    }
    /// The next event to run, if any.
    pub fn peek(&self) -> Option<&E> {
        (self.len > 0).then(|| &self.heap[0].0[1].event)
    }
    pub fn peek_time(&self) -> Option<Time> {
        (self.len > 0).then(|| Time((self.heap[0].0[1].key >> 64) as u64))
    }
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if self.len == 0 {
            return None;
        }
        let top = self.get(1);
        let last = self.get(self.len);
        self.len -= 1;
        let n = self.len;
        // Sift the last entry down from the root's hole.
        let mut pos = 1;
        loop {
            let child = 2 * pos;
            if child > n {
                break;
            }
            // The children 2pos and 2pos+1 are line `pos`.
            let pair = &self.heap[pos].0;
            let right = child < n && pair[1].key < pair[0].key;
            let c = pair[usize::from(right)];
            if c.key >= last.key {
                break;
            }
            self.set(pos, c);
            pos = child + usize::from(right);
        }
        self.set(pos, last);
        let time = Time((top.key >> 64) as u64);
        self.now = time;
        self.current = top.key;
        self.popped += 1;
        Some((time, top.event))
    }
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::SimRng;

    /// Events come out in time order, simultaneous ones in the order they were scheduled,
    /// also when pushes and pops interleave (checked against a stable sort).
    #[test]
    fn pops_in_time_then_schedule_order() {
        let mut rng = SimRng::new(7, 0);
        let mut q: EventQueue<u32> = EventQueue::new();
        let mut reference: Vec<(u64, u32)> = Vec::new();
        let mut out = Vec::new();
        for i in 0..5000u32 {
            // Few distinct times, so many ties; never before now.
            let t = q.now().0 + rng.below(8) * 1000;
            q.at(Time(t), i);
            reference.push((t, i));
            if rng.below(3) == 0 {
                out.push(q.pop().map(|(t, e)| (t.0, e)).unwrap());
            }
        }
        while let Some((t, e)) = q.pop() {
            out.push((t.0, e));
        }
        assert_eq!(out.len(), reference.len());
        assert!(out.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
        // Among equal times, scheduling order (the event value is its scheduling index).
        assert!(
            out.windows(2).all(|w| w[0].0 < w[1].0 || w[0].1 < w[1].1),
            "ties in schedule order"
        );
        reference.sort_by_key(|&(t, i)| (t, i));
        let mut sorted_out = out.clone();
        sorted_out.sort();
        assert_eq!(sorted_out, reference, "nothing lost or duplicated");
        assert_eq!(q.popped(), 5000);
        assert!(q.is_empty());
    }

    /// An event scheduled late at a reserved key runs where it would have run had it been
    /// scheduled when the key was taken: before the events at the same time scheduled after
    /// the reservation, after those scheduled before it.
    #[test]
    fn a_reserved_key_keeps_its_place() {
        let mut q: EventQueue<&str> = EventQueue::new();
        q.at(Time(10), "before");
        let k = q.reserve(Time(10));
        q.at(Time(10), "after");
        q.at(Time(5), "earlier");
        assert_eq!(q.pop().map(|(_, e)| e), Some("earlier"));
        assert!(!q.has_passed(k));
        q.at_key(k, "reserved");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, ["before", "reserved", "after"]);
        // Once the events around it have run, its place has passed.
        assert!(q.has_passed(k));
        let unused = q.reserve(Time(10));
        assert!(!q.has_passed(unused), "a key taken now is ahead of the last event");
    }
}
