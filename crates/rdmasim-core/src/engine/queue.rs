//! The event queue: a binary heap keyed by (time, insertion sequence). The sequence number makes
//! the order of simultaneous events the order they were scheduled, which keeps runs deterministic.
use super::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Time,
    popped: u64,
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1 << 12), seq: 0, now: Time::ZERO, popped: 0 }
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
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Schedules `event` at absolute time `at` (never before now).
    #[inline]
    pub fn at(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let time = at.max(self.now);
        self.seq += 1;
        self.heap.push(Entry { time, seq: self.seq, event });
    }
    /// Schedules `event` `delay` after now.
    #[inline]
    pub fn after(&mut self, delay: Time, event: E) {
        let t = self.now + delay;
        self.at(t, event)
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.event))
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}
