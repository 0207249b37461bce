//! perftest equivalents: ib_{write,read,send}_{bw,lat} with perftest's defaults and report
//! columns. Bandwidth tests keep `tx_depth` work requests outstanding per QP and measure from the
//! first post to the last completion; latency tests ping-pong one message at a time
//! (write_lat polls the last byte in memory; send_lat and read_lat poll the CQ) and report
//! half the round trip (READ: the whole round trip), as perftest does.
use crate::engine::Time;
use crate::ids::{AppId, HcaId, HostId};
use crate::hca::cq::{Cqe, WcStatus};
use crate::hca::qp::{QpAttr, WorkRequest, WrOp};
use crate::hca::qp::QpRef;
use crate::report::perftest_lat::perftest_lat;
use crate::report::stats::summarize;
use crate::report::tables::{row, Tables};
use crate::scenario::{PerftestSection, PerftestTest};
use crate::workload::perftest_settings::PerftestSettings;
use crate::world::{AppEvent, World};
use serde_json::json;

/// Timer tags: the client / server saw the last byte of a WRITE land (memory polling).
const TAG_CLIENT_SAW_WRITE: u64 = 1;
const TAG_SERVER_SAW_WRITE: u64 = 2;

pub struct Perftest {
    pub app: AppId,
    pub test: PerftestTest,
    /// Sizes, iterations, depths and CQ moderation, perftest's defaults applied.
    pub settings: PerftestSettings,
    pub client: HcaId,
    pub server: HcaId,
    /// (client QP, server QP) per connection.
    pub conns: Vec<(QpRef, QpRef)>,
    pub done: bool,
    size_idx: usize,
    posted: Vec<u64>,
    completed: Vec<u64>,
    t_start: Time,
    post_times: Vec<Time>,
    msg_lat_us: Vec<f64>,
    /// When the client saw its latest completion (the stop timestamp of a partial row).
    last_completion: Option<Time>,
    /// Completion time by message id (wr_id), for the peak-bandwidth windows: for a message
    /// posted unsignaled, when the completion of the signaled one after it on its QP was seen.
    completed_at: Vec<Time>,
    /// This QP's index of each message, by message id.
    seq_of: Vec<u64>,
    /// Message ids of each QP's requests in post order.
    ids_of_conn: Vec<Vec<u64>>,
    iter_start: Time,
    lat_samples: Vec<f64>,
    errors: u64,
    first_error: Option<&'static str>,
    perftest_rows: Vec<crate::report::tables::Row>,
    latency_rows: Vec<crate::report::tables::Row>,
}

impl Perftest {
    pub fn new(w: &mut World, app: AppId, s: &PerftestSection, attr: QpAttr) -> Perftest {
        let settings = PerftestSettings::of(s);
        let rail = usize::from(s.rail);
        let on_rail = |w: &World, h: u32| w.hca_on_rail(HostId(h), rail).unwrap_or_else(|| w.hca_of(HostId(h)));
        let (client, server) = (on_rail(w, s.client), on_rail(w, s.server));
        let conns: Vec<(QpRef, QpRef)> = (0..settings.qps).map(|_| w.connect_rc(client, app, server, app, attr)).collect();
        if s.test == PerftestTest::IbWriteLat {
            // ib_write_lat's ping-pong: each side polls the last byte of its buffer.
            for &(a, b) in &conns {
                w.watch_writes(a);
                w.watch_writes(b);
            }
        }
        Perftest {
            app,
            test: s.test,
            settings,
            client,
            server,
            conns,
            done: false,
            size_idx: 0,
            posted: vec![],
            completed: vec![],
            t_start: Time::ZERO,
            post_times: vec![],
            msg_lat_us: vec![],
            last_completion: None,
            completed_at: vec![],
            seq_of: vec![],
            ids_of_conn: vec![],
            iter_start: Time::ZERO,
            lat_samples: vec![],
            errors: 0,
            first_error: None,
            perftest_rows: vec![],
            latency_rows: vec![],
        }
    }

    fn size(&self) -> u32 {
        self.settings.sizes[self.size_idx]
    }

    fn op(&self) -> WrOp {
        match self.test {
            PerftestTest::IbWriteBw | PerftestTest::IbWriteLat => WrOp::Write,
            PerftestTest::IbReadBw | PerftestTest::IbReadLat => WrOp::Read,
            PerftestTest::IbSendBw | PerftestTest::IbSendLat => WrOp::Send,
        }
    }

    pub fn progress(&self) -> f64 {
        if self.done {
            return 1.0;
        }
        let total = (self.settings.iters * self.conns.len() as u64).max(1) as f64;
        let cur = if self.test.is_latency() { self.lat_samples.len() as f64 } else { self.completed.iter().sum::<u64>() as f64 };
        (self.size_idx as f64 + (cur / total).min(1.0)) / self.settings.sizes.len() as f64
    }

