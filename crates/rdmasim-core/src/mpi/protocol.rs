//! How an MPI library sends a message, as data: eagerly up to its eager limit (envelope and
//! data in one message), else by rendezvous (an RTS, possibly carrying the first `rts_data`
//! bytes, answered by a CTS once the receive is matched, then the rest). Each transport
//! carries the messages its own way; the limits are its library's (ether/mpi/profile.rs for
//! MPICH and YAMPII over PM; the scenario's `eager_threshold` over verbs).

/// A library's choice between the two protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Protocol {
    /// Largest message sent eagerly, bytes.
    pub eager_limit: u64,
    /// Bytes a rendezvous RTS carries (a pipelined library's first fragment; 0: none).
    pub rts_data: u64,
}

/// How one message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Send {
    Eager,
    /// `early` bytes ride with the RTS (all of them: the send is done with the RTS).
    Rendezvous { early: u64 },
}

impl Protocol {
    pub fn send(&self, bytes: u64) -> Send {
        if bytes <= self.eager_limit {
            Send::Eager
        } else {
            Send::Rendezvous { early: self.rts_data.min(bytes) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eager_up_to_the_limit_then_rendezvous_with_the_rts_share() {
        let p = Protocol { eager_limit: 100, rts_data: 40 };
        assert_eq!(p.send(100), Send::Eager);
        assert_eq!(p.send(101), Send::Rendezvous { early: 40 });
        let all = Protocol { eager_limit: 10, rts_data: 1000 };
        assert_eq!(all.send(500), Send::Rendezvous { early: 500 });
    }
}
