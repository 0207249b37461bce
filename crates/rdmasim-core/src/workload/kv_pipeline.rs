//! HERD's 2-stage server pipeline (efficient/HERD `main.c`, `run_server` and
//! `process_pipeline`; SIGCOMM'14 code, the one the isolation study cites).
//!
//! HERD's server does not answer a request when it finds it. Every item it pushes into its
//! 2-slot pipeline first advances the pipeline, and the item pushed two pushes earlier comes
//! out and, if it is a real request, is answered with one SEND. Pushes are either requests
//! (when the polling loop finds one) or DUMMY items: the loop counts empty polls in
//! `failed_polls`, and when it reaches `FAIL_LIM` (100 in common.h) it pushes a dummy and only
//! then resets the count (a real request does not reset it). So a request's response leaves at
//! the second push after its own: two later requests, or dummies after `FAIL_LIM` empty polls.
//!
//! Modelled: the pipeline order and the dummy pushes, with empty polls accruing one per
//! `empty_poll_ns` while the server thread is not processing a request. Not modelled: the
//! loop's sweep over HERD's 36 client slots between two looks at our client's slot (a request
//! is noticed one CQ-poll time after it lands, as without the pipeline), and the CPU time of a
//! dummy push. Everything is O(1) per push; a dummy is one timer event, superseded (by `gen`)
//! when a request is noticed before it is due.
use crate::engine::Time;
use std::collections::VecDeque;

pub struct ServerPipeline {
    /// The two pipeline slots: true = a real request. `next` is where the next push goes, which
    /// is also the slot whose item comes out of that push.
    slots: [bool; 2],
    next: usize,
    fail_lim: u64,
    empty_poll: Time,
    /// Empty polls counted since the last dummy, as of `polls_from`, when the loop last
    /// started polling (the end of the last push).
    failed: u64,
    polls_from: Time,
    /// When requests being processed or queued were noticed, oldest first.
    seen: VecDeque<Time>,
    /// The dummy push that is due, if one is scheduled: its time and generation.
    dummy: Option<(Time, u32)>,
    gen: u32,
}

/// What a push does: answer the oldest unanswered request, and/or schedule a dummy push.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PushOutcome {
    pub answer: bool,
    pub dummy_at: Option<(Time, u32)>,
}

impl ServerPipeline {
    pub fn new(fail_lim: u64, empty_poll_ns: f64, window: usize) -> ServerPipeline {
        ServerPipeline {
            slots: [false; 2],
            next: 0,
            fail_lim: fail_lim.max(1),
            empty_poll: Time::from_ns_f64(empty_poll_ns),
            failed: 0,
            polls_from: Time::ZERO,
            seen: VecDeque::with_capacity(window),
            dummy: None,
            gen: 0,
        }
    }

    /// A request was noticed at `seen` (its processing starts then). A dummy due after that
    /// cannot happen: the loop stopped polling to process the request.
    pub fn on_noticed(&mut self, seen: Time) {
        self.seen.push_back(seen);
        if matches!(self.dummy, Some((t, _)) if t > seen) {
            self.dummy = None;
        }
    }

    /// The oldest noticed request has been processed at `now`: it enters the pipeline.
    pub fn push_request(&mut self, now: Time) -> PushOutcome {
        let seen = self.seen.pop_front().unwrap_or(now);
        self.count_polls_until(seen);
        self.polls_from = now;
        let answer = self.push(true);
        PushOutcome { answer, dummy_at: self.schedule_dummy(now) }
    }

    /// A dummy timer fired; `gen` tells whether it is still the one due.
    pub fn on_dummy_timer(&mut self, now: Time, gen: u32) -> PushOutcome {
        if self.dummy != Some((now, gen)) {
            return PushOutcome::default();
        }
        self.dummy = None;
        self.failed = 0;
        self.polls_from = now;
        let answer = self.push(false);
        PushOutcome { answer, dummy_at: self.schedule_dummy(now) }
    }

    /// Empty polls between `polls_from` and `until`; dummies pushed in that time with nothing
    /// real in the pipeline (not scheduled, as they answer nothing) only reset the count.
    fn count_polls_until(&mut self, until: Time) {
        if until > self.polls_from && self.empty_poll > Time::ZERO {
            let n = (until - self.polls_from).as_ps() / self.empty_poll.as_ps();
            self.failed = (self.failed + n) % self.fail_lim;
        }
    }

    fn push(&mut self, real: bool) -> bool {
        let out = self.slots[self.next];
        self.slots[self.next] = real;
        self.next ^= 1;
        out
    }

    /// The next dummy, if the pipeline holds a request and the loop reaches FAIL_LIM empty
    /// polls before it notices the next request already waiting.
    fn schedule_dummy(&mut self, now: Time) -> Option<(Time, u32)> {
        self.dummy = None;
        if !self.slots.iter().any(|&r| r) {
            return None;
        }
        let at = now + Time::ps(self.empty_poll.as_ps().saturating_mul(self.fail_lim - self.failed));
        if matches!(self.seen.front(), Some(&s) if s < at) {
            return None;
        }
        self.gen = self.gen.wrapping_add(1) & 0x7fff_ffff;
        self.dummy = Some((at, self.gen));
        self.dummy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_request_leaves_after_two_dummies() {
        let mut p = ServerPipeline::new(100, 2.0, 4);
        p.on_noticed(Time::ns(1000));
        let o = p.push_request(Time::ns(1200));
        assert!(!o.answer);
        // 100 empty polls of 2 ns from the end of the push; the 500 polls before it (1000 ns
        // since time 0) wrapped the count exactly.
        assert_eq!(o.dummy_at.map(|d| d.0), Some(Time::ns(1400)));
        let (t, g) = o.dummy_at.unwrap();
        let o = p.on_dummy_timer(t, g);
        assert!(!o.answer);
        let (t, g) = o.dummy_at.unwrap();
        assert_eq!(t, Time::ns(1600));
        let o = p.on_dummy_timer(t, g);
        assert!(o.answer);
        assert_eq!(o.dummy_at, None, "nothing real left: no more dummies");
    }

    #[test]
    fn later_requests_push_it_out_and_cancel_the_dummy() {
        let mut p = ServerPipeline::new(100, 2.0, 4);
        p.on_noticed(Time::ns(10));
        let first = p.push_request(Time::ns(30)).dummy_at.unwrap();
        p.on_noticed(Time::ns(50)); // before the dummy due at 30 + (100 - 5) * 2 = 220 ns
        assert_eq!(first.0, Time::ns(220));
        assert_eq!(p.on_dummy_timer(first.0, first.1), PushOutcome::default(), "superseded");
        assert!(!p.push_request(Time::ns(70)).answer);
        p.on_noticed(Time::ns(90));
        assert!(p.push_request(Time::ns(110)).answer, "the second push after the first request answers it");
    }
}
