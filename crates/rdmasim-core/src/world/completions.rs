//! How a completion reaches the application: the CQE lands in host memory, and the thread that
//! owns its QP notices it by busy polling, or is interrupted and woken from its core's idle state
//! and polls (host/: the threads, their idle states and costs; hca/: the CQE).
use super::{AppEvent, Event, World};
use crate::engine::Time;
use crate::hca::cq::Cqe;
use crate::host::{PollMode, Poller};
use crate::ids::{CqId, ThreadId, TiSlice};

impl World {
    /// The (completion channel, thread) of the QP a CQE belongs to.
    fn cqe_owner(&self, cqe: &Cqe) -> (CqId, ThreadId) {
        let hca = &self.hcas[cqe.hca];
        match hca.qp_index(cqe.qp) {
            Some(i) => (hca.qps[i].cq, hca.qps[i].thread),
            None => (CqId(0), self.main_thread(cqe.hca)),
        }
    }

    /// The NIC raises an asynchronous event (`ibv_get_async_event`'s), `raise_ns` after `now`,
    /// for the process `app` whose handler runs on `thread`: the host wakes the handler, which tells
    /// the application. Its CPU time is charged now, when the interrupt is raised, as a
    /// completion event's is (host/thread.rs `charge_event`); the handler runs on the owning
    /// process's core (its async thread shares it).
    pub(crate) fn async_event_raised(&mut self, now: Time, raise_ns: f64, thread: ThreadId, app: crate::ids::AppId, ev: AppEvent) {
        let p = self.thread_hw(thread);
        let (delay, cpu) = (Time::from_ns_f64(raise_ns + p.wakeup_ns), Time::from_ns_f64(p.event_cpu_ns));
        self.threads[thread].cpu_busy += cpu;
        self.app_at(now + delay, app, ev);
    }

    /// A CQE landed in host memory: decide when the application sees it.
    pub(crate) fn on_cqe_visible(&mut self, pollers: &mut TiSlice<CqId, Poller>, cqe: Cqe) {
        let now = self.now();
        let (cq, th) = self.cqe_owner(&cqe);
        let p = &mut pollers[cq];
        let app = p.app;
        let hw = self.thread_hw(th);
        let (poll, interrupt, wakeup, event_cpu) = (hw.poll_cq_ns, hw.interrupt_ns, hw.wakeup_ns, hw.event_cpu_ns);
        let poll = Time::from_ns_f64(poll);
        match p.mode {
            PollMode::Busy => {
                // The thread that owns the completed QP notices it (after a tick's detour).
                let at = self.threads[th].notice(now, poll);
                self.app_at(at, app, AppEvent::Completion(cqe));
            }
            PollMode::Event => {
                if p.queue(cqe) {
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
    pub(crate) fn drain_poller(&mut self, pollers: &mut TiSlice<CqId, Poller>, cq: CqId) {
        let now = self.q.now();
        let p = &mut pollers[cq];
        let app = p.app;
        for c in p.woken() {
            let (_, th) = self.cqe_owner(&c);
            let poll = Time::from_ns_f64(self.thread_hw(th).poll_cq_ns);
            let seen = self.threads[th].run(now, poll);
            self.app_at(seen, app, AppEvent::Completion(c));
        }
    }
}
