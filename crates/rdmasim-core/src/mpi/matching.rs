//! MPI's matching, one rank's side: receives posted in order are matched against arriving
//! messages by (source, tag), either side may be a wildcard (`MPI_ANY_SOURCE`, `MPI_ANY_TAG`,
//! program.rs `envelope_matches`); an arrival no receive was posted for waits in the unexpected
//! queue, and a later receive takes the first one it matches. Both transports (verbs,
//! workload/mpi; PM, ether/mpi) match through this.
use super::program::envelope_matches;
use std::collections::VecDeque;

/// A receive posted and not yet matched: its request, and the source and tag it takes (either
/// may be a wildcard).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Posted {
    pub req: u32,
    pub peer: i64,
    pub tag: i64,
}

/// What matching reads of an arrival (the rest is the transport's).
pub trait Envelope {
    fn src(&self) -> u32;
    fn tag(&self) -> i64;
}

/// One rank's posted receives and unexpected arrivals, each in the order they came.
#[derive(Clone, Debug)]
pub struct Matching<U> {
    posted: VecDeque<Posted>,
    unexpected: VecDeque<U>,
}

impl<U> Default for Matching<U> {
    fn default() -> Self {
        Matching { posted: VecDeque::new(), unexpected: VecDeque::new() }
    }
}

impl<U: Envelope> Matching<U> {
    /// A receive is posted: the first unexpected arrival it matches, taken from the queue; or
    /// none, and the receive waits.
    pub fn post(&mut self, p: Posted) -> Option<U> {
        match self.unexpected.iter().position(|u| envelope_matches(p.peer, p.tag, u.src(), u.tag())) {
            Some(i) => self.unexpected.remove(i),
            None => {
                self.posted.push_back(p);
                None
            }
        }
    }

    /// A message arrived: the first posted receive it matches, taken from the queue, with the
    /// message; or none, and the message waits as unexpected.
    pub fn arrive(&mut self, u: U) -> Option<(Posted, U)> {
        match self.posted.iter().position(|p| envelope_matches(p.peer, p.tag, u.src(), u.tag())) {
            Some(i) => self.posted.remove(i).map(|p| (p, u)),
            None => {
                self.unexpected.push_back(u);
                None
            }
        }
    }

    /// Arrivals waiting for a receive.
    pub fn unexpected(&self) -> usize {
        self.unexpected.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::program::ANY;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Msg(u32, i64, u8);
    impl Envelope for Msg {
        fn src(&self) -> u32 {
            self.0
        }
        fn tag(&self) -> i64 {
            self.1
        }
    }

    #[test]
    fn receives_and_arrivals_match_in_order_with_wildcards() {
        let mut m = Matching::<Msg>::default();
        // Two arrivals from rank 1 with tag 5 wait; a receive from any source takes the first.
        assert_eq!(m.arrive(Msg(1, 5, 0)), None);
        assert_eq!(m.arrive(Msg(1, 5, 1)), None);
        assert_eq!(m.post(Posted { req: 0, peer: ANY, tag: 5 }), Some(Msg(1, 5, 0)));
        assert_eq!(m.unexpected(), 1);
        // A receive for rank 2 waits; rank 1's message does not match it; rank 2's does.
        assert_eq!(m.post(Posted { req: 1, peer: 2, tag: ANY }), None);
        assert_eq!(m.arrive(Msg(1, 7, 2)), None);
        assert_eq!(m.arrive(Msg(2, 9, 3)), Some((Posted { req: 1, peer: 2, tag: ANY }, Msg(2, 9, 3))));
        // The older of two matching arrivals goes first.
        assert_eq!(m.post(Posted { req: 2, peer: 1, tag: ANY }), Some(Msg(1, 5, 1)));
        assert_eq!(m.post(Posted { req: 3, peer: 1, tag: ANY }), Some(Msg(1, 7, 2)));
        assert_eq!(m.unexpected(), 0);
    }
}
