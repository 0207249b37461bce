//! Programs generated instead of read from a trace: the TSUBAME2.0 study's two benchmarks
//! (seeds/004 §2), every rank's ops built from `[workload] program = { kind = ... }`.
//!
//! - `random-pair-sendrecv` (§2.1): the ranks are paired at random, every pair does one
//!   MPI_Sendrecv of `bytes` each way at the same time; the slowest pair's time is the round's
//!   and is reported as injection bandwidth (bytes / time). The pairing is
//!   [`crate::traffic::patterns::random_pairs`], drawn from the same stream, so the static EBB
//!   (`fabric/analysis/ebb.rs`, seed s, draw 0) and this benchmark (seed s) pair the same ranks.
//!   With an odd rank count one rank is left out of the matching and idles.
//! - `alltoall` (§2.2): MPI_Alltoall of `bytes` per pair as MVAPICH2 runs it for large messages,
//!   the pairwise exchange ([`RankProgram::pairwise_alltoall`]).
//!
//! - `osu-bw` (OSU Micro-Benchmarks' osu_bw / osu_bibw, `bidirectional`): rank 0 streams
//!   windows of `window` nonblocking sends of `bytes` to rank 1, which answers each window with
//!   a 4-byte message (osu_bibw: both ranks post `window` receives and `window` sends and wait
//!   for all); `skip` untimed iterations first, then `iterations` timed ones. Other ranks only
//!   take part in the barrier. Used for the MPI bandwidth of seeds/003 (D5) over PM.
//!
//! Each trial is a barrier, a clock read, the benchmark and a clock read (`Op::Mark`), as a
//! benchmark times MPI_Sendrecv with MPI_Wtime after a barrier; `results.rs` turns the marks
//! into times.
use super::program::{Program, RankProgram};
use crate::traffic::patterns::random_pairs;
pub use super::program_spec::{AlltoallAlgorithm, Pairing, ProgramSpec};

/// osu_bw's tags: the data and the per-window reply (osu_util.h's 100 and 101).
const OSU_DATA_TAG: i64 = 100;
const OSU_REPLY_TAG: i64 = 101;

impl ProgramSpec {
    /// The pairs of trial `t` (random-pair only; empty for an Alltoall).
    pub fn pairs(&self, n: u32, t: u32) -> Vec<(u32, u32)> {
        match *self {
            ProgramSpec::RandomPairSendrecv { seed, pairing, .. } => {
                random_pairs(n, if pairing == Pairing::Fixed { seed } else { seed.wrapping_add(t as u64) })
            }
            ProgramSpec::Alltoall { .. } | ProgramSpec::OsuBw { .. } => Vec::new(),
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
        if let ProgramSpec::OsuBw { window, iterations, .. } = *self {
            if window == 0 || iterations == 0 {
                return Err(("workload.program", format!("window = {window}, iterations = {iterations}: expected both >= 1")));
            }
        }
        if !(1..=10_000).contains(&self.trials()) {
            return Err(("workload.program.trials", format!("trials = {} is out of range; expected 1..=10000", self.trials())));
        }
        Ok(())
    }

    /// The bytes a rank's timed section moves, as its figure counts them: one pair's exchange,
    /// one rank's Alltoall sends, or osu_bw's / osu_bibw's total (both ways for the latter).
    pub fn bytes_timed(&self, n: u32) -> f64 {
        match *self {
            ProgramSpec::RandomPairSendrecv { bytes, .. } => bytes as f64,
            ProgramSpec::Alltoall { bytes, .. } => bytes as f64 * n.saturating_sub(1) as f64,
            ProgramSpec::OsuBw { bytes, window, iterations, bidirectional, .. } => {
                bytes as f64 * f64::from(window) * f64::from(iterations) * if bidirectional { 2.0 } else { 1.0 }
            }
        }
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
                match *self {
                    ProgramSpec::RandomPairSendrecv { bytes, .. } => {
                        rp.mark();
                        if let Some(q) = partner[r as usize] {
                            // A user tag per trial, so the bytes count as delivered.
                            rp.sendrecv(q, bytes, t as i64, q as i64, bytes, t as i64);
                        }
                        rp.mark();
                    }
                    ProgramSpec::Alltoall { bytes, algorithm, .. } => {
                        rp.mark();
                        rp.pairwise_alltoall(r, n, bytes, algorithm == AlltoallAlgorithm::Pairwise);
                        rp.mark();
                    }
                    // osu_bw reads the clock itself, after its untimed iterations.
                    ProgramSpec::OsuBw { bytes, window, iterations, skip, bidirectional } => {
                        if r < 2 {
                            osu_bw(rp, r, bytes, window, (skip, iterations), bidirectional);
                        }
                    }
                }
            }
        }
        p
    }
}

/// Rank `r` (0 or 1) of osu_bw / osu_bibw: `skip` untimed iterations, a clock read,
/// `iterations` timed ones, a clock read.
fn osu_bw(rp: &mut RankProgram, r: u32, bytes: u64, window: u32, (skip, iterations): (u32, u32), bidirectional: bool) {
    let peer = 1 - r;
    for i in 0..skip + iterations {
        if i == skip {
            rp.mark();
        }
        let mut reqs = Vec::with_capacity(2 * window as usize);
        if bidirectional || r == 1 {
            reqs.extend((0..window).map(|_| rp.irecv(i64::from(peer), bytes, OSU_DATA_TAG)));
        }
        if bidirectional || r == 0 {
            reqs.extend((0..window).map(|_| rp.isend(peer, bytes, OSU_DATA_TAG)));
        }
        rp.wait(&reqs);
        if !bidirectional {
            if r == 0 {
                rp.recv(i64::from(peer), 4, OSU_REPLY_TAG);
            } else {
                rp.send(peer, 4, OSU_REPLY_TAG);
            }
        }
    }
    rp.mark();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::program::Op;

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

    #[test]
    fn osu_bw_sends_windows_of_messages_and_bibw_sends_both_ways() {
        let bw = ProgramSpec::OsuBw { bytes: 1000, window: 4, iterations: 3, skip: 1, bidirectional: false }.build(3);
        // Rank 0: 4 iterations of 4 data messages; rank 1: the 4 replies of 4 bytes.
        assert_eq!(bw.user_sends(), (20, 4 * 4 * 1000 + 4 * 4));
        assert!(bw.ranks[2].ops.iter().all(|o| !matches!(o, Op::Mark)), "rank 2 only joins the barrier");
        let bibw = ProgramSpec::OsuBw { bytes: 1000, window: 4, iterations: 3, skip: 1, bidirectional: true };
        assert_eq!(bibw.build(2).user_sends(), (32, 32_000));
        assert_eq!(bibw.bytes_timed(2), 24_000.0);
    }
}
