//! The channel dependency graph of one virtual layer, with OpenSM's cycle search and its choice
//! of the dependency to cut, state for state: which cycle is found first, and so which paths
//! move up a layer, depends on the order of every list and every search below.
//!
//! - A dependency (channel a, then channel b on some path) keeps the pairs that created it in
//!   order, and how many of them have since moved to the next layer.
//! - Dependencies of a channel are in the order they first appeared.
//! - The search is a depth-first walk that follows, from each channel, the first dependency to
//!   an unvisited channel; meeting a channel still on the walk is a cycle. A channel whose
//!   dependencies are all finished is finished (and forgets its pairs: it cannot be on a
//!   cycle). When the walk runs out it restarts at the first unvisited channel in the pre-order
//!   of OpenSM's binary tree of channels (by id, inserted in order of first use): that tree's
//!   pre-order is computed here once, as a Cartesian tree (ordered by id, rooted by first use).
//! - A cycle is cut at its dependency with the fewest pairs still on this layer (the first such
//!   from the channel where the walk met it); the walk resumes there, keeping its state.
use super::channels::Channels;
use crate::fabric::graph::GraphError;

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Unknown,
    OnWalk,
    Finished,
}

/// A dependency, with the (source LID << 16 | destination LID) of every path that made it.
pub struct Dependency {
    pub to: u32,
    pub pairs: Vec<u32>,
    pub moved: u32,
}

#[derive(Default)]
pub struct Cdg {
    /// Insertion rank of each channel in this layer (NONE: not in it).
    rank: Vec<u32>,
    inserted: Vec<u32>,
    deps_of: Vec<Vec<u32>>,
    /// `[channel * port_stride + next channel's port]`: the dependency, if any.
    slot: Vec<u32>,
    port_stride: usize,
    deps: Vec<Dependency>,
    status: Vec<Status>,
    pre: Vec<u32>,
    preorder: Vec<u32>,
    cursor: usize,
}

impl Cdg {
    pub fn new(channels: &Channels) -> Cdg {
        let n = channels.len();
        Cdg {
            rank: vec![NONE; n],
            inserted: Vec::new(),
            deps_of: vec![Vec::new(); n],
            slot: vec![NONE; n * channels.port_stride],
            port_stride: channels.port_stride,
            deps: Vec::new(),
            status: vec![Status::Unknown; n],
            pre: vec![NONE; n],
            preorder: Vec::new(),
            cursor: 0,
        }
    }

    /// The first channel inserted, where OpenSM starts the search.
    pub fn root(&self) -> Option<u32> {
        self.inserted.first().copied()
    }

    fn slot_of(&self, channels: &Channels, a: u32, b: u32) -> usize {
        a as usize * self.port_stride + usize::from(channels.port_num[b as usize])
    }

    /// Adds a path's channels and its dependencies.
    pub fn add_path(&mut self, channels: &Channels, pair: u32, path: &[u32]) {
        for (i, &ch) in path.iter().enumerate() {
            if self.rank[ch as usize] == NONE {
                self.rank[ch as usize] = self.inserted.len() as u32;
                self.inserted.push(ch);
            }
            let Some(&prev) = i.checked_sub(1).and_then(|j| path.get(j)) else { continue };
            let slot = self.slot_of(channels, prev, ch);
            let mut d = self.slot[slot];
            if d == NONE {
                d = self.deps.len() as u32;
                self.deps.push(Dependency { to: ch, pairs: Vec::new(), moved: 0 });
                self.deps_of[prev as usize].push(d);
                self.slot[slot] = d;
            }
            self.deps[d as usize].pairs.push(pair);
        }
    }

    /// Counts a path as moved off every dependency it made that is still here.
    pub fn remove_path(&mut self, channels: &Channels, path: &[u32]) {
        for w in path.windows(2) {
            let d = self.slot[self.slot_of(channels, w[0], w[1])];
            if d != NONE {
                self.deps[d as usize].moved += 1;
            }
        }
    }

