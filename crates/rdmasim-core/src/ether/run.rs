//! A PM run as `rdmasim run` drives it: built from a scenario with `engine = "pm"`, stepped,
//! and its result in the common form (summary and tables).
use super::switch_profiles;
use super::world::EtherWorld;
use crate::engine::run::{self, Limits, Next, RunState, StopReason, Stepper};
use crate::engine::Time;
use crate::scenario::pm::{PmScenario, DEFAULT_MAX_EVENTS, DEFAULT_MAX_SIM_TIME_MS};
use crate::scenario::validate::{locate, parse_pm};
use crate::scenario::ScenarioError;
use crate::report::tables::{TableSelect, Tables};
use crate::run::RunResult;

pub struct PmRun {
    pub world: EtherWorld,
    name: Option<String>,
    seed: u64,
    run: RunState<Time>,
}

impl PmRun {
    /// Reads, checks (scenario/validate/pm.rs) and builds a PM scenario.
    pub fn from_toml(text: &str, source: &str) -> Result<PmRun, ScenarioError> {
        PmRun::new(parse_pm(text, source)?, source).map_err(|e| locate(e, text))
    }

    /// Builds a checked PM scenario's network; what only the built network can tell (hosts
    /// a workload names, ports a switch has) is an error naming its key.
    pub fn new(s: PmScenario, source: &str) -> Result<PmRun, ScenarioError> {
        let err = |key: String, message: String| ScenarioError { source: source.into(), line: None, key, message };
        let profile = switch_profiles::by_name(&s.ethernet.switch).ok_or_else(|| err("ethernet.switch".into(), format!("unknown switch profile {:?}", s.ethernet.switch)))?
            .with_buffer_kib(s.ethernet.switch_buffer_kib);
        let mut world = EtherWorld::new(&s, profile).map_err(|(k, m)| err(k, m))?;
        let app = super::workload::start(&mut world, &s.workload).map_err(|(k, m)| err(format!("workload.{k}"), m))?;
        world.app = Some(app);
        let ms = s.limits.max_sim_time_ms.unwrap_or(DEFAULT_MAX_SIM_TIME_MS);
        let limits = Limits { max_events: s.limits.max_events.unwrap_or(DEFAULT_MAX_EVENTS), max_time: Time::from_ns_f64(ms * 1e6) };
        Ok(PmRun { world, name: s.name, seed: s.seed, run: RunState::new(limits) })
    }

    pub fn pcap(&self) -> Option<Vec<u8>> {
        self.world.pcap()
    }
}

/// PM's side of the run contract (engine/run.rs).
impl Stepper for PmRun {
    type Clock = Time;

    fn handled(&self) -> u64 {
        self.world.q.popped()
    }

    fn over(&mut self) -> Option<StopReason> {
        self.world.done.then_some(StopReason::Completed)
    }

    fn next(&mut self, until: Time) -> Next<Time> {
        match self.world.q.pop_until(until) {
            Ok((_, ev)) => {
                self.world.dispatch(ev);
                Next::Handled
            }
            Err(Some(t)) => Next::Beyond(t),
            Err(None) => Next::Empty,
        }
    }

    fn out_of_events(&mut self) -> StopReason {
        StopReason::Stalled(None)
    }

    /// A PM run's result reads the clock where the last event left it.
    fn stopped(&mut self, _reason: &StopReason) {}

    fn run_state(&mut self) -> &mut RunState<Time> {
        &mut self.run
    }
}

/// PM as the API drives it (run.rs): no HCA profile, its own capture of Ethernet frames.
impl crate::run::Engine for PmRun {
    /// Runs at most `max_events` events; true when the run is over.
    fn step(&mut self, max_events: u64) -> bool {
        run::step(self, max_events)
    }
    fn progress(&self) -> f64 {
        if self.run.is_over() { 1.0 } else { (self.world.q.now().as_ps() as f64 / self.run.limits.max_time.as_ps() as f64).min(0.99) }
    }
    fn events(&self) -> u64 {
        self.world.q.popped()
    }
    fn result_of(&self, select: &TableSelect) -> RunResult {
        let mut t = Tables::new(select.clone());
        self.world.tables(&mut t);
        let (tables, offered_tables) = t.finish();
        RunResult {
            name: self.name.clone(),
            seed: self.seed,
            profile: "e1000".into(),
            finished: self.run.completed(),
            stop_reason: self.run.reason(),
            sim_time_us: self.world.q.now().as_us_f64(),
            events: self.events(),
            error_completions: 0,
            tables,
            offered_tables,
        }
    }

    fn pcap(&self) -> Option<Vec<u8>> {
        PmRun::pcap(self)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
