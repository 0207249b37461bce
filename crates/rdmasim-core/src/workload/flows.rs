//! Competing flows, as the performance-isolation study's benchmarking tool (a modified
//! perftest) runs them: each flow has its own QP(s), its own thread on its own core and its own
//! completion channel, posts messages of one verb and size, keeps `depth` of them outstanding
//! (1: the next is posted only after the previous completion is polled), and polls busy or waits
//! for events. Bandwidth, message rate, latency and CPU are measured only while every flow is
//! active: the window opens when the last flow posts its first message and closes when the
//! first foreground flow has done its work (background flows run until then); the run ends
//! with the window.
use crate::engine::Time;
use crate::ids::{AppId, CqId, HcaId, HostId, ThreadId, TiVec};
use crate::hca::cq::{Cqe, WcOpcode, WcStatus};
use crate::hca::qp::{QpAttr, WorkRequest, WrOp};
use crate::hca::qp::QpRef;
use crate::host::{PollMode, Poller};
use crate::report::stats::summarize;
use crate::report::tables::{row, Tables};
use crate::scenario::flows::{FlowSpec, FlowVerb, FlowsSection, FlowsUntil, Polling};
use crate::workload::justitia::{Shaper, Step};
use crate::workload::kv::{Kv, KV_QP, TAG_KV};
use crate::world::{AppEvent, World};
use serde_json::json;

/// Receive WQEs kept posted for SEND / WRITE_IMM flows (perftest's DEF_RX_SEND).
const RX_DEPTH: u64 = 512;
/// Timer tags: kind in the high half, flow index in the low half.
const TAG_START: u64 = 0;
const TAG_PACE: u64 = 1;
// TAG_KV = 2: the key-value store's (kv.rs).
const NO_FLOW: u32 = u32::MAX;

fn tag(kind: u64, idx: usize) -> u64 {
    (kind << 32) | idx as u64
}

/// Counters sampled when the measurement window opens and closes.
#[derive(Clone, Copy, Default)]
struct Snapshot {
    bytes: u64,
    msgs: u64,
    cpu: Time,
}

