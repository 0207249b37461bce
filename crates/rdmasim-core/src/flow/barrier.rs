//! The barrier before a timed collective, at flow level: when each rank leaves it.
//!
//! A benchmark times its collective after an MPI_Barrier (`mpi/synthetic.rs`: a barrier, a
//! clock read, the collective, a clock read), and the barrier does not let the ranks go at one
//! instant: each leaves when its own last round's messages are through, and those cross paths
//! of different lengths. On two edge switches of a fat tree the packet engine's ranks leave
//! 0–4 µs apart (`mpi_rank_trials`); the pairwise Alltoall's XOR pairs decide by about 1 µs
//! whether they run one after the other (`rendezvous::one_after_the_other`), so the rank-by-rank
//! models start from these exits rather than all at once.
//!
//! The barrier is the MPI core's (`RankProgram::barrier`): dissemination, in rounds d = 1, 2,
//! 4, … < n, rank r sends a header-only eager SEND to r + d and receives one from r − d (mod n)
//! with one Sendrecv, which is through when the rank has polled the arrival and its own SEND's
//! completion (the ACK back). A message that arrives before its receiver reaches the round waits
//! as unexpected and matches when the receive is posted.
use super::rendezvous::PathLatency;

/// When each of `ranks` ranks, all entering at 0, leaves the dissemination barrier, seconds.
/// `path(from, to)` is the latency of the route from rank `from` to rank `to`; `None` (no
/// route) ends the barrier there and is returned as that pair.
pub fn dissemination_exits(ranks: u32, mut path: impl FnMut(u32, u32) -> Option<PathLatency>) -> Result<Vec<f64>, (u32, u32)> {
    let n = ranks as usize;
    let mut entered = vec![0.0f64; n];
    let mut next = vec![0.0f64; n];
    // This round's path from each rank r to r + d: its own SEND, and the arrival at r + d.
    let mut out = vec![PathLatency::default(); n];
    let mut d = 1u32;
    while d < ranks {
        for r in 0..ranks {
            let to = (r + d) % ranks;
            out[r as usize] = path(r, to).ok_or((r, to))?;
        }
        for r in 0..ranks {
            let from = ((r + ranks - d) % ranks) as usize;
            let sent = entered[r as usize] + out[r as usize].ctrl_done_s;
            let arrived = entered[from] + out[from].ctrl_s;
            next[r as usize] = sent.max(arrived).max(entered[r as usize]);
        }
        std::mem::swap(&mut entered, &mut next);
        d <<= 1;
    }
    Ok(entered)
}

/// The slowest rank's time from its own start: rank r started at `start_s[r]` (0 past its end)
/// and ended at `end_s[r]`. A benchmark's rank reads MPI_Wtime after the barrier and after the
/// call (`mpi/results.rs`), so a rank the barrier let go late is timed from then.
pub fn slowest_since_start(end_s: &[f64], start_s: &[f64]) -> f64 {
    end_s.iter().enumerate().map(|(r, &end)| end - start_s.get(r).copied().unwrap_or(0.0)).fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message lands at its peer 1 µs after its post; its sender polls the ACK after `done`.
    fn lat(extra_us: f64, done_us: f64) -> PathLatency {
        PathLatency { ctrl_s: (1.0 + extra_us) * 1e-6, ctrl_done_s: (done_us + 2.0 * extra_us) * 1e-6, ..PathLatency::default() }
    }

    fn us(v: &[f64]) -> Vec<f64> {
        v.iter().map(|x| (x * 1e9).round() / 1e3).collect()
    }

    #[test]
    fn equal_paths_let_every_rank_go_together_after_its_rounds() {
        // Four ranks, two rounds: each round ends with the arrival (1 µs) or the ACK (1.5 µs),
        // whichever is later.
        let exits = dissemination_exits(4, |_, _| Some(lat(0.0, 1.5))).unwrap();
        assert_eq!(us(&exits), vec![3.0; 4]);
        let exits = dissemination_exits(4, |_, _| Some(lat(0.0, 0.5))).unwrap();
        assert_eq!(us(&exits), vec![2.0; 4]);
        // Five ranks take three rounds (d = 1, 2, 4); one rank alone takes none.
        assert_eq!(us(&dissemination_exits(5, |_, _| Some(lat(0.0, 0.5))).unwrap()), vec![3.0; 5]);
        assert_eq!(dissemination_exits(1, |_, _| None).unwrap(), vec![0.0]);
    }

    #[test]
    fn a_longer_path_delays_its_receiver_and_through_later_rounds_the_others() {
        // Ranks 0..4; the path 1 -> 2 is 2 µs longer each way. Round 1 (d = 1): rank 2 gets
        // 1's message at 3 µs and rank 1 polls its ACK at 0.5 + 4 = 4.5 µs; the others are
        // through at 1 µs. Round 2 (d = 2): rank 3 hears from 1 at 5.5, rank 0 from 2 at 4,
        // rank 1 polls its ACK at 5 and hears from 3 at 2; rank 2 is done at 3.5 (ACK) and
        // hears from 0 at 2.
        let exits = dissemination_exits(4, |from, to| Some(if (from, to) == (1, 2) { lat(2.0, 0.5) } else { lat(0.0, 0.5) })).unwrap();
        assert_eq!(us(&exits), vec![4.0, 5.0, 3.5, 5.5]);
    }

    #[test]
    fn each_rank_is_timed_from_its_own_start() {
        assert_eq!(slowest_since_start(&[5.0, 6.0, 4.0], &[1.0, 3.0]), 4.0);
        assert_eq!(slowest_since_start(&[5.0, 6.0], &[]), 6.0);
    }

    #[test]
    fn an_unroutable_pair_is_named() {
        assert_eq!(dissemination_exits(4, |from, to| ((from, to) != (3, 1)).then(|| lat(0.0, 0.5))), Err((3, 1)));
    }
}
