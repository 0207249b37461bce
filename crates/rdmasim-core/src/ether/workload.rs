//! What the applications send: one-way or two-way streams (PM's bandwidth test), ping-pong
//! (half round trip), the neighbour exchange of seeds/003 on the hyper-crossbar, and an
//! scstest-like all-to-all whose rounds start with a random skew between hosts (seeds/003:
//! "ノード間の処理時間のずれにより、Ethernetスイッチでパケットロスが発生").
use crate::ids::{HostId, PmChannelId, TiVec};
use crate::scenario::pm::{NeighborMode, PmAlltoall, PmBandwidth, PmIncast, PmMpi, PmNeighbor, PmPingpong, PmWorkload};
use super::world::{Ev, EtherWorld, PmApp};
use crate::engine::Time;
use crate::fabric::build::hyperx::host_at;

pub enum WorkloadState {
    None,
    /// Every posted message must arrive; `expected` counts them. A host started late (a
    /// neighbour exchange with skew) posts `count` messages of `bytes` on each of its channels
    /// when its `Start` comes.
    Streams { expected: u64, delivered: u64, start: Time, bytes: u64, count: u32 },
    Pingpong { there: PmChannelId, back: PmChannelId, iters: u32, done: u32, bytes: u64, start: Time },
    Alltoall { bytes: u64, rounds: u32, count: u32, skew: Time, started: TiVec<HostId, u32>, received: TiVec<HostId, u64>, expected: u64, delivered: u64 },
}

fn check_host(w: &EtherWorld, key: &str, h: u32) -> Result<(), (String, String)> {
    let n = w.hosts.len() as u32;
    if h >= n {
        return Err((key.into(), format!("host {h} does not exist; expected 0..{n}")));
    }
    Ok(())
}

/// Starts the workload `spec` names on `w`: its traffic, or an MPI program (ether/mpi). An
/// error names the key inside `[workload]`.
pub fn start(w: &mut EtherWorld, spec: &PmWorkload) -> Result<Box<dyn PmApp>, (String, String)> {
    if let PmWorkload::Mpi(m) = spec {
        return start_mpi(w, m);
    }
    WorkloadState::start(w, spec).map(|s| Box::new(s) as Box<dyn PmApp>)
}

/// An MPI program, one rank per host, its ranks started.
fn start_mpi(w: &mut EtherWorld, m @ &PmMpi { library, ref program, ref trace, compute_scale, .. }: &PmMpi) -> Result<Box<dyn PmApp>, (String, String)> {
    let hosts = w.hosts.len() as u32;
    let source = match (program, trace) {
        (Some(spec), None) => {
            spec.check().map_err(|(k, m)| (k.trim_start_matches("workload.").to_string(), m))?;
            super::mpi::Source::Generated(spec.clone())
        }
        (None, Some(dir)) => {
            if let Some(why) = crate::scenario::mpi::compute_scale_problem(compute_scale) {
                return Err(("compute_scale".into(), why));
            }
            let (p, _) = crate::mpi::trace::read_dir(std::path::Path::new(dir), compute_scale).map_err(|e| ("trace".to_string(), e.to_string()))?;
            super::mpi::Source::Trace(p)
        }
        _ => return Err(("program".into(), "give exactly one of `program` (a generated benchmark) and `trace` (a trace directory)".into())),
    };
    let mut run = super::mpi::MpiRun::new(library, source, hosts).map_err(|m| ("program".to_string(), m))?;
    // The per-packet time the world's hosts charge (world.rs), for the run's own report.
    run.profile.packet_us = m.packet_us();
    run.start(w);
    Ok(Box::new(run))
}

