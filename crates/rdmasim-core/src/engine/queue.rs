//! The event queue, keyed by (time, insertion sequence). The sequence number makes the order of
//! simultaneous events the order they were scheduled, which keeps runs deterministic. Keys are
//! unique, so the queue pops in exactly the order of a sort by key (the tests check it against
//! one), whichever of its two forms holds the events:
//!
//! - A binary heap while few events are queued (fewer than `TO_CALENDAR`): a bulk transfer
//!   between two hosts keeps a dozen, and a heap of a dozen is a few levels in L1.
//! - A calendar of time buckets when many are (a k = 16 fat tree keeps some 3000, most due
//!   within a microsecond, three per nanosecond; a k = 32 one 25 per nanosecond): there the
//!   heap's sift-down was a quarter of the run, a dozen levels of unpredictable branches per
//!   pop, each a cache line the previous one chose. It goes back to the heap below `TO_HEAP`
//!   events.
//!
//! The calendar cuts time into buckets of `2^SHIFT` ps; a ring of `SLOTS` of them covers the
//! near future (4 µs). An event in a later bucket of the ring is pushed onto that slot's list,
//! unsorted: a push is a few stores. The current bucket (the one of the event popped last) is
//! kept sorted in `cur` and popped from its front; when it is empty the next non-empty slot
//! (found in a bitmap) is sorted into it. Events beyond the ring wait in a binary heap (`far`)
//! and move into the ring as it comes within reach.
//!
//! The heap is 1-based and stored in 64-byte lines of two entries (`Pair`): the children of
//! node i, 2i and 2i+1, share line i, so a level of the sift-down reads one line, not two. Its
//! pop copies the root out, keeps the last element's key in registers and moves the hole down:
//! no slot is read after it was written (std's `BinaryHeap::pop` re-reads the root it has just
//! written, a store-forwarding stall per event).
use super::prefetch::prefetch_line;
use super::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::mem::MaybeUninit;

/// The calendar takes over from the heap past this many events, and hands back below `TO_HEAP`.
const TO_CALENDAR: usize = 512;
const TO_HEAP: usize = 128;
/// A calendar bucket spans 2^SHIFT ps (256 ps). Each bucket is sorted when its turn comes, so
/// its cost per event grows with the events a bucket holds: with 1 ns buckets a k = 32 fat
/// tree (25 events a nanosecond) spent 155 instructions an event in `advance`, against 96 at
/// k = 16. A quarter of that keeps both at a few events a bucket: 5.4 % fewer instructions
/// for the k = 32 permutation and 1.6 % fewer for k = 16 (cachegrind, docs/bench.md).
const SHIFT: u32 = 8;
/// Buckets in the ring: it reaches 2^(SHIFT + 14) ps = 4.2 µs ahead, as before the buckets
/// were narrowed (the ring's heads take 64 KiB).
const SLOTS: usize = 1 << 14;
/// The calendar walks the next bucket's list while a bucket of at least this many events runs
/// (`Calendar::walk_step`).
const WALK_FROM: usize = 8;
/// No node (end of a slot's list).
const NIL: u32 = u32::MAX;

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

#[inline(always)]
fn time_of(key: u128) -> Time {
    Time((key >> 64) as u64)
}

#[inline(always)]
fn bucket_of(key: u128) -> u64 {
    (key >> (64 + SHIFT)) as u64
}

/// An event's place in the order (its time and scheduling sequence), taken with
/// [`EventQueue::reserve`] for an event that may never need to be scheduled: scheduled later
/// with [`EventQueue::at_key`], it runs exactly where it would have run had it been scheduled
/// when the key was taken.
///
/// Two `u64`s rather than the queue's `u128` key: a `u128` is 16-byte aligned, and a channel
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

struct Heap<E> {
    lines: Vec<Pair<E>>,
    /// Nodes in the heap: 1..=len.
    len: usize,
}

