//! The READ microbenchmarks of seeds/000 (On-Demand Paging pitfalls): the client registers a
//! destination buffer, the server a source buffer (pinned or ODP each), optionally prefetches
//! them, then posts `reads` READs of `size` bytes, READ i into buffer slot i, one every
//! `interval_us` (0 = all at once), round-robin over `qps` QPs. The run time is from the first
//! post to the last completion, as the study measured it.
use crate::engine::Time;
use crate::ids::{AppId, HostId};
use crate::hca::cq::{Cqe, WcStatus};
use crate::hca::mr::{MrMode, PAGE};
use crate::hca::qp::{QpAttr, WorkRequest, WrOp};
use crate::hca::qp::QpRef;
use crate::report::tables::{row, Tables};
use crate::scenario::odp::OdpReadsSection;
use crate::world::{AppEvent, World};
use serde_json::json;

/// Virtual addresses of the two buffers (page-aligned; any address would do).
const CLIENT_VA: u64 = 0x7f00_0000_0000;
const SERVER_VA: u64 = 0x7e00_0000_0000;
/// Timer tag that starts posting once registration (and prefetch) are done.
const TAG_START: u64 = u64::MAX;

pub struct OdpReads {
    pub app: AppId,
    cfg: OdpReadsSection,
    conns: Vec<(QpRef, QpRef)>,
    pub done: bool,
    posted: u64,
    completed: u64,
    errors: u64,
    setup: Time,
    t_start: Time,
    t_end: Option<Time>,
    /// (READ index, completion time in µs after the first post), in completion order.
    finish_us: Vec<(u64, f64)>,
    /// Counters when the last READ completed (packets, faults, retransmissions), so one row
    /// carries what a sweep needs (taken then: the run may go on with other events).
    counts: crate::report::tables::Row,
}

impl OdpReads {
    pub fn new(w: &mut World, app: AppId, cfg: &OdpReadsSection, attr: QpAttr) -> OdpReads {
        let conns = (0..cfg.qps).map(|_| w.connect_rc(w.hca_of(HostId(cfg.client)), app, w.hca_of(HostId(cfg.server)), app, attr)).collect();
        OdpReads { app, cfg: cfg.clone(), conns, done: false, posted: 0, completed: 0, errors: 0, setup: Time::ZERO, t_start: Time::ZERO, t_end: None, finish_us: Vec::new(), counts: Default::default() }
    }

    fn buffer_len(&self) -> u64 {
        self.cfg.offset as u64 + self.cfg.reads * self.cfg.size as u64
    }

    /// Registers both buffers (each host in parallel), prefetches ODP ones if asked; returns
    /// how long that takes before the first READ can be posted.
    fn register(&mut self, w: &mut World) -> Time {
        let len = self.buffer_len();
        let mut setup = Time::ZERO;
        for (host, va, odp) in [(self.cfg.client, CLIENT_VA, self.cfg.client_odp), (self.cfg.server, SERVER_VA, self.cfg.server_odp)] {
            let mode = self.cfg.mode(odp);
            let host = w.hca_of(HostId(host));
            let (mr, mut t) = w.reg_mr(host, va, len, mode);
            if self.cfg.prefetch && mode != MrMode::Pinned {
                t += w.advise_mr_prefetch(host, mr, va, len);
            }
            setup = setup.max(t);
        }
        setup
    }

    fn post(&mut self, w: &mut World) {
        let i = self.posted;
        let (qp, _) = self.conns[(i % self.conns.len() as u64) as usize];
        let off = self.cfg.offset as u64 + i * self.cfg.size as u64;
        let wr = WorkRequest { wr_id: i, op: WrOp::Read, len: self.cfg.size, inline: false, signaled: true, remote_va: SERVER_VA + off };
        w.post_read(qp, wr, CLIENT_VA + off);
        self.posted += 1;
    }

