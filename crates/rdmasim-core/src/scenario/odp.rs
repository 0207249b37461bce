//! `[workload] kind = "odp-reads"`: the RDMA READ microbenchmarks of seeds/000 (On-Demand
//! Paging pitfalls). One host reads `reads` buffers of `size` bytes from the other, posting one
//! READ every `interval_us` (0 = all at once), round-robin over `qps` QPs, into and out of
//! memory regions that are pinned or ODP on each side.
use crate::hca::mr_mode::{MrMode, PAGE};
use serde::{Deserialize, Serialize};

/// How an ODP side registers its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OdpKind {
    Explicit,
    Implicit,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OdpReadsSection {
    /// Number of RDMA READs.
    #[serde(default = "d_reads")]
    pub reads: u64,
    /// Bytes per READ (consecutive buffers on both sides).
    #[serde(default = "d_size")]
    pub size: u32,
    /// Time between two posts, µs (0 = post all at once).
    #[serde(default)]
    pub interval_us: f64,
    /// QPs the READs are spread over, round-robin.
    #[serde(default = "d_one")]
    pub qps: u32,
    /// The client's (requester's, READ destination) memory is ODP; false = pinned.
    #[serde(default = "d_true")]
    pub client_odp: bool,
    /// The server's (responder's, READ source) memory is ODP; false = pinned.
    #[serde(default = "d_true")]
    pub server_odp: bool,
    /// ODP registration: "explicit" (the buffer's range) or "implicit" (whole address space).
    #[serde(default = "d_kind")]
    pub odp: OdpKind,
    /// Prefetch the ODP buffers with ibv_advise_mr (synchronous) before the first READ.
    #[serde(default)]
    pub prefetch: bool,
    /// Offset of the buffers from a page boundary, bytes.
    #[serde(default)]
    pub offset: u32,
    #[serde(default)]
    pub client: u32,
    #[serde(default = "d_one")]
    pub server: u32,
}

impl OdpReadsSection {
    pub fn mode(&self, odp: bool) -> MrMode {
        match (odp, self.odp) {
            (false, _) => MrMode::Pinned,
            (true, OdpKind::Explicit) => MrMode::OdpExplicit,
            (true, OdpKind::Implicit) => MrMode::OdpImplicit,
        }
    }
}

fn d_reads() -> u64 {
    2
}
fn d_size() -> u32 {
    100
}
fn d_one() -> u32 {
    1
}
fn d_true() -> bool {
    true
}
fn d_kind() -> OdpKind {
    OdpKind::Explicit
}

pub const MAX_READS: u64 = 1_000_000;
pub const MAX_READ_SIZE: u32 = 1 << 30;
/// Largest buffer (offset + reads × size) each side registers: 1 GiB = 262144 pages of page
/// table, a few MB per region. Beyond it the page tables alone would exhaust memory.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;

/// Semantic checks: (key, message) of the first problem.
pub fn check(o: &OdpReadsSection, hosts: u32, max_qps: u32) -> Result<(), (String, String)> {
    let e = |k: &str, m: String| Err((format!("workload.{k}"), m));
    if o.reads == 0 || o.reads > MAX_READS {
        return e("reads", format!("reads = {} is out of range; expected 1..={MAX_READS}", o.reads));
    }
    if o.size == 0 || o.size > MAX_READ_SIZE {
        return e("size", format!("size = {} is out of range; expected 1..={MAX_READ_SIZE} bytes", o.size));
    }
    let buffer = o.offset as u64 + o.reads * o.size as u64;
    if buffer > MAX_BUFFER_BYTES {
        return e("reads", format!("reads × size = {} × {} = {buffer} bytes is too large; expected at most {MAX_BUFFER_BYTES} bytes (1 GiB) of buffer per side", o.reads, o.size));
    }
    if !o.interval_us.is_finite() || o.interval_us < 0.0 || o.interval_us > 1e9 {
        return e("interval_us", format!("interval_us = {} is invalid; expected a finite number of microseconds in 0..=1e9", o.interval_us));
    }
    if o.qps == 0 || o.qps > max_qps {
        return e("qps", format!("qps = {} is out of range; expected 1..={max_qps}", o.qps));
    }
    if o.offset as u64 >= PAGE {
        return e("offset", format!("offset = {} is invalid; expected 0..=4095 bytes (within a page)", o.offset));
    }
    if o.client >= hosts {
        return e("client", format!("client = {} is not a host; expected a host index 0..={}", o.client, hosts - 1));
    }
    if o.server >= hosts {
        return e("server", format!("server = {} is not a host; expected a host index 0..={}", o.server, hosts - 1));
    }
    if o.client == o.server {
        return e("server", format!("client and server are both host {}; expected two different hosts", o.client));
    }
    Ok(())
}
