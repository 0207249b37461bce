//! The host CPU model: application threads (one core each) with the cost of posting, and how a
//! thread learns of completions — busy polling (a core spinning on ibv_poll_cq) or event-driven
//! (ibv_req_notify_cq, an interrupt, a wake-up from the core's idle state, then polling), with
//! the CPU time each costs. A completion reaches the completion channel (`cq`) of its QP and
//! is handled by the QP's thread.
pub mod cstate;
pub mod noise;
pub mod thread;

use crate::engine::Time;
use crate::ids::{HcaId, HostId, ThreadId};
use crate::hca::cq::Cqe;
use crate::profile::HwProfile;
use crate::world::{AppEvent, Event, World};
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
    pub fn new(p: &HwProfile, seed: u64, index: HostId) -> Host {
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
    pub app: u32,
    pub mode: PollMode,
    /// A wake-up is on its way (event mode): completions that land meanwhile ride along.
    wake_pending: bool,
    pending: VecDeque<Cqe>,
    pub events: u64,
}

impl Poller {
    pub fn new(app: u32, mode: PollMode) -> Poller {
        Poller { app, mode, wake_pending: false, pending: VecDeque::new(), events: 0 }
    }
}

impl World {
    /// The (completion channel, thread) of the QP a CQE belongs to.
    fn cqe_owner(&self, cqe: &Cqe) -> (u32, ThreadId) {
        let hca = &self.hcas[cqe.hca];
        match hca.qp_index(cqe.qp) {
            Some(i) => (hca.qps[i].cq, hca.qps[i].thread),
            None => (0, self.main_thread(cqe.hca)),
        }
    }

    /// A CQE landed in host memory: decide when the application sees it.
    pub(crate) fn on_cqe_visible(&mut self, pollers: &mut [Poller], cqe: Cqe) {
        let now = self.now();
        let (cq, th) = self.cqe_owner(&cqe);
        let p = &mut pollers[cq as usize];
        let app = p.app;
        let hw = &self.profiles[self.hosts[self.threads[th].host].hw as usize];
        let (poll, interrupt, wakeup, event_cpu) = (hw.poll_cq_ns, hw.interrupt_ns, hw.wakeup_ns, hw.event_cpu_ns);
        let poll = Time::from_ns_f64(poll);
        match p.mode {
            PollMode::Busy => {
                // The thread that owns the completed QP notices it (after a tick's detour).
                let at = self.threads[th].notice(now, poll);
                self.app_at(at, app, AppEvent::Completion(cqe));
            }
            PollMode::Event => {
                p.pending.push_back(cqe);
                if !p.wake_pending {
                    p.wake_pending = true;
                    p.events += 1;
                    let irq = now + Time::from_ns_f64(interrupt);
                    let exit = self.idle_exit_delay(th, irq);
                    let busy_until = self.threads[th].cpu_free;
                    // A thread still at work when the interrupt has queued the event (posting a
                    // deep queue, say) is not blocked in ibv_get_cq_event: it reads the event
                    // when that work is done, with no wake-up. A sleeping one is woken.
                    let wake = if irq <= busy_until { busy_until } else { irq + Time::from_ns_f64(wakeup) + exit };
                    self.threads[th].charge_event(wake, Time::from_ns_f64(event_cpu));
                    self.q.at(wake, Event::CqWake { cq });
                }
            }
        }
    }

    /// The woken thread polls everything that is there, one completion after another, then
    /// re-arms the CQ: each completion is handled when its poll is done, as a busy poller's.
    pub(crate) fn drain_poller(&mut self, pollers: &mut [Poller], cq: u32) {
        let now = self.q.now();
        let p = &mut pollers[cq as usize];
        p.wake_pending = false;
        let app = p.app;
        while let Some(c) = p.pending.pop_front() {
            let (_, th) = self.cqe_owner(&c);
            let poll = Time::from_ns_f64(self.thread_hw(th).poll_cq_ns);
            let seen = self.threads[th].run(now, poll);
            self.app_at(seen, app, AppEvent::Completion(c));
        }
    }
}
