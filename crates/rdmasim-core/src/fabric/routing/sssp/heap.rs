//! The d-ary min-heap OpenSM's (df)sssp runs Dijkstra on (complib's `cl_heap`, d = 4), with
//! its exact order of equal keys. Dijkstra keeps the first predecessor that reaches a switch
//! at its final distance, so which of two switches at the same distance leaves the heap first
//! decides ties between equal-cost paths; a heap that broke ties otherwise (a binary heap, a
//! `BinaryHeap` with lazy deletion) would pick other ports than OpenSM.
//!
//! The rules that matter: a key moves up only past strictly greater keys; moving down it
//! swaps with the smallest child, the last of equal children, and only when strictly greater;
//! extracting the root puts the last element at the root and moves it down.

/// Items are `0..capacity` (vertex numbers); `pos[item]` is where the item sits.
pub struct DaryHeap {
    d: usize,
    keys: Vec<u64>,
    items: Vec<u32>,
    pos: Vec<usize>,
}

impl DaryHeap {
    pub fn new(d: usize, capacity: usize) -> DaryHeap {
        DaryHeap { d, keys: Vec::with_capacity(capacity), items: Vec::with_capacity(capacity), pos: vec![usize::MAX; capacity] }
    }

    pub fn clear(&mut self) {
        self.keys.clear();
        self.items.clear();
    }

    /// Appends `item` and moves it up.
    pub fn insert(&mut self, item: u32, key: u64) {
        let at = self.keys.len();
        self.keys.push(key);
        self.items.push(item);
        self.pos[item as usize] = at;
        self.up(at);
    }

    /// Changes the key of an item in the heap and restores the order.
    pub fn set_key(&mut self, item: u32, key: u64) {
        let at = self.pos[item as usize];
        let old = self.keys[at];
        self.keys[at] = key;
        if key < old {
            self.up(at);
        } else if key > old {
            self.down(at);
        }
    }

    /// Removes and returns the item with the smallest key.
    pub fn pop(&mut self) -> Option<u32> {
        let last = self.keys.len().checked_sub(1)?;
        self.keys.swap(0, last);
        self.items.swap(0, last);
        self.keys.pop();
        let item = self.items.pop()?;
        if !self.items.is_empty() {
            self.pos[self.items[0] as usize] = 0;
            self.down(0);
        }
        Some(item)
    }

    fn place(&mut self, at: usize, key: u64, item: u32) {
        self.keys[at] = key;
        self.items[at] = item;
        self.pos[item as usize] = at;
    }

    fn up(&mut self, mut at: usize) {
        let (key, item) = (self.keys[at], self.items[at]);
        while at > 0 {
            let parent = (at - 1) / self.d;
            if key >= self.keys[parent] {
                break;
            }
            let (pk, pi) = (self.keys[parent], self.items[parent]);
            self.place(at, pk, pi);
            at = parent;
        }
        self.place(at, key, item);
    }

    fn down(&mut self, mut at: usize) {
        let (key, item) = (self.keys[at], self.items[at]);
        let size = self.keys.len();
        loop {
            let first = at * self.d + 1;
            if first >= size {
                break;
            }
            let mut min = first;
            for child in first + 1..(first + self.d).min(size) {
                if self.keys[child] <= self.keys[min] {
                    min = child;
                }
            }
            if key <= self.keys[min] {
                break;
            }
            let (ck, ci) = (self.keys[min], self.items[min]);
            self.place(at, ck, ci);
            at = min;
        }
        self.place(at, key, item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_key_order() {
        let mut h = DaryHeap::new(4, 10);
        for (i, k) in [5u64, 3, 9, 1, 7, 3, 8, 2, 6, 4].into_iter().enumerate() {
            h.insert(i as u32, k);
        }
        h.set_key(2, 0);
        let keys = [5u64, 3, 0, 1, 7, 3, 8, 2, 6, 4];
        let order: Vec<u64> = std::iter::from_fn(|| h.pop()).map(|i| keys[i as usize]).collect();
        assert_eq!(order, vec![0, 1, 2, 3, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn equal_keys_leave_in_complib_order() {
        // Six items at the same key, then the root extracted: the last element moves to the
        // root and, not being strictly greater than any child, stays there.
        let mut h = DaryHeap::new(4, 6);
        for i in 0..6 {
            h.insert(i, 10);
        }
        let order: Vec<u32> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(order, vec![0, 5, 4, 3, 2, 1]);
    }
}
