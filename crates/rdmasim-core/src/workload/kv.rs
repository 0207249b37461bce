//! A HERD-like key-value store (Kalia et al., SIGCOMM'14, "Using RDMA efficiently for key-value
//! services"): the client WRITEs each request (key, and the value for a PUT) inline into the
//! server's request region; the server's thread busy-polls that memory, does the lookup or
//! insert, and answers with a SEND (the value for a GET, a short status for a PUT) into a
//! receive the client keeps posted; the client busy-polls its receive CQ.
//!
//! Outstanding requests (`[workload.kv] window`): HERD's SIGCOMM'14 client (efficient/HERD
//! main.c, `run_client`) posts a request, and once `num_req - num_resp == WINDOW_SIZE` busy-polls
//! for the response to the oldest window slot before posting the next: a sliding window of
//! `WINDOW_SIZE` (4 in common.h). It timestamps each request just before its `ibv_post_send`
//! and again after polling that slot's response (`op_start`/`op_end`), which is the latency
//! recorded here. The server (`run_server`) answers each request with its own `ibv_post_send`
//! of one inline UD SEND (no postlist; signaled every `WS_SERVER` = 64), so responses are not
//! batched here either. (The later rdma_bench HERD batches instead: see docs/isolation.md sec. 3.)
//!
//! Differences from HERD: RC QPs stand in for HERD's UC WRITEs and UD SENDs (same packets on the
//! wire for single-packet messages, plus the RC ACKs); one client, one server thread (HERD runs
//! 6 server processes and 36 clients by default). HERD's 2-stage server pipeline (a response
//! leaves when later requests or `FAIL_LIM` empty polls push it out) is opt-in,
//! `server_pipeline = true` (workload/kv_pipeline.rs).
use crate::engine::SimRng;
use crate::ids::{AppId, CqId, HcaId, HostId, ThreadId, TiSlice, TiVec};
use crate::engine::Time;
use crate::hca::cq::{Cqe, WcOpcode, WcStatus};
use crate::hca::qp::{QpAttr, WorkRequest, WrOp};
use crate::hca::qp::QpRef;
use crate::host::{PollMode, Poller};
use crate::report::stats::summarize;
use crate::report::tables::{row, Tables};
use crate::scenario::flows::KvSpec;
use crate::workload::kv_pipeline::{PushOutcome, ServerPipeline};
use crate::world::{AppEvent, World};
use serde_json::json;

/// Random stream id of the GET/PUT draw.
const RNG_STREAM: u64 = 0x4b56;
/// HERD's message sizes (efficient/HERD main.c, `struct KV` = 2 B `len`, the value, the key
/// last): a GET WRITEs only the key (`S_KV - KV_KEY_OFFSET`), a PUT the whole KV (`S_KV`); the
/// server answers a GET with `len` and the value (`KV_KEY_OFFSET` bytes) and a PUT with 1 byte.
const LEN_FIELD_BYTES: u32 = 2;
const PUT_RESPONSE_BYTES: u32 = 1;
/// Receives the client keeps posted.
const CLIENT_RX: u64 = 16;
/// The kind (high half) of the key-value store's timers among the flows' timer tags (flows.rs:
/// 0 start, 1 pace).
pub(crate) const TAG_KV: u64 = 2;
/// Timer payloads (low 32 bits of a TAG_KV timer): a processed request, or a dummy push
/// (this bit plus the dummy's generation).
const DUMMY_TIMER: u64 = 1 << 31;
/// Marks the key-value store's QPs in the flows' QP table.
pub(crate) const KV_QP: u32 = u32::MAX - 1;

pub struct Kv {
    app: AppId,
    spec: KvSpec,
    client: QpRef,
    server: QpRef,
    server_thread: ThreadId,
    /// HERD's server pipeline, when `server_pipeline` is on.
    pipeline: Option<ServerPipeline>,
    rng: SimRng,
    started: bool,
    /// Requests posted, responses polled by the client, responses posted by the server; request
    /// n (0-based) lives in `in_flight[n % window]` until its response is polled.
    issued: u64,
    completed: u64,
    answered: u64,
    in_flight: Vec<InFlight>,
    window: (Option<Time>, Option<Time>),
    /// First post and last poll of the requests measured (for the throughput column).
    measured_span: (Option<Time>, Time),
    get_us: Vec<f64>,
    put_us: Vec<f64>,
    /// The first failed completion (status, side, time): the store stops there.
    error: Option<(&'static str, &'static str, Time)>,
}

