//! A PM run as `rdmasim run` drives it: built from a scenario with `engine = "pm"`, stepped,
//! and its result in the common form (summary and tables).
use super::config::PmScenario;
use super::switch_profiles;
use super::world::EtherWorld;
use crate::engine::run::{self, Limits, Next, RunState, StopReason, Stepper};
use crate::engine::Time;
use crate::scenario::ScenarioError;
use crate::run::RunResult;

/// The largest PM window: a receive array of 4 B slots per channel.
const MAX_WINDOW: u32 = 1 << 16;

pub struct PmRun {
    pub world: EtherWorld,
    name: Option<String>,
    seed: u64,
    run: RunState<Time>,
}

/// True when the scenario text names the PM engine (`engine = "pm"` at the top level).
pub fn is_pm(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).ok().and_then(|t| t.get("engine").and_then(|e| e.as_str().map(|s| s == "pm"))).unwrap_or(false)
}

impl PmRun {
    pub fn from_toml(text: &str, source: &str) -> Result<PmRun, ScenarioError> {
        let de = toml::Deserializer::new(text);
        let mut s: PmScenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            crate::scenario::validate::parse_error(crate::scenario::validate::ScenarioKind::Pm, text, source, &path, inner.message(), inner.span())
        })?;
        let spans = crate::scenario::validate::SpanIndex::build(text);
        let line = |key: &str| spans.as_ref().and_then(|sp| sp.line(key));
        let err = |key: String, message: String| ScenarioError { source: source.into(), line: line(&key), key, message };
        let profile = switch_profiles::by_name(&s.ethernet.switch).ok_or_else(|| {
            let names: Vec<&str> = switch_profiles::builtin().iter().map(|p| p.name).collect();
            err("ethernet.switch".into(), format!("unknown switch profile {:?}; expected one of {}", s.ethernet.switch, names.join(", ")))
        })?;
        if !(s.host.copy_mb_s >= 1.0 && s.host.copy_mb_s.is_finite()) {
            return Err(err("host.copy_mb_s".into(), format!("{}: expected at least 1 MB/s", s.host.copy_mb_s)));
        }
        if !(s.host.cpu_ghz > 0.0 && s.host.cpu_ghz.is_finite()) {
            return Err(err("host.cpu_ghz".into(), format!("{}: expected a positive number", s.host.cpu_ghz)));
        }
        if s.pm.window == 0 || s.pm.window > MAX_WINDOW || s.pm.ack_every == 0 || s.pm.ack_every > s.pm.window {
            return Err(err("pm.window".into(), format!("window = {}, ack_every = {}: expected 1 ≤ ack_every ≤ window ≤ {MAX_WINDOW}", s.pm.window, s.pm.ack_every)));
        }
        if s.pm.nic_depth == 0 {
            return Err(err("pm.nic_depth".into(), "0: expected at least 1 (no packet could ever be sent)".into()));
        }
        // The largest frame both the E1000 and the switch take, less the PM header.
        let max_packet = super::framing::max_payload(profile.max_frame_bytes.min(super::nic::e1000().max_frame_bytes)) - super::framing::PmHeader::BYTES;
        if s.pm.packet_bytes == 0 || s.pm.packet_bytes > max_packet {
            return Err(err("pm.packet_bytes".into(), format!("{}: expected 1..={max_packet} (the largest jumbo frame of the NIC and the {} switch, {} B, less the Ethernet and PM headers)", s.pm.packet_bytes, profile.name, profile.max_frame_bytes)));
        }
        if !(s.pm.rto_us >= 1.0 && s.pm.rto_us <= 1e9) {
            return Err(err("pm.rto_us".into(), format!("{}: expected 1 ≤ rto_us ≤ 1e9 µs", s.pm.rto_us)));
        }
        if let super::config::PmWorkload::Alltoall(super::config::PmAlltoall { skew_us, .. }) = s.workload {
            if !(0.0..=1e9).contains(&skew_us) {
                return Err(err("workload.skew_us".into(), format!("{skew_us}: expected 0 ≤ skew_us ≤ 1e9 µs")));
            }
        }
        let fcs = std::iter::once(("ethernet.flow_control".to_string(), s.ethernet.flow_control))
            .chain(s.ethernet.links.iter().enumerate().map(|(i, l)| (format!("ethernet.links[{i}].flow_control"), l.flow_control)));
        for (key, fc) in fcs {
            if let super::link::FlowControl::Pause { xoff_bytes, xon_bytes } = fc {
                if xon_bytes > xoff_bytes || xoff_bytes >= profile.buffer_bytes {
                    return Err(err(key, format!("xon_bytes = {xon_bytes}, xoff_bytes = {xoff_bytes}: expected xon ≤ xoff < the switch buffer ({} B)", profile.buffer_bytes)));
                }
            }
        }
        if let super::config::PmWorkload::Mpi(super::config::PmMpi { trace: Some(t), .. }) = &mut s.workload {
            *t = crate::workload::mpi::resolve_beside(t, source);
        }
        crate::scenario::validate::check_limits(&s.limits).map_err(|(k, m)| err(k, m))?;
        let world = EtherWorld::new(&s, profile).map_err(|(k, m)| err(k, m))?;
        let ms = s.limits.max_sim_time_ms.unwrap_or(super::config::DEFAULT_MAX_SIM_TIME_MS);
        let limits = Limits { max_events: s.limits.max_events.unwrap_or(super::config::DEFAULT_MAX_EVENTS), max_time: Time::from_ns_f64(ms * 1e6) };
        Ok(PmRun { world, name: s.name.clone(), seed: s.seed, run: RunState::new(limits) })
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
    fn result(&self) -> RunResult {
        RunResult {
            name: self.name.clone(),
            seed: self.seed,
            profile: "e1000".into(),
            finished: self.run.completed(),
            stop_reason: self.run.reason(),
            sim_time_us: self.world.q.now().as_us_f64(),
            events: self.events(),
            error_completions: 0,
            tables: self.world.tables(),
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