    pub fn handle(&mut self, w: &mut World, ev: AppEvent) {
        match ev {
            AppEvent::Start => self.start_size(w),
            AppEvent::Completion(c) => self.on_completion(w, c),
            AppEvent::MemoryWritten { hca, .. } => self.on_memory_written(w, hca),
            AppEvent::Timer(TAG_SERVER_SAW_WRITE) => {
                let (c, s) = self.conns[0];
                let _ = c;
                self.post(w, s, 0);
            }
            AppEvent::Timer(TAG_CLIENT_SAW_WRITE) => self.lat_iteration_done(w),
            AppEvent::Timer(_) | AppEvent::SrqLimitReached { .. } | AppEvent::SrqOverflow { .. } => {}
        }
    }

    /// A WRITE landed in this app's memory: the poller sees it one poll iteration later.
    pub fn on_memory_written(&mut self, w: &mut World, hca: HcaId) {
        if self.test != PerftestTest::IbWriteLat {
            return;
        }
        let th = w.main_thread(hca);
        let at = w.threads[th].notice(w.now(), Time::from_ns_f64(w.thread_hw(th).poll_cq_ns));
        let tag = if hca == self.server { TAG_SERVER_SAW_WRITE } else { TAG_CLIENT_SAW_WRITE };
        w.app_at(at, self.app, AppEvent::Timer(tag));
    }

    fn start_size(&mut self, w: &mut World) {
        let n = self.conns.len();
        self.posted = vec![0; n];
        self.completed = vec![0; n];
        self.post_times.clear();
        self.msg_lat_us.clear();
        self.last_completion = None;
        self.completed_at.clear();
        self.seq_of.clear();
        self.ids_of_conn.resize_with(n, Vec::new);
        self.ids_of_conn.iter_mut().for_each(Vec::clear);
        self.lat_samples.clear();
        self.t_start = w.now();
        let size = self.size();
        // Receives are posted once; each size re-posts what it consumes.
        if self.size_idx == 0 && matches!(self.test, PerftestTest::IbSendBw | PerftestTest::IbSendLat) {
            let (rx_depth, iters) = (self.settings.rx_depth, self.settings.iters);
            let depth = if self.test.is_latency() { rx_depth.min(iters + 1) } else { rx_depth.min(iters) };
            for &(c, s) in &self.conns {
                for i in 0..depth {
                    w.post_recv(s, i, size);
                    if self.test.is_latency() {
                        w.post_recv(c, i, size);
                    }
                }
            }
        }
        // Timing starts once the receives are pre-posted, as in perftest.
        self.t_start = w.now().max(w.threads[w.main_thread(self.client)].cpu_free);
        if self.test.is_latency() {
            self.iter_start = self.t_start;
            let c = self.conns[0].0;
            self.post(w, c, 0);
        } else {
            for i in 0..n {
                let k = (self.settings.tx_depth as u64).min(self.settings.iters);
                for _ in 0..k {
                    self.post_bw(w, i);
                }
            }
        }
    }

    /// A latency test's request: only READs, whose completion ends the iteration, are signaled.
    fn post(&mut self, w: &mut World, qp: QpRef, wr_id: u64) {
        let signaled = self.op() == WrOp::Read;
        self.post_wr(w, qp, wr_id, signaled);
    }

    fn post_wr(&mut self, w: &mut World, qp: QpRef, wr_id: u64, signaled: bool) {
        let size = self.size();
        let op = self.op();
        let inline = op != WrOp::Read && size <= self.settings.inline_size;
        w.post_send(qp, WorkRequest { wr_id, op, len: size, inline, signaled, remote_va: 0x1000 });
    }

    fn post_bw(&mut self, w: &mut World, conn: usize) {
        let id = self.post_times.len() as u64;
        let seq = self.posted[conn];
        self.post_times.push(w.now());
        self.seq_of.push(seq);
        self.ids_of_conn[conn].push(id);
        self.posted[conn] += 1;
        // perftest's run_iter_bw: one request in cq_mod is signaled, and the QP's last one.
        let m = u64::from(self.settings.cq_mod);
        let signaled = seq % m == m - 1 || seq + 1 == self.settings.iters;
        let qp = self.conns[conn].0;
        self.post_wr(w, qp, id, signaled);
    }