/// One outstanding request: when it was posted and what it asked.
#[derive(Clone, Copy)]
struct InFlight {
    posted_at: Time,
    get: bool,
}

impl Kv {
    pub fn new(w: &mut World, app: AppId, s: &KvSpec, attr: QpAttr, pollers: &mut TiVec<CqId, Poller>, qp_table: &mut TiSlice<HcaId, Vec<u32>>) -> Kv {
        let (client, server) = w.connect_rc(w.hca_of(HostId(s.client)), app, w.hca_of(HostId(s.server)), app, attr);
        w.watch_writes(server); // the server polls its request region
        let ct = w.new_thread(HostId(s.client));
        let st = w.new_thread(HostId(s.server));
        for (qp, th) in [(client, ct), (server, st)] {
            w.threads[th].busy_poll = true;
            let cq = pollers.next_key();
            pollers.push(Poller::new(app, PollMode::Busy));
            w.bind_qp(qp, cq, th);
            let v = &mut qp_table[qp.hca];
            v.resize(v.len().max(qp.index().idx() + 1), u32::MAX);
            v[qp.index().idx()] = KV_QP;
        }
        Kv {
            app,
            spec: s.clone(),
            client,
            server,
            server_thread: st,
            pipeline: s.server_pipeline.then(|| ServerPipeline::new(s.fail_lim, s.empty_poll_ns, s.window as usize)),
            rng: SimRng::new(w.seed, RNG_STREAM),
            started: false,
            issued: 0,
            completed: 0,
            answered: 0,
            in_flight: vec![InFlight { posted_at: Time::ZERO, get: true }; s.window as usize],
            window: (None, None),
            measured_span: (None, Time::ZERO),
            get_us: Vec::new(),
            put_us: Vec::new(),
            error: None,
        }
    }

    pub fn started(&self) -> bool {
        self.started
    }
    /// Every request answered, or the store failed (a QP went to the error state).
    pub fn done(&self) -> bool {
        self.completed >= self.spec.requests || self.error.is_some()
    }
    /// Why the store stopped early: `side` (client/server) failed with `status` at a time.
    pub fn failure(&self) -> Option<String> {
        self.error.map(|(status, side, at)| format!("the key-value {side} failed with {status} at {:.3} us", at.as_us_f64()))
    }
    pub fn progress(&self) -> f64 {
        self.completed as f64 / self.spec.requests as f64
    }
    pub fn owns(&self, hca: HcaId, qpn: u32) -> bool {
        (hca == self.client.hca && qpn == self.client.qpn) || (hca == self.server.hca && qpn == self.server.qpn)
    }
    pub fn open_window(&mut self, t: Time) {
        self.window.0 = Some(t);
    }
    pub fn close_window(&mut self, t: Time) {
        self.window.1 = Some(t);
    }

    pub fn start(&mut self, w: &mut World) {
        self.started = true;
        let resp = self.get_response_bytes();
        for i in 0..CLIENT_RX.max(self.spec.window as u64) {
            w.post_recv(self.client, i, resp);
        }
        // HERD's client posts until the window is full before it polls the first time.
        for _ in 0..self.spec.window {
            self.issue(w);
        }
    }

    /// A GET's response, the largest the client's receives must hold.
    fn get_response_bytes(&self) -> u32 {
        LEN_FIELD_BYTES + self.spec.value_bytes
    }

    fn slot(&self, n: u64) -> usize {
        (n % self.spec.window as u64) as usize
    }

    fn issue(&mut self, w: &mut World) {
        if self.issued >= self.spec.requests {
            return;
        }
        let get = self.rng.unit() < self.spec.get_fraction;
        let slot = self.slot(self.issued);
        self.in_flight[slot] = InFlight { posted_at: w.now(), get };
        self.issued += 1;
        let len = self.spec.key_bytes + if get { 0 } else { LEN_FIELD_BYTES + self.spec.value_bytes };
        let wr = WorkRequest { wr_id: self.issued, op: WrOp::Write, len, inline: len <= self.spec.inline_max, signaled: false, remote_va: 0x2000 };
        w.post_send(self.client, wr);
    }

