//! The send engine's round-robin list of QPs with work (`Hca::sched`).
//!
//! Semantically a deque of QP indices: a QP joins at the back when it gets work, and the engine
//! (hca/nic.rs) looks at the front, rotating a QP to the back when its turn ends. Each listed QP
//! carries `not_before`, the time its last answer said it would have a packet (WQE fetch, RNR
//! wait); the engine rotates past such QPs without asking them. With thousands of QPs waiting
//! for their WQE fetch, walking past them one by one for every packet dominated the run
//! (4096 QPs: 91 % of the time in the walk). So the deque is stored as an implicit treap —
//! a balanced tree whose in-order sequence is the deque — with each subtree's smallest
//! `not_before`: rotating past every waiting QP in front of the first ready one is one
//! descent, one split and one merge, O(log QPs), and gives exactly the order the one-by-one
//! rotation gave.
//!
//! A short list is kept as a plain deque instead (the tree's splits and merges cost the usual
//! 8-QP benchmark a fifth of its speed): above `TREE_ABOVE` QPs the list moves into the tree,
//! below `DEQUE_BELOW` back into the deque. Both hold the same sequence, so the switch never
//! changes the order.
//!
//! Nodes live in a vector indexed by QP index (a QP is listed at most once), so the hot loop
//! neither allocates nor hashes. Tree shape comes from a fixed hash of the QP index: it affects
//! speed only, never the order, and is the same on every run.
use crate::engine::Time;
use crate::ids::{QpIdx};
use std::collections::VecDeque;

/// The list moves into the tree when it grows beyond this many QPs...
const TREE_ABOVE: usize = 64;
/// ...and back into the deque when it shrinks below this many (apart, so that a list hovering
/// around one size does not convert back and forth).
const DEQUE_BELOW: usize = 16;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Node {
    left: u32,
    right: u32,
    parent: u32,
    /// Nodes in this subtree.
    size: u32,
    /// Heap priority (a hash of the QP index): larger is nearer the root.
    prio: u32,
    /// Do not ask the QP before then.
    not_before: Time,
    /// Smallest `not_before` in this subtree.
    earliest: Time,
    listed: bool,
}

const UNLISTED: Node = Node { left: NIL, right: NIL, parent: NIL, size: 0, prio: 0, not_before: Time::ZERO, earliest: Time::ZERO, listed: false };

#[derive(Default)]
pub struct SendSched {
    /// Per QP index: listed or not, `not_before`, and (in tree mode) the tree links.
    nodes: Vec<Node>,
    /// Tree mode: the root (`NIL` when the list is empty or in deque mode).
    root: u32,
    /// Deque mode: the list itself. Empty in tree mode.
    deque: VecDeque<u32>,
    tree_mode: bool,
}