    /// Records the completion of message `wr_id` of QP `conn` and, when it succeeded, of the
    /// unsignaled ones posted before it on that QP (a CQE stands for them, as perftest counts
    /// `cq_mod` per completion). Returns how many messages it completed.
    fn complete_messages(&mut self, conn: usize, wr_id: u64, now: Time, success: bool) -> u64 {
        if self.completed_at.len() < self.post_times.len() {
            self.completed_at.resize(self.post_times.len(), Time::ZERO);
        }
        let Some(&seq) = self.seq_of.get(wr_id as usize) else { return 0 };
        let from = if success { self.completed[conn] } else { seq };
        let mut n = 0;
        for k in from..=seq {
            let id = self.ids_of_conn[conn][k as usize] as usize;
            if self.completed_at[id] == Time::ZERO {
                self.completed_at[id] = now;
                self.msg_lat_us.push((now - self.post_times[id]).as_us_f64());
                n += 1;
            }
        }
        n
    }

    fn on_completion(&mut self, w: &mut World, c: Cqe) {
        if c.status != WcStatus::Success {
            self.errors += 1;
            self.first_error.get_or_insert(c.status.ibv_name());
        }
        if self.test.is_latency() {
            return self.on_lat_completion(w, c);
        }
        if c.hca == self.server {
            // ib_send_bw: the server re-posts the receive it consumed.
            if let Some(conn) = self.conns.iter().position(|(_, s)| s.qpn == c.qp) {
                let s = self.conns[conn].1;
                w.post_recv(s, c.wr_id, self.size());
            }
            return;
        }
        let Some(conn) = self.conns.iter().position(|(q, _)| q.qpn == c.qp) else { return };
        let now = w.now();
        self.last_completion = Some(now);
        let success = c.status == WcStatus::Success;
        self.completed[conn] += self.complete_messages(conn, c.wr_id, now, success);
        // Refill the QP up to tx_depth outstanding (perftest: scnt - ccnt < tx_depth).
        while success && self.posted[conn] < self.settings.iters && self.posted[conn] - self.completed[conn] < u64::from(self.settings.tx_depth) {
            self.post_bw(w, conn);
        }
        if self.completed.iter().all(|&k| k >= self.settings.iters) || (c.status != WcStatus::Success && self.all_failed(w)) {
            self.finish_bw(w);
        }
    }

    fn all_failed(&self, w: &World) -> bool {
        self.conns.iter().all(|(q, _)| w.qp(*q).state != crate::hca::qp::QpState::Rts && w.qp(*q).sq.is_empty())
    }

    fn on_lat_completion(&mut self, w: &mut World, c: Cqe) {
        let (client, server) = self.conns[0];
        match self.test {
            PerftestTest::IbReadLat if c.hca == self.client => self.lat_iteration_done(w),
            PerftestTest::IbSendLat => {
                if c.hca == self.server && c.qp == server.qpn {
                    w.post_recv(server, c.wr_id, self.size());
                    self.post(w, server, 0);
                } else if c.hca == self.client && c.qp == client.qpn {
                    w.post_recv(client, c.wr_id, self.size());
                    self.lat_iteration_done(w);
                }
            }
            _ => {}
        }
        if c.status != WcStatus::Success {
            self.finish_lat(w);
        }
    }

    fn lat_iteration_done(&mut self, w: &mut World) {
        if self.done {
            return;
        }
        let rtt = (w.now() - self.iter_start).as_us_f64();
        // perftest reports half the round trip for ping-pong tests, the whole of it for READ.
        self.lat_samples.push(if self.test == PerftestTest::IbReadLat { rtt } else { rtt / 2.0 });
        if self.lat_samples.len() as u64 >= self.settings.iters {
            return self.finish_lat(w);
        }
        self.iter_start = w.now();
        let c = self.conns[0].0;
        self.post(w, c, self.lat_samples.len() as u64);
    }

    /// The perftest row for the current size from what has completed so far; `end` is the
    /// time of the last completion (perftest's stop timestamp).
    fn bw_row(&self, end: Time, partial: bool) -> crate::report::tables::Row {
        let size = self.size() as f64;
        let elapsed = end.saturating_sub(self.t_start).as_secs_f64();
        let msgs: u64 = self.completed.iter().sum();
        let avg = if elapsed > 0.0 { size * msgs as f64 / elapsed } else { 0.0 };
        let peak = peak_rate(&self.post_times, &self.completed_at, (self.settings.tx_depth as usize * self.conns.len()).max(1), size).max(avg);
        const MIB: f64 = 1048576.0;
        row(json!({
            "test": self.test.name(), "bytes": self.size(), "iterations": msgs / self.conns.len().max(1) as u64, "qps": self.conns.len(), "cq_mod": self.settings.cq_mod,
            "bw_peak_MBps": peak / MIB, "bw_avg_MBps": avg / MIB,
            "bw_peak_Gbps": peak * 8.0 / 1e9, "bw_avg_Gbps": avg * 8.0 / 1e9,
            "msg_rate_Mpps": if elapsed > 0.0 { msgs as f64 / elapsed / 1e6 } else { 0.0 },
            "elapsed_us": elapsed * 1e6, "errors": self.errors, "first_error": self.first_error, "partial": partial,
        }))
    }