    /// A request landed in the server's request region: its polling thread sees it one poll
    /// later, then spends the request's CPU time before answering.
    pub fn on_memory_written(&mut self, w: &mut World, hca: HcaId, qpn: u32) {
        if hca != self.server.hca || qpn != self.server.qpn {
            return;
        }
        let poll = Time::from_ns_f64(w.thread_hw(self.server_thread).poll_cq_ns);
        let th = &mut w.threads[self.server_thread];
        let seen = th.notice(w.q.now(), poll);
        let done = th.run(seen, Time::from_ns_f64(self.spec.server_cpu_ns));
        if let Some(p) = &mut self.pipeline {
            p.on_noticed(seen);
        }
        w.app_at(done, self.app, AppEvent::Timer(TAG_KV << 32));
    }

    /// A server timer: a request processed (`payload` 0), or a dummy push of the pipeline.
    pub fn on_timer(&mut self, w: &mut World, payload: u64) {
        let now = w.now();
        let Some(p) = &mut self.pipeline else {
            self.respond(w);
            return;
        };
        let out = if payload & DUMMY_TIMER != 0 {
            p.on_dummy_timer(now, (payload & !DUMMY_TIMER) as u32)
        } else {
            p.push_request(now)
        };
        self.after_push(w, out);
    }

    fn after_push(&mut self, w: &mut World, out: PushOutcome) {
        if let Some((at, gen)) = out.dummy_at {
            let payload = (TAG_KV << 32) | DUMMY_TIMER | gen as u64;
            w.app_at(at, self.app, AppEvent::Timer(payload));
        }
        if out.answer {
            self.respond(w);
        }
    }

    /// The server answers its oldest unanswered request (the one server thread serves requests
    /// in arrival order, which is posting order on one QP).
    fn respond(&mut self, w: &mut World) {
        let get = self.in_flight[self.slot(self.answered)].get;
        self.answered += 1;
        let len = if get { self.get_response_bytes() } else { PUT_RESPONSE_BYTES };
        let wr = WorkRequest { wr_id: self.answered, op: WrOp::Send, len, inline: len <= self.spec.inline_max, signaled: false, remote_va: 0 };
        w.post_send(self.server, wr);
    }

    pub fn on_completion(&mut self, w: &mut World, c: Cqe) {
        if c.status != WcStatus::Success {
            // A failed request or response (its QP is now in the error state, and every WR
            // after it is flushed): the store stops, keeping the first failure as the cause.
            if self.error.is_none() {
                let side = if c.hca == self.client.hca && c.qp == self.client.qpn { "client" } else { "server" };
                self.error = Some((c.status.ibv_name(), side, w.now()));
            }
            return;
        }
        if c.hca != self.client.hca || c.qp != self.client.qpn || c.opcode != WcOpcode::Recv {
            return;
        }
        // Responses come back in posting order: this one answers the oldest request in flight.
        let now = w.now();
        let req = self.in_flight[self.slot(self.completed)];
        if let (Some(open), None) = self.window {
            if req.posted_at >= open {
                let us = (now - req.posted_at).as_us_f64();
                if req.get { self.get_us.push(us) } else { self.put_us.push(us) }
                self.measured_span.0.get_or_insert(req.posted_at);
                self.measured_span.1 = now;
            }
        }
        self.completed += 1;
        w.post_recv(self.client, c.wr_id, self.get_response_bytes());
        if !self.done() {
            self.issue(w);
        }
    }

    pub fn tables(&self, out: &mut Tables) {
        // Requests measured per second of the measured span (both operations): with Little's
        // law, mean latency = outstanding requests / this rate.
        let measured = (self.get_us.len() + self.put_us.len()) as f64;
        let mops = match self.measured_span {
            (Some(first), last) if last > first => measured / (last - first).as_us_f64(),
            _ => 0.0,
        };
        for (op, v) in [("GET", &self.get_us), ("PUT", &self.put_us)] {
            let mut s = v.clone();
            let st = summarize(&mut s);
            out.push("kv", row(json!({
                "op": op, "value_bytes": self.spec.value_bytes, "window": self.spec.window, "count": st.count, "mops_total": mops,
                "lat_median_us": st.median, "lat_avg_us": st.avg, "lat_p99_us": st.p99, "lat_p99_99_us": st.p99_99, "lat_max_us": st.max,
                "completed_total": self.completed,
                "error": self.error.map(|e| e.0), "error_at_us": self.error.map(|e| e.2.as_us_f64()),
            })));
        }
    }
}