/// splitmix64's finaliser: a fixed, well-mixed priority per QP index.
fn priority(qi: u32) -> u32 {
    let mut z = (qi as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

impl SendSched {
    pub fn new() -> SendSched {
        SendSched { nodes: Vec::new(), root: NIL, deque: VecDeque::new(), tree_mode: false }
    }

    /// The front QP's index in deque mode, its record brought into the cache (a hint for the
    /// event loop, world/mod.rs `prefetch_ahead`); `None` in tree mode, whose front is a walk.
    #[inline(always)]
    pub fn prefetch_front(&self) -> Option<u32> {
        let qi = *self.deque.front()?;
        if let Some(n) = self.nodes.get(qi as usize) {
            crate::engine::prefetch_line(n);
        }
        Some(qi)
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn len(&self) -> usize {
        if self.tree_mode {
            self.size(self.root) as usize
        } else {
            self.deque.len()
        }
    }

    /// The QP at the front of the list.
    #[inline]
    pub fn front(&self) -> Option<u32> {
        if !self.tree_mode {
            return self.deque.front().copied();
        }
        let mut t = self.root;
        if t == NIL {
            return None;
        }
        while self.nodes[t as usize].left != NIL {
            t = self.nodes[t as usize].left;
        }
        Some(t)
    }

    /// The front QP if it is to be asked at `now`: the usual case (a QP keeping its turn), and
    /// the cheapest check for it.
    #[inline(always)]
    pub fn front_if_due(&self, now: Time) -> Option<QpIdx> {
        let qi = if self.tree_mode { self.front()? } else { *self.deque.front()? };
        (self.nodes[qi as usize].not_before <= now).then_some(QpIdx(qi))
    }

    /// When no listed QP is to be asked at `now` (each said it has nothing before some later
    /// time), the earliest of those times; `None` when some QP is due now (or none is listed).
    #[inline]
    pub fn nothing_due_until(&self, now: Time) -> Option<Time> {
        if self.tree_mode {
            let earliest = self.earliest(self.root);
            return (earliest > now && earliest != Time::MAX).then_some(earliest);
        }
        // Usually the front is due: stop at the first that is.
        let mut earliest = Time::MAX;
        for &qi in &self.deque {
            let t = self.nodes[qi as usize].not_before;
            if t <= now {
                return None;
            }
            earliest = earliest.min(t);
        }
        (earliest != Time::MAX).then_some(earliest)
    }

    /// The QP has (new) work: it joins the back of the list, or, already listed, keeps its
    /// place and is asked again at its next turn.
    #[inline]
    pub fn list_or_wake(&mut self, qi: QpIdx) {
        self.list_from(qi, Time::ZERO)
    }

    /// The QP has new work that cannot be sent before `at` (a work request still on its way
    /// to the NIC): it joins the back of the list, to be asked no earlier than `at`, or,
    /// already listed, keeps its place and is asked no later than `at`.
    #[inline]
    pub fn list_from(&mut self, qi: QpIdx, at: Time) {
        let qi = qi.0;
        let i = qi as usize;
        if self.nodes.len() <= i {
            self.nodes.resize(i + 1, UNLISTED);
        }
        let n = &mut self.nodes[i];
        if n.listed {
            if at < n.not_before {
                n.not_before = at;
                if self.tree_mode {
                    self.tree_lower(qi, at);
                }
            }
            return;
        }
        n.listed = true;
        n.not_before = at;
        if self.tree_mode {
            self.tree_push_back(qi);
        } else {
            self.deque.push_back(qi);
            if self.deque.len() > TREE_ABOVE {
                self.switch_to_tree();
            }
        }
    }

    #[inline(never)]
    fn tree_push_back(&mut self, qi: u32) {
        let n = &mut self.nodes[qi as usize];
        *n = Node { left: NIL, right: NIL, parent: NIL, size: 1, prio: priority(qi), earliest: n.not_before, ..*n };
        self.root = self.merge(self.root, qi);
        self.nodes[self.root as usize].parent = NIL;
    }

    /// Rotates the QPs at the front that need not be asked yet (`not_before > now`) to the
    /// back, but at most `limit` of them; returns how many moved, the earliest `not_before`
    /// among them (`Time::MAX` if none), and the due QP they stopped at, now at the front
    /// (`None` when `limit` QPs moved or none is due).
    #[inline]
    pub fn rotate_to_first_due(&mut self, now: Time, limit: usize) -> (usize, Time, Option<QpIdx>) {
        let (moved, earliest, due) = self.rotate_raw(now, limit);
        (moved, earliest, due.map(QpIdx))
    }

    #[inline(always)]
    fn rotate_raw(&mut self, now: Time, limit: usize) -> (usize, Time, Option<u32>) {
        if self.tree_mode {
            return self.tree_rotate_to_first_due(now, limit);
        }
        let (mut moved, mut earliest) = (0, Time::MAX);
        while moved < limit {
            let Some(&qi) = self.deque.front() else { break };
            let not_before = self.nodes[qi as usize].not_before;
            if not_before <= now {
                return (moved, earliest, Some(qi));
            }
            earliest = earliest.min(not_before);
            self.deque.rotate_left(1);
            moved += 1;
            if moved == self.deque.len() {
                break; // a whole turn: none is due
            }
        }
        (moved, earliest, None)
    }

    #[inline(never)]
    fn tree_rotate_to_first_due(&mut self, now: Time, limit: usize) -> (usize, Time, Option<u32>) {
        let waiting = self.waiting_prefix(now);
        let moved = waiting.min(limit);
        let mut earliest = Time::MAX;
        if moved > 0 {
            let (front, rest) = self.split(self.root, moved as u32);
            earliest = self.nodes[front as usize].earliest;
            self.root = self.merge(rest, front);
            self.nodes[self.root as usize].parent = NIL;
        }
        // `waiting_prefix` counts every QP when none is due.
        let due = if waiting < limit && waiting < self.len() { self.front() } else { None };
        (moved, earliest, due)
    }

    /// The front QP's turn ends: it goes to the back, to be asked again no earlier than
    /// `not_before` (`Time::ZERO`: at its next turn).
    #[inline]
    pub fn rotate_front(&mut self, not_before: Time) {
        if self.tree_mode {
            return self.tree_rotate_front(not_before);
        }
        if let Some(qi) = self.deque.pop_front() {
            self.nodes[qi as usize].not_before = not_before;
            self.deque.push_back(qi);
        }
    }

    #[inline(never)]
    fn tree_rotate_front(&mut self, not_before: Time) {
        let (front, rest) = self.split(self.root, 1);
        if front == NIL {
            return;
        }
        let n = &mut self.nodes[front as usize];
        n.not_before = not_before;
        n.earliest = not_before;
        self.root = self.merge(rest, front);
        self.nodes[self.root as usize].parent = NIL;
    }

    /// The front QP has no more work: it leaves the list.
    #[inline]
    pub fn pop_front(&mut self) -> Option<QpIdx> {
        self.pop_raw().map(QpIdx)
    }

    #[inline(always)]
    fn pop_raw(&mut self) -> Option<u32> {
        if self.tree_mode {
            return self.tree_pop_front();
        }
        let qi = self.deque.pop_front()?;
        self.nodes[qi as usize].listed = false;
        Some(qi)
    }

    #[inline(never)]
    fn tree_pop_front(&mut self) -> Option<u32> {
        let (front, rest) = self.split(self.root, 1);
        if front == NIL {
            return None;
        }
        self.nodes[front as usize] = UNLISTED;
        self.root = rest;
        if rest != NIL {
            self.nodes[rest as usize].parent = NIL;
        }
        if self.len() < DEQUE_BELOW {
            self.switch_to_deque();
        }
        Some(front)
    }

    /// Deque → tree, same sequence.
    fn switch_to_tree(&mut self) {
        self.tree_mode = true;
        self.root = NIL;
        while let Some(qi) = self.deque.pop_front() {
            self.tree_push_back(qi);
        }
    }

    /// Tree → deque, same sequence.
    fn switch_to_deque(&mut self) {
        let order = self.in_order();
        self.deque.extend(order);
        self.root = NIL;
        self.tree_mode = false;
    }

    /// Number of QPs at the front whose `not_before` is after `now` (all of them if none is
    /// ready): one descent guided by the subtree minima.
    fn waiting_prefix(&self, now: Time) -> usize {
        let mut t = self.root;
        if t == NIL || self.nodes[t as usize].earliest > now {
            return self.len();
        }
        let mut before = 0usize;
        loop {
            let n = self.nodes[t as usize];
            if n.left != NIL && self.nodes[n.left as usize].earliest <= now {
                t = n.left;
                continue;
            }
            before += self.size(n.left) as usize;
            if n.not_before <= now {
                return before;
            }
            before += 1;
            t = n.right; // the subtree minimum says a ready QP is on this side
        }
    }

    /// A listed QP is to be asked at its next turn: its `not_before` drops to zero and so does
    /// every enclosing subtree's minimum.
    /// A listed QP's `not_before` fell to `at`: the subtree minimums on its path follow.
    fn tree_lower(&mut self, qi: u32, at: Time) {
        let mut t = qi;
        while t != NIL && self.nodes[t as usize].earliest > at {
            self.nodes[t as usize].earliest = at;
            t = self.nodes[t as usize].parent;
        }
    }

    fn size(&self, t: u32) -> u32 {
        if t == NIL {
            0
        } else {
            self.nodes[t as usize].size
        }
    }

    fn earliest(&self, t: u32) -> Time {
        if t == NIL {
            Time::MAX
        } else {
            self.nodes[t as usize].earliest
        }
    }

    /// Recomputes a node's size and minimum from its children and points them back at it.
    fn pull(&mut self, t: u32) {
        let Node { left, right, not_before, .. } = self.nodes[t as usize];
        let size = 1 + self.size(left) + self.size(right);
        let earliest = not_before.min(self.earliest(left)).min(self.earliest(right));
        for c in [left, right] {
            if c != NIL {
                self.nodes[c as usize].parent = t;
            }
        }
        let n = &mut self.nodes[t as usize];
        n.size = size;
        n.earliest = earliest;
    }

    /// The sequence `a` followed by the sequence `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a as usize].prio >= self.nodes[b as usize].prio {
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    /// The first `k` of sequence `t`, and the rest (either may be `NIL`; roots' parent links
    /// are left for the caller to clear).
    fn split(&mut self, t: u32, k: u32) -> (u32, u32) {
        if t == NIL {
            return (NIL, NIL);
        }
        let left = self.nodes[t as usize].left;
        let left_size = self.size(left);
        if k <= left_size {
            let (a, b) = self.split(left, k);
            self.nodes[t as usize].left = b;
            self.pull(t);
            if a != NIL {
                self.nodes[a as usize].parent = NIL;
            }
            (a, t)
        } else {
            let right = self.nodes[t as usize].right;
            let (a, b) = self.split(right, k - left_size - 1);
            self.nodes[t as usize].right = a;
            self.pull(t);
            if b != NIL {
                self.nodes[b as usize].parent = NIL;
            }
            (t, b)
        }
    }

    /// The list front to back (tests and diagnostics).
    pub fn to_vec(&self) -> Vec<u32> {
        if self.tree_mode {
            self.in_order()
        } else {
            self.deque.iter().copied().collect()
        }
    }

    /// The tree's sequence, front to back.
    fn in_order(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len());
        let mut stack = Vec::new();
        let mut t = self.root;
        while t != NIL || !stack.is_empty() {
            while t != NIL {
                stack.push(t);
                t = self.nodes[t as usize].left;
            }
            let n = stack.pop().unwrap_or(NIL);
            out.push(n);
            t = self.nodes[n as usize].right;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// The deque the engine used before: the reference the tree must agree with.
    #[derive(Default)]
    struct Reference {
        q: VecDeque<u32>,
        not_before: Vec<Time>,
    }

    impl Reference {
        fn list_from(&mut self, qi: u32, at: Time) {
            if self.not_before.len() <= qi as usize {
                self.not_before.resize(qi as usize + 1, Time::ZERO);
            }
            let nb = &mut self.not_before[qi as usize];
            if !self.q.contains(&qi) {
                *nb = at;
                self.q.push_back(qi);
            } else {
                *nb = (*nb).min(at);
            }
        }
        fn nothing_due_until(&self, now: Time) -> Option<Time> {
            let earliest = self.q.iter().map(|&q| self.not_before[q as usize]).min()?;
            (earliest > now).then_some(earliest)
        }
        fn rotate_to_first_due(&mut self, now: Time, limit: usize) -> (usize, Time, Option<u32>) {
            let (mut moved, mut earliest) = (0, Time::MAX);
            while moved < limit {
                let Some(&f) = self.q.front() else { break };
                if self.not_before[f as usize] <= now {
                    return (moved, earliest, Some(f));
                }
                earliest = earliest.min(self.not_before[f as usize]);
                self.q.rotate_left(1);
                moved += 1;
                if moved == self.q.len() {
                    break;
                }
            }
            (moved, earliest, None)
        }
        fn rotate_front(&mut self, t: Time) {
            if let Some(f) = self.q.pop_front() {
                self.not_before[f as usize] = t;
                self.q.push_back(f);
            }
        }
    }

    /// A small deterministic generator for the random walk below.
    fn lcg(s: &mut u64) -> u64 {
        *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *s >> 33
    }

    #[test]
    fn agrees_with_the_deque_it_replaces_over_random_operations() {
        let (mut tree_steps, mut deque_steps, mut back_to_deque) = (0, 0, 0);
        for seed in 1..=20u64 {
            let mut s = seed;
            let (mut tree, mut reference) = (SendSched::new(), Reference::default());
            let qps = 1 + (lcg(&mut s) % 300) as u32;
            let mut was_tree = false;
            for step in 0..5000 {
                let now = Time(lcg(&mut s) % 1000);
                // Phases that grow the list and phases that drain it, so that it crosses
                // between deque and tree both ways.
                let draining = (step / 700) % 2 == 1;
                let op = if draining { [2, 3, 5, 5, 5, 0][(lcg(&mut s) % 6) as usize] } else { lcg(&mut s) % 6 };
                match op {
                    0 | 1 => {
                        let qi = (lcg(&mut s) % qps as u64) as u32;
                        // Now (a wake) or from a later time (a post whose WQE is on its way).
                        let at = if op == 0 { Time::ZERO } else { Time(lcg(&mut s) % 2000) };
                        tree.list_from(QpIdx(qi), at);
                        reference.list_from(qi, at);
                    }
                    2 => {
                        let limit = (lcg(&mut s) % (qps as u64 + 2)) as usize;
                        let a = tree.rotate_raw(now, limit);
                        let b = reference.rotate_to_first_due(now, limit);
                        assert_eq!(a, b, "seed {seed} step {step}: rotate_to_first_due");
                    }
                    3 | 4 => {
                        let t = Time(lcg(&mut s) % 2000);
                        tree.rotate_front(t);
                        reference.rotate_front(t);
                    }
                    _ => {
                        assert_eq!(tree.pop_front().map(|q| q.0), reference.q.pop_front(), "seed {seed} step {step}: pop_front");
                    }
                }
                assert_eq!(tree.front(), reference.q.front().copied());
                assert_eq!(tree.len(), reference.q.len());
                assert_eq!(tree.nothing_due_until(now), reference.nothing_due_until(now), "seed {seed} step {step}: nothing_due_until");
                let front_due = reference.q.front().copied().filter(|&f| reference.not_before[f as usize] <= now);
                assert_eq!(tree.front_if_due(now).map(|q| q.0), front_due, "seed {seed} step {step}: front_if_due");
                if tree.tree_mode {
                    tree_steps += 1;
                } else {
                    back_to_deque += was_tree as u32;
                    deque_steps += 1;
                }
                was_tree = tree.tree_mode;
                if step % 97 == 0 {
                    assert_eq!(tree.to_vec(), Vec::from(reference.q.clone()), "seed {seed} step {step}: order");
                }
            }
        }
        // Both representations, and the switch both ways, were exercised.
        assert!(tree_steps > 5_000 && deque_steps > 5_000 && back_to_deque > 10, "tree {tree_steps} / deque {deque_steps} steps, {back_to_deque} returns");
    }

    #[test]
    fn rotating_past_waiting_qps_stops_at_the_first_ready_one() {
        for tree in [false, true] {
            let mut s = SendSched::new();
            for qi in 0..5 {
                s.list_or_wake(QpIdx(qi));
            }
            if tree {
                s.switch_to_tree(); // five QPs would stay a deque; the tree must behave the same
            }
            rotation_case(&mut s);
            assert_eq!(s.tree_mode, tree);
        }
    }

    /// QPs 0..5 listed in order: rotations, waiting and waking.
    fn rotation_case(s: &mut SendSched) {
        for t in [50, 20, 30] {
            s.rotate_front(Time(t)); // 0, 1, 2 now wait until 50, 20, 30
        }
        assert_eq!(s.to_vec(), vec![3, 4, 0, 1, 2]);
        s.rotate_front(Time(40));
        s.rotate_front(Time(10));
        assert_eq!(s.to_vec(), vec![0, 1, 2, 3, 4]);
        // At 25 QP 1 (20) and QP 4 (10) are due: 0 rotates to the back, 1 is at the front.
        assert_eq!(s.rotate_to_first_due(Time(25), 10), (1, Time(50), Some(QpIdx(1))));
        assert_eq!(s.to_vec(), vec![1, 2, 3, 4, 0]);
        // Nothing due at 5: a full turn, and the order is back where it was.
        assert_eq!(s.rotate_to_first_due(Time(5), 10), (5, Time(10), None));
        assert_eq!(s.to_vec(), vec![1, 2, 3, 4, 0]);
        // Waking QP 3 makes it the first due.
        s.list_or_wake(QpIdx(3));
        assert_eq!(s.rotate_to_first_due(Time(5), 10), (2, Time(20), Some(QpIdx(3))));
        assert_eq!(s.front(), Some(3));
    }
}
