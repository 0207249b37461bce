//! Work completions, as `ibv_poll_cq` returns them.
use serde::Serialize;
use crate::ids::{HcaId};

/// `enum ibv_wc_status` (subset the model produces).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum WcStatus {
    Success,
    /// IBV_WC_RETRY_EXC_ERR: transport retries (local ACK timeout, NAKs) exhausted.
    RetryExcErr,
    /// IBV_WC_RNR_RETRY_EXC_ERR: RNR retries exhausted.
    RnrRetryExcErr,
    /// IBV_WC_WR_FLUSH_ERR: flushed because the QP went to the error state.
    WrFlushErr,
}

impl WcStatus {
    pub fn ibv_name(self) -> &'static str {
        match self {
            WcStatus::Success => "IBV_WC_SUCCESS",
            WcStatus::RetryExcErr => "IBV_WC_RETRY_EXC_ERR",
            WcStatus::RnrRetryExcErr => "IBV_WC_RNR_RETRY_EXC_ERR",
            WcStatus::WrFlushErr => "IBV_WC_WR_FLUSH_ERR",
        }
    }
}

/// `enum ibv_wc_opcode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum WcOpcode {
    Send,
    RdmaWrite,
    RdmaRead,
    Recv,
    RecvRdmaWithImm,
}

#[derive(Clone, Copy, Debug)]
pub struct Cqe {
    pub wr_id: u64,
    /// HCA (host) of the QP, so an application owning QPs on several hosts can tell them apart.
    pub hca: HcaId,
    pub qp: u32,
    pub status: WcStatus,
    pub opcode: WcOpcode,
    pub byte_len: u32,
}
