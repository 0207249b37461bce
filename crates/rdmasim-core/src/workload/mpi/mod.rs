//! An MPI-like layer over the verbs model, driven by a program: from a trace (the MPI core's
//! `mpi/trace.rs`) or generated (`mpi/synthetic.rs`: the TSUBAME2.0 study's random-pair
//! Sendrecv and Alltoall). The core also walks each rank's program (`mpi/cursor.rs`), matches
//! (`mpi/matching.rs`) and picks eager or rendezvous (`mpi/protocol.rs`); this is its verbs
//! transport.
//!
//! Ranks map onto hosts (`ranks_per_host` consecutive ranks per host; the hosts all of the
//! fabric's or a subset with nodes missing, `nodes.rs`), each with its own SRQ
//! (one buffer of `buffer_bytes` per WQE) shared by its RC connections, which are made on
//! first use. Point-to-point follows the usual two protocols:
//! - eager (≤ `eager_threshold` bytes): one SEND carrying header and data into a receive
//!   buffer of the destination's SRQ; the send request completes with its verbs completion
//!   (the ACK), so a sender stopped by the flow control waits in MPI_Wait, as in the study.
//! - rendezvous: an RTS SEND; when the receive is matched the receiver answers with a CTS SEND;
//!   the sender RDMA-WRITEs the data with immediate (which also takes a receive WQE and tells
//!   the receiver it is done).
//!
//! With `num_hcas` > 1 a rank drives that many rails, as MVAPICH2 does with `MV2_NUM_HCAS`
//! (`rails.rs`): one RC connection and one SRQ per rail, rendezvous payloads above the striping
//! threshold cut evenly over every rail (`countdown.rs` counts the stripes), everything else on
//! one rail by the rail sharing policy, in order per pair of ranks (`order.rs`).
//!
//! Matching is MPI's: posted receives in order against arriving messages by (source, tag), with
//! wildcards; unmatched arrivals wait in the unexpected queue. Software only runs inside MPI
//! calls: completions that land while a rank computes are handled when it next enters MPI
//! (that is also when its main thread tops its SRQ up again and, with stop/resume, sends the
//! resume requests). The SRQ_LIMIT_REACHED handler is a thread of its own and runs at once.
mod countdown;
mod order;
pub mod rails;
mod stall;

use crate::scenario::paths::resolve_beside;

use crate::engine::Time;
use crate::mpi::cursor::Cursor;
use crate::mpi::matching::{Envelope, Matching, Posted};
use crate::mpi::protocol::{Protocol, Send};
use crate::mpi::transport::{advance, Transport};
use crate::mpi::{program, results, trace};
use crate::ids::{AppId, CqId, HcaId, HostId, SrqIdx, ThreadId, TiVec};
use crate::hca::cq::{Cqe, WcOpcode, WcStatus};
use crate::hca::qp::{QpAttr, WorkRequest, WrOp};
use crate::hca::srq::SrqRef;
use crate::scenario::srq::SrqFlowControl;
use crate::hca::qp::QpRef;
use crate::report::tables::{row, Tables};
use crate::world::{AppEvent, World};
use countdown::Countdown;
use order::InOrder;
use program::{is_collective_tag, Program, RankProgram};
use rails::{Rail, RailPlan};
use serde_json::json;
use std::collections::VecDeque;

pub use crate::scenario::mpi::MpiSection;

/// Bytes of MPI envelope (source, tag, communicator, length, sequence) on every SEND:
/// assumption, of the order of MVAPICH's and Open MPI's eager headers.
const HEADER_BYTES: u64 = 32;
/// SENDs up to this size go inline in the WQE (assumption: mlx4's usual max_inline_data).
const INLINE_BYTES: u64 = 128;

/// wr_id low bits of a send WQE: what completes when it is acknowledged.
const WR_EAGER: u64 = 0;
const WR_CONTROL: u64 = 1;
/// One stripe of a striped payload: the send completes with the last of `num_hcas`.
const WR_STRIPE: u64 = 2;
const WR_DATA: u64 = 3;

