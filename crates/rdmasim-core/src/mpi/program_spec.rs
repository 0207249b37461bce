//! `[workload] program`: the generated MPI benchmarks a scenario names, as data (synthetic.rs
//! builds their ranks' operations). Below the workloads, so a scenario of any engine (the
//! verbs MPI layer, PM's) holds one without reaching up into the code that runs it.
use serde::{Deserialize, Serialize};

/// `[workload] program`: which benchmark, its message size and its trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ProgramSpec {
    RandomPairSendrecv {
        /// Bytes each rank sends to (and receives from) its partner.
        bytes: u64,
        /// Seed of the pairing (with `pairing = "per-trial"`, trial t uses seed + t).
        #[serde(default)]
        seed: u64,
        #[serde(default = "d_trials")]
        trials: u32,
        #[serde(default)]
        pairing: Pairing,
    },
    Alltoall {
        /// Bytes each rank sends to every other rank.
        bytes: u64,
        #[serde(default)]
        algorithm: AlltoallAlgorithm,
        #[serde(default = "d_trials")]
        trials: u32,
    },
    OsuBw {
        /// Bytes of each message.
        bytes: u64,
        /// Messages in flight per iteration (osu_bw's default window, 64).
        #[serde(default = "d_window")]
        window: u32,
        /// Timed iterations.
        #[serde(default = "d_iterations")]
        iterations: u32,
        /// Untimed iterations before them (osu_bw skips 2 at large sizes).
        #[serde(default = "d_skip")]
        skip: u32,
        /// osu_bibw: both ranks send.
        #[serde(default)]
        bidirectional: bool,
    },
}
fn d_trials() -> u32 {
    1
}
fn d_window() -> u32 {
    64
}
fn d_iterations() -> u32 {
    20
}
fn d_skip() -> u32 {
    2
}

/// Whether the trials of a random-pair run redraw the pairing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pairing {
    /// Trial t pairs by seed + t: the trials sample pairings, as the EBB's patterns do.
    #[default]
    PerTrial,
    /// Every trial pairs by `seed`: the study's practice ("the seed is fixed so that runs with
    /// the same node count pair the same nodes", §2.1); on a lossless fabric the trials then
    /// repeat one figure.
    Fixed,
}

/// The Alltoall algorithm. Only MVAPICH2's choice at large messages is modelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlltoallAlgorithm {
    /// MPIR_Alltoall_pairwise_MV2, XOR pairs on a power-of-two size (MV2_USE_XOR_ALLTOALL=1).
    #[default]
    Pairwise,
    /// The same without the XOR form: step k sends to r + k, receives from r - k, any size.
    PairwiseShift,
}

impl ProgramSpec {
    pub fn bytes(&self) -> u64 {
        match *self {
            ProgramSpec::RandomPairSendrecv { bytes, .. } | ProgramSpec::Alltoall { bytes, .. } | ProgramSpec::OsuBw { bytes, .. } => bytes,
        }
    }
    pub fn trials(&self) -> u32 {
        match *self {
            ProgramSpec::RandomPairSendrecv { trials, .. } | ProgramSpec::Alltoall { trials, .. } => trials,
            ProgramSpec::OsuBw { .. } => 1,
        }
    }
    pub fn name(&self) -> &'static str {
        match self {
            ProgramSpec::RandomPairSendrecv { .. } => "random-pair-sendrecv",
            ProgramSpec::Alltoall { .. } => "alltoall",
            ProgramSpec::OsuBw { bidirectional: false, .. } => "osu-bw",
            ProgramSpec::OsuBw { bidirectional: true, .. } => "osu-bibw",
        }
    }
}
