//! `[workload] kind = "srq-episode"`: one SRQ flow-control episode of seeds/001 sec. 4.1
//! (workload/srq_episode.rs runs it; docs/srq.md).
use super::srq::SrqFlowControl;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SrqEpisodeSection {
    /// `stop-resume` (proposed) or `srq-limit` (conventional).
    pub method: SrqFlowControl,
    /// SEND size in bytes (the study: 64).
    #[serde(default = "d_packet")]
    pub packet_bytes: u32,
    /// Buffers in the SRQ at the start and added per refill (the study: 64).
    #[serde(default = "d_refill")]
    pub refill: u32,
    /// srq-limit: the threshold armed with ibv_modify_srq (MVAPICH2's MV2_SRQ_LIMIT default, 30).
    #[serde(default = "d_limit")]
    pub srq_limit: u32,
    /// Post the SENDs inline (the study does not say; a plain program posts them by DMA).
    #[serde(default)]
    pub inline: bool,
    /// SENDs posted back to back at t1 (default 1). More than the buffers left overflows the
    /// SRQ: srq-limit answers with RNR NAKs (retry after the RNR timer), stop-resume stops.
    #[serde(default = "d_burst")]
    pub burst: u32,
    #[serde(default)]
    pub client: u32,
    #[serde(default = "d_one")]
    pub server: u32,
}
fn d_packet() -> u32 {
    64
}
fn d_refill() -> u32 {
    64
}
fn d_limit() -> u32 {
    30
}
fn d_one() -> u32 {
    1
}
fn d_burst() -> u32 {
    1
}
