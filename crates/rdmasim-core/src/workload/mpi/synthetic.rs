//! Programs generated instead of read from a trace: the TSUBAME2.0 study's two benchmarks
//! (seeds/004 §2), every rank's ops built from `[workload] program = { kind = ... }`.
//!
//! - `random-pair-sendrecv` (§2.1): the ranks are paired at random, every pair does one
//!   MPI_Sendrecv of `bytes` each way at the same time; the slowest pair's time is the round's
//!   and is reported as injection bandwidth (bytes / time). The pairing is
//!   [`PatternKind::RandomPair`]'s, drawn from the same stream, so the static EBB
//!   (`fabric/analysis/ebb.rs`, seed s, draw 0) and this benchmark (seed s) pair the same ranks.
//!   With an odd rank count one rank is left out of the matching and idles.
//! - `alltoall` (§2.2): MPI_Alltoall of `bytes` per pair as MVAPICH2 runs it for large messages,
//!   the pairwise exchange ([`RankProgram::pairwise_alltoall`]).
//!
//! Each trial is a barrier, a clock read, the benchmark and a clock read (`Op::Mark`), as a
//! benchmark times MPI_Sendrecv with MPI_Wtime after a barrier; `results.rs` turns the marks
//! into times.
use super::program::{Program, RankProgram};
use crate::engine::SimRng;
use crate::fabric::analysis::ebb_patterns::{PatternKind, PatternScratch};
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
}
fn d_trials() -> u32 {
    1
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

/// The pairs of one random-pair round on `n` ranks: [`PatternKind::RandomPair`]'s matching
/// drawn from `SimRng::new(seed, stream(0))`, each pair once (lower index first as drawn).
pub fn random_pairs(n: u32, seed: u64) -> Vec<(u32, u32)> {
    let kind = PatternKind::RandomPair { hosts: n as usize };
    let mut s = PatternScratch::default();
    s.write(kind, n as usize, 0, &mut SimRng::new(seed, kind.stream(0)));
    // The pattern lists each pair both ways; the first of each two is the pair.
    s.flows.iter().step_by(2).copied().collect()
}

impl ProgramSpec {
    pub fn bytes(&self) -> u64 {
        match *self {
            ProgramSpec::RandomPairSendrecv { bytes, .. } | ProgramSpec::Alltoall { bytes, .. } => bytes,
        }
    }
    pub fn trials(&self) -> u32 {
        match *self {
            ProgramSpec::RandomPairSendrecv { trials, .. } | ProgramSpec::Alltoall { trials, .. } => trials,
        }
    }
    pub fn name(&self) -> &'static str {
        match self {
            ProgramSpec::RandomPairSendrecv { .. } => "random-pair-sendrecv",
            ProgramSpec::Alltoall { .. } => "alltoall",
        }
    }

    /// The pairs of trial `t` (random-pair only; empty for an Alltoall).
    pub fn pairs(&self, n: u32, t: u32) -> Vec<(u32, u32)> {
        match *self {
            ProgramSpec::RandomPairSendrecv { seed, pairing, .. } => {
                random_pairs(n, if pairing == Pairing::Fixed { seed } else { seed.wrapping_add(t as u64) })
            }
            ProgramSpec::Alltoall { .. } => Vec::new(),
        }
    }

    /// The key and reason of a value out of range.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.bytes() == 0 {
            return Err(("workload.program.bytes", "bytes = 0 measures nothing; expected a message size in bytes >= 1".into()));
        }
        if self.bytes() > u32::MAX as u64 {
            return Err(("workload.program.bytes", format!("bytes = {} exceeds one verbs message (2^32 - 1 bytes); expected <= {}", self.bytes(), u32::MAX)));
        }
        if !(1..=10_000).contains(&self.trials()) {
            return Err(("workload.program.trials", format!("trials = {} is out of range; expected 1..=10000", self.trials())));
        }
        Ok(())
    }

    /// Every rank's ops on `n` ranks.
    pub fn build(&self, n: u32) -> Program {
        let mut p = Program::new(n, self.name());
        for t in 0..self.trials() {
            let mut partner: Vec<Option<u32>> = vec![None; n as usize];
            for (a, b) in self.pairs(n, t) {
                partner[a as usize] = Some(b);
                partner[b as usize] = Some(a);
            }
            for r in 0..n {
                let rp: &mut RankProgram = &mut p.ranks[r as usize];
                rp.barrier(r, n);
                rp.mark();
                match *self {
                    ProgramSpec::RandomPairSendrecv { bytes, .. } => {
                        if let Some(q) = partner[r as usize] {
                            // A user tag per trial, so the bytes count as delivered.
                            rp.sendrecv(q, bytes, t as i64, q as i64, bytes, t as i64);
                        }
                    }
                    ProgramSpec::Alltoall { bytes, algorithm, .. } => rp.pairwise_alltoall(r, n, bytes, algorithm == AlltoallAlgorithm::Pairwise),
                }
                rp.mark();
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::mpi::program::Op;

    #[test]
    fn random_pairs_pair_every_rank_once_and_leave_one_idle_when_odd() {
        for n in [2, 7, 16] {
            let pairs = random_pairs(n, 3);
            let mut seen = vec![0; n as usize];
            for (a, b) in &pairs {
                seen[*a as usize] += 1;
                seen[*b as usize] += 1;
            }
            assert_eq!(pairs.len() as u32, n / 2);
            assert_eq!(seen.iter().filter(|&&c| c == 0).count() as u32, n % 2, "n = {n}");
        }
    }

    #[test]
    fn a_round_has_one_sendrecv_per_paired_rank_between_two_marks() {
        let spec = ProgramSpec::RandomPairSendrecv { bytes: 100, seed: 1, trials: 2, pairing: Pairing::Fixed };
        let p = spec.build(5);
        for rp in &p.ranks {
            assert_eq!(rp.ops.iter().filter(|o| matches!(o, Op::Mark)).count(), 4);
        }
        assert_eq!(p.user_sends(), (8, 800), "two pairs of two ranks, two trials");
        assert_eq!(spec.pairs(5, 0), spec.pairs(5, 1), "fixed pairing");
    }
}
