//! What each suspect link costs a workload, kept or disabled, and which to disable first.
//!
//! The fabric as observed (degraded links at their trained speed, links seen down down, erroring
//! links keeping the share of their rate [`useful_shares`] leaves them) is routed by the engine
//! the user names, as OpenSM would route it; each pattern of the workload runs on it at flow
//! level and gives its slowest-pair bandwidth ([`slowest_gbps`]). Then each suspect in turn is
//! disabled (its link down, the fabric routed again by the same engine, as OpenSM re-sweeps
//! after a port is disabled) and the same patterns run again. The gain of disabling a suspect
//! is the mean slowest-pair bandwidth disabled minus kept: positive, the link costs more than
//! it carries; negative, the fabric needs it (an endpoint's only link costs everything).
//!
//! "Which to disable first" is greedy: disable the suspect of largest gain, if it gains at
//! least `min_gain_share` of the current figure, re-evaluate the rest with it disabled, and
//! repeat. Deterministic: the patterns are seeded, the engines and the flow solver are.
use super::error_cost::{useful_shares, ErrorModel};
use super::trace_cost::TraceBench;
use super::workload::{patterns, slowest_gbps, Workload};
use super::{Report, Severity};
use crate::fabric::graph::{FabricGraph, LinkState, RoutedFabric};
use crate::fabric::io::IoError;
use crate::apps::fabric_report::FabricError;
use crate::fabric::routing::{route, Engine, RouteOptions};
use crate::flow::fixed::FixedFlow;
use crate::flow::link_model::capacities;
use crate::ids::{LinkId, PortId, TiVec};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CostOptions {
    pub workload: Workload,
    /// Random patterns drawn (an Alltoall has its phases).
    pub patterns: usize,
    pub seed: u64,
    /// The routing engine OpenSM runs on this fabric (its default: minhop).
    #[serde(with = "engine_name")]
    pub engine: Engine,
    pub roots: Vec<String>,
    /// Plan more than the first link to disable, re-evaluating after each.
    pub greedy: bool,
    /// A disabling is recommended only if it gains at least this share of the slowest-pair
    /// bandwidth it starts from (0.01: below that, another seed could say otherwise).
    pub min_gain_share: f64,
    pub errors: ErrorModel,
    /// `mpi-trace`: the trace directory (rank.<r>.trace files, docs/srq.md).
    pub trace: Option<PathBuf>,
    /// `mpi-trace`: the HCA profile of the hosts (`rdmasim profiles`).
    pub profile: String,
    /// `mpi-trace`: a replay not done by this simulated time has stalled (figure 0), ms.
    pub trace_limit_ms: f64,
}

impl Default for CostOptions {
    fn default() -> CostOptions {
        CostOptions {
            workload: Workload::RandomPairs,
            patterns: 20,
            seed: 0,
            engine: Engine::Minhop,
            roots: Vec::new(),
            greedy: true,
            min_gain_share: 0.01,
            errors: ErrorModel::default(),
            trace: None,
            // ConnectX-3, the oldest HCA profile there is: QDR-era fabrics ran ConnectX-2 and -3.
            profile: "cx3-fdr".into(),
            // Ten simulated seconds: two local ACK timeouts of 4.3 s (MVAPICH2's default,
            // error_cost.rs) and then some.
            trace_limit_ms: 10_000.0,
        }
    }
}

/// An engine by its OpenSM name in JSON.
mod engine_name {
    use crate::fabric::routing::Engine;
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(e: &Engine, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(e.name())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Engine, D::Error> {
        let name = String::deserialize(d)?;
        Engine::parse(&name).map_err(|e| serde::de::Error::custom(e.0))
    }
}

/// One suspect's cost on the workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuspectCost {
    pub label: String,
    pub severity: Severity,
    /// Its place in the diagnosis (by severity), 1-based.
    pub diagnosis_rank: usize,
    /// What each direction keeps of its rate when kept, by its sending end.
    pub useful_share: Vec<DirectionShare>,
    /// Mean over the patterns of the slowest-pair bandwidth with every suspect kept, Gb/s.
    pub kept_gbps: f64,
    /// ... with this one disabled, and its worst pattern.
    pub disabled_gbps: f64,
    pub disabled_worst_gbps: f64,
    /// disabled - kept: what disabling it gains (negative: it costs).
    pub gain_gbps: f64,
    /// Endpoints left with no link up when it is disabled.
    pub cut_off: Vec<String>,
    /// Flows that never got through with it disabled (all patterns).
    pub unroutable_flows: u64,
}

