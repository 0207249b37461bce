//! MPI's non-overtaking rule over several rails. Two messages from one rank to another that
//! can match the same receive must match in the order they were sent (MPI-4.0 sec. 3.5); RC
//! keeps order per QP only, so once a pair talks over several QPs (round-robin rail sharing)
//! an eager message can overtake an earlier one. MVAPICH2 numbers every packet of a
//! connection (`seqnum`) and queues out-of-order arrivals until the missing one lands
//! (`ibv_channel_manager.c`: `T_CHANNEL_OUT_OF_ORDER_ARRIVE`); so does this: eager messages and
//! RTSs carry a sequence number per (sender, receiver), and the receiver hands them to MPI
//! matching in that order. The CTS and the data name their requests and need no order.

/// One direction's sequence numbers: what the sender numbers next and what the receiver
/// delivers next, with the arrivals that came early.
#[derive(Clone, Debug)]
pub struct InOrder<T> {
    sent: u32,
    next: u32,
    /// Early arrivals, by sequence number (few: at most the messages in flight).
    held: Vec<(u32, T)>,
}

impl<T> Default for InOrder<T> {
    fn default() -> Self {
        InOrder { sent: 0, next: 0, held: Vec::new() }
    }
}

impl<T> InOrder<T> {
    /// The number of the next message sent in this direction.
    pub fn number(&mut self) -> u32 {
        let s = self.sent;
        self.sent = self.sent.wrapping_add(1);
        s
    }

    /// Message `seq` arrived: returned if it is the next one (then `ready` gives those held
    /// behind it), else held. The in-order case allocates nothing: it is every message on one
    /// rail.
    pub fn arrive(&mut self, seq: u32, item: T) -> Option<T> {
        if seq != self.next {
            let at = self.held.partition_point(|&(s, _)| s.wrapping_sub(self.next) < seq.wrapping_sub(self.next));
            self.held.insert(at, (seq, item));
            return None;
        }
        self.next = self.next.wrapping_add(1);
        Some(item)
    }

    /// The held message that comes next, if it has arrived.
    pub fn ready(&mut self) -> Option<T> {
        if self.held.first().is_some_and(|&(s, _)| s == self.next) {
            self.next = self.next.wrapping_add(1);
            return Some(self.held.remove(0).1);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::InOrder;

    #[test]
    fn early_arrivals_wait_for_the_missing_one() {
        let mut o = InOrder::default();
        let seqs: Vec<u32> = (0..4).map(|_| o.number()).collect();
        let mut out = Vec::new();
        let mut take = |o: &mut InOrder<char>, seq, c| {
            let mut next = o.arrive(seq, c);
            while let Some(c) = next {
                out.push(c);
                next = o.ready();
            }
            out.clone()
        };
        assert!(take(&mut o, seqs[2], 'c').is_empty());
        assert!(take(&mut o, seqs[1], 'b').is_empty());
        assert_eq!(take(&mut o, seqs[0], 'a'), ['a', 'b', 'c']);
        assert_eq!(take(&mut o, seqs[3], 'd'), ['a', 'b', 'c', 'd']);
    }
}