impl WorkloadState {
    fn start(w: &mut EtherWorld, spec: &PmWorkload) -> Result<WorkloadState, (String, String)> {
        let positive = |key: &str, v: u64| if v == 0 { Err((key.to_string(), "must be at least 1".to_string())) } else { Ok(()) };
        match *spec {
            PmWorkload::Bandwidth(PmBandwidth { src, dst, bytes, count, two_way }) => {
                check_host(w, "src", src)?;
                check_host(w, "dst", dst)?;
                positive("bytes", bytes)?;
                positive("count", count.into())?;
                if src == dst {
                    return Err(("dst".into(), "must differ from src".into()));
                }
                let (src, dst) = (HostId(src), HostId(dst));
                let mut pairs = vec![(src, dst)];
                if two_way {
                    pairs.push((dst, src));
                }
                Ok(Self::streams(w, &pairs, bytes, count, Time::ZERO))
            }
            PmWorkload::Incast(PmIncast { dst, bytes, count }) => {
                check_host(w, "dst", dst)?;
                positive("bytes", bytes)?;
                positive("count", count.into())?;
                let pairs: Vec<(HostId, HostId)> = (0..w.hosts.len() as u32).filter(|&h| h != dst).map(|h| (HostId(h), HostId(dst))).collect();
                Ok(Self::streams(w, &pairs, bytes, count, Time::ZERO))
            }
            PmWorkload::Pingpong(PmPingpong { src, dst, bytes, iters }) => {
                check_host(w, "src", src)?;
                check_host(w, "dst", dst)?;
                positive("bytes", bytes)?;
                positive("iters", iters.into())?;
                if src == dst {
                    return Err(("dst".into(), "must differ from src".into()));
                }
                let (src, dst) = (HostId(src), HostId(dst));
                let there = w.channel(src, dst);
                let back = w.channel(dst, src);
                w.chans[there].post(0, bytes);
                w.cpu_kick(src);
                Ok(WorkloadState::Pingpong { there, back, iters, done: 0, bytes, start: Time::ZERO })
            }
            PmWorkload::Neighbor(PmNeighbor { dims, mode, bytes, count, skew_us }) => {
                positive("bytes", bytes)?;
                positive("count", count.into())?;
                if !(skew_us >= 0.0 && skew_us.is_finite()) {
                    return Err(("skew_us".into(), format!("{skew_us}: expected a finite number ≥ 0")));
                }
                let have = w.dims.iter().filter(|&&d| d > 1).count() as u8;
                if dims == 0 || dims > have {
                    return Err(("dims".into(), format!("{dims}: expected 1..={have} (dimensions of the topology with more than one host)")));
                }
                let neighbours = |w: &EtherWorld, h: HostId| -> Vec<HostId> {
                    let c = w.hosts[h].coords;
                    (0..usize::from(dims))
                        .map(|d| {
                            let mut n = c;
                            n[d] = (c[d] + 1) % w.dims[d];
                            host_at(w.dims, n)
                        })
                        .collect()
                };
                let first = HostId(0);
                let pairs: Vec<(HostId, HostId)> = match mode {
                    NeighborMode::Send => neighbours(w, first).into_iter().map(|n| (first, n)).collect(),
                    NeighborMode::Recv => neighbours(w, first).into_iter().map(|n| (n, first)).collect(),
                    NeighborMode::Both => (0..w.hosts.len() as u32).map(HostId).flat_map(|h| neighbours(w, h).into_iter().flat_map(move |n| [(h, n), (n, h)])).collect(),
                };
                let mut pairs = pairs;
                pairs.sort_unstable();
                pairs.dedup();
                Ok(Self::streams(w, &pairs, bytes, count, Time::from_ns_f64(skew_us * 1e3)))
            }
            PmWorkload::Mpi(_) => unreachable!("start() runs an MPI program itself"),
            PmWorkload::Alltoall(PmAlltoall { bytes, rounds, count, skew_us }) => {
                positive("count", count.into())?;
                positive("bytes", bytes)?;
                positive("rounds", rounds.into())?;
                if !(skew_us >= 0.0 && skew_us.is_finite()) {
                    return Err(("skew_us".into(), format!("{skew_us}: expected a finite number ≥ 0")));
                }
                let n = w.hosts.len() as u32;
                for h in 0..n {
                    for i in 1..n {
                        w.channel(HostId(h), HostId((h + i) % n));
                    }
                }
                let skew = Time::from_ns_f64(skew_us * 1e3);
                let expected = u64::from(n) * u64::from(n - 1) * u64::from(rounds) * u64::from(count);
                // `started`: rounds begun or scheduled, per host.
                let st = WorkloadState::Alltoall { bytes, rounds, count, skew, started: vec![1; n as usize].into(), received: vec![0; n as usize].into(), expected, delivered: 0 };
                for h in (0..n).map(HostId) {
                    let at = skew_delay(w, h, skew);
                    w.q.at(at, Ev::Start(h));
                }
                Ok(st)
            }
        }
    }