/// The share of its rate one direction of a link keeps, named by the port that sends on it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DirectionShare {
    pub from: String,
    pub share: f64,
}

/// One step of the plan: a link disabled and the workload's figure after it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanStep {
    pub label: String,
    pub gain_gbps: f64,
    pub gbps: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CostReport {
    pub options: CostOptions,
    /// The engine that made the tables (ftree falls back to minhop on a broken tree).
    pub routed_by: String,
    pub patterns: usize,
    pub flows_per_pattern: usize,
    /// Mean slowest-pair bandwidth as observed, Gb/s, and each pattern's.
    pub kept_gbps: f64,
    pub kept: Vec<f64>,
    /// Suspects by gain, largest first (ties: the diagnosis order).
    pub suspects: Vec<SuspectCost>,
    /// The links to disable, first first, and each pattern's figure after all of them.
    pub plan: Vec<PlanStep>,
    pub after_plan: Vec<f64>,
    pub after_plan_gbps: f64,
}

/// A suspect not yet in the plan: its gain on the current fabric and the runs that gave it.
struct Candidate {
    link: LinkId,
    label: String,
    gain: f64,
    /// Each pattern's slowest-pair bandwidth with this link disabled too.
    runs: Vec<f64>,
}

/// The fabric and what it runs, fixed once.
struct Bench<'a> {
    observed: &'a FabricGraph,
    /// Each link's two directions' useful shares (1 unless a suspect's errors say less).
    shares: TiVec<LinkId, [f64; 2]>,
    patterns: Vec<Vec<FixedFlow>>,
    /// For `mpi-trace`, the trace the figure comes from instead of the patterns.
    trace: Option<TraceBench>,
    opts: &'a CostOptions,
}

impl Bench<'_> {
    /// The observed fabric with `disabled` down, routed: each pattern's figure, stuck flows,
    /// and the engine that routed it.
    fn run(&self, disabled: &[LinkId]) -> Result<(Vec<f64>, u64, String), FabricError> {
        let mut g = self.observed.clone();
        for &l in disabled {
            g.links[l].state = LinkState::Down;
        }
        let routing = route(g, &[self.opts.engine], &RouteOptions { roots: self.opts.roots.clone(), ..RouteOptions::default() })
            .map_err(|e| FabricError::Routing { engines: self.opts.engine.name().into(), message: e.0 })?;
        let used = crate::apps::fabric_report::engines::subnets_name(&routing.subnets);
        let rf: RoutedFabric = routing.fabric;
        if let Some(trace) = &self.trace {
            let run = trace.run(rf, self.opts.seed)?;
            return Ok((vec![run.gbps], u64::from(!run.finished), used));
        }
        let mut capacity: TiVec<PortId, f64> = capacities(&rf.graph);
        for (l, share) in self.shares.iter_enumerated() {
            for (end, s) in rf.graph.links[l].ends.iter().zip(share) {
                capacity[*end] *= s;
            }
        }
        let (per_pattern, stuck) = slowest_gbps(&rf, &capacity, &self.patterns);
        Ok((per_pattern, stuck, used))
    }
}

