//! Application threads. Each thread runs on its own core: it posts work requests and handles
//! completions one thing at a time (`cpu_free`), and counts the CPU time it spends. A thread
//! that waits by event sleeps between completions; when its core went into a deep idle state
//! (see [`super::cstate`]) the wake-up pays that state's exit latency.
use crate::engine::Time;
use crate::ids::{HostId, ThreadId, TiSlice};
use crate::host::cstate;

pub struct CpuThread {
    pub host: HostId,
    /// The thread is busy (posting, handling) until then.
    pub cpu_free: Time,
    /// CPU time spent in verbs calls, polling and event handling.
    pub cpu_busy: Time,
    /// Spins on ibv_poll_cq (or on memory): the whole core is used for as long as it runs.
    pub busy_poll: bool,
    /// Length of the last idle period: the idle governor's prediction of the next one. None
    /// before the thread first slept: no idle history, and a thread blocked in
    /// ibv_get_cq_event arms no timer, so the governor sees a long idle ahead (the deepest
    /// state; docs/isolation.md 2.2).
    pub last_idle: Option<Time>,
    /// Event-mode wake-ups and the idle-state exit latency they paid in total.
    pub wakeups: u64,
    pub idle_exit_total: Time,
    /// Its host's scheduler tick (host/noise.rs): work that overlaps a tick waits for it.
    pub tick: super::noise::TickNoise,
    /// The last event-handling span charged to `cpu_busy` (`charge_event`).
    pub event_charged_from: Time,
    pub event_charged_until: Time,
}

impl CpuThread {
    pub fn new(host: HostId) -> CpuThread {
        CpuThread { host, cpu_free: Time::ZERO, cpu_busy: Time::ZERO, busy_poll: false, last_idle: None, wakeups: 0, idle_exit_total: Time::ZERO, tick: super::noise::TickNoise::OFF, event_charged_from: Time::ZERO, event_charged_until: Time::ZERO }
    }

    /// Runs `cost` of work on the thread from `now` (or when it is next free); returns its end.
    #[inline]
    pub fn run(&mut self, now: Time, cost: Time) -> Time {
        let start = now.max(self.cpu_free);
        self.cpu_free = self.tick.finish(start, cost);
        self.cpu_busy += cost;
        // An event span is charged when its interrupt is raised, from the end of the work
        // known then; work handed to the thread afterwards (the handlers of completions it had
        // already polled) can land inside that span. One core does one or the other: the
        // overlap is the thread working, not waiting for the event, so it is not charged twice
        // (ib_send_bw -e, 4 KiB: the server read 105 % of its core before).
        // (`busy_at` leaves the same overlap out of the span's remainder.)
        let overlap = self.cpu_free.min(self.event_charged_until).saturating_sub(start.max(self.event_charged_from)).min(cost);
        self.cpu_busy = self.cpu_busy.saturating_sub(overlap);
        self.cpu_free
    }

    /// Charges the CPU time of one completion event (interrupt, wake-up, the kernel's part of
    /// ibv_get_cq_event) as the `cost` that ends when the thread is woken at `wake`. Only the
    /// part after the thread's own work and after the previous event's span is charged: the
    /// spans are in real time on one core, so a deep queue of events cannot add up to more
    /// than the core (it did: 165 % for an event-polled SEND flow of depth 1000). With one
    /// message outstanding the spans never overlap and the whole `cost` is charged.
    pub fn charge_event(&mut self, wake: Time, cost: Time) {
        let from = wake.saturating_sub(cost).max(self.cpu_free).max(self.event_charged_until);
        self.cpu_busy += wake.saturating_sub(from);
        if wake > self.event_charged_until {
            self.event_charged_from = from;
            self.event_charged_until = wake;
        }
    }

    /// CPU time spent by `t` (the present or later). `cpu_busy` counts work when it is posted
    /// and an event's span when its interrupt is raised, and both can end after `t`: a deep
    /// queue posted at once keeps the core busy well past it (an event-polled SEND flow of
    /// depth 1000 read 100.1 % and 100.3 % of a core at the end of its run). Taken out here:
    /// the queued work after `t` — from `t` to `cpu_free` it runs without a gap, as each block
    /// starts at its post (at or before `t`) or where the one before it ends, less the tick's
    /// detours in between — and the part of the last event span after `t` (a thread has at
    /// most one wake-up pending per completion channel).
    pub fn busy_at(&self, t: Time) -> Time {
        let work_after = self.cpu_free.saturating_sub(t).saturating_sub(self.tick.detours_in(t, self.cpu_free));
        // The part of the last event span after `t`, less the work that runs inside it (work
        // handed over after the span was charged took that part of it: `run`).
        let span_from = t.max(self.event_charged_from);
        let work_in_span = self.event_charged_until.min(self.cpu_free).saturating_sub(span_from);
        let event_after = self.event_charged_until.saturating_sub(span_from).saturating_sub(work_in_span);
        self.cpu_busy.saturating_sub(work_after + event_after)
    }