    /// Pre-order of the binary search tree OpenSM builds by inserting channel ids in order of
    /// first use: the Cartesian tree of the channels sorted by id, with the earliest at the root.
    fn compute_preorder(&mut self, channels: &Channels) {
        let mut by_id = self.inserted.clone();
        by_id.sort_unstable_by_key(|&c| channels.key[c as usize]);
        let n = by_id.len();
        let (mut left, mut right) = (vec![NONE; n], vec![NONE; n]);
        let mut stack: Vec<u32> = Vec::new();
        for i in 0..n as u32 {
            let mut last = NONE;
            while let Some(&top) = stack.last() {
                if self.rank[by_id[top as usize] as usize] < self.rank[by_id[i as usize] as usize] {
                    break;
                }
                last = stack.pop().unwrap_or(NONE);
            }
            left[i as usize] = last;
            if let Some(&top) = stack.last() {
                right[top as usize] = i;
            }
            stack.push(i);
        }
        self.preorder.clear();
        let mut todo: Vec<u32> = stack.first().copied().into_iter().collect();
        while let Some(i) = todo.pop() {
            self.preorder.push(by_id[i as usize]);
            for child in [right[i as usize], left[i as usize]] {
                if child != NONE {
                    todo.push(child);
                }
            }
        }
        self.cursor = 0;
    }

    fn next_unknown(&mut self) -> Option<u32> {
        while let Some(&c) = self.preorder.get(self.cursor) {
            if self.status[c as usize] == Status::Unknown {
                return Some(c);
            }
            self.cursor += 1;
        }
        None
    }

    /// Walks from `start` (keeping the state of earlier walks) until a cycle: returns the
    /// channel where the walk met itself, or None when every channel is finished.
    pub fn find_cycle(&mut self, channels: &Channels, start: u32) -> Option<u32> {
        if self.preorder.len() != self.inserted.len() {
            self.compute_preorder(channels);
        }
        let mut current = Some(start);
        while let Some(c) = current {
            let cu = c as usize;
            self.status[cu] = Status::OnWalk;
            let mut next = None;
            for &d in &self.deps_of[cu] {
                let to = self.deps[d as usize].to;
                match self.status[to as usize] {
                    Status::Unknown => {
                        next = Some(to);
                        break;
                    }
                    Status::OnWalk => return Some(to),
                    Status::Finished => {}
                }
            }
            if let Some(n) = next {
                self.pre[n as usize] = c;
                current = Some(n);
                continue;
            }
            self.status[cu] = Status::Finished;
            for &d in &self.deps_of[cu] {
                let dep = &mut self.deps[d as usize];
                dep.pairs = Vec::new();
                dep.moved = 0;
            }
            current = match std::mem::replace(&mut self.pre[cu], NONE) {
                NONE => self.next_unknown(),
                p => Some(p),
            };
        }
        None
    }

    fn next_on_walk(&self, c: u32) -> Option<u32> {
        self.deps_of[c as usize].iter().copied().find(|&d| self.status[self.deps[d as usize].to as usize] == Status::OnWalk)
    }

    /// Cuts the cycle through `at` (as [`Cdg::find_cycle`] returned it) at its dependency with
    /// the fewest pairs still here, the first of equals from `at` on; the cycle's channels are
    /// unvisited again. Returns the cut dependency with its pairs.
    pub fn cut_cycle(&mut self, channels: &Channels, at: u32) -> Result<Dependency, GraphError> {
        let broken = || GraphError(format!("dfsssp: the cycle through channel {at} does not close"));
        let still = |d: &Dependency| (d.pairs.len() as u32).wrapping_sub(d.moved);
        let first = self.next_on_walk(at).ok_or_else(broken)?;
        let (mut weakest_from, mut weakest) = (at, first);
        let mut current = self.deps[first as usize].to;
        for _ in 0..=self.inserted.len() {
            self.status[current as usize] = Status::Unknown;
            let d = self.next_on_walk(current).ok_or_else(broken)?;
            if still(&self.deps[d as usize]) < still(&self.deps[weakest as usize]) {
                (weakest_from, weakest) = (current, d);
            }
            current = self.deps[d as usize].to;
            if current == at {
                self.status[at as usize] = Status::Unknown;
                self.cursor = 0;
                let list = &mut self.deps_of[weakest_from as usize];
                list.retain(|&d| d != weakest);
                let to = self.deps[weakest as usize].to;
                let slot = self.slot_of(channels, weakest_from, to);
                self.slot[slot] = NONE;
                let dep = &mut self.deps[weakest as usize];
                return Ok(Dependency { to, pairs: std::mem::take(&mut dep.pairs), moved: dep.moved });
            }
        }
        Err(broken())
    }
}