fn bad_option(message: String) -> FabricError {
    FabricError::Io(IoError::whole("cost options", message))
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Endpoint ports whose link is up in `observed` and down once `link` is (an HCA port has one
/// link).
fn cut_off(g: &FabricGraph, link: LinkId) -> Vec<String> {
    if g.links[link].state != LinkState::Up {
        return Vec::new();
    }
    g.links[link].ends.iter().filter(|&&p| !g.nodes[g.ports[p].node].is_switch()).map(|&p| g.port_name(p)).collect()
}

/// The cost of every suspect of `report` on `observed` (the fabric as the diagnosis saw it).
pub fn cost(observed: &FabricGraph, report: &Report, opts: &CostOptions) -> Result<CostReport, FabricError> {
    let mut shares: TiVec<LinkId, [f64; 2]> = vec![[1.0, 1.0]; observed.links.len()].into();
    for s in &report.suspects {
        shares[s.link] = useful_shares(observed, s.link, &s.evidence, &opts.errors);
    }
    let trace = match (opts.workload, &opts.trace) {
        (Workload::MpiTrace, Some(dir)) => Some(TraceBench::new(dir, &opts.profile, opts.trace_limit_ms, observed, report, &opts.errors)?),
        (Workload::MpiTrace, None) => return Err(bad_option("workload mpi-trace: expected the trace directory (trace)".into())),
        (_, Some(_)) => return Err(bad_option(format!("trace is for workload mpi-trace, not {}", opts.workload.name()))),
        (_, None) => None,
    };
    let bench = Bench { observed, shares, patterns: patterns(observed, opts.workload, opts.patterns, opts.seed), trace, opts };
    let (kept, _, routed_by) = bench.run(&[])?;
    let kept_gbps = mean(&kept);
    let mut suspects = Vec::with_capacity(report.suspects.len());
    let mut candidates: Vec<Candidate> = Vec::with_capacity(report.suspects.len());
    for (i, s) in report.suspects.iter().enumerate() {
        let (disabled, stuck, _) = bench.run(&[s.link])?;
        let disabled_gbps = mean(&disabled);
        suspects.push(SuspectCost {
            label: s.label.clone(),
            severity: s.severity,
            diagnosis_rank: i + 1,
            useful_share: observed.links[s.link].ends.iter().zip(bench.shares[s.link]).map(|(&p, share)| DirectionShare { from: observed.port_name(p), share }).collect(),
            kept_gbps,
            disabled_gbps,
            disabled_worst_gbps: disabled.iter().copied().fold(f64::INFINITY, f64::min).min(f64::MAX),
            gain_gbps: disabled_gbps - kept_gbps,
            cut_off: cut_off(observed, s.link),
            unroutable_flows: stuck,
        });
        // The plan's first round: the table's runs, kept so the step taken is not run again.
        candidates.push(Candidate { link: s.link, label: s.label.clone(), gain: disabled_gbps - kept_gbps, runs: disabled });
    }
    // The plan; later rounds re-run the rest.
    let mut plan: Vec<PlanStep> = Vec::new();
    let mut disabled: Vec<LinkId> = Vec::new();
    let (mut current, mut current_gbps) = (kept.clone(), kept_gbps);
    // Largest gain first, ties in the diagnosis order (the candidates' order).
    while let Some(bi) = (0..candidates.len()).rev().max_by(|&a, &b| candidates[a].gain.total_cmp(&candidates[b].gain)) {
        if !(candidates[bi].gain > 0.0 && candidates[bi].gain >= opts.min_gain_share * current_gbps) {
            break;
        }
        let best = candidates.remove(bi);
        disabled.push(best.link);
        current = best.runs;
        current_gbps = mean(&current);
        plan.push(PlanStep { label: best.label, gain_gbps: best.gain, gbps: current_gbps });
        if !opts.greedy {
            break;
        }
        for c in &mut candidates {
            let runs = bench.run(&[disabled.as_slice(), &[c.link]].concat())?.0;
            c.gain = mean(&runs) - current_gbps;
            c.runs = runs;
        }
    }
    suspects.sort_by(|a, b| b.gain_gbps.total_cmp(&a.gain_gbps).then(a.diagnosis_rank.cmp(&b.diagnosis_rank)));
    let (patterns, flows_per_pattern) = match &bench.trace {
        Some(t) => (1, t.ranks() as usize),
        None => (bench.patterns.len(), bench.patterns.first().map_or(0, Vec::len)),
    };
    Ok(CostReport {
        options: opts.clone(),
        routed_by,
        patterns,
        flows_per_pattern,
        kept_gbps,
        kept,
        suspects,
        plan,
        after_plan_gbps: current_gbps,
        after_plan: current,
    })
}