    /// The idle state (index as in [`cstate::state_for`]) the governor picks for this thread's
    /// core when it goes idle: from the last idle period, the deepest without history.
    pub fn predicted_state(&self, states: &[cstate::IdleState]) -> usize {
        self.last_idle.map_or(states.len(), |t| cstate::state_for(states, t))
    }
}

/// An interrupt for `thread`, blocked in ibv_get_cq_event, arrives at `irq`: the extra delay
/// before the thread runs again, the exit latency of the idle state (`states`: its host's
/// table) its core entered, with the package part when every other core of the host is asleep
/// too. A thread still busy at `irq` never slept.
pub fn idle_exit_delay(threads: &mut TiSlice<ThreadId, CpuThread>, states: &[cstate::IdleState], thread: ThreadId, irq: Time) -> Time {
    let th = &threads[thread];
    if irq <= th.cpu_free {
        threads[thread].wakeups += 1;
        return Time::ZERO;
    }
    let idle = irq - th.cpu_free;
    // The governor picked the state when the core went idle, from the idle it predicted.
    let core = th.predicted_state(states);
    let package = package_state(threads, states, th.host, thread, core, irq);
    let exit = cstate::exit_latency(states, core, package);
    let th = &mut threads[thread];
    th.wakeups += 1;
    th.last_idle = Some(idle);
    th.idle_exit_total += exit;
    exit
}

/// The package C-state of `host` at `t` as seen by `thread` waking from `core`: the
/// shallowest state of the host's cores. A busy-polling or running thread's core is in C0
/// (0); a sleeping one is in the state its governor picked (the deepest if it never slept
/// before: no idle history and no timer). Cores without an
/// application thread are assumed idle in the deepest state (no OS background).
fn package_state(threads: &TiSlice<ThreadId, CpuThread>, states: &[cstate::IdleState], host: HostId, thread: ThreadId, core: usize, t: Time) -> usize {
    let mut package = core;
    for (i, other) in threads.iter_enumerated() {
        if package == 0 {
            break;
        }
        if other.host != host || i == thread {
            continue;
        }
        let s = if other.busy_poll || other.cpu_free > t { 0 } else { other.predicted_state(states) };
        package = package.min(s);
    }
    package
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_spans_are_charged_once_in_real_time() {
        let cost = Time::us(4);
        // Events 10 us apart: each pays its whole 4 us.
        let mut t = CpuThread::new(HostId(0));
        t.charge_event(Time::us(10), cost);
        t.charge_event(Time::us(20), cost);
        assert_eq!(t.cpu_busy, Time::us(8));
        // Wakes 1 us apart: the spans 6..10 and 7..11 us cover 5 us of the core, not 8.
        let mut t = CpuThread::new(HostId(0));
        t.charge_event(Time::us(10), cost);
        t.charge_event(Time::us(11), cost);
        assert_eq!(t.cpu_busy, Time::us(5));
        // Work the thread already did (posting until 8 us) is not charged again.
        let mut t = CpuThread::new(HostId(0));
        t.run(Time::us(5), Time::us(3));
        t.charge_event(Time::us(10), cost);
        assert_eq!(t.cpu_busy, Time::us(3) + Time::us(2));
    }

    #[test]
    fn busy_at_leaves_out_work_and_event_spans_still_to_come() {
        let mut t = CpuThread::new(HostId(0));
        // 100 posts of 100 ns queued at 10 us: 10 us of work, 2 us of it done at 12 us.
        for _ in 0..100 {
            t.run(Time::us(10), Time::ns(100));
        }
        assert_eq!(t.cpu_busy, Time::us(10));
        assert_eq!(t.busy_at(Time::us(12)), Time::us(2));
        assert_eq!(t.busy_at(Time::us(20)), Time::us(10));
        assert_eq!(t.busy_at(Time::us(30)), Time::us(10));
        // An event span 26..30 us, charged when its interrupt came: 1 us of it by 27 us.
        t.charge_event(Time::us(30), Time::us(4));
        assert_eq!(t.busy_at(Time::us(27)), Time::us(11));
        assert_eq!(t.busy_at(Time::us(30)), Time::us(14));
        // Work handed over inside an event span (6..10 us, charged at 0..1 us of work) runs
        // 7..9 us: by 8 us the core did 0..1, 6..7 (event) and 7..8 (work).
        let mut u = CpuThread::new(HostId(0));
        u.run(Time::ZERO, Time::us(1));
        u.charge_event(Time::us(10), Time::us(4));
        u.run(Time::us(7), Time::us(2));
        assert_eq!(u.cpu_busy, Time::us(5));
        assert_eq!(u.busy_at(Time::us(8)), Time::us(3));
        assert_eq!(u.busy_at(Time::us(10)), Time::us(5));
        // Before anything ran: nothing (not an underflow).
        assert_eq!(t.busy_at(Time::us(5)), Time::ZERO);
    }
}