impl<E: Copy> Heap<E> {
    #[inline(always)]
    fn get(&self, node: usize) -> Entry<E> {
        self.lines[node / 2].0[node % 2]
    }
    #[inline(always)]
    fn set(&mut self, node: usize, e: Entry<E>) {
        self.lines[node / 2].0[node % 2] = e;
    }
    fn iter(&self) -> impl Iterator<Item = &Entry<E>> + '_ {
        (1..=self.len).map(|i| &self.lines[i / 2].0[i % 2])
    }
    fn peek(&self) -> Option<&Entry<E>> {
        (self.len > 0).then(|| &self.lines[0].0[1])
    }
    #[inline(always)]
    fn push(&mut self, new: Entry<E>) {
        // Sift up: parents move down into the hole until the new entry's place is found.
        let mut pos = self.len + 1;
        self.len = pos;
        if pos / 2 == self.lines.len() {
            self.lines.push(Pair([new; 2]));
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
    /// Takes the least entry out (the heap has one).
    #[inline(always)]
    fn pop(&mut self) -> Entry<E> {
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
            let pair = &self.lines[pos].0;
            let right = child < n && pair[1].key < pair[0].key;
            let c = pair[usize::from(right)];
            if c.key >= last.key {
                break;
            }
            self.set(pos, c);
            pos = child + usize::from(right);
        }
        self.set(pos, last);
        top
    }
}

/// An event's bytes as two words, which a call passes in registers (`Calendar::insert_raw`).
/// `MaybeUninit`: an event's padding bytes are not initialised, and are only copied.
#[repr(C)]
struct Raw {
    lo: MaybeUninit<u64>,
    hi: MaybeUninit<u64>,
}

impl Raw {
    /// Whether an `E` fits (at most 16 bytes, aligned no more than 8).
    #[inline(always)]
    const fn fits<E>() -> bool {
        std::mem::size_of::<E>() <= 16 && std::mem::align_of::<E>() <= 8
    }
    #[inline(always)]
    fn of<E: Copy>(event: E) -> Raw {
        debug_assert!(Self::fits::<E>());
        let mut raw = Raw { lo: MaybeUninit::uninit(), hi: MaybeUninit::uninit() };
        // SAFETY: `fits` holds (the only caller checks it), so the event's bytes lie within
        // `raw`, which is aligned for it; `MaybeUninit` words may hold any bytes.
        unsafe { std::ptr::write((&mut raw as *mut Raw).cast::<E>(), event) };
        raw
    }
    #[inline(always)]
    fn into_event<E: Copy>(self) -> E {
        // SAFETY: `self` was made by `Raw::of::<E>` (its callers pair them), so its first
        // `size_of::<E>()` bytes are a valid `E`.
        unsafe { std::ptr::read((&self as *const Raw).cast::<E>()) }
    }
}

/// An event in a slot's list. Its key in two `u64`s, so a node is 32 bytes (a `u128` would
/// align it to 16 and make it 48).
#[derive(Clone, Copy)]
struct Node<E> {
    time: u64,
    seq: u64,
    event: E,
    next: u32,
}

/// An event in `Calendar::far`, ordered by key alone.
#[derive(Clone, Copy)]
struct Far<E>(Entry<E>);
impl<E> PartialEq for Far<E> {
    fn eq(&self, other: &Self) -> bool {
        self.0.key == other.0.key
    }
}
impl<E> Eq for Far<E> {}
impl<E> PartialOrd for Far<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Far<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.key.cmp(&other.0.key)
    }
}

struct Calendar<E> {
    /// The current bucket's events, sorted by key; those before `cur_pos` have been popped.
    cur: Vec<Entry<E>>,
    cur_pos: usize,
    /// The current bucket: `time >> SHIFT` of the events in `cur`. The ring holds the buckets
    /// after it, up to `cur_bucket + SLOTS` (excluded), bucket b in slot `b % SLOTS`.
    cur_bucket: u64,
    /// First node of each slot's list (NIL: none).
    heads: Box<[u32; SLOTS]>,
    /// Bit s set when slot s has a node.
    occupied: Box<[u64; SLOTS / 64]>,
    nodes: Vec<Node<E>>,
    /// First node free for reuse (NIL: none), chained through `next`.
    free: u32,
    /// Events in buckets beyond the ring.
    far: BinaryHeap<Reverse<Far<E>>>,
    /// The node of a later slot's list that the next pop asks the cache for (NIL: none), and
    /// that slot's bucket (`walk_step`).
    walk: u32,
    walk_bucket: u64,
}

