//! The host CPU model: application threads (one core each) with the cost of posting, and how a
//! thread learns of completions — busy polling (a core spinning on ibv_poll_cq) or event-driven
//! (ibv_req_notify_cq, an interrupt, a wake-up from the core's idle state, then polling), with
//! the CPU time each costs. A completion reaches the completion channel (`cq`) of its QP and
//! is handled by the QP's thread.
pub mod cstate;
pub mod noise;
pub mod thread;

use crate::engine::Time;
use crate::ids::{AppId, HcaId, HostId};
use crate::hca::cq::Cqe;
use crate::profile::HostParams;
use std::collections::VecDeque;

pub use thread::CpuThread;

pub struct Host {
    /// Its HCAs, in rail order.
    pub hcas: Vec<HcaId>,
    /// Its profile in `World::profiles`.
    pub hw: u16,
    pub post_cost: Time,
    /// The scheduler tick every core of this host sees (OS noise; off by default).
    pub tick: noise::TickNoise,
}

impl Host {
    pub fn new(p: &HostParams, seed: u64, index: HostId) -> Host {
        Host { hcas: Vec::new(), hw: 0, post_cost: Time::from_ns_f64(p.post_send_cpu_ns), tick: noise::TickNoise::for_host(p, seed, index.0) }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PollMode {
    /// Spin on ibv_poll_cq: a completion is seen one poll iteration after it lands; costs a core.
    Busy,
    /// Block in ibv_get_cq_event: interrupt + wake-up per event; CPU only per event.
    Event,
}

/// A completion channel: the CQ(s) one application polls or waits on, in one mode.
pub struct Poller {
    /// The application its completions go to.
    pub app: AppId,
    pub mode: PollMode,
    /// A wake-up is on its way (event mode): completions that land meanwhile ride along.
    wake_pending: bool,
    pending: VecDeque<Cqe>,
    pub events: u64,
}

impl Poller {
    pub fn new(app: AppId, mode: PollMode) -> Poller {
        Poller { app, mode, wake_pending: false, pending: VecDeque::new(), events: 0 }
    }

    /// Event mode: `cqe` waits for the thread; true when it is the first since the last
    /// wake-up (an event must be raised), false when it rides along with one on its way.
    pub fn queue(&mut self, cqe: Cqe) -> bool {
        self.pending.push_back(cqe);
        if self.wake_pending {
            return false;
        }
        self.wake_pending = true;
        self.events += 1;
        true
    }

    /// The thread woke: the completions waiting for it, in order (the next ones raise a new
    /// event).
    pub fn woken(&mut self) -> std::collections::vec_deque::Drain<'_, Cqe> {
        self.wake_pending = false;
        self.pending.drain(..)
    }
}