struct Flow {
    spec: FlowSpec,
    name: String,
    op: WrOp,
    size: u32,
    /// Messages to complete (None: background).
    target: Option<u64>,
    conns: Vec<(QpRef, QpRef)>,
    thread: ThreadId,
    posted: u64,
    completed: u64,
    outstanding: u32,
    /// Post time of each outstanding message, by slot; a message's slot is its wr_id, so a
    /// completion finds its own message even when QPs complete out of posting order.
    post_time: Vec<Time>,
    /// Slots of `post_time` not in use (depth of them at most: no allocation after start).
    free_slots: Vec<u32>,
    next_conn: usize,
    started: bool,
    done: bool,
    /// When it completed its target (foreground flows).
    finished_at: Option<Time>,
    at_open: Snapshot,
    at_close: Snapshot,
    lat_us: Vec<f64>,
    shaper: Option<Shaper>,
    /// Split chunks posted for the current message (their wr_ids count from the message's).
    chunk_seq: u64,
    /// Time of the pending pacing timer, if any (one is enough).
    pace_at: Option<Time>,
    /// The first failed completion: its status and when it was polled.
    error: Option<(&'static str, Time)>,
}

impl Flow {
    /// Payload bytes the receiving side has accepted in sequence (READ: the requester).
    fn delivered(&self, w: &World) -> u64 {
        self.conns.iter().map(|&(c, s)| if self.op == WrOp::Read { w.qp(c).rx_bytes } else { w.qp(s).rx_bytes }).sum()
    }
    fn snapshot(&self, w: &World) -> Snapshot {
        Snapshot { bytes: self.delivered(w), msgs: self.completed, cpu: w.threads[self.thread].busy_at(w.now()) }
    }
    /// Posts one work request on the flow's next QP (round robin); returns when its
    /// ibv_post_send began (the thread may still be busy with the posts before it), the time a
    /// benchmark stamps the message with.
    fn post_wr(&mut self, w: &mut World, wr_id: u64, len: u32) -> Time {
        let qp = self.conns[self.next_conn].0;
        self.next_conn = (self.next_conn + 1) % self.conns.len();
        let begins = w.thread_free_at(qp);
        w.post_send(qp, WorkRequest { wr_id, op: self.op, len, inline: self.spec.inline, signaled: true, remote_va: 0x1000 });
        begins
    }
    fn wants_more(&self, fg_done: bool) -> bool {
        match self.target {
            Some(n) => self.posted < n,
            None => !fg_done,
        }
    }
}

pub struct Flows {
    app: AppId,
    flows: Vec<Flow>,
    kv: Option<Kv>,
    /// Flow of each QP, by [hca][qp index].
    qp_flow: TiVec<HcaId, Vec<u32>>,
    until: FlowsUntil,
    window_open: Option<Time>,
    window_close: Option<Time>,
    /// Why the run ended without a full measurement (a flow failed, or the flows were never
    /// active together); the run is then reported as stopped early with this reason.
    incomplete: Option<String>,
    pub done: bool,
    /// Flows not started yet, and flows with a target (foreground) not done yet, and done:
    /// counted as they change, so that the checks after each start and each completion do
    /// not walk every flow (8192 flows made them quadratic).
    unstarted: usize,
    foreground_left: usize,
    foreground_done: usize,
}

impl Flows {
    pub fn new(w: &mut World, app: AppId, s: &FlowsSection, attr: QpAttr, pollers: &mut TiVec<CqId, Poller>) -> Flows {
        let mut qp_flow: TiVec<HcaId, Vec<u32>> = vec![Vec::new(); w.hcas.len()].into();
        let mut flows = Vec::new();
        for (i, spec) in s.flow.iter().enumerate() {
            let mode = match spec.polling {
                Polling::Busy => PollMode::Busy,
                Polling::Event => PollMode::Event,
            };
            let verb = spec.verb;
            // The rail was checked against the fabric (scenario::check_rail).
            let rail = usize::from(spec.rail);
            let on_rail = |w: &World, h: u32| w.hca_on_rail(HostId(h), rail).unwrap_or_else(|| w.hca_of(HostId(h)));
            let (client, server_hca, client_hca) = (HostId(spec.client), on_rail(w, spec.server), on_rail(w, spec.client));
            let thread = w.new_thread(client);
            w.threads[thread].busy_poll = mode == PollMode::Busy;
            let cq = pollers.next_key();
            pollers.push(Poller::new(app, mode));
            // The receiving side needs its own thread only to re-post receives.
            let server = verb.needs_recv().then(|| {
                let th = w.new_thread(HostId(spec.server));
                w.threads[th].busy_poll = mode == PollMode::Busy;
                let scq = pollers.next_key();
                pollers.push(Poller::new(app, mode));
                (scq, th)
            });
            let mut conns = Vec::new();
            let attr = QpAttr { sl: spec.sl.unwrap_or(attr.sl), ..attr };
            for _ in 0..spec.qps {
                let (c, sv) = w.connect_rc(client_hca, app, server_hca, app, attr);
                w.bind_qp(c, cq, thread);
                let (scq, sth) = server.unwrap_or((cq, thread));
                w.bind_qp(sv, scq, sth);
                for r in [c, sv] {
                    let v = &mut qp_flow[r.hca];
                    v.resize(v.len().max(r.index().idx() + 1), NO_FLOW);
                    v[r.index().idx()] = i as u32;
                }
                conns.push((c, sv));
            }
            let size = spec.size as u32;
            let target = spec.messages();
            flows.push(Flow {
                name: spec.label(i),
                op: match verb {
                    FlowVerb::Write => WrOp::Write,
                    FlowVerb::Read => WrOp::Read,
                    FlowVerb::WriteImm => WrOp::WriteImm,
                    FlowVerb::Send => WrOp::Send,
                },
                size,
                target,
                conns,
                thread,
                posted: 0,
                completed: 0,
                outstanding: 0,
                post_time: vec![Time::ZERO; spec.depth as usize],
                free_slots: (0..spec.depth).rev().collect(),
                next_conn: 0,
                started: false,
                done: false,
                finished_at: None,
                at_open: Snapshot::default(),
                at_close: Snapshot::default(),
                lat_us: Vec::new(),
                shaper: spec.split_bytes.map(|b| Shaper::new(b, spec.split_window.unwrap_or(32), spec.pace_gbps)),
                chunk_seq: 0,
                pace_at: None,
                error: None,
                spec: spec.clone(),
            });
        }
        let kv = s.kv.as_ref().map(|k| Kv::new(w, app, k, attr, pollers, &mut qp_flow));
        let foreground_left = flows.iter().filter(|f| f.target.is_some()).count();
        let unstarted = flows.len();
        Flows { app, flows, kv, qp_flow, until: s.until, window_open: None, window_close: None, incomplete: None, done: false, unstarted, foreground_left, foreground_done: 0 }
    }

