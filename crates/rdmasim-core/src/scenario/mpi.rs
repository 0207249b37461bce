//! `[workload] kind = "mpi"`: an MPI trace (or a generated program) replayed over the verbs
//! model with per-rank SRQs and MVAPICH2's multi-rail choices (workload/mpi runs it;
//! docs/srq.md, docs/tsubame.md).
use super::srq::SrqFlowControl;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MpiSection {
    /// Trace directory (rank.<r>.trace files, `docs/srq.md`); or `program`.
    #[serde(default)]
    pub trace: String,
    /// A generated program instead of a trace (`synthetic.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<crate::mpi::program_spec::ProgramSpec>,
    /// Nodes the job runs on, out of the fabric's hosts (default: all for a program; for a
    /// trace, the first hosts it needs). The others are down (`nodes.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// The hosts that are down, by number; without it the missing ones are drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<u32>>,
    /// Seed of the draw of the missing hosts.
    #[serde(default)]
    pub missing_seed: u64,
    /// Consecutive ranks placed on each host.
    #[serde(default = "d_one")]
    pub ranks_per_host: u32,
    /// `srq-limit` (conventional) or `stop-resume` (proposed).
    #[serde(default = "d_fc")]
    pub flow_control: SrqFlowControl,
    /// Receive buffers (WQEs) each rank keeps posted in its SRQ.
    #[serde(default = "d_buffers")]
    pub srq_buffers: u32,
    /// srq-limit: the threshold; default buffers × 30/256, the ratio of MVAPICH2's defaults
    /// (ibv_param.c: mv2_srq_limit = 30, mv2_srq_fill_size = 256), at least 1.
    #[serde(default)]
    pub srq_limit: Option<u32>,
    /// Largest message sent eagerly (Open MPI openib BTL btl_openib_eager_limit default 12288).
    #[serde(default = "d_eager")]
    pub eager_threshold: u64,
    /// Size of each receive buffer (the study: a fixed 32 KB).
    #[serde(default = "d_buffer_bytes")]
    pub buffer_bytes: u32,
    /// Multiplies the recorded CPU time between calls (1 = as recorded).
    #[serde(default = "d_scale")]
    pub compute_scale: f64,
    /// The (first) rail every rank communicates on (each host's rail-th HCA port).
    #[serde(default)]
    pub rail: u16,
    /// Rails each rank drives, from `rail` on: MVAPICH2's `MV2_NUM_HCAS` (default 1,
    /// ibv_param.c `rdma_num_hcas = 1`; at most its MAX_NUM_HCAS, 10). `rails.rs`.
    #[serde(default = "d_num_hcas")]
    pub num_hcas: u16,
    /// Rendezvous payloads longer than this are striped over the rails: MVAPICH2's
    /// `MV2_STRIPING_THRESHOLD`; default `eager_threshold × num_hcas`, its computed default
    /// (`rails::default_striping_threshold`).
    #[serde(default)]
    pub striping_threshold: Option<u64>,
    /// The rail of each unstriped message: MVAPICH2's `MV2_RAIL_SHARING_POLICY`
    /// (`use-first`, `round-robin`, `fixed-mapping`; default `fixed-mapping`, as its).
    #[serde(default)]
    pub rail_sharing_policy: RailSharingPolicy,
}
fn d_num_hcas() -> u16 {
    1
}
fn d_one() -> u32 {
    1
}
fn d_fc() -> SrqFlowControl {
    SrqFlowControl::SrqLimit
}
fn d_buffers() -> u32 {
    256
}
fn d_eager() -> u64 {
    12_288
}
fn d_buffer_bytes() -> u32 {
    32 * 1024
}
fn d_scale() -> f64 {
    1.0
}

/// `MV2_RAIL_SHARING_POLICY`: the rail of a message that is not striped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RailSharingPolicy {
    /// `USE_FIRST`: always the first rail ("the best scenario for latency", ibv_priv.c).
    UseFirst,
    /// `ROUND_ROBIN`: each message on the next rail, one counter per process (ibv_priv.c
    /// keeps it in a function-local static and pre-increments it: the first message goes on
    /// the second rail).
    RoundRobin,
    /// `FIXED_MAPPING`, MVAPICH2's default (ibv_param.c: `rdma_rail_sharing_policy =
    /// FIXED_MAPPING`, "better performance" than the earlier USE_FIRST): every message of a
    /// process on its own rail, `rdma_process_binding_rail_offset = rails_per_hca ×
    /// (local_id % num_hcas)` (rdma_iba_init.c), so the ranks of a host spread over the rails.
    /// With MV2_NUM_HCAS set MVAPICH2 also turns on `MV2_PROCESS_PLACEMENT_AWARE_HCA_MAPPING`
    /// (rdma_iba_priv.c), which picks the HCA of the process's NUMA node, again local_id %
    /// HCAs among several; ASSUMPTION: every HCA sits on one NUMA node (the model has no
    /// NUMA), where both give the same rail.
    #[default]
    FixedMapping,
}

/// Why a `compute_scale` (the factor on a trace's recorded compute gaps) is refused, if it
/// is: the verbs and PM MPI workloads check it alike.
pub fn compute_scale_problem(scale: f64) -> Option<String> {
    (!(scale.is_finite() && scale >= 0.0)).then(|| format!("compute_scale = {scale}: expected a finite number >= 0"))
}