/// What a receive completion on a connection is, in the order the sender posted them (RC
/// delivers in order per QP, so a FIFO per direction pairs them).
#[derive(Clone, Copy, Debug)]
enum Wire {
    /// `seq`: the pair's sequence number, for matching in send order across rails (`order.rs`).
    Eager { src: u32, tag: i64, bytes: u64, seq: u32 },
    Rts { src: u32, tag: i64, bytes: u64, sreq: u32, seq: u32 },
    Cts(Cts),
    /// One of `parts` stripes (1: the whole payload) of a `total`-byte payload; `bytes` is
    /// this stripe's.
    Data { rreq: u32, tag: i64, bytes: u64, total: u64, parts: u16 },
}

/// The receiver's clear-to-send: the sender's and the receiver's requests. `tag` travels
/// with the handshake so the data's arrival is counted as user or collective traffic like an
/// eager message.
#[derive(Clone, Copy, Debug)]
struct Cts {
    sreq: u32,
    rreq: u32,
    tag: i64,
    bytes: u64,
}

impl Wire {
    /// The verb that carries it and its length on the wire: the payload goes by WRITE with
    /// immediate into the posted buffer, everything else by SEND behind the protocol header.
    fn verb_and_len(&self) -> (WrOp, u64) {
        match *self {
            Wire::Eager { bytes, .. } => (WrOp::Send, bytes + HEADER_BYTES),
            Wire::Rts { .. } | Wire::Cts(_) => (WrOp::Send, HEADER_BYTES),
            Wire::Data { bytes, .. } => (WrOp::WriteImm, bytes),
        }
    }
}

/// One RC connection: a QP pair on one rail.
struct Conn {
    rank: [u32; 2],
    qp: [QpRef; 2],
    /// Messages travelling to side s.
    to: [VecDeque<Wire>; 2],
}

/// Two ranks that talk: their connection on each rail (made on first use) and the order of
/// the messages that MPI matches, per direction.
struct Pair {
    /// Connection on each of the ranks' rails (u32::MAX: not made yet).
    conn: Vec<u32>,
    /// Messages travelling to side s.
    order: [InOrder<Unexpected>; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RunState {
    Ready,
    Computing,
    Blocked,
    Done,
}

#[derive(Clone, Copy, Debug)]
struct Unexpected {
    src: u32,
    tag: i64,
    bytes: u64,
    /// Rendezvous: the sender's request (a CTS is owed when matched).
    rts_sreq: Option<u32>,
}

struct Rank {
    host: HostId,
    /// Its index among its host's ranks (`FixedMapping` picks its rail from it).
    local: u32,
    /// The HCA of each rail it drives.
    hcas: Vec<HcaId>,
    /// Its application thread (own core): the host's main thread for a host's first rank.
    thread: ThreadId,
    /// Where it is in its program, and its requests' completion.
    cursor: Cursor,
    state: RunState,
    matching: Matching<Unexpected>,
    /// Completions that landed while the rank computed.
    deferred: VecDeque<Cqe>,
    /// Its SRQ on each rail.
    srqs: Vec<SrqRef>,
    /// Stop/resume: the overflow notice of that rail's SRQ came while computing.
    resume_pending: Vec<bool>,
    /// `RoundRobin`'s counter (MVAPICH2 keeps one per process).
    rr: u16,
    /// Striped sends waiting for their stripes' ACKs, striped receives for their stripes.
    sends: Countdown,
    recvs: Countdown,
    blocked_since: Time,
    wait: Time,
    compute: Time,
    end: Time,
    /// Clock reads of `Op::Mark` (generated programs only).
    marks: Vec<Time>,
}

impl Envelope for Unexpected {
    fn src(&self) -> u32 {
        self.src
    }
    fn tag(&self) -> i64 {
        self.tag
    }
}

pub struct Mpi {
    app: AppId,
    cfg: MpiSection,
    prog: Program,
    recorded: trace::TraceCounts,
    attr: QpAttr,
    ranks: Vec<Rank>,
    plan: RailPlan,
    conns: Vec<Conn>,
    pairs: Vec<Pair>,
    /// Pairs that talked so far, by the lower rank of the pair: (higher rank, pair), sorted.
    /// Grows with the connections a trace uses, not with size² (most codes talk to a few
    /// neighbours; a dense table would take 256 MB at 8192 ranks).
    pair_of: Vec<Vec<(u32, u32)>>,
    /// (connection, side) of each QP, by HCA then QP index.
    qp_conn: TiVec<HcaId, Vec<(u32, u8)>>,
    /// (rank, rail index) of each SRQ, by HCA then SRQ index.
    srq_rank: TiVec<HcaId, Vec<(u32, u16)>>,
    srq_limit: u32,
    /// When the ranks start their programs (after MPI_Init's set-up: SRQs posted and armed).
    t0: Time,
    ranks_done: u32,
    delivered_msgs: u64,
    delivered_bytes: u64,
    eager_msgs: u64,
    rndv_msgs: u64,
    striped_msgs: u64,
    errors: u64,
    first_error: Option<String>,
    pub done: bool,
}

/// The MPI layer and the world it runs in, as the core's transport.
struct Verbs<'a> {
    mpi: &'a mut Mpi,
    w: &'a mut World,
}

impl Transport for Verbs<'_> {
    fn rank(&mut self, r: u32) -> Option<(&mut Cursor, &RankProgram)> {
        let m = &mut *self.mpi;
        let rk = &mut m.ranks[r as usize];
        match rk.state {
            RunState::Computing | RunState::Done => None,
            RunState::Blocked | RunState::Ready => Some((&mut rk.cursor, &m.prog.ranks[r as usize])),
        }
    }

