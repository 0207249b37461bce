//! The rounds of the TSUBAME2.0 study's two benchmarks (seeds/004 §2), as (sender rank,
//! receiver rank) lists, ranks on the kept nodes in node order.
//!
//! - Random pairs (§2.1): every rank paired with one other by a seeded draw, fixed per node
//!   count; both send (MPI_Sendrecv): one round. The pairs are the MPI program's and the static
//!   EBB's for the same seed (`traffic::patterns::random_pairs`).
//! - Alltoall (§2.2): MVAPICH2 runs a large-message MPI_Alltoall as a pairwise exchange,
//!   `size - 1` steps of MPI_Sendrecv. With a power-of-two size (`MV2_USE_XOR_ALLTOALL`,
//!   default on) step i exchanges with rank ^ i, otherwise it sends to rank + i and receives
//!   from rank - i (MPIR_Alltoall_pairwise_MV2, as `RankProgram::pairwise_alltoall` posts it on
//!   the packet engine). Each step is one round, a permutation.
use crate::traffic::patterns::{alltoall_pairwise_partners, random_pairs};

/// The flows of the random-pair round over `n` ranks: each pair both ways.
pub fn random_pair_round(n: u32, seed: u64, out: &mut Vec<(u32, u32)>) {
    out.clear();
    for (a, b) in random_pairs(n, seed) {
        out.push((a, b));
        out.push((b, a));
    }
}

/// The flows of step `i` (1..n) of the pairwise Alltoall over `n` ranks.
pub fn alltoall_step(n: u32, i: u32, out: &mut Vec<(u32, u32)>) {
    out.clear();
    out.extend((0..n).map(|r| (r, alltoall_pairwise_partners(r, n, i, true).0)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alltoall_step_is_a_permutation_and_the_steps_cover_every_pair_once() {
        for n in [6u32, 8] {
            let mut seen = vec![false; (n * n) as usize];
            let mut step = Vec::new();
            for i in 1..n {
                alltoall_step(n, i, &mut step);
                let mut dst: Vec<u32> = step.iter().map(|&(_, d)| d).collect();
                dst.sort_unstable();
                assert_eq!(dst, (0..n).collect::<Vec<_>>());
                for &(s, d) in &step {
                    assert_ne!(s, d);
                    assert!(!std::mem::replace(&mut seen[(s * n + d) as usize], true));
                }
            }
        }
    }

    #[test]
    fn a_random_pair_round_sends_both_ways() {
        let mut r = Vec::new();
        random_pair_round(10, 3, &mut r);
        assert_eq!(r.len(), 10);
        assert!(r.chunks(2).all(|c| c[0] == (c[1].1, c[1].0)));
    }
}