    pub fn progress(&self) -> f64 {
        if self.done {
            return 1.0;
        }
        let mut parts: Vec<f64> = self.flows.iter().filter_map(|f| f.target.map(|n| f.completed as f64 / n as f64)).collect();
        if let Some(kv) = &self.kv {
            parts.push(kv.progress());
        }
        parts.iter().cloned().fold(0.0, f64::max).min(1.0)
    }

    pub fn handle(&mut self, w: &mut World, ev: AppEvent) {
        match ev {
            AppEvent::Start => {
                for i in 0..self.flows.len() {
                    let at = Time::from_ns_f64(self.flows[i].spec.start_us * 1e3);
                    w.app_at(at, self.app, AppEvent::Timer(tag(TAG_START, i)));
                }
                if let Some(kv) = &mut self.kv {
                    kv.start(w);
                }
                self.maybe_open(w);
            }
            AppEvent::Timer(t) => {
                let (kind, i) = (t >> 32, (t & 0xffff_ffff) as usize);
                match kind {
                    TAG_START => self.start_flow(w, i),
                    TAG_PACE => {
                        self.flows[i].pace_at = None;
                        self.pump(w, i)
                    }
                    TAG_KV => {
                        if let Some(kv) = &mut self.kv {
                            kv.on_timer(w, t & 0xffff_ffff);
                        }
                    }
                    _ => {}
                }
            }
            AppEvent::Completion(c) => self.on_completion(w, c),
            AppEvent::MemoryWritten { hca, qp, .. } => {
                if let Some(kv) = &mut self.kv {
                    kv.on_memory_written(w, hca, qp);
                }
            }
            // The flows use no SRQ.
            AppEvent::SrqLimitReached { .. } | AppEvent::SrqOverflow { .. } => {}
        }
    }

    fn start_flow(&mut self, w: &mut World, i: usize) {
        if self.done {
            return;
        }
        let f = &mut self.flows[i];
        if !f.started {
            self.unstarted -= 1;
        }
        f.started = true;
        if f.op == WrOp::Send || f.op == WrOp::WriteImm {
            // Every work request consumes a receive: a split message's pieces each take one.
            let wrs_per_msg = f.spec.split_bytes.map_or(1, |b| (f.size as u64).div_ceil(b));
            let n = f.target.map_or(RX_DEPTH, |t| t.saturating_mul(wrs_per_msg).min(RX_DEPTH));
            for &(_, s) in &f.conns {
                for k in 0..n {
                    w.post_recv(s, k, f.size);
                }
            }
        }
        self.post_more(w, i);
        self.maybe_open(w);
    }

    /// Opens the measurement window once every flow (and the key-value client) has started.
    fn maybe_open(&mut self, w: &mut World) {
        if self.window_open.is_some() || self.unstarted > 0 || self.kv.as_ref().is_some_and(|k| !k.started()) {
            return;
        }
        let now = w.now();
        self.window_open = Some(now);
        for f in &mut self.flows {
            f.at_open = f.snapshot(w);
        }
        if let Some(kv) = &mut self.kv {
            kv.open_window(now);
        }
    }

    fn close(&mut self, w: &mut World) {
        if self.window_close.is_some() {
            return;
        }
        let now = w.now();
        self.window_close = Some(now);
        for f in &mut self.flows {
            f.at_close = f.snapshot(w);
        }
        if let Some(kv) = &mut self.kv {
            kv.close_window(now);
        }
        self.done = true;
    }

    fn foreground_done(&self) -> bool {
        self.foreground_left == 0 && self.kv.as_ref().is_none_or(|k| k.done())
    }

    fn any_foreground_done(&self) -> bool {
        self.foreground_done > 0 || self.kv.as_ref().is_some_and(|k| k.done())
    }

    /// Flow `i` is done (its target reached, or it failed).
    fn mark_done(&mut self, i: usize) {
        let f = &mut self.flows[i];
        if !f.done && f.target.is_some() {
            self.foreground_left -= 1;
            self.foreground_done += 1;
        }
        f.done = true;
    }