    fn compute(&mut self, r: u32, ns: u64) {
        let rk = &mut self.mpi.ranks[r as usize];
        rk.state = RunState::Computing;
        let d = Time::ns(ns);
        rk.compute += d;
        let at = self.w.now().max(self.w.threads[rk.thread].cpu_free) + d;
        self.w.app_at(at, self.mpi.app, AppEvent::Timer(r as u64));
    }

    fn mark(&mut self, r: u32) {
        self.mpi.ranks[r as usize].marks.push(self.w.now());
    }

    fn isend(&mut self, r: u32, peer: u32, bytes: u64, tag: i64, req: u32) {
        self.mpi.isend(self.w, r, peer, bytes, tag, req)
    }

    fn irecv(&mut self, r: u32, p: Posted) {
        self.mpi.irecv(self.w, r, p)
    }

    fn wait_done(&mut self, r: u32) {
        let rk = &mut self.mpi.ranks[r as usize];
        if rk.state == RunState::Blocked {
            rk.wait += self.w.now().saturating_sub(rk.blocked_since);
        }
        rk.state = RunState::Ready;
    }

    fn blocked(&mut self, r: u32) {
        let rk = &mut self.mpi.ranks[r as usize];
        if rk.state != RunState::Blocked {
            rk.blocked_since = self.w.now();
        }
        rk.state = RunState::Blocked;
    }

    fn ended(&mut self, r: u32) {
        let rk = &mut self.mpi.ranks[r as usize];
        rk.state = RunState::Done;
        rk.end = self.w.now();
        self.mpi.ranks_done += 1;
        if self.mpi.ranks_done == self.mpi.ranks.len() as u32 {
            self.mpi.done = true;
        }
    }
}

