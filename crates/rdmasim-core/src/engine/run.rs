//! The run contract every engine follows: one loop that owns the limits, and one set of names for
//! why a run stopped.
//!
//! The packet engine (`sim.rs`), the flow engine (`flow/run.rs`) and PM (`ether/run.rs`) each say
//! how to handle their next event ([`Stepper`]); [`step`] runs them a batch at a time, checking
//! the workload and the limits between events in the same order for all three, so a limit means
//! the same thing and is reported with the same words whichever engine hits it.
use std::fmt;

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The workload finished as asked.
    Completed,
    /// The workload ended short of what it was asked, in its own words (a flow failed, retries
    /// ran out, an MPI rank erred).
    Ended(String),
    /// No event is left while the workload is unfinished; why, when the workload or the
    /// transport can say.
    Stalled(Option<String>),
    /// `limits.max_events` handled.
    MaxEvents,
    /// `limits.max_sim_time_ms` reached: the next event is due after it.
    MaxSimTime,
    /// An event fell due past the end of the simulator's clock (a time computation saturated).
    PastEnd(String),
}

impl StopReason {
    pub fn is_completed(&self) -> bool {
        *self == StopReason::Completed
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Completed => f.write_str("completed"),
            StopReason::Ended(why) | StopReason::PastEnd(why) => f.write_str(why),
            StopReason::Stalled(None) => f.write_str("no more events (workload stalled)"),
            StopReason::Stalled(Some(why)) => write!(f, "no more events (workload stalled): {why}"),
            StopReason::MaxEvents => f.write_str("max_events"),
            StopReason::MaxSimTime => f.write_str("max_sim_time"),
        }
    }
}

/// The limits of a run, in its engine's clock.
#[derive(Clone, Copy, Debug)]
pub struct Limits<C> {
    pub max_events: u64,
    pub max_time: C,
}

/// A run's limits and, once it is over, why: what [`step`] keeps for each engine.
#[derive(Clone, Debug)]
pub struct RunState<C> {
    pub limits: Limits<C>,
    pub stop: Option<StopReason>,
}

impl<C> RunState<C> {
    pub fn new(limits: Limits<C>) -> RunState<C> {
        RunState { limits, stop: None }
    }

    pub fn is_over(&self) -> bool {
        self.stop.is_some()
    }

    pub fn completed(&self) -> bool {
        self.stop.as_ref().is_some_and(StopReason::is_completed)
    }

    /// The stop reason as results print it ("interrupted before completion" while running).
    pub fn reason(&self) -> String {
        self.stop.as_ref().map_or_else(|| "interrupted before completion".into(), StopReason::to_string)
    }
}

/// What handling the next event came to.
pub enum Next<C> {
    /// An event was handled (or the engine did work that stands for one).
    Handled,
    /// No event is left.
    Empty,
    /// The next event is due at this time, after the limit asked for.
    Beyond(C),
}

/// One engine's side of the contract.
pub trait Stepper {
    /// The engine's simulated time (integer picoseconds for the packet engine and PM, seconds
    /// for the flow engine's fluid model).
    type Clock: Copy + PartialOrd;

    /// Events handled so far (what `max_events` counts).
    fn handled(&self) -> u64;
    /// Checked before each event: the reason, when the workload says the run is over.
    fn over(&mut self) -> Option<StopReason>;
    /// Handles the next event if it is due no later than `until`.
    fn next(&mut self, until: Self::Clock) -> Next<Self::Clock>;
    /// Why the run stops when no event is left.
    fn out_of_events(&mut self) -> StopReason;
    /// Why the run stops when the next event, due at `t`, is after the time limit.
    fn beyond(&mut self, _t: Self::Clock) -> StopReason {
        StopReason::MaxSimTime
    }
    /// Records where the run ended, for its result.
    fn stopped(&mut self, reason: &StopReason);
    /// The limits and the stop reason [`step`] keeps.
    fn run_state(&mut self) -> &mut RunState<Self::Clock>;
}

