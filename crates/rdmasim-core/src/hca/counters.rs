//! HCA transport counters under the names rdma-core / the mlx5 driver expose in
//! `/sys/class/infiniband/<dev>/ports/1/hw_counters/` (see the kernel's
//! Documentation/ABI and mlx5 `hw_counters` list).
use serde::Serialize;

macro_rules! counters {
    ($( $(#[doc = $doc:literal])* $name:ident ),* $(,)?) => {
        #[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
        pub struct HcaCounters { $( $(#[doc = $doc])* pub $name: u64, )* }
        impl HcaCounters {
            pub fn rows(&self) -> Vec<(&'static str, u64)> { vec![ $( (stringify!($name), self.$name), )* ] }
        }
    };
}

counters! {
    /// Requester: the QP's ACK timer expired (a retransmission followed).
    local_ack_timeout_err,
    /// Requester: RNR NAKs received (within the QP's rnr_retry limit).
    rnr_nak_retry_err,
    /// Requester: NAK-sequence-error packets received.
    packet_seq_err,
    /// Requester: READ responses missing, detected by a later response/ACK (implied NAK).
    implied_nak_seq_err,
    /// Responder: packets received with a PSN beyond the expected one.
    out_of_sequence,
    /// Responder: duplicate requests received (PSN before the expected one).
    duplicate_request,
    /// Responder: SENDs dropped (RNR NAK) for lack of a receive WQE.
    out_of_buffer,
    /// Responder: RDMA WRITE requests received.
    rx_write_requests,
    /// Responder: RDMA READ requests received.
    rx_read_requests,
    /// Requester: completions with error.
    req_cqe_error,
    /// Requester: completions flushed with error.
    req_cqe_flush_error,
    /// Requester: transport retries exhausted (IBV_WC_RETRY_EXC_ERR).
    req_transport_retries_exceeded,
    /// Requester: RNR retries exhausted (IBV_WC_RNR_RETRY_EXC_ERR).
    req_rnr_retries_exceeded,
    /// Requester: retransmissions under adaptive retransmission.
    roce_adp_retrans,
    /// Packets the requester sent again (any cause). Not an mlx5 counter: a model diagnostic.
    retransmitted_packets,
}