impl<E: Copy> Calendar<E> {
    fn new() -> Self {
        Calendar {
            cur: Vec::new(),
            cur_pos: 0,
            cur_bucket: 0,
            heads: Box::new([NIL; SLOTS]),
            occupied: Box::new([0; SLOTS / 64]),
            nodes: Vec::new(),
            free: NIL,
            far: BinaryHeap::new(),
            walk: NIL,
            walk_bucket: 0,
        }
    }
    /// Empties the calendar (current bucket `b`: no event before it may come), handing over
    /// its events in no particular order.
    fn drain(&mut self, b: u64, mut to: impl FnMut(Entry<E>)) {
        self.cur.drain(self.cur_pos..).for_each(&mut to);
        for slot in 0..SLOTS {
            let mut n = std::mem::replace(&mut self.heads[slot], NIL);
            while n != NIL {
                let node = self.nodes[n as usize];
                to(Entry { key: key(Time(node.time), node.seq), event: node.event });
                n = node.next;
            }
        }
        self.far.drain().for_each(|Reverse(Far(e))| to(e));
        self.nodes.clear();
        self.free = NIL;
        self.walk = NIL;
        self.occupied.fill(0);
        self.cur.clear();
        self.cur_pos = 0;
        self.cur_bucket = b;
    }
    /// `insert`, out of line: the heap's callers inline their push, and a calendar's push
    /// beside it in each made them too large to inline in turn.
    #[inline(never)]
    fn insert_key(&mut self, key: u128, event: E) {
        self.insert(Entry { key, event })
    }
    /// `insert_key` for an event of 8 to 16 bytes, passed as its raw bytes in two registers
    /// (`Raw`). Passed as an `E`, a 12-byte event went through memory: the caller stored it
    /// field by field (a one-byte tag, then a `u32`) and this function loaded it in 8-byte
    /// words, which the store buffer cannot forward from two smaller stores — a stall on
    /// every event scheduled in the calendar, the most of `insert_key`'s time in a k = 16
    /// fat tree.
    #[inline(never)]
    fn insert_raw(&mut self, key: u128, lo: MaybeUninit<u64>, hi: MaybeUninit<u64>) {
        let event = Raw { lo, hi }.into_event();
        self.insert(Entry { key, event })
    }
    #[inline(always)]
    fn insert(&mut self, e: Entry<E>) {
        let b = bucket_of(e.key);
        if b.wrapping_sub(self.cur_bucket).wrapping_sub(1) < SLOTS as u64 - 1 {
            self.push_slot(b, e);
        } else {
            self.insert_cold(b, e);
        }
    }
    /// Onto the list of bucket `b`'s slot (in the ring, after the current bucket).
    #[inline(always)]
    fn push_slot(&mut self, b: u64, e: Entry<E>) {
        let slot = b as usize % SLOTS;
        let node = Node { time: (e.key >> 64) as u64, seq: e.key as u64, event: e.event, next: self.heads[slot] };
        let n = if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            self.nodes.len() as u32 - 1
        };
        self.heads[slot] = n;
        self.occupied[slot / 64] |= 1 << (slot % 64);
    }
    /// An event in the current bucket or beyond the ring.
    #[inline(never)]
    fn insert_cold(&mut self, b: u64, e: Entry<E>) {
        if b == self.cur_bucket {
            // After the popped ones (its key is above the last popped); searched from the end,
            // where a new event's place nearly always is.
            let mut i = self.cur.len();
            while i > self.cur_pos && self.cur[i - 1].key > e.key {
                i -= 1;
            }
            self.cur.insert(i, e);
        } else if b > self.cur_bucket {
            self.far.push(Reverse(Far(e)));
        } else {
            // Before the current bucket: only after a pop was declined (`EventQueue::pop_until`)
            // and the calendar moved on to a bucket later than the new event's. Start again
            // from the new event's bucket.
            let mut all = Vec::new();
            self.drain(b, |e| all.push(e));
            for e in all {
                self.insert(e);
            }
            self.insert(e);
        }
    }
    /// The next slot after the current bucket's that has a list, as a bucket number.
    #[inline]
    fn next_listed(&self) -> Option<u64> {
        self.listed_after(self.cur_bucket)
    }
    /// The first slot after bucket `b`'s (in the ring: `b` is the current bucket or after it)
    /// that has a list, round the ring, as a bucket number.
    #[inline]
    fn listed_after(&self, b: u64) -> Option<u64> {
        let start = (b as usize + 1) % SLOTS;
        let (w0, bit0) = (start / 64, start % 64);
        // The first word from `start`'s bit, then the others round the ring, then the first
        // word's bits below `start`.
        let words = SLOTS / 64;
        let first = self.occupied[w0] & (!0u64 << bit0);
        let found = if first != 0 {
            Some(w0 * 64 + first.trailing_zeros() as usize)
        } else {
            (1..=words).find_map(|i| {
                let w = (w0 + i) % words;
                let bits = self.occupied[w];
                (bits != 0).then(|| w * 64 + bits.trailing_zeros() as usize)
            })
        }?;
        let ahead = (found + SLOTS - self.cur_bucket as usize % SLOTS) % SLOTS;
        Some(self.cur_bucket + ahead as u64)
    }
    /// The least entry, without changing the calendar.
    fn least(&self) -> Option<Entry<E>> {
        if let Some(e) = self.cur.get(self.cur_pos) {
            return Some(*e);
        }
        if let Some(b) = self.next_listed() {
            let mut n = self.heads[b as usize % SLOTS];
            let mut best: Option<Entry<E>> = None;
            while n != NIL {
                let node = self.nodes[n as usize];
                let e = Entry { key: key(Time(node.time), node.seq), event: node.event };
                if best.is_none_or(|b| e.key < b.key) {
                    best = Some(e);
                }
                n = node.next;
            }
            return best;
        }
        self.far.peek().map(|Reverse(Far(e))| *e)
    }
    /// The least entry, moving on to the next bucket that holds one if the current one is
    /// done; None if the calendar is empty.
    #[inline(always)]
    fn front(&mut self) -> Option<Entry<E>> {
        if self.cur_pos == self.cur.len() && !self.advance() {
            return None;
        }
        Some(self.cur[self.cur_pos])
    }
    /// Moves on to the next bucket that holds an event: its events sorted into `cur`. False if
    /// the calendar is empty.
    #[inline(never)]
    fn advance(&mut self) -> bool {
        self.cur.clear();
        self.cur_pos = 0;
        let Some(b) = self.next_listed().or_else(|| self.far.peek().map(|Reverse(Far(e))| bucket_of(e.key))) else {
            return false;
        };
        self.cur_bucket = b;
        let slot = b as usize % SLOTS;
        let mut n = std::mem::replace(&mut self.heads[slot], NIL);
        self.occupied[slot / 64] &= !(1 << (slot % 64));
        while n != NIL {
            let node = self.nodes[n as usize];
            self.cur.push(Entry { key: key(Time(node.time), node.seq), event: node.event });
            self.nodes[n as usize].next = self.free;
            self.free = n;
            n = node.next;
        }
        // Events beyond the ring that it now reaches (the far ones of bucket b included).
        while let Some(Reverse(Far(e))) = self.far.peek() {
            let eb = bucket_of(e.key);
            if eb >= b + SLOTS as u64 {
                break;
            }
            let Some(Reverse(Far(e))) = self.far.pop() else { break };
            if eb == b {
                self.cur.push(e);
            } else {
                self.push_slot(eb, e);
            }
        }
        sort_bucket(&mut self.cur);
        // A bucket of a few events gives the walk no time to run ahead; and a run whose
        // buckets are that small (a k = 16 fat tree) keeps its nodes in cache anyway.
        let ahead = if self.cur.len() >= WALK_FROM { self.next_listed() } else { None };
        self.walk_to(ahead);
        true
    }
    /// Walks the lists of the slots after the current bucket's, one node per pop, so that a
    /// list is in cache when `advance` takes it: each step reads the node the step before
    /// asked the cache for, for its successor, and asks for that in turn; at the end of a
    /// list it goes on to the next slot with one. `advance` took a slot's list node by node,
    /// each a line the one before named; on a k = 32 fat tree (buckets of hundreds of events,
    /// its packets keeping step) the nodes had left the cache since they were pushed, and
    /// 77 % of `advance`'s time was waiting on that chain. A hint only: nodes pushed onto a
    /// list the walk has passed are the newest, in cache already; a node the walk holds is
    /// freed only by the `advance` that takes its list, which starts the walk again.
    #[inline(always)]
    fn walk_step(&mut self) {
        if let Some(node) = self.nodes.get(self.walk as usize) {
            let next = node.next;
            if next == NIL {
                // On to the next slot with a list, not round the ring back to the nearest.
                let after = self.listed_after(self.walk_bucket).filter(|&b| b > self.walk_bucket);
                self.walk_to(after);
            } else {
                self.walk = next;
                prefetch_line(&self.nodes[next as usize]);
            }
        }
    }
    /// Starts the walk on bucket `b`'s list (None: no list to walk).
    #[inline]
    fn walk_to(&mut self, b: Option<u64>) {
        self.walk = b.map_or(NIL, |b| self.heads[b as usize % SLOTS]);
        self.walk_bucket = b.unwrap_or(0);
        if let Some(node) = self.nodes.get(self.walk as usize) {
            prefetch_line(node);
        }
    }
}