/// Runs `s` for at most `budget` turns unless it is over already; true when it is over.
#[inline]
pub fn step<S: Stepper>(s: &mut S, budget: u64) -> bool {
    if s.run_state().stop.is_none() {
        let limits = s.run_state().limits;
        let reason = turns(s, &limits, budget);
        s.run_state().stop = reason;
    }
    s.run_state().stop.is_some()
}

/// Runs `s` for at most `budget` turns (an event each) within `limits`: the reason when the run
/// is over, None when the budget ran out first (call again).
#[inline]
fn turns<S: Stepper>(s: &mut S, limits: &Limits<S::Clock>, budget: u64) -> Option<StopReason> {
    for _ in 0..budget {
        let reason = if let Some(r) = s.over() {
            r
        } else if s.handled() >= limits.max_events {
            StopReason::MaxEvents
        } else {
            match s.next(limits.max_time) {
                Next::Handled => continue,
                Next::Empty => s.out_of_events(),
                Next::Beyond(t) => s.beyond(t),
            }
        };
        s.stopped(&reason);
        return Some(reason);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events at 1, 2, ... up to `last`; done after `done_after` events.
    struct Counter {
        handled: u64,
        last: u64,
        done_after: u64,
        ended: Option<StopReason>,
        state: RunState<u64>,
    }

    impl Stepper for Counter {
        type Clock = u64;
        fn handled(&self) -> u64 {
            self.handled
        }
        fn over(&mut self) -> Option<StopReason> {
            (self.handled >= self.done_after).then_some(StopReason::Completed)
        }
        fn next(&mut self, until: u64) -> Next<u64> {
            let t = self.handled + 1;
            if t > self.last {
                Next::Empty
            } else if t > until {
                Next::Beyond(t)
            } else {
                self.handled += 1;
                Next::Handled
            }
        }
        fn out_of_events(&mut self) -> StopReason {
            StopReason::Stalled(Some("nothing left".into()))
        }
        fn stopped(&mut self, reason: &StopReason) {
            self.ended = Some(reason.clone());
        }
        fn run_state(&mut self) -> &mut RunState<u64> {
            &mut self.state
        }
    }

    fn run(done_after: u64, last: u64, limits: Limits<u64>) -> (StopReason, u64) {
        let mut c = Counter { handled: 0, last, done_after, ended: None, state: RunState::new(limits) };
        while !step(&mut c, 3) {}
        let r = c.state.stop.clone().unwrap();
        assert_eq!(c.ended.as_ref(), Some(&r), "the engine is told why it stopped");
        (r, c.handled)
    }

    #[test]
    fn each_limit_and_the_workload_stop_the_run_with_their_own_name() {
        let free = Limits { max_events: u64::MAX, max_time: u64::MAX };
        assert_eq!(run(10, 100, free), (StopReason::Completed, 10));
        assert_eq!(run(10, 100, Limits { max_events: 4, ..free }), (StopReason::MaxEvents, 4));
        assert_eq!(run(10, 100, Limits { max_time: 6, ..free }), (StopReason::MaxSimTime, 6));
        assert_eq!(run(10, 5, free), (StopReason::Stalled(Some("nothing left".into())), 5));
        // The workload is asked first: a run done at the limit completed.
        assert_eq!(run(4, 100, Limits { max_events: 4, ..free }), (StopReason::Completed, 4));
    }

    #[test]
    fn names_are_the_same_for_every_engine() {
        assert_eq!(StopReason::Completed.to_string(), "completed");
        assert_eq!(StopReason::MaxEvents.to_string(), "max_events");
        assert_eq!(StopReason::MaxSimTime.to_string(), "max_sim_time");
        assert_eq!(StopReason::Stalled(None).to_string(), "no more events (workload stalled)");
        assert_eq!(StopReason::Stalled(Some("x".into())).to_string(), "no more events (workload stalled): x");
    }
}