    fn post_more(&mut self, w: &mut World, i: usize) {
        let fg_done = self.foreground_done();
        let f = &mut self.flows[i];
        if self.done {
            return;
        }
        if f.shaper.is_some() {
            if f.outstanding == 0 && f.wants_more(fg_done) {
                f.posted += 1;
                f.outstanding = 1;
                // Stamped when the thread can begin posting its first piece.
                f.post_time[0] = w.thread_free_at(f.conns[f.next_conn].0);
                f.chunk_seq = 0;
                let size = f.size as u64;
                if let Some(s) = f.shaper.as_mut() {
                    s.begin(size);
                }
            }
            return self.pump(w, i);
        }
        while f.outstanding < f.spec.depth && f.wants_more(fg_done) {
            // outstanding < depth, so a slot is free.
            let Some(slot) = f.free_slots.pop() else { return };
            f.posted += 1;
            f.outstanding += 1;
            let len = f.size;
            f.post_time[slot as usize] = f.post_wr(w, slot as u64, len);
        }
    }

    /// Posts the split chunks the scheduler allows now; waits for its pacing timer otherwise.
    fn pump(&mut self, w: &mut World, i: usize) {
        if self.done {
            return;
        }
        let app = self.app;
        let f = &mut self.flows[i];
        loop {
            let Some(step) = f.shaper.as_mut().map(|s| s.next(w.now())) else { return };
            match step {
                Step::Post(n) => {
                    let id = f.chunk_seq;
                    f.chunk_seq += 1;
                    f.post_wr(w, id, n);
                }
                Step::Wait(t) => {
                    if f.pace_at.is_none_or(|p| p > t) {
                        f.pace_at = Some(t);
                        w.app_at(t, app, AppEvent::Timer(tag(TAG_PACE, i)));
                    }
                    return;
                }
                Step::Blocked => return,
            }
        }
    }

    fn on_completion(&mut self, w: &mut World, c: Cqe) {
        let Some(&fi) = self.qp_flow[c.hca].get(c.qp.wrapping_sub(crate::hca::QPN_BASE) as usize) else { return };
        if fi == KV_QP {
            if let Some(kv) = &mut self.kv {
                kv.on_completion(w, c);
            }
            return self.after_kv(w);
        }
        if fi == NO_FLOW {
            return;
        }
        let i = fi as usize;
        if matches!(c.opcode, WcOpcode::Recv | WcOpcode::RecvRdmaWithImm) {
            // The receiving thread re-posts the receive it consumed.
            let f = &self.flows[i];
            if let Some(&(_, s)) = f.conns.iter().find(|(_, s)| s.hca == c.hca && s.qpn == c.qp) {
                w.post_recv(s, c.wr_id, f.size);
            }
            return;
        }
        let now = w.now();
        if c.status != WcStatus::Success {
            // A failed flow stops; the window closes so the run ends with what was measured.
            // The first failure is the cause: the flushes that follow it only echo it.
            self.mark_done(i);
            let f = &mut self.flows[i];
            if f.error.is_none() {
                f.error = Some((c.status.ibv_name(), now));
            }
            if !self.done {
                self.incomplete = Some(format!("flow {i} ({}) failed with {} at {:.3} us; measured up to then", f.name, c.status.ibv_name(), now.as_us_f64()));
            }
            return self.close(w);
        }
        let window = (self.window_open, self.window_close);
        let f = &mut self.flows[i];
        if let Some(sh) = f.shaper.as_mut() {
            if !sh.chunk_done() {
                return self.pump(w, i);
            }
        }
        f.completed += 1;
        f.outstanding -= 1;
        // A split message is alone in slot 0 (its pieces' wr_ids count pieces); otherwise the
        // wr_id is the message's slot.
        let slot = if f.shaper.is_some() { 0 } else { c.wr_id as usize };
        let posted_at = f.post_time[slot];
        if f.shaper.is_none() {
            f.free_slots.push(slot as u32);
        }
        if let (Some(open), None) = window {
            if posted_at >= open {
                f.lat_us.push((now - posted_at).as_us_f64());
            }
        }
        if f.target.is_some_and(|n| f.completed >= n) {
            self.mark_done(i);
        }
        let f = &mut self.flows[i];
        if f.done && f.finished_at.is_none() {
            f.finished_at = Some(now);
        }
        let over = match self.until {
            FlowsUntil::First => self.any_foreground_done(),
            FlowsUntil::All => self.foreground_done(),
        };
        if over {
            if self.window_open.is_none() {
                let who = format!("flow {i} ({})", self.flows[i].name);
                self.never_together(&who, now);
            }
            return self.close(w);
        }
        self.post_more(w, i);
    }

