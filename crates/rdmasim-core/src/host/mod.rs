//! The host CPU model: the cost of posting, and how an application learns of completions —
//! busy polling (a core spinning on ibv_poll_cq) or event-driven (ibv_req_notify_cq, an
//! interrupt, a wake-up, then polling), with the CPU time each costs.
use crate::engine::Time;
use crate::hca::cq::Cqe;
use crate::hca::profile::HwProfile;
use crate::world::{AppEvent, Event, World};
use std::collections::VecDeque;

pub struct Host {
    /// The application thread is busy (posting, handling) until then.
    pub cpu_free: Time,
    /// CPU time spent in verbs calls and event handling.
    pub cpu_busy: Time,
    pub post_cost: Time,
}

impl Host {
    pub fn new(p: &HwProfile) -> Host {
        Host { cpu_free: Time::ZERO, cpu_busy: Time::ZERO, post_cost: Time::from_ns_f64(p.post_send_cpu_ns) }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PollMode {
    /// Spin on ibv_poll_cq: a completion is seen one poll iteration after it lands; costs a core.
    Busy,
    /// Block in ibv_get_cq_event: interrupt + wake-up per event; CPU only per event.
    Event,
}

/// An application's completion channel.
pub struct Poller {
    /// Hosts whose application threads poll (or wait on) this completion channel.
    pub hosts: Vec<u32>,
    pub mode: PollMode,
    /// A wake-up is on its way (event mode): completions that land meanwhile ride along.
    wake_pending: bool,
    pending: VecDeque<Cqe>,
    pub events: u64,
}

impl Poller {
    pub fn new(hosts: Vec<u32>, mode: PollMode) -> Poller {
        Poller { hosts, mode, wake_pending: false, pending: VecDeque::new(), events: 0 }
    }
}

impl World {
    /// A CQE landed in host memory: decide when the application sees it.
    pub(crate) fn on_cqe_visible(&mut self, pollers: &mut [Poller], app: u32, cqe: Cqe) {
        let now = self.now();
        let p = &mut pollers[app as usize];
        let poll = Time::from_ns_f64(self.profile.poll_cq_ns);
        match p.mode {
            PollMode::Busy => {
                // The thread of the host that owns the completed QP notices it.
                let at = now.max(self.hosts[cqe.hca as usize].cpu_free) + poll;
                self.q.at(at, Event::App { app, ev: AppEvent::Completion(cqe) });
            }
            PollMode::Event => {
                p.pending.push_back(cqe);
                if !p.wake_pending {
                    p.wake_pending = true;
                    p.events += 1;
                    let delay = Time::from_ns_f64(self.profile.interrupt_ns + self.profile.wakeup_ns);
                    self.hosts[cqe.hca as usize].cpu_busy += Time::from_ns_f64(self.profile.event_cpu_ns);
                    self.q.at(now + delay, Event::App { app, ev: AppEvent::CqWake });
                }
            }
        }
    }

    /// The woken application polls everything that is there, then re-arms the CQ.
    pub(crate) fn drain_poller(&mut self, pollers: &mut [Poller], app: u32, out: &mut Vec<Cqe>) {
        let poll = Time::from_ns_f64(self.profile.poll_cq_ns);
        let now = self.q.now();
        let p = &mut pollers[app as usize];
        p.wake_pending = false;
        while let Some(c) = p.pending.pop_front() {
            let host = &mut self.hosts[c.hca as usize];
            host.cpu_free = now.max(host.cpu_free) + poll;
            host.cpu_busy += poll;
            out.push(c);
        }
    }
}