impl Mpi {
    /// The MPI layer over `cfg.trace`; an error names the scenario key to fix and why.
    pub fn new(w: &mut World, app: AppId, cfg: &MpiSection, attr: QpAttr) -> Result<Mpi, (&'static str, String)> {
        let subset = crate::traffic::nodes::NodeSubset { nodes: cfg.nodes, missing: cfg.missing.clone(), seed: cfg.missing_seed };
        // The hosts ranks may go on, in node order (every host unless nodes are missing).
        let usable: Vec<HostId> = if subset.is_all() { (0..w.hosts.len() as u32).map(HostId).collect() } else { subset.select(w.hosts.len() as u32)? };
        let (prog, recorded) = match &cfg.program {
            Some(spec) => {
                spec.check()?;
                (spec.build(usable.len() as u32 * cfg.ranks_per_host), trace::TraceCounts::default())
            }
            None => {
                let path = std::path::Path::new(&cfg.trace);
                trace::read_dir(path, cfg.compute_scale).map_err(|e| ("workload.trace", e.to_string()))?
            }
        };
        let size = prog.size();
        let hosts_needed = size.div_ceil(cfg.ranks_per_host);
        if !subset.is_all() && hosts_needed as usize > usable.len() {
            return Err((
                "workload.nodes",
                format!("the trace has {size} ranks, {} per host needs {hosts_needed} hosts, the job has {} nodes; expected nodes >= {hosts_needed}", cfg.ranks_per_host, usable.len()),
            ));
        }
        let host_of = |r: u32| usable[(r / cfg.ranks_per_host) as usize];
        if hosts_needed as usize > w.hosts.len() {
            return Err((
                "topology.hosts",
                format!(
                    "the trace has {size} ranks, {} per host needs {hosts_needed} hosts, the topology has {}; \
                     expected topology.hosts >= {hosts_needed} (or more workload.ranks_per_host)",
                    cfg.ranks_per_host,
                    w.hosts.len()
                ),
            ));
        }
        let srq_limit = cfg.srq_limit.unwrap_or(((cfg.srq_buffers as u64 * 30).div_ceil(256)) as u32).max(1);
        // Every host a rank runs on must have the rails (only those: a fabric may have hosts
        // without a cable that the trace does not use).
        let plan = RailPlan {
            first: Rail(cfg.rail),
            n: cfg.num_hcas.max(1),
            policy: cfg.rail_sharing_policy,
            striping_threshold: cfg.striping_threshold.unwrap_or_else(|| rails::default_striping_threshold(cfg.eager_threshold, cfg.num_hcas)),
        };
        for &HostId(h) in &usable[..hosts_needed as usize] {
            let rails = w.hosts[HostId(h)].hcas.len();
            let plural = if rails == 1 { "" } else { "s" };
            if usize::from(cfg.rail) >= rails {
                return Err((
                    "workload.rail",
                    format!("rail = {} but host {h}, which runs ranks, has {rails} rail{plural} (cabled HCA ports); expected a rail every rank's host has", cfg.rail),
                ));
            }
            let last = usize::from(cfg.rail) + usize::from(plan.n) - 1;
            if last >= rails {
                return Err((
                    "workload.num_hcas",
                    format!(
                        "num_hcas = {} from rail {} needs rails {}..={last}, but host {h}, which runs ranks, has {rails} rail{plural} (cabled HCA ports); expected num_hcas <= {}",
                        plan.n,
                        cfg.rail,
                        cfg.rail,
                        rails - usize::from(cfg.rail)
                    ),
                ));
            }
        }
        let ranks = (0..size)
            .map(|r| Rank {
                host: host_of(r),
                local: r % cfg.ranks_per_host,
                // Checked above: the host has the rails.
                hcas: (0..plan.n).map(|i| w.hca_on_rail(host_of(r), usize::from(plan.rail(i).0)).unwrap_or_else(|| w.hca_of(host_of(r)))).collect(),
                thread: {
                    let host = host_of(r);
                    let th = if r % cfg.ranks_per_host == 0 { World::host_thread(host) } else { w.new_thread(host) };
                    // MPI progress spins in ibv_poll_cq inside calls; the core is busy in compute.
                    w.threads[th].busy_poll = true;
                    th
                },
                cursor: Cursor::new(prog.ranks[r as usize].nreqs),
                state: RunState::Ready,
                matching: Matching::default(),
                deferred: VecDeque::new(),
                srqs: Vec::new(),
                resume_pending: vec![false; usize::from(plan.n)],
                rr: 0,
                sends: Countdown::default(),
                recvs: Countdown::default(),
                blocked_since: Time::ZERO,
                wait: Time::ZERO,
                compute: Time::ZERO,
                end: Time::ZERO,
                marks: Vec::new(),
            })
            .collect();
        Ok(Mpi {
            app,
            cfg: cfg.clone(),
            recorded,
            attr,
            ranks,
            plan,
            conns: Vec::new(),
            pairs: Vec::new(),
            pair_of: vec![Vec::new(); size as usize],
            qp_conn: vec![Vec::new(); w.hcas.len()].into(),
            srq_rank: vec![Vec::new(); w.hcas.len()].into(),
            srq_limit,
            t0: Time::ZERO,
            ranks_done: 0,
            delivered_msgs: 0,
            delivered_bytes: 0,
            eager_msgs: 0,
            rndv_msgs: 0,
            striped_msgs: 0,
            errors: 0,
            first_error: None,
            done: size == 0,
            prog,
        })
    }

    pub fn progress(&self) -> f64 {
        if self.done {
            return 1.0;
        }
        let total: usize = self.prog.ranks.iter().map(|r| r.ops.len()).sum();
        let at: usize = self.ranks.iter().map(|r| r.cursor.pc).sum();
        at as f64 / total.max(1) as f64
    }

