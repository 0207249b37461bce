//! A scenario with `engine = "flow"`: its `flows` workload on the flow engine, over the fabric
//! the packet engine would build for it (the same generator, host profiles and trained links),
//! with results in the packet engine's `flows` and `run` tables, the columns the flow level
//! can fill.
//!
//! A flow is one fluid transfer of its messages' wire bytes (count × one message's packets,
//! headers included) from the HCA port of its rail, the data going client → server (READ:
//! server → client). Around the transfer come the fixed latencies of one message through an
//! unloaded path, from the host profile's parameters: before the first byte, the post, doorbell,
//! WQE and payload fetches and the send pipeline (READ: the request's way to the responder too);
//! after the last, the way through the switches and cables, the receive pipeline, the ACK's way
//! back (WRITE, SEND) and the completion's DMA write and poll. What this leaves out (per-message
//! round trips with a small `depth`, CPU, credits) is in docs/flow.md.
use super::engine::{Engine, FlowInput, State};
use crate::engine::run::{self, Limits, Next, RunState, StopReason, Stepper};
use super::latency::{verb_latencies, wire_one_way_ns};
use super::link_model::{capacities, injection_cap, message_wire_bytes};
use super::paths::{Ends, Routes};
use crate::profile::HwProfile;
use crate::ids::{FlowId, HostId, TiVec};
use crate::report::tables::{row, TableSelect, Tables};
use crate::scenario::flows::{FlowVerb, FlowsUntil};
use crate::scenario::{Scenario, ScenarioError, WorkloadSection};
use crate::run::RunResult;
use serde_json::json;

/// One flow's figures fixed at the start.
struct Plan {
    label: String,
    verb: FlowVerb,
    size: u64,
    start_us: f64,
    /// Messages, and their payload and wire bytes (None: a background flow).
    messages: Option<u64>,
    payload: f64,
    wire: f64,
    /// Payload bytes per wire byte, at the run's path MTU.
    payload_per_wire: f64,
    /// Fixed latency before the first byte and after the last, seconds.
    head_s: f64,
    tail_s: f64,
    background: bool,
    depth: u32,
    qps: u32,
}

pub struct FlowRun {
    name: Option<String>,
    seed: u64,
    profile: String,
    hw: HwProfile,
    overridden: Vec<&'static str>,
    plans: TiVec<FlowId, Plan>,
    engine: Engine,
    until: FlowsUntil,
    /// When the last flow posts, seconds (the measurement window opens), and the bytes each had
    /// carried then.
    open_s: f64,
    at_open: Option<TiVec<FlowId, f64>>,
    run: RunState<f64>,
    end_s: f64,
    /// The disabled cables and how the rails were routed after (`[topology] disable`).
    rerouted: Option<std::sync::Arc<crate::fabric::rerouted::Rerouted>>,
    import_notes: Option<std::sync::Arc<crate::fabric::io::notes::Notes>>,
}

