//! A HERD-like key-value store (Kalia et al., SIGCOMM'14, "Using RDMA efficiently for key-value
//! services"): the client WRITEs each request (key, and the value for a PUT) inline into the
//! server's request region; the server's thread busy-polls that memory, does the lookup or
//! insert, and answers with a SEND (the value for a GET, a short status for a PUT) into a
//! receive the client keeps posted; the client busy-polls its receive CQ and issues the next
//! request. One outstanding request. HERD itself keeps a window of 32 (`WINDOW_SIZE` in
//! efficient/rdma_bench herd/main.h): its client posts 32 requests, then polls for all 32
//! responses; that batching is not modelled (docs/isolation.md sec. 6).
//!
//! Differences from HERD: RC QPs stand in for HERD's UC WRITEs and UD SENDs (same packets on the
//! wire for single-packet messages, plus the RC ACKs); one client, one server thread.
use crate::engine::SimRng;
use crate::engine::Time;
use crate::hca::cq::{Cqe, WcOpcode};
use crate::hca::qp::{QpAttr, WorkRequest, WrOp};
use crate::hca::verbs::QpRef;
use crate::host::{PollMode, Poller};
use crate::report::stats::summarize;
use crate::report::tables::{row, Tables};
use crate::scenario::flows::KvSpec;
use crate::world::{AppEvent, Event, World};
use serde_json::json;

/// Random stream id of the GET/PUT draw.
const RNG_STREAM: u64 = 0x4b56;
/// Request header (HERD's opcode and length fields beside the 16 B key), and a PUT's response.
const HEADER_BYTES: u32 = 8;
const PUT_RESPONSE_BYTES: u32 = 8;
/// Receives the client keeps posted.
const CLIENT_RX: u64 = 16;
/// Marks the key-value store's QPs in the flows' QP table.
pub(crate) const KV_QP: u32 = u32::MAX - 1;

pub struct Kv {
    app: u32,
    spec: KvSpec,
    client: QpRef,
    server: QpRef,
    server_thread: u32,
    rng: SimRng,
    started: bool,
    issued: u64,
    completed: u64,
    current_get: bool,
    issued_at: Time,
    window: (Option<Time>, Option<Time>),
    get_us: Vec<f64>,
    put_us: Vec<f64>,
}

impl Kv {
    pub fn new(w: &mut World, app: u32, s: &KvSpec, attr: QpAttr, pollers: &mut Vec<Poller>, qp_table: &mut [Vec<u32>]) -> Kv {
        let (client, server) = w.connect_rc(s.client, app, s.server, app, attr);
        let ct = w.new_thread(s.client);
        let st = w.new_thread(s.server);
        for (qp, th) in [(client, ct), (server, st)] {
            w.threads[th as usize].busy_poll = true;
            let cq = pollers.len() as u32;
            pollers.push(Poller::new(app, PollMode::Busy));
            w.bind_qp(qp, cq, th);
            let v = &mut qp_table[qp.hca as usize];
            v.resize(v.len().max(qp.index() as usize + 1), u32::MAX);
            v[qp.index() as usize] = KV_QP;
        }
        Kv {
            app,
            spec: s.clone(),
            client,
            server,
            server_thread: st,
            rng: SimRng::new(w.seed, RNG_STREAM),
            started: false,
            issued: 0,
            completed: 0,
            current_get: true,
            issued_at: Time::ZERO,
            window: (None, None),
            get_us: Vec::new(),
            put_us: Vec::new(),
        }
    }

    pub fn started(&self) -> bool {
        self.started
    }
    pub fn done(&self) -> bool {
        self.completed >= self.spec.requests
    }
    pub fn progress(&self) -> f64 {
        self.completed as f64 / self.spec.requests as f64
    }
    pub fn owns(&self, hca: u32, qpn: u32) -> bool {
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
        let resp = self.spec.value_bytes.max(PUT_RESPONSE_BYTES);
        for i in 0..CLIENT_RX {
            w.post_recv(self.client, i, resp);
        }
        self.issue(w);
    }

    fn issue(&mut self, w: &mut World) {
        if self.issued >= self.spec.requests {
            return;
        }
        self.issued += 1;
        self.current_get = self.rng.unit() < self.spec.get_fraction;
        let len = HEADER_BYTES + self.spec.key_bytes + if self.current_get { 0 } else { self.spec.value_bytes };
        self.issued_at = w.now();
        let wr = WorkRequest { wr_id: self.issued, op: WrOp::Write, len, inline: len <= self.spec.inline_max, signaled: false, remote_va: 0x2000 };
        w.post_send(self.client, wr);
    }

    /// A request landed in the server's request region: its polling thread sees it one poll
    /// later, then spends the request's CPU time before answering.
    pub fn on_memory_written(&mut self, w: &mut World, hca: u32, qpn: u32) {
        if hca != self.server.hca || qpn != self.server.qpn {
            return;
        }
        let th = &mut w.threads[self.server_thread as usize];
        let poll = Time::from_ns_f64(w.profile.poll_cq_ns);
        let seen = th.notice(w.q.now(), poll);
        let done = th.run(seen, Time::from_ns_f64(self.spec.server_cpu_ns));
        w.q.at(done, Event::App { app: self.app, ev: AppEvent::Timer(crate::workload::flows::TAG_KV << 32) });
    }

    /// The server answers (timer set by `on_memory_written`).
    pub fn respond(&mut self, w: &mut World) {
        let len = if self.current_get { self.spec.value_bytes } else { PUT_RESPONSE_BYTES };
        let wr = WorkRequest { wr_id: self.issued, op: WrOp::Send, len, inline: len <= self.spec.inline_max, signaled: false, remote_va: 0 };
        w.post_send(self.server, wr);
    }

    pub fn on_completion(&mut self, w: &mut World, c: Cqe) {
        if c.hca != self.client.hca || c.qp != self.client.qpn || c.opcode != WcOpcode::Recv {
            return;
        }
        let now = w.now();
        if let (Some(open), None) = self.window {
            if self.issued_at >= open {
                let us = (now - self.issued_at).as_us_f64();
                if self.current_get { self.get_us.push(us) } else { self.put_us.push(us) }
            }
        }
        self.completed += 1;
        w.post_recv(self.client, c.wr_id, self.spec.value_bytes.max(PUT_RESPONSE_BYTES));
        if !self.done() {
            self.issue(w);
        }
    }

    pub fn tables(&self, out: &mut Tables) {
        for (op, v) in [("GET", &self.get_us), ("PUT", &self.put_us)] {
            let mut s = v.clone();
            let st = summarize(&mut s);
            out.push("kv", row(json!({
                "op": op, "value_bytes": self.spec.value_bytes, "count": st.count,
                "lat_median_us": st.median, "lat_avg_us": st.avg, "lat_p99_us": st.p99, "lat_p99_99_us": st.p99_99, "lat_max_us": st.max,
                "completed_total": self.completed,
            })));
        }
    }
}
