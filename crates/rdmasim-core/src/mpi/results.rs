//! A generated benchmark's figures from its ranks' clock reads (`synthetic.rs`): per trial, each
//! rank's time is its second mark minus its first (its MPI_Sendrecv or MPI_Alltoall as timed by
//! MPI_Wtime around the call), a pair's time the longer of its two ranks' (the exchange is done
//! when both sides are), and the trial's time the slowest pair's (random pair) or rank's
//! (Alltoall): the study takes the slowest because a collective built of such phases waits for
//! it at every phase (seeds/004 §2.1).
//!
//! osu_bw and osu_bibw (`ProgramSpec::OsuBw`) report rank 0's time and the bytes of every
//! timed window (both ways for osu_bibw), as the OSU benchmarks print them.
//!
//! Bandwidths are in GB/s of 10^9 bytes: the random pair's injection bandwidth is `bytes` over
//! the slowest pair's time (what each node injected, one direction); the Alltoall's is the
//! (n - 1) × `bytes` each rank sent over the trial's time (assumption: the study's §4 figure of
//! 1.74 GB/s does not say how it is computed).
use super::synthetic::ProgramSpec;
use crate::engine::Time;
use crate::ids::HostId;
use crate::report::tables::{row, Tables};
use serde_json::json;

/// Per-trial duration of each rank, `None` where a rank did not get that far.
fn durations(marks: &[Vec<Time>], t: usize) -> Vec<Option<Time>> {
    marks.iter().map(|m| Some(m.get(2 * t + 1)?.saturating_sub(*m.get(2 * t)?))).collect()
}

fn gbps(bytes: f64, d: Time) -> f64 {
    if d == Time::ZERO {
        0.0
    } else {
        bytes / d.as_ns_f64()
    }
}

/// `mpi_rank_trials`: each rank's clock reads of trial `t`, its exit from the barrier and its
/// end (null where the rank did not read the clock: it did not get that far, or it only joins
/// osu_bw's barrier). A flow-level model of the same benchmark needs the exits: the barrier
/// lets ranks go as its last messages arrive, not all at once.
fn rank_rows(marks: &[Vec<Time>], hosts: &[HostId], t: usize, out: &mut Tables) {
    for (r, m) in marks.iter().enumerate() {
        let (start, end) = (m.get(2 * t).copied(), m.get(2 * t + 1).copied());
        out.push("mpi_rank_trials", row(json!({
            "trial": t, "rank": r, "host": hosts[r].0, "start_us": start.map(|x| x.as_us_f64()), "end_us": end.map(|x| x.as_us_f64()),
            "time_us": start.zip(end).map(|(s, e)| e.saturating_sub(s).as_us_f64()),
        })));
    }
}

/// Writes `mpi_pairs` (random pair: one row per pair and trial), `mpi_rank_trials` (one row per
/// rank and trial) and `mpi_trials` (one row per trial). `hosts[r]` is rank r's host.
pub fn tables(spec: &ProgramSpec, marks: &[Vec<Time>], hosts: &[HostId], out: &mut Tables) {
    let n = marks.len() as u32;
    let bytes = spec.bytes();
    for t in 0..spec.trials() {
        let d = durations(marks, t as usize);
        let finished = d.iter().filter(|x| x.is_some()).count();
        let pairs = spec.pairs(n, t);
        let (slowest, mean) = if matches!(spec, ProgramSpec::RandomPairSendrecv { .. }) {
            let mut times = Vec::with_capacity(pairs.len());
            for &(a, b) in &pairs {
                let time = d[a as usize].zip(d[b as usize]).map(|(x, y)| x.max(y));
                out.push("mpi_pairs", row(json!({
                    "trial": t, "rank_a": a, "rank_b": b, "host_a": hosts[a as usize].0, "host_b": hosts[b as usize].0,
                    "time_us": time.map(|x| x.as_us_f64()), "bandwidth_GBps": time.map(|x| gbps(bytes as f64, x)),
                })));
                times.extend(time);
            }
            let all = times.len() == pairs.len();
            let mean = (!times.is_empty()).then(|| times.iter().map(|x| x.as_us_f64()).sum::<f64>() / times.len() as f64);
            (times.into_iter().max().filter(|_| all), mean)
        } else if let ProgramSpec::OsuBw { .. } = spec {
            // osu_bw reports rank 0's time (the other ranks only join the barrier).
            let t0 = d.first().copied().flatten();
            (t0, t0.map(|x| x.as_us_f64()))
        } else {
            let all = finished == n as usize;
            let times: Vec<Time> = d.iter().flatten().copied().collect();
            let mean = (!times.is_empty()).then(|| times.iter().map(|x| x.as_us_f64()).sum::<f64>() / times.len() as f64);
            (times.into_iter().max().filter(|_| all), mean)
        };
        rank_rows(marks, hosts, t as usize, out);
        let sent = spec.bytes_timed(n);
        out.push("mpi_trials", row(json!({
            "trial": t, "program": spec.name(), "ranks": n, "bytes": bytes, "pairs": pairs.len(), "finished_ranks": finished,
            "time_us": slowest.map(|x| x.as_us_f64()), "mean_us": mean,
            "injection_GBps": slowest.map(|x| gbps(sent, x)),
        })));
    }
}
