//! One SRQ flow-control episode, timed as seeds/001 sec. 4.1.2 times it (figs. 7 and 8).
//!
//! A sender streams one-packet SENDs (each posted after the previous one completed, so the pool
//! drains deterministically) into a receiver's SRQ that holds `refill` buffers.
//!
//! - stop-resume: the sender's `refill + 1`-th SEND overflows the SRQ (t1 = its post). The HCA
//!   sends a stop request and records the source; the polling receiver notices (t2), posts
//!   `refill` buffers (t3), sends a resume request; the sender's HCA retransmits and the
//!   receiver polls the completion (t4). t_poll = t2 - t1.
//! - srq-limit: the SEND that leaves fewer than `srq_limit` buffers (t1) raises
//!   SRQ_LIMIT_REACHED; the woken thread starts (t2 = t_int later), posts `refill` buffers
//!   (t3) and re-arms the limit (t4 = t3 + t_setev).
//!
//! The episode is t4 - t1. Every time comes out of the simulated mechanism; the components the
//! study measured (t_int, t_setev, t_poll) enter as profile parameters with that source.
use crate::engine::Time;
use crate::ids::{AppId, HostId};
use crate::hca::cq::{Cqe, WcOpcode, WcStatus};
use crate::hca::qp::{QpAttr, WorkRequest, WrOp};
use crate::hca::srq::SrqRef;
use crate::scenario::srq::SrqFlowControl;
use crate::hca::qp::QpRef;
use crate::report::tables::{row, Tables};
use crate::world::{AppEvent, World};
use serde_json::json;

pub use crate::scenario::srq_episode::SrqEpisodeSection;

const TAG_FILL: u64 = 1;
const TAG_DONE: u64 = 2;

pub struct SrqEpisode {
    app: AppId,
    cfg: SrqEpisodeSection,
    sender: QpRef,
    srq: Option<SrqRef>,
    /// SENDs before the one that starts the episode.
    pre: u32,
    sent: u32,
    send_done: u32,
    received: u32,
    /// When the last SEND was received (polled).
    last_recv: Option<Time>,
    /// t1..t4 of the episode.
    t: [Option<Time>; 4],
    errors: u64,
    pub done: bool,
}

impl SrqEpisode {
    pub fn new(w: &mut World, app: AppId, cfg: &SrqEpisodeSection, attr: QpAttr) -> SrqEpisode {
        let (sender, receiver) = w.connect_rc(w.hca_of(HostId(cfg.client)), app, w.hca_of(HostId(cfg.server)), app, attr);
        let nodes = w.hosts.len() as u32;
        let srq = w.create_srq(w.hca_of(HostId(cfg.server)), app, cfg.method, nodes, 1);
        w.attach_srq(receiver, srq, cfg.client, 0);
        let pre = match cfg.method {
            SrqFlowControl::StopResume => cfg.refill,
            SrqFlowControl::SrqLimit => cfg.refill - cfg.srq_limit,
        };
        SrqEpisode { app, cfg: cfg.clone(), sender, srq: Some(srq), pre, sent: 0, send_done: 0, received: 0, last_recv: None, t: [None; 4], errors: 0, done: false }
    }

    pub fn progress(&self) -> f64 {
        if self.done {
            1.0
        } else {
            self.t.iter().filter(|t| t.is_some()).count() as f64 / 4.0
        }
    }

    pub fn handle(&mut self, w: &mut World, ev: AppEvent) {
        let Some(srq) = self.srq else { return };
        match ev {
            AppEvent::Start => {
                let mut ready = w.post_srq_recv(srq, 0, self.cfg.refill, self.cfg.packet_bytes);
                if self.cfg.method == SrqFlowControl::SrqLimit {
                    ready = w.arm_srq_limit(srq, self.cfg.srq_limit);
                }
                w.app_at(ready, self.app, AppEvent::Timer(TAG_FILL));
            }
            AppEvent::Timer(TAG_FILL) => self.send_next(w),
            AppEvent::Timer(TAG_DONE) => self.check_done(),
            AppEvent::Completion(c) => self.on_completion(w, c),
            AppEvent::SrqOverflow { .. } => {
                self.t[1] = Some(w.now());
                self.t[2] = Some(w.post_srq_recv(srq, self.cfg.refill as u64, self.cfg.refill, self.cfg.packet_bytes));
                w.srq_resume(srq);
            }
            AppEvent::SrqLimitReached { .. } => {
                self.t[1] = Some(w.now());
                self.t[2] = Some(w.post_srq_recv(srq, self.cfg.refill as u64, self.cfg.refill, self.cfg.packet_bytes));
                let armed = w.arm_srq_limit(srq, self.cfg.srq_limit);
                self.t[3] = Some(armed);
                w.app_at(armed, self.app, AppEvent::Timer(TAG_DONE));
            }
            _ => {}
        }
    }

    fn send_next(&mut self, w: &mut World) {
        let n = if self.sent == self.pre {
            // The process calls ibv_post_send now: that is the study's t1.
            self.t[0] = Some(w.now().max(w.threads[World::host_thread(HostId(self.cfg.client))].cpu_free));
            self.cfg.burst
        } else {
            1
        };
        for _ in 0..n {
            let wr = WorkRequest { wr_id: self.sent as u64, op: WrOp::Send, len: self.cfg.packet_bytes, inline: self.cfg.inline, signaled: true, remote_va: 0 };
            w.post_send(self.sender, wr);
            self.sent += 1;
        }
    }

    /// Over when the episode is timed and every SEND was received and completed.
    fn check_done(&mut self) {
        let total = self.pre + self.cfg.burst;
        self.done = self.t[3].is_some() && self.send_done == total && self.received == total;
    }

    fn on_completion(&mut self, w: &mut World, c: Cqe) {
        if c.status != WcStatus::Success {
            self.errors += 1;
            self.done = true;
            return;
        }
        match c.opcode {
            WcOpcode::Send => {
                self.send_done += 1;
                if self.sent <= self.pre {
                    self.send_next(w);
                }
            }
            WcOpcode::Recv => {
                self.received += 1;
                self.last_recv = Some(w.now());
                // Stop/resume: the retransmitted SEND that overflowed is polled: t4.
                if self.received == self.pre + 1 && self.cfg.method == SrqFlowControl::StopResume && self.t[2].is_some() {
                    self.t[3] = Some(w.now());
                }
            }
            _ => {}
        }
        self.check_done();
    }

    pub fn tables(&self, out: &mut Tables) {
        let names = match self.cfg.method {
            SrqFlowControl::StopResume => ["t_poll", "t_refill", "t_resume"],
            SrqFlowControl::SrqLimit => ["t_int", "t_refill", "t_setev"],
        };
        let us = |a: Option<Time>, b: Option<Time>| match (a, b) {
            (Some(a), Some(b)) => json!(b.saturating_sub(a).as_us_f64()),
            _ => serde_json::Value::Null,
        };
        for (i, name) in names.iter().enumerate() {
            out.push("srq_episode", row(json!({
                "method": self.cfg.method, "component": name,
                "start_us": us(self.t[0], self.t[i]), "duration_us": us(self.t[i], self.t[i + 1]),
            })));
        }
        out.push("srq_episode", row(json!({
            "method": self.cfg.method, "component": "total", "start_us": 0.0,
            "duration_us": us(self.t[0], self.t[3]), "errors": self.errors,
            "all_received_us": us(self.t[0], self.last_recv), "sends": self.sent, "received": self.received,
        })));
    }
}