    fn lat_row(&self, partial: bool) -> (crate::report::tables::Row, Vec<f64>) {
        // The report line as perftest computes it; the `latency` table has every sample's.
        let st = perftest_lat(&self.lat_samples);
        let r = row(json!({
            "test": self.test.name(), "bytes": self.size(), "iterations": self.lat_samples.len(),
            "t_min_us": st.min, "t_max_us": st.max, "t_typical_us": st.typical, "t_avg_us": st.avg,
            "t_stdev_us": st.stdev, "p50_us": st.typical, "p99_us": st.p99, "p99_9_us": st.p99_9, "p99_99_us": st.p99_99,
            "errors": self.errors, "first_error": self.first_error, "partial": partial,
        }));
        (r, self.lat_samples.clone())
    }

    fn lat_metric(&self) -> &'static str {
        if self.test == PerftestTest::IbReadLat { "round_trip" } else { "half_round_trip" }
    }

    fn finish_bw(&mut self, w: &mut World) {
        let r = self.bw_row(w.now(), false);
        self.perftest_rows.push(r);
        let mut lat = std::mem::take(&mut self.msg_lat_us);
        self.latency_rows.push(latency_row(self.test, self.size(), &mut lat, "post_to_completion"));
        self.next_size(w);
    }

    fn finish_lat(&mut self, w: &mut World) {
        let (r, mut s) = self.lat_row(false);
        self.perftest_rows.push(r);
        self.latency_rows.push(latency_row(self.test, self.size(), &mut s, self.lat_metric()));
        self.lat_samples.clear();
        self.next_size(w);
    }

    fn next_size(&mut self, w: &mut World) {
        if self.errors > 0 || self.size_idx + 1 >= self.settings.sizes.len() {
            self.done = true;
            return;
        }
        self.size_idx += 1;
        self.start_size(w);
    }

    /// Finished sizes, plus the size in progress (marked `partial`) if the run stopped early.
    pub fn tables(&self, out: &mut Tables) {
        out.extend("perftest", self.perftest_rows.iter().cloned());
        out.extend("latency", self.latency_rows.iter().cloned());
        if self.done || self.posted.is_empty() {
            return;
        }
        if self.test.is_latency() {
            if !self.lat_samples.is_empty() {
                let (r, mut s) = self.lat_row(true);
                out.push("perftest", r);
                out.push("latency", latency_row(self.test, self.size(), &mut s, self.lat_metric()));
            }
        } else if let Some(end) = self.last_completion {
            out.push("perftest", self.bw_row(end, true));
            let mut lat = self.msg_lat_us.clone();
            out.push("latency", latency_row(self.test, self.size(), &mut lat, "post_to_completion"));
        }
    }
}

fn latency_row(test: PerftestTest, bytes: u32, samples: &mut [f64], what: &str) -> crate::report::tables::Row {
    let st = summarize(samples);
    row(json!({
        "test": test.name(), "bytes": bytes, "metric": what, "count": st.count,
        "min_us": st.min, "median_us": st.median, "avg_us": st.avg, "p99_us": st.p99,
        "p99_9_us": st.p99_9, "p99_99_us": st.p99_99, "max_us": st.max,
    }))
}

/// Peak bandwidth in the spirit of perftest's: the best rate of any `win + 1` consecutive
/// messages (by post order), timed from the first one's post to the last of them to complete.
/// All of them are posted after the first, so the rate can never exceed what the link carried.
/// O(n) with a sliding-window maximum of completion times.
fn peak_rate(posted: &[Time], completed: &[Time], win: usize, size: f64) -> f64 {
    let n = posted.len().min(completed.len());
    if n <= win || completed[..n].contains(&Time::ZERO) {
        return 0.0;
    }
    let mut best: f64 = 0.0;
    let mut maxq: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    for j in 0..n {
        while maxq.back().is_some_and(|&k| completed[k] <= completed[j]) {
            maxq.pop_back();
        }
        maxq.push_back(j);
        if j >= win {
            let i = j - win;
            while maxq.front().is_some_and(|&k| k < i) {
                maxq.pop_front();
            }
            let end = completed[*maxq.front().expect("window is not empty")];
            let dt = end.saturating_sub(posted[i]).as_secs_f64();
            if dt > 0.0 {
                best = best.max(size * (win + 1) as f64 / dt);
            }
        }
    }
    best
}
