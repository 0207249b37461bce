//! How an SRQ is kept from overflowing: the choice an SRQ episode (`[workload] kind =
//! "srq-episode"`) and the MPI layer (`kind = "mpi"`) both make (seeds/001).
use serde::{Deserialize, Serialize};

/// How an SRQ is kept from overflowing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SrqFlowControl {
    /// srq_limit + SRQ_LIMIT_REACHED interrupt; RNR NAK and RNR-timer retry when empty.
    SrqLimit,
    /// Stop request + retransmission table; polling refill and resume requests.
    StopResume,
}
