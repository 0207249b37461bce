//! How a memory region is registered (pinned, or On-Demand Paging over a range or the whole
//! address space) and the page ODP maps by: what a scenario chooses (scenario/odp.rs) and the
//! NIC's regions (mr.rs) implement.
use serde::{Deserialize, Serialize};

/// NIC page size of ODP regions (4 KiB, the kernel's PAGE_SIZE on x86).
pub const PAGE: u64 = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MrMode {
    /// ibv_reg_mr without IBV_ACCESS_ON_DEMAND: pinned and mapped at registration.
    Pinned,
    /// ibv_reg_mr(..., IBV_ACCESS_ON_DEMAND) over a range.
    OdpExplicit,
    /// ibv_reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_ON_DEMAND): the whole address space.
    OdpImplicit,
}
