//! The protocol messages an MPI library sends over PM: each is one PM message on the channel
//! from its sender to its receiver, so PM's in-order delivery is the library's message order.
//! A message's PM size is its envelope plus the data it carries.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// Envelope and all the data.
    Eager { tag: i64, bytes: u64 },
    /// Rendezvous request for `bytes`; the first `early` of them travel with it.
    Rts { tag: i64, bytes: u64, early: u64, sreq: u32 },
    /// The receiver matched the RTS of send request `sreq` with receive request `rreq`.
    Cts { sreq: u32, rreq: u32, rest: u64 },
    /// The rest of a rendezvous message's data.
    Data { rreq: u32, bytes: u64 },
}

impl Wire {
    /// Payload bytes of the user's data it carries (copied by both sides).
    pub fn data(&self) -> u64 {
        match *self {
            Wire::Eager { bytes, .. } | Wire::Data { bytes, .. } => bytes,
            Wire::Rts { early, .. } => early,
            Wire::Cts { .. } => 0,
        }
    }
}