impl FlowRun {
    pub fn from_scenario(scenario: Scenario, source: &str) -> Result<FlowRun, ScenarioError> {
        let err = |key: &str, message: String| ScenarioError { source: source.into(), key: key.into(), line: None, message };
        let WorkloadSection::Flows(section) = &scenario.workload else {
            return Err(err("engine", "the flow engine runs a `flows` workload".into()));
        };
        let (prof, overridden) = scenario.hardware.resolved_profile().ok_or_else(|| err("hardware.profile", format!("unknown profile {:?}", scenario.hardware.profile)))?;
        let t = &scenario.topology;
        let (profiles, host_hw) = scenario.hardware.host_profiles(&prof, t.hosts).map_err(|(k, m)| err(&k, m))?;
        let hw_of = |h: u32| &profiles[usize::from(host_hw.get(h as usize).copied().unwrap_or(0))];
        let host_speed = |h: u32| hw_of(h).link.speed();
        let routed = crate::fabric::from_scenario::routed_fabric(t, &prof.link, &host_speed).map_err(|e| err("topology", e.0))?;
        let g = &routed.graph;
        let rail_port = |h: u32, rail: u16| {
            g.hosts[HostId(h)].hcas.iter().flat_map(|&ca| g.nodes[ca].ports()).filter(|&p| g.ports[p].link.is_some()).nth(usize::from(rail))
        };
        let mtu = scenario.qp.mtu.unwrap_or(prof.link.mtu);
        let mut ends = Vec::with_capacity(section.flow.len());
        let mut plans: TiVec<FlowId, Plan> = TiVec::with_capacity(section.flow.len());
        let mut caps = Vec::with_capacity(section.flow.len());
        for (i, fl) in section.flow.iter().enumerate() {
            // Data leaves the side that holds it: the server answers a READ.
            let (from, to) = if fl.verb == FlowVerb::Read { (fl.server, fl.client) } else { (fl.client, fl.server) };
            let (Some(src), Some(dst)) = (rail_port(from, fl.rail), rail_port(to, fl.rail)) else {
                return Err(err(&format!("workload.flow[{i}].rail"), format!("host {from} or {to} has no rail {}", fl.rail)));
            };
            ends.push(Ends { src, dlid: g.ports[dst].lid });
            let messages = fl.messages();
            let (wire1, packets1) = message_wire_bytes(fl.verb, fl.size, mtu);
            caps.push(injection_cap(&hw_of(from).nic, wire1 as f64 / packets1 as f64));
            plans.push(Plan {
                label: fl.label(i),
                verb: fl.verb,
                size: fl.size,
                start_us: fl.start_us,
                messages,
                payload: messages.map_or(f64::INFINITY, |m| (m * fl.size) as f64),
                wire: messages.map_or(f64::INFINITY, |m| (m * wire1) as f64),
                payload_per_wire: match messages {
                    Some(m) => (m * fl.size) as f64 / (m * wire1) as f64,
                    None => fl.size as f64 / wire1 as f64,
                },
                head_s: 0.0,
                tail_s: 0.0,
                background: fl.background,
                depth: fl.depth,
                qps: fl.qps,
            });
        }
        let routes = Routes::trace(&routed, &ends);
        for (f, plan) in plans.iter_mut_enumerated() {
            let spec = &section.flow[f.idx()];
            let hw = hw_of(spec.client);
            let hops = routes.of(f).len();
            let one_way_ns = wire_one_way_ns(hw, hops, routes.cable_m[f]);
            (plan.head_s, plan.tail_s) = verb_latencies(hw, spec.verb, spec.inline, one_way_ns);
        }
        let input: TiVec<FlowId, FlowInput> =
            plans.iter().zip(&caps).map(|(p, &cap)| FlowInput { bytes: p.wire, start_s: p.start_us * 1e-6 + p.head_s, cap }).collect();
        let open_s = plans.iter().map(|p| p.start_us * 1e-6).fold(0.0, f64::max);
        let until = section.until;
        let capacity = capacities(g);
        let l = &scenario.limits;
        Ok(FlowRun {
            name: scenario.name.clone(),
            seed: scenario.seed,
            profile: scenario.hardware.profile.clone(),
            hw: prof.clone(),
            overridden,
            plans,
            engine: Engine::new(routes, capacity, input, until).with_hol(scenario.flow.hol),
            until: section.until,
            open_s,
            at_open: None,
            run: RunState::new(Limits { max_events: l.max_events.unwrap_or(u64::MAX), max_time: l.max_sim_time_ms.map_or(f64::INFINITY, |ms| ms * 1e-3) }),
            end_s: 0.0,
            rerouted: scenario.topology.rerouted.clone(),
            import_notes: scenario.topology.import_notes.clone(),
        })
    }



    /// When the run ends: the last completion (or the first, for `until = "first"`).
    fn completion_end(&self) -> f64 {
        let done = self.plans.iter_enumerated().filter_map(|(f, p)| self.finish_s(f).map(|t| (t, p)));
        let times = done.map(|(t, _)| t);
        match self.until {
            FlowsUntil::All => times.fold(self.engine.now, f64::max),
            FlowsUntil::First => times.fold(f64::INFINITY, f64::min).min(f64::MAX),
        }
    }

    fn finish_s(&self, f: FlowId) -> Option<f64> {
        match self.engine.state[f] {
            State::Done(t) => Some(t + self.plans[f].tail_s),
            _ => None,
        }
    }

    fn snapshot(&self, t: f64) -> TiVec<FlowId, f64> {
        (0..self.plans.len()).map(|i| self.engine.carried(FlowId::from(i), t)).collect()
    }


    pub fn profile(&self) -> &HwProfile {
        &self.hw
    }


}

/// The flow engine's side of the run contract (engine/run.rs), in seconds.
impl Stepper for FlowRun {
    type Clock = f64;

    fn handled(&self) -> u64 {
        self.engine.events
    }

    /// Flows finish by running out of events; before each, the measurement window's opening
    /// snapshot is taken once the next event lies past it.
    fn over(&mut self) -> Option<StopReason> {
        if self.at_open.is_none() && self.engine.next_time().is_none_or(|t| t > self.open_s) {
            self.at_open = Some(self.snapshot(self.open_s));
        }
        None
    }