    /// `count` messages of `bytes` on each (source, destination) pair: posted now, or, with a
    /// `skew`, by each source at its own `Start`, a random delay up to `skew` from now.
    fn streams(w: &mut EtherWorld, pairs: &[(HostId, HostId)], bytes: u64, count: u32, skew: Time) -> WorkloadState {
        for &(s, d) in pairs {
            let c = w.channel(s, d);
            if skew == Time::ZERO {
                for m in 0..count {
                    w.chans[c].post(m, bytes);
                }
            }
        }
        if skew == Time::ZERO {
            for &(s, _) in pairs {
                w.cpu_kick(s);
            }
        } else {
            let mut sources: Vec<HostId> = pairs.iter().map(|&(s, _)| s).collect();
            sources.sort_unstable();
            sources.dedup();
            for s in sources {
                let at = skew_delay(w, s, skew);
                w.q.at(at, Ev::Start(s));
            }
        }
        WorkloadState::Streams { expected: pairs.len() as u64 * u64::from(count), delivered: 0, start: Time::ZERO, bytes, count }
    }
}

/// When host `h` starts: now, or a random delay up to `skew` from now (its own stream).
fn skew_delay(w: &mut EtherWorld, h: HostId, skew: Time) -> Time {
    let now = w.q.now();
    if skew == Time::ZERO {
        return now;
    }
    now + Time(w.hosts[h].rng.below(skew.0 + 1))
}

impl PmApp for WorkloadState {
    /// Host `h` starts its next all-to-all round (a message to every other host), or, in a
    /// skewed stream workload, its streams.
    fn start_round(&mut self, w: &mut EtherWorld, h: HostId) {
        if let WorkloadState::Streams { bytes, count, .. } = *self {
            for i in 0..w.hosts[h].chans_out.len() {
                let c = w.hosts[h].chans_out[i];
                for m in 0..count {
                    w.chans[c].post(m, bytes);
                }
            }
            w.cpu_kick(h);
            return;
        }
        let WorkloadState::Alltoall { bytes, count, ref started, .. } = *self else { return };
        let round = started[h] - 1;
        for i in 0..w.hosts[h].chans_out.len() {
            let c = w.hosts[h].chans_out[i];
            for m in 0..count {
                w.chans[c].post(round * count + m, bytes);
            }
        }
        w.cpu_kick(h);
    }

    /// Channel `c` delivered `msgs` whole messages.
    fn messages(&mut self, w: &mut EtherWorld, c: PmChannelId, msgs: u32) {
        let now = w.q.now();
        let dst = w.chans[c].dst;
        let n = w.hosts.len() as u64;
        match self {
            WorkloadState::None => {}
            WorkloadState::Streams { expected, delivered, .. } => {
                *delivered += u64::from(msgs);
                if *delivered >= *expected {
                    w.done = true;
                }
            }
            WorkloadState::Pingpong { there, back, iters, done, bytes, .. } => {
                let (there, back, bytes) = (*there, *back, *bytes);
                if c == there {
                    w.chans[back].post(0, bytes);
                    w.cpu_kick(dst);
                } else {
                    *done += 1;
                    if *done >= *iters {
                        w.done = true;
                    } else {
                        w.chans[there].post(0, bytes);
                        w.cpu_kick(dst);
                    }
                }
            }
            WorkloadState::Alltoall { rounds, count, skew, started, received, expected, delivered, .. } => {
                *delivered += u64::from(msgs);
                received[dst] += u64::from(msgs);
                if *delivered >= *expected {
                    w.done = true;
                    return;
                }
                // A host starts its next round once it has everyone's message of this one.
                let r = started[dst];
                if r < *rounds && received[dst] >= u64::from(r) * (n - 1) * u64::from(*count) {
                    started[dst] += 1;
                    let at = skew_delay(w, dst, *skew);
                    w.q.at(at.max(now), Ev::Start(dst));
                }
            }
        }
    }

    fn half_rtt_us(&self, now: Time) -> Option<f64> {
        match *self {
            WorkloadState::Pingpong { iters, done, .. } if done >= iters => Some(now.as_us_f64() / (2.0 * f64::from(iters))),
            _ => None,
        }
    }
}