    pub fn handle(&mut self, w: &mut World, ev: AppEvent) {
        match ev {
            AppEvent::Start => self.start(w),
            AppEvent::Timer(r) => {
                let r = r as u32;
                if self.ranks[r as usize].state == RunState::Computing {
                    self.ranks[r as usize].state = RunState::Ready;
                    self.enter_mpi(w, r);
                    self.advance(w, r);
                }
            }
            AppEvent::Completion(c) => {
                let Some((conn, side)) = self.conn_of_cqe(&c) else { return };
                let r = self.conns[conn as usize].rank[side as usize];
                if self.ranks[r as usize].state == RunState::Computing {
                    self.ranks[r as usize].deferred.push_back(c);
                } else {
                    self.on_cqe(w, r, c);
                    self.top_up(w, r);
                    self.advance(w, r);
                }
            }
            AppEvent::SrqOverflow { hca, srq } => {
                let Some((r, rail)) = self.rank_of_srq(hca, srq) else { return };
                self.ranks[r as usize].resume_pending[usize::from(rail)] = true;
                if self.ranks[r as usize].state != RunState::Computing {
                    self.enter_mpi(w, r);
                }
            }
            AppEvent::SrqLimitReached { hca, srq } => {
                let Some((r, rail)) = self.rank_of_srq(hca, srq) else { return };
                let s = self.ranks[r as usize].srqs[usize::from(rail)];
                let missing = self.cfg.srq_buffers.saturating_sub(w.srq(s).wqes.len() as u32);
                w.srq_async_refill(s, 0, missing, self.cfg.buffer_bytes, self.srq_limit);
            }
            _ => {}
        }
    }

    fn rank_of_srq(&self, hca: HcaId, srq: SrqIdx) -> Option<(u32, u16)> {
        self.srq_rank.get(hca)?.get(srq.idx()).copied()
    }

    /// The (connection, side) a completion's QP belongs to, if it is one of ours.
    fn conn_of_cqe(&self, c: &Cqe) -> Option<(u32, u8)> {
        let i = c.qp.checked_sub(crate::hca::QPN_BASE)? as usize;
        let &(conn, side) = self.qp_conn.get(c.hca)?.get(i)?;
        (conn != u32::MAX).then_some((conn, side))
    }

    fn start(&mut self, w: &mut World) {
        // One SRQ per rail, each of `srq_buffers` (MVAPICH2 keeps an SRQ per HCA).
        for r in 0..self.ranks.len() as u32 {
            for rail in 0..self.plan.n {
                let hca = self.ranks[r as usize].hcas[usize::from(rail)];
                let srq = w.create_srq(hca, self.app, self.cfg.flow_control, w.hosts.len() as u32, self.cfg.ranks_per_host);
                self.srq_rank[hca].push((r, rail));
                w.set_srq_thread(srq, self.ranks[r as usize].thread);
                self.ranks[r as usize].srqs.push(srq);
                w.post_srq_recv(srq, 0, self.cfg.srq_buffers, self.cfg.buffer_bytes);
                if self.cfg.flow_control == SrqFlowControl::SrqLimit {
                    w.arm_srq_limit(srq, self.srq_limit);
                }
            }
        }
        // Every rank starts its program once its set-up is done (MPI_Init returns together).
        let t0 = w.threads.iter().map(|t| t.cpu_free).max().unwrap_or(Time::ZERO).max(w.now());
        self.t0 = t0;
        for r in 0..self.ranks.len() as u32 {
            self.ranks[r as usize].state = RunState::Computing;
            w.app_at(t0, self.app, AppEvent::Timer(r as u64));
        }
    }

    /// The rank is (back) inside MPI: handle what landed meanwhile, refill, resume.
    fn enter_mpi(&mut self, w: &mut World, r: u32) {
        while let Some(c) = self.ranks[r as usize].deferred.pop_front() {
            self.on_cqe(w, r, c);
        }
        self.top_up(w, r);
        let rk = &mut self.ranks[r as usize];
        for (pending, &s) in rk.resume_pending.iter_mut().zip(&rk.srqs) {
            if std::mem::take(pending) {
                w.srq_resume(s);
            }
        }
    }