/// Sorts a bucket's events (taken from its slot's list, last in first out) by key. Events are
/// mostly scheduled in time order, and simultaneous ones always in key order (their sequence
/// numbers rise), so the list reversed is nearly sorted: an insertion sort then does little
/// more than one pass. On the k = 16 fat-tree bench, whose buckets hold from one event to
/// hundreds, that took 1.4 % fewer instructions than the general sort (its networks and
/// merges, with their mispredicted branches), 4 % less wall time in interleaved runs; not
/// reversed, more than the general sort. After 16 moves an event on average the insertion sort
/// gives up and leaves the rest to the general sort, so a bucket in no order costs n log n.
#[inline(always)]
fn sort_bucket<E: Copy>(cur: &mut [Entry<E>]) {
    cur.reverse();
    let mut budget = 16 * cur.len();
    for i in 1..cur.len() {
        let e = cur[i];
        let mut j = i;
        while j > 0 && cur[j - 1].key > e.key {
            cur[j] = cur[j - 1];
            j -= 1;
        }
        cur[j] = e;
        budget = budget.saturating_sub(i - j);
        if budget == 0 {
            cur.sort_unstable_by_key(|e| e.key);
            return;
        }
    }
}

pub struct EventQueue<E> {
    heap: Heap<E>,
    calendar: Calendar<E>,
    /// The events are in the calendar (else in the heap).
    in_calendar: bool,
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
            heap: Heap { lines: Vec::with_capacity(TO_CALENDAR), len: 0 },
            calendar: Calendar::new(),
            in_calendar: false,
            len: 0,
            seq: 0,
            now: Time::ZERO,
            popped: 0,
            current: 0,
        }
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
        self.len += 1;
        if self.in_calendar {
            if Raw::fits::<E>() {
                let Raw { lo, hi } = Raw::of(event);
                self.calendar.insert_raw(k.key(), lo, hi);
            } else {
                self.calendar.insert_key(k.key(), event);
            }
        } else {
            self.heap.push(Entry { key: k.key(), event });
            if self.len > TO_CALENDAR {
                self.move_to_calendar();
            }
        }
    }
    #[cold]
    fn move_to_calendar(&mut self) {
        // No event queued is before the one popped last.
        self.calendar.cur_bucket = bucket_of(self.current);
        for i in 1..=self.heap.len {
            self.calendar.insert(self.heap.get(i));
        }
        self.heap.len = 0;
        self.in_calendar = true;
    }
    #[cold]
    fn move_to_heap(&mut self) {
        let heap = &mut self.heap;
        self.calendar.drain(0, |e| heap.push(e));
        self.in_calendar = false;
    }
    /// Schedules `event` `delay` after now.
    #[inline(always)]
    pub fn after(&mut self, delay: Time, event: E) {
        let t = self.now + delay;
        self.at(t, event)
    }
    /// The events still queued, in no particular order.
    pub fn pending(&self) -> impl Iterator<Item = &E> + '_ {
        let c = &self.calendar;
        let listed = c.heads.iter().flat_map(move |&h| {
            std::iter::successors((h != NIL).then_some(h), move |&n| Some(c.nodes[n as usize].next).filter(|&m| m != NIL))
                .map(move |n| &c.nodes[n as usize].event)
        });
        let calendar = c.cur[c.cur_pos..].iter().chain(c.far.iter().map(|Reverse(Far(e))| e)).map(|e| &e.event).chain(listed);
        self.heap.iter().map(|e| &e.event).chain(calendar)
    }
    fn least(&self) -> Option<Entry<E>> {
        if self.in_calendar {
            self.calendar.least()
        } else {
            self.heap.peek().copied()
        }
    }
    /// The next event to run, if any.
    pub fn peek(&self) -> Option<E> {
        self.least().map(|e| e.event)
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.least().map(|e| time_of(e.key))
    }
    /// The next event, if any and if due at or before `limit`; otherwise the time of the next
    /// event (None: the queue is empty), which stays queued.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Result<(Time, E), Option<Time>> {
        let top = if self.in_calendar {
            let Some(top) = self.calendar.front() else { return Err(None) };
            if time_of(top.key) > limit {
                return Err(Some(time_of(top.key)));
            }
            self.calendar.cur_pos += 1;
            self.calendar.walk_step();
            if self.len <= TO_HEAP {
                self.move_to_heap();
            }
            top
        } else {
            let Some(top) = self.heap.peek() else { return Err(None) };
            if time_of(top.key) > limit {
                return Err(Some(time_of(top.key)));
            }
            self.heap.pop()
        };
        let time = time_of(top.key);
        self.len -= 1;
        self.now = time;
        self.current = top.key;
        self.popped += 1;
        Ok((time, top.event))
    }
    /// Many events are queued (the calendar holds them): a large run, whose state does not
    /// stay in cache, where prefetching pays (world/mod.rs `prefetch_ahead`).
    #[inline(always)]
    pub fn is_large(&self) -> bool {
        self.in_calendar
    }
    /// The `n`th event after the next one, when the calendar holds it at hand (for a prefetch).
    #[inline(always)]
    pub fn ahead(&self, n: usize) -> Option<&E> {
        if !self.in_calendar {
            return None;
        }
        self.calendar.cur.get(self.calendar.cur_pos + n).map(|e| &e.event)
    }
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX).ok()
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

    /// Against a sorted map of the keys: delays from none to far beyond the ring, events
    /// scheduled at keys reserved earlier, and pops declined by a time limit followed by events
    /// due before the one declined (the queue starts again from their bucket).
    #[test]
    fn pops_in_key_order_across_the_ring_and_beyond() {
        let mut rng = SimRng::new(11, 0);
        let mut q: EventQueue<u32> = EventQueue::new();
        let mut reference = std::collections::BTreeMap::new();
        let mut reserved: Vec<(EventKey, u32)> = Vec::new();
        let delays = [0, 1, 700, 1 << SHIFT, 300_000, 4_000_000, 5_000_000, 1 << 30];
        for i in 0..20_000u32 {
            let d = delays[rng.below(delays.len() as u64) as usize] + rng.below(1500);
            let at = Time(q.now().0 + d);
            match rng.below(10) {
                0 => reserved.push((q.reserve(at), i)),
                1 if !reserved.is_empty() => {
                    let (k, v) = reserved.swap_remove(rng.below(reserved.len() as u64) as usize);
                    if !q.has_passed(k) {
                        q.at_key(k, v);
                        reference.insert((k.time, k.seq), v);
                    }
                }
                _ => {
                    let k = q.reserve(at);
                    q.at_key(k, i);
                    reference.insert((k.time, k.seq), i);
                }
            }
            assert_eq!(q.len(), reference.len());
            if rng.below(2) == 0 {
                // Now and then a limit just before the next event's time.
                let next = q.peek_time();
                assert_eq!(next.map(|t| t.0), reference.keys().next().map(|k| k.0));
                let limit = match next {
                    Some(t) if rng.below(8) == 0 && t > q.now() => Time(t.0 - 1),
                    _ => Time::MAX,
                };
                match q.pop_until(limit) {
                    Ok((t, e)) => {
                        let ((rt, _), re) = reference.pop_first().unwrap();
                        assert_eq!((t.0, e), (rt, re), "pop {i}");
                    }
                    Err(t) => assert_eq!(t, next),
                }
            }
        }
        let mut pending: Vec<u32> = q.pending().copied().collect();
        pending.sort();
        let mut expected: Vec<u32> = reference.values().copied().collect();
        expected.sort();
        assert_eq!(pending, expected, "pending lists what is queued");
        while let Some((t, e)) = q.pop() {
            let ((rt, _), re) = reference.pop_first().unwrap();
            assert_eq!((t.0, e), (rt, re));
        }
        assert!(reference.is_empty() && q.is_empty());
    }

    /// A bucket's sort orders any input: nearly sorted, reversed, random, with ties in time
    /// (the sequence breaks them), small and past the insertion sort's budget.
    #[test]
    fn sort_bucket_sorts_any_order() {
        let mut rng = SimRng::new(3, 0);
        for n in [0usize, 1, 2, 3, 8, 31, 64, 300, 2000] {
            for shape in 0..4 {
                let mut v: Vec<Entry<u32>> = (0..n as u64)
                    .map(|i| {
                        let t = match shape {
                            0 => i / 3,
                            1 => n as u64 - i,
                            2 => rng.below(50),
                            _ => i + rng.below(4),
                        };
                        Entry { key: key(Time(t), i), event: i as u32 }
                    })
                    .collect();
                let mut expected: Vec<u128> = v.iter().map(|e| e.key).collect();
                expected.sort();
                sort_bucket(&mut v);
                assert_eq!(v.iter().map(|e| e.key).collect::<Vec<_>>(), expected, "n {n} shape {shape}");
            }
        }
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
