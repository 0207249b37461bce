//! Effective bisection bandwidth (EBB): what static routing leaves of a fabric's bisection
//! bandwidth. Hoefler, Schneider, Lumsdaine, "Multistage Switches are not Crossbars: Effects of
//! Static Routing in High-Performance Networks", IEEE Cluster 2008, define it as the mean
//! bandwidth a flow gets over random bisection patterns (every node paired with one other, both
//! sending), relative to its link; they measured it with the ORCS simulator (Schneider, Hoefler,
//! Lumsdaine, IU TR 675, 2009) and found 55-60% on full-bisection production fat trees.
//!
//! Per rail (connected component) and per pattern kind ([`PatternKind`]), each seeded pattern
//! is evaluated as ORCS does ([`FlowShares`]: a flow's share is 1 / the most flows on a link of
//! its route) and its value is the mean share; the EBB is the mean over the patterns, with a 95%
//! confidence interval (normal approximation, 1.96 standard errors; ORCS prints a 99% one). The
//! Alltoall's phases and a shift are fixed by the node order: their figure is exact, its
//! interval 0. Pattern `i` of a kind draws from `SimRng::new(seed, kind.stream(i))`: the same
//! seed gives the same figures, and rails with the same hosts in the same order see the same
//! host pairs, as a multi-rail MPI that stripes each message over the rails would.
use super::components::{Components, Endpoint};
use crate::traffic::patterns::{PatternKind, PatternScratch};
use super::flow_shares::{FlowShares, Weighting};
use crate::engine::SimRng;
use crate::fabric::graph::RoutedFabric;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EbbOptions {
    /// Patterns drawn per random kind.
    #[serde(default = "default_patterns")]
    pub patterns: usize,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "default_kinds")]
    pub kinds: Vec<PatternKind>,
    #[serde(default)]
    pub weighting: Weighting,
}

fn default_patterns() -> usize {
    1000
}

fn default_kinds() -> Vec<PatternKind> {
    vec![PatternKind::Bisection]
}

impl Default for EbbOptions {
    fn default() -> EbbOptions {
        EbbOptions { patterns: default_patterns(), seed: 0, kinds: default_kinds(), weighting: Weighting::default() }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct EbbReport {
    pub seed: u64,
    pub weighting: Weighting,
    pub rails: Vec<RailEbb>,
}

/// One connected component: a rail of a multi-rail fabric.
#[derive(Clone, Debug, Serialize)]
pub struct RailEbb {
    pub component: usize,
    pub rails: Vec<u16>,
    pub endpoints: usize,
    pub kinds: Vec<KindEbb>,
}

#[derive(Clone, Debug, Serialize)]
pub struct KindEbb {
    pub pattern: PatternKind,
    /// Patterns evaluated (an Alltoall's phases).
    pub patterns: usize,
    pub flows: u64,
    pub unroutable_flows: u64,
    /// Mean over the patterns of the pattern's mean flow share: the EBB for `bisection`.
    pub mean: f64,
    /// Half-width of the 95% confidence interval of `mean` (0 for fixed patterns).
    pub ci95: f64,
    /// The worst and best pattern.
    pub min_pattern: f64,
    pub max_pattern: f64,
    /// Mean over the patterns of the slowest flow's share (the TSUBAME2.0 study's "minimum
    /// injection bandwidth" relative to the link), and the slowest flow of all.
    pub mean_slowest: f64,
    pub slowest: f64,
}

/// Running mean, variance (Welford) and range of per-pattern values.
#[derive(Clone, Copy, Debug)]
struct Sample {
    n: usize,
    mean: f64,
    m2: f64,
    min: f64,
    max: f64,
}

impl Sample {
    fn new() -> Sample {
        Sample { n: 0, mean: 0.0, m2: 0.0, min: f64::INFINITY, max: f64::NEG_INFINITY }
    }
    fn add(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }
    /// 1.96 standard errors of the mean.
    fn ci95(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        1.96 * (self.m2 / (self.n - 1) as f64).sqrt() / (self.n as f64).sqrt()
    }
}

/// The EBB of every rail of `rf` for every kind in `opts`.
pub fn effective_bisection_bandwidth(rf: &RoutedFabric, opts: &EbbOptions) -> EbbReport {
    let comps = Components::of(&rf.graph);
    let mut shares = FlowShares::new(rf, opts.weighting);
    let mut scratch = PatternScratch::default();
    let rails = comps
        .with_pairs()
        .map(|c| {
            let endpoints = in_node_order(&comps.endpoints[c]);
            let kinds = opts.kinds.iter().map(|&kind| kind_ebb(rf, &endpoints, kind, opts, &mut shares, &mut scratch)).collect();
            RailEbb { component: c, rails: comps.rails(c), endpoints: endpoints.len(), kinds }
        })
        .collect();
    EbbReport { seed: opts.seed, weighting: opts.weighting, rails }
}

/// Endpoints by host, then port: rank i is the i-th node, as MPI places one rank per node.
fn in_node_order(endpoints: &[Endpoint]) -> Vec<Endpoint> {
    let mut v = endpoints.to_vec();
    v.sort_by_key(|e| (e.host, e.port));
    v
}

fn kind_ebb(rf: &RoutedFabric, endpoints: &[Endpoint], kind: PatternKind, opts: &EbbOptions, shares: &mut FlowShares, scratch: &mut PatternScratch) -> KindEbb {
    let (mut values, mut slowest) = (Sample::new(), Sample::new());
    let (mut flows, mut unroutable) = (0u64, 0u64);
    let draws = if kind.is_random() { opts.patterns } else { 1 };
    for draw in 0..draws {
        let mut rng = SimRng::new(opts.seed, kind.stream(draw));
        for phase in 0..kind.phases(endpoints.len()) {
            scratch.write(kind, endpoints.len(), phase, &mut rng);
            if scratch.flows.is_empty() {
                continue;
            }
            let p = shares.evaluate(rf, endpoints, &scratch.flows);
            values.add(p.mean);
            slowest.add(p.slowest);
            flows += u64::from(p.flows);
            unroutable += u64::from(p.unroutable);
        }
    }
    let some = |x: f64| if values.n == 0 { 0.0 } else { x };
    KindEbb {
        pattern: kind,
        patterns: values.n,
        flows,
        unroutable_flows: unroutable,
        mean: values.mean,
        ci95: if kind.is_random() { values.ci95() } else { 0.0 },
        min_pattern: some(values.min),
        max_pattern: some(values.max),
        mean_slowest: slowest.mean,
        slowest: some(slowest.min),
    }
}

impl fmt::Display for EbbReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "effective bisection bandwidth (seed {}, {:?} weighting):", self.seed, self.weighting)?;
        for r in &self.rails {
            let rails: Vec<String> = r.rails.iter().map(u16::to_string).collect();
            writeln!(f, "  component {} (rail {}), {} endpoints:", r.component, rails.join(","), r.endpoints)?;
            for k in &r.kinds {
                write!(f, "    {:<16} {:.4} ± {:.4} over {} patterns (min {:.4}, max {:.4}); slowest flow {:.4} mean, {:.4} worst", k.pattern.label(), k.mean, k.ci95, k.patterns, k.min_pattern, k.max_pattern, k.mean_slowest, k.slowest)?;
                if k.unroutable_flows > 0 {
                    write!(f, "; {} of {} flows unroutable", k.unroutable_flows, k.flows)?;
                }
                writeln!(f)?;
            }
        }
        Ok(())
    }
}