    /// The main thread reposts consumed receive buffers (one post call per SRQ) while in MPI.
    fn top_up(&mut self, w: &mut World, r: u32) {
        for &s in &self.ranks[r as usize].srqs {
            let missing = self.cfg.srq_buffers.saturating_sub(w.srq(s).wqes.len() as u32);
            if missing > 0 {
                w.post_srq_recv(s, 0, missing, self.cfg.buffer_bytes);
            }
        }
    }

    /// Runs the rank's program until it computes, blocks or ends (the core's loop, over this
    /// transport: [`Verbs`]).
    fn advance(&mut self, w: &mut World, r: u32) {
        advance(&mut Verbs { mpi: self, w }, r)
    }

    /// The pair of two ranks (made on first use) and `a`'s side of it.
    fn pair(&mut self, a: u32, b: u32) -> (u32, usize) {
        let (lo, hi) = (a.min(b), a.max(b));
        let side = if a == lo { 0 } else { 1 };
        match self.pair_of[lo as usize].binary_search_by_key(&hi, |&(peer, _)| peer) {
            Ok(i) => (self.pair_of[lo as usize][i].1, side),
            Err(at) => {
                let id = self.pairs.len() as u32;
                self.pairs.push(Pair { conn: vec![u32::MAX; usize::from(self.plan.n)], order: [InOrder::default(), InOrder::default()] });
                self.pair_of[lo as usize].insert(at, (hi, id));
                (id, side)
            }
        }
    }

    /// The connection between two ranks on their `rail`-th rail, made on first use: an RC QP
    /// pair, each side's QP attached to its own rank's SRQ on that rail.
    fn conn(&mut self, w: &mut World, a: u32, b: u32, rail: u16) -> (u32, usize) {
        let (pair, side) = self.pair(a, b);
        let existing = self.pairs[pair as usize].conn[usize::from(rail)];
        if existing != u32::MAX {
            return (existing, side);
        }
        let (lo, hi) = (a.min(b), a.max(b));
        let ri = usize::from(rail);
        let (ha, hb) = (self.ranks[lo as usize].host, self.ranks[hi as usize].host);
        let (qa, qb) = w.connect_rc(self.ranks[lo as usize].hcas[ri], self.app, self.ranks[hi as usize].hcas[ri], self.app, self.attr);
        // The run's one completion channel, which sim.rs makes at the app's index.
        let cq = CqId(self.app.0);
        w.bind_qp(qa, cq, self.ranks[lo as usize].thread);
        w.bind_qp(qb, cq, self.ranks[hi as usize].thread);
        let rph = self.cfg.ranks_per_host;
        w.attach_srq(qa, self.ranks[lo as usize].srqs[ri], hb.0, hi % rph);
        w.attach_srq(qb, self.ranks[hi as usize].srqs[ri], ha.0, lo % rph);
        let id = self.conns.len() as u32;
        for (q, side) in [(qa, 0u8), (qb, 1u8)] {
            let v = &mut self.qp_conn[q.hca];
            let i = q.index().idx();
            if v.len() <= i {
                v.resize(i + 1, (u32::MAX, 0));
            }
            v[i] = (id, side);
        }
        self.conns.push(Conn { rank: [lo, hi], qp: [qa, qb], to: [VecDeque::new(), VecDeque::new()] });
        self.pairs[pair as usize].conn[ri] = id;
        (id, side)
    }

    /// The rail (0..num_hcas) of rank `r`'s next unstriped message.
    fn pick_rail(&mut self, r: u32) -> u16 {
        let rk = &mut self.ranks[r as usize];
        self.plan.pick(&mut rk.rr, rk.local)
    }

    /// Posts a SEND (or WRITE with immediate) from rank `from` to `to` on its `rail`-th rail
    /// carrying `wire`.
    fn post(&mut self, w: &mut World, from: u32, to: u32, rail: u16, wire: Wire, wr_id: u64) {
        let (op, len) = wire.verb_and_len();
        let (c, side) = self.conn(w, from, to, rail);
        let conn = &mut self.conns[c as usize];
        conn.to[1 - side].push_back(wire);
        let qp = conn.qp[side];
        let len = len.min(u32::MAX as u64) as u32;
        w.post_send(qp, WorkRequest { wr_id, op, len, inline: op == WrOp::Send && (len as u64) <= INLINE_BYTES, signaled: true, remote_va: 0 });
    }