    /// After the key-value store progressed: it may have finished the window.
    fn after_kv(&mut self, w: &mut World) {
        if self.kv.as_ref().is_some_and(|k| k.done()) {
            if let Some(why) = self.kv.as_ref().and_then(|k| k.failure()) {
                if !self.done && self.incomplete.is_none() {
                    self.incomplete = Some(format!("{why}; measured up to then"));
                }
            } else if self.window_open.is_none() {
                self.never_together("the key-value client", w.now());
            }
            self.close(w);
        }
    }

    /// `who` finished its work before every flow had started: the window never opened, so
    /// nothing is measured (a row of zeros would read as a measurement).
    fn never_together(&mut self, who: &str, now: Time) {
        let waiting: Vec<String> =
            self.flows.iter().enumerate().filter(|(_, f)| !f.started).map(|(j, f)| format!("flow {j} ({}) at {} us", f.name, f.spec.start_us)).collect();
        self.incomplete = Some(format!(
            "{who} finished at {:.3} us, before {} started: the flows were never active together, so nothing was measured",
            now.as_us_f64(),
            if waiting.is_empty() { "the key-value client".to_string() } else { waiting.join(", ") }
        ));
    }

    /// Why the run has no full measurement, if so.
    pub fn incomplete(&self) -> Option<String> {
        self.incomplete.clone()
    }

    pub fn tables(&self, w: &World, out: &mut Tables) {
        // A window that never opened (a flow started after another finished) measures nothing.
        let open = self.window_open.unwrap_or_else(|| w.now());
        let close = if self.window_open.is_some() { self.window_close.unwrap_or_else(|| w.now()) } else { open };
        let secs = close.saturating_sub(open).as_secs_f64();
        for (i, f) in self.flows.iter().enumerate() {
            // No window, no counts: the work done outside it is in `completed_total`.
            let end = if self.window_open.is_none() { f.at_open } else if self.window_close.is_some() { f.at_close } else { f.snapshot(w) };
            let bytes = end.bytes - f.at_open.bytes;
            let msgs = end.msgs - f.at_open.msgs;
            let th = &w.threads[f.thread];
            let cpu = if th.busy_poll { 1.0 } else if secs > 0.0 { (end.cpu - f.at_open.cpu).as_secs_f64() / secs } else { 0.0 };
            let mut lat = f.lat_us.clone();
            let st = summarize(&mut lat);
            let rate = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
            out.push("flows", row(json!({
                "flow": i, "name": f.name, "verb": f.spec.verb.name(), "bytes": f.size, "polling": format!("{:?}", f.spec.polling).to_lowercase(),
                "depth": f.spec.depth, "inline": f.spec.inline, "qps": f.conns.len(), "background": f.target.is_none(),
                "split_bytes": f.spec.split_bytes, "pace_gbps": f.spec.pace_gbps,
                "window_start_us": open.as_us_f64(), "window_us": secs * 1e6,
                "bytes_in_window": bytes, "bw_Gbps": rate(bytes as f64 * 8.0) / 1e9, "msgs_in_window": msgs, "msg_rate_Mps": rate(msgs as f64) / 1e6,
                "lat_count": st.count, "lat_min_us": st.min, "lat_median_us": st.median, "lat_avg_us": st.avg, "lat_p99_us": st.p99, "lat_p99_99_us": st.p99_99, "lat_max_us": st.max,
                "cpu_utilization": cpu, "completed_total": f.completed, "wakeups": th.wakeups, "idle_exit_us": th.idle_exit_total.as_us_f64(),
                "error": f.error.map(|e| e.0), "error_at_us": f.error.map(|e| e.1.as_us_f64()),
                "partial": self.window_close.is_none() || self.incomplete.is_some(),
                "finish_us": f.finished_at.map(|t| t.as_us_f64()),
            })));
        }
        if let Some(kv) = &self.kv {
            kv.tables(out);
        }
    }
}