    fn next(&mut self, until: f64) -> Next<f64> {
        match self.engine.next_time() {
            Some(t) if t > until => Next::Beyond(t),
            _ if self.engine.step() => Next::Handled,
            _ => Next::Empty,
        }
    }

    fn out_of_events(&mut self) -> StopReason {
        if self.engine.foreground_left() > 0 && self.until == FlowsUntil::All {
            StopReason::Stalled(Some("a flow's route has a link of no capacity".into()))
        } else {
            StopReason::Completed
        }
    }

    fn stopped(&mut self, reason: &StopReason) {
        let end_s = match reason {
            StopReason::MaxEvents => self.engine.now,
            StopReason::MaxSimTime => self.run.limits.max_time,
            _ => self.completion_end(),
        };
        if self.at_open.is_none() {
            self.at_open = Some(self.snapshot(self.open_s.min(end_s)));
        }
        self.end_s = end_s;
    }

    fn run_state(&mut self) -> &mut RunState<f64> {
        &mut self.run
    }
}

/// The flow engine as the API drives it (run.rs).
impl crate::run::Engine for FlowRun {
    /// Handles at most `max_events` turns of the engine (an event or a batch of simultaneous
    /// ones each); true when the run is over.
    fn step(&mut self, max_events: u64) -> bool {
        run::step(self, max_events)
    }
    fn progress(&self) -> f64 {
        let fg = self.plans.iter().filter(|p| !p.background).count();
        if self.run.is_over() || fg == 0 {
            return 1.0;
        }
        1.0 - self.engine.foreground_left() as f64 / fg as f64
    }
    fn events(&self) -> u64 {
        self.engine.events
    }
    fn result_of(&self, select: &TableSelect) -> RunResult {
        let end = if self.run.is_over() { self.end_s } else { self.engine.now };
        let mut t = Tables::new(select.clone());
        let open = self.open_s.min(end);
        let window = (end - open).max(0.0);
        let close_carried = self.snapshot(end);
        for (f, p) in self.plans.iter_enumerated() {
            let payload_per_wire = p.payload_per_wire;
            let at_open = self.at_open.as_ref().map_or(0.0, |v| v[f]);
            let in_window = ((close_carried[f] - at_open) * payload_per_wire).max(0.0).round();
            let finish = self.finish_s(f);
            let completed = match (finish, p.messages) {
                (Some(_), Some(m)) => m,
                _ => (close_carried[f] * payload_per_wire / p.size as f64).floor() as u64,
            };
            let error = self.engine.routes().errors[f].as_ref().map(|e| format!("unroutable: {e:?}"));
            t.push("flows", row(json!({
                "flow": f.idx(), "name": p.label, "verb": p.verb.name(), "bytes": p.size, "depth": p.depth, "qps": p.qps, "background": p.background,
                "window_start_us": open * 1e6, "window_us": window * 1e6, "bytes_in_window": in_window,
                "bw_Gbps": if window > 0.0 { in_window * 8.0 / window / 1e9 } else { 0.0 },
                "completed_total": completed, "error": error,
                "partial": !self.run.completed(),
                "finish_us": finish.map(|s| s * 1e6),
                "flow_time_us": finish.map(|s| s * 1e6 - p.start_us),
                "throughput_Gbps": finish.map(|s| p.payload * 8.0 / (s - p.start_us * 1e-6) / 1e9),
                "rate_Gbps": self.engine.rate[f] * 8.0 * payload_per_wire / 1e9,
            })));
        }
        let unroutable = self.engine.routes().errors.iter().filter(|e| e.is_some()).count();
        if let Some(r) = &self.rerouted {
            r.push_table(&mut t);
        }
        if let Some(n) = &self.import_notes {
            n.push_table(&mut t);
        }
        t.push("run", row(json!({
            "engine": "flow", "events": self.engine.events, "sim_time_us": end * 1e6, "profile": self.profile, "overridden": self.overridden,
            "solves": self.engine.solves, "rerated_flows": self.engine.rerated, "unroutable_flows": unroutable,
        })));
        let (tables, offered_tables) = t.finish();
        RunResult {
            name: self.name.clone(),
            seed: self.seed,
            profile: self.profile.clone(),
            finished: self.run.completed(),
            stop_reason: self.run.reason(),
            sim_time_us: end * 1e6,
            events: self.engine.events,
            error_completions: unroutable as u64,
            tables,
            offered_tables,
        }
    }

    fn profile(&self) -> Option<&HwProfile> {
        Some(FlowRun::profile(self))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