    pub fn handle(&mut self, w: &mut World, ev: AppEvent) {
        match ev {
            AppEvent::Start => {
                self.setup = self.register(w);
                w.app_at(w.now() + self.setup, self.app, AppEvent::Timer(TAG_START));
            }
            AppEvent::Timer(_) => {
                if self.posted == 0 {
                    self.t_start = w.now();
                }
                if self.cfg.interval_us <= 0.0 {
                    while self.posted < self.cfg.reads {
                        self.post(w);
                    }
                } else {
                    self.post(w);
                    if self.posted < self.cfg.reads {
                        let at = w.now() + Time::from_ns_f64(self.cfg.interval_us * 1e3);
                        w.app_at(at, self.app, AppEvent::Timer(self.posted));
                    }
                }
            }
            AppEvent::Completion(c) => self.on_completion(w, c),
            _ => {}
        }
    }

    fn on_completion(&mut self, w: &mut World, c: Cqe) {
        self.completed += 1;
        if c.status != WcStatus::Success {
            self.errors += 1;
        }
        self.finish_us.push((c.wr_id, (w.now() - self.t_start).as_us_f64()));
        if self.completed == self.cfg.reads {
            self.t_end = Some(w.now());
            self.done = true;
            self.counts = counts(w, self.cfg.client, self.cfg.server);
        }
    }

    pub fn progress(&self) -> f64 {
        if self.done {
            1.0
        } else {
            self.completed as f64 / self.cfg.reads as f64
        }
    }

    pub fn tables(&self, w: &World, out: &mut Tables) {
        let c = &self.cfg;
        let run_time_us = self.t_end.map(|t| (t - self.t_start).as_us_f64());
        // A run that did not finish (stalled, or stopped at its time limit) reports the
        // counters as they are at the end, so the stall can be diagnosed.
        let counts = if self.done { self.counts.clone() } else { counts(w, c.client, c.server) };
        let mut r = row(json!({
            "reads": c.reads, "size": c.size, "qps": c.qps, "interval_us": c.interval_us,
            "client_odp": c.client_odp, "server_odp": c.server_odp, "prefetch": c.prefetch,
            "pages": self.buffer_len().div_ceil(PAGE),
            "setup_us": self.setup.as_us_f64(), "run_time_us": run_time_us,
            "completed": self.completed, "errors": self.errors,
        }));
        r.extend(counts);
        out.push("odp_reads", r);
        let page = |i: u64| (c.offset as u64 + i * c.size as u64) / PAGE;
        out.extend("odp_finish", self.finish_us.iter().enumerate().map(|(n, &(i, t))| {
            row(json!({ "n": n + 1, "read": i, "qp": i % c.qps as u64, "page": page(i), "t_us": t }))
        }));
    }
}

/// The counters a sweep over this workload reads, at the end of the run.
fn counts(w: &World, client: u32, server: u32) -> crate::report::tables::Row {
    let (c, s) = (&w.hcas[w.hca_of(HostId(client))], &w.hcas[w.hca_of(HostId(server))]);
    row(json!({
        "packets": w.net.packet_hops(),
        "client_page_faults": c.odp.stats.requester_page_faults,
        "server_page_faults": s.odp.stats.responder_page_faults,
        "fault_events": c.odp.stats.requester_fault_events,
        "stale_faults": c.odp.stats.stale_faults,
        "dropped_responses": c.odp.stats.dropped_responses,
        "fault_rnr_naks": s.odp.stats.fault_rnr_naks,
        "local_ack_timeouts": c.counters.local_ack_timeout_err,
        "seq_naks": c.counters.packet_seq_err,
        "implied_naks": c.counters.implied_nak_seq_err,
        "rnr_naks_received": c.counters.rnr_nak_retry_err,
        "retransmitted_packets": c.counters.retransmitted_packets,
        "pinned_pages": c.odp.mrs.iter().chain(s.odp.mrs.iter()).filter(|m| m.mode == MrMode::Pinned).map(|m| m.present.len() as u64).sum::<u64>(),
    }))
}