    /// The next sequence number from `from` to `to` (`order.rs`).
    fn number(&mut self, from: u32, to: u32) -> u32 {
        let (pair, side) = self.pair(from, to);
        self.pairs[pair as usize].order[1 - side].number()
    }

    /// The library's protocol over verbs: eager up to `eager_threshold`, else a rendezvous
    /// whose RTS carries no data (the CTS brings the payload by RDMA WRITE).
    fn protocol(&self) -> Protocol {
        Protocol { eager_limit: self.cfg.eager_threshold, rts_data: 0 }
    }

    fn isend(&mut self, w: &mut World, r: u32, peer: u32, bytes: u64, tag: i64, req: u32) {
        if peer == r {
            // A message to oneself never touches the HCA.
            self.ranks[r as usize].cursor.complete(req);
            self.arrive(w, r, Unexpected { src: r, tag, bytes, rts_sreq: None });
            return;
        }
        let seq = self.number(r, peer);
        let rail = self.pick_rail(r);
        if self.protocol().send(bytes) == Send::Eager {
            self.eager_msgs += 1;
            self.post(w, r, peer, rail, Wire::Eager { src: r, tag, bytes, seq }, (req as u64) << 2 | WR_EAGER);
        } else {
            self.rndv_msgs += 1;
            self.post(w, r, peer, rail, Wire::Rts { src: r, tag, bytes, sreq: req, seq }, (req as u64) << 2 | WR_CONTROL);
        }
    }

    /// The CTS for `sreq` reached rank `r`: it WRITEs the payload to `peer`, striped over its
    /// rails when longer than the striping threshold, else on one rail.
    fn send_payload(&mut self, w: &mut World, r: u32, peer: u32, cts: Cts) {
        let Cts { sreq, rreq, tag, bytes } = cts;
        if !self.plan.stripes_payload(bytes) {
            let rail = self.pick_rail(r);
            self.post(w, r, peer, rail, Wire::Data { rreq, tag, bytes, total: bytes, parts: 1 }, (sreq as u64) << 2 | WR_DATA);
            return;
        }
        self.striped_msgs += 1;
        let plan = self.plan;
        for s in plan.split(bytes) {
            self.post(w, r, peer, s.rail, Wire::Data { rreq, tag, bytes: s.bytes, total: bytes, parts: plan.n }, (sreq as u64) << 2 | WR_STRIPE);
        }
    }

    fn irecv(&mut self, w: &mut World, r: u32, p: Posted) {
        if let Some(u) = self.ranks[r as usize].matching.post(p) {
            self.matched(w, r, p.req, u);
        }
    }

    /// Message `seq` from `peer` landed at rank `r`: it goes to matching once every earlier
    /// one from `peer` has (`order.rs`).
    fn arrive_in_order(&mut self, w: &mut World, r: u32, peer: u32, seq: u32, u: Unexpected) {
        let (pair, side) = self.pair(r, peer);
        let mut next = self.pairs[pair as usize].order[side].arrive(seq, u);
        while let Some(u) = next {
            self.arrive(w, r, u);
            next = self.pairs[pair as usize].order[side].ready();
        }
    }

    /// A message (or RTS) arrived at rank `r`: match it or keep it as unexpected.
    fn arrive(&mut self, w: &mut World, r: u32, u: Unexpected) {
        if let Some((p, u)) = self.ranks[r as usize].matching.arrive(u) {
            self.matched(w, r, p.req, u);
        }
    }

    fn matched(&mut self, w: &mut World, r: u32, rreq: u32, u: Unexpected) {
        match u.rts_sreq {
            None => self.recv_done(r, rreq, u.tag, u.bytes),
            Some(sreq) => {
                let rail = self.pick_rail(r);
                self.post(w, r, u.src, rail, Wire::Cts(Cts { sreq, rreq, tag: u.tag, bytes: u.bytes }), WR_CONTROL)
            }
        }
    }

    fn recv_done(&mut self, r: u32, rreq: u32, tag: i64, bytes: u64) {
        self.ranks[r as usize].cursor.complete(rreq);
        if !is_collective_tag(tag) {
            self.delivered_msgs += 1;
            self.delivered_bytes += bytes;
        }
    }

    fn on_cqe(&mut self, w: &mut World, r: u32, c: Cqe) {
        if c.status != WcStatus::Success {
            self.errors += 1;
            self.first_error.get_or_insert_with(|| format!("rank {r}: {} on QP {:#x}", c.status.ibv_name(), c.qp));
            self.done = true; // the program cannot finish
            return;
        }
        match c.opcode {
            WcOpcode::Send | WcOpcode::RdmaWrite => {
                let req = (c.wr_id >> 2) as usize;
                match c.wr_id & 3 {
                    WR_EAGER | WR_DATA => self.ranks[r as usize].cursor.complete(req as u32),
                    WR_STRIPE => {
                        let rk = &mut self.ranks[r as usize];
                        if rk.sends.complete_one(req as u32, self.plan.n) {
                            rk.cursor.complete(req as u32);
                        }
                    }
                    _ => {}
                }
            }
            WcOpcode::Recv | WcOpcode::RecvRdmaWithImm => {
                let Some((conn, side)) = self.conn_of_cqe(&c) else { return };
                let Some(wire) = self.conns[conn as usize].to[side as usize].pop_front() else { return };
                let peer = self.conns[conn as usize].rank[1 - side as usize];
                match wire {
                    Wire::Eager { src, tag, bytes, seq } => self.arrive_in_order(w, r, peer, seq, Unexpected { src, tag, bytes, rts_sreq: None }),
                    Wire::Rts { src, tag, bytes, sreq, seq } => self.arrive_in_order(w, r, peer, seq, Unexpected { src, tag, bytes, rts_sreq: Some(sreq) }),
                    Wire::Cts(cts) => self.send_payload(w, r, peer, cts),
                    Wire::Data { rreq, tag, total, parts, .. } => {
                        if self.ranks[r as usize].recvs.complete_one(rreq, parts) {
                            self.recv_done(r, rreq, tag, total);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    pub fn tables(&self, out: &mut Tables) {
        let end = self.ranks.iter().map(|r| r.end).max().unwrap_or(Time::ZERO);
        let n = self.ranks.len().max(1) as f64;
        let wait: f64 = self.ranks.iter().map(|r| r.wait.as_us_f64()).sum::<f64>() / n;
        let compute: f64 = self.ranks.iter().map(|r| r.compute.as_us_f64()).sum::<f64>() / n;
        let (prog_msgs, prog_bytes) = self.prog.user_sends();
        out.push("mpi", row(json!({
            "trace": self.prog.origin, "ranks": self.ranks.len(), "ranks_per_host": self.cfg.ranks_per_host, "num_hcas": self.plan.n,
            "flow_control": self.cfg.flow_control, "srq_buffers": self.cfg.srq_buffers, "srq_limit": self.srq_limit,
            "finished_ranks": self.ranks_done, "run_time_us": end.saturating_sub(self.t0).as_us_f64(), "init_us": self.t0.as_us_f64(),
            "mean_compute_us": compute, "mean_wait_us": wait,
            "recorded_calls": self.recorded.calls, "recorded_sends": self.recorded.sends, "recorded_send_bytes": self.recorded.send_bytes,
            "program_sends": prog_msgs, "program_send_bytes": prog_bytes,
            "delivered_messages": self.delivered_msgs, "delivered_bytes": self.delivered_bytes,
            "eager_messages": self.eager_msgs, "rendezvous_messages": self.rndv_msgs, "striped_messages": self.striped_msgs,
            "connections": self.conns.len(), "errors": self.errors, "first_error": self.first_error,
            "unreceived_messages": self.ranks.iter().map(|r| r.matching.unexpected()).sum::<usize>(), "stall": self.stall(),
        })));
        if let Some(spec) = &self.cfg.program {
            let marks: Vec<Vec<Time>> = self.ranks.iter().map(|r| r.marks.clone()).collect();
            let hosts: Vec<HostId> = self.ranks.iter().map(|r| r.host).collect();
            results::tables(spec, &marks, &hosts, out);
        }
    }

    /// Resolves the trace path relative to the scenario file's directory.
    pub fn resolve_trace(cfg: &MpiSection, source: &str) -> MpiSection {
        let mut c = cfg.clone();
        if cfg.program.is_none() {
            c.trace = resolve_beside(&cfg.trace, source);
        }
        c
    }
}
