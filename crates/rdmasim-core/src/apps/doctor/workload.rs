//! The workload a suspect's cost is measured on, and the measure: the TSUBAME2.0 study's
//! "minimum injection bandwidth" (seeds/004 §2.1), each pattern's slowest pair: the bytes every
//! flow sends over the time the last one is through. Flows are fluid ([`completion_times`]:
//! all start together, max-min fair shares, re-shared as flows finish), so the figure does not
//! depend on the bytes sent; it is in Gb/s on the wire (headers included).
//!
//! Patterns are drawn once, on the fabric as observed, and the same flows run on every version
//! of it (a link kept or disabled): the comparison is paired, pattern by pattern. Endpoints are
//! every rail's HCA ports in node order (ranks in node order, as the study places them); a rail
//! gets the same host pairs as the others (seeded as the EBB analysis seeds them).
use crate::engine::SimRng;
use crate::traffic::patterns::{PatternKind, PatternScratch};
use crate::fabric::analysis::Components;
use crate::fabric::graph::{FabricGraph, RoutedFabric};
use crate::flow::fixed::{completion_times, FixedFlow, PATTERN_BYTES};
use crate::ids::{PortId, TiSlice};
use serde::{Deserialize, Serialize};

/// The traffic a suspect is judged on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// Random pairs (every endpoint paired with one other, both sending: the study's
    /// random-pair benchmark over all nodes), one fresh pattern per draw.
    RandomPairs,
    /// A linear-shift Alltoall (Open MPI's pairwise order, `traffic::patterns`): each of its
    /// n - 1 phases is a pattern (fixed by the node order, so the number of patterns asked for
    /// is not used).
    Alltoall,
    /// A replayed MPI trace (`CostOptions::trace`), on the packet engine (trace_cost.rs): no
    /// patterns.
    MpiTrace,
}

impl Workload {
    pub fn name(self) -> &'static str {
        match self {
            Workload::RandomPairs => "random-pairs",
            Workload::Alltoall => "alltoall",
            Workload::MpiTrace => "mpi-trace",
        }
    }

    fn kind(self) -> Option<PatternKind> {
        match self {
            Workload::RandomPairs => Some(PatternKind::Bisection),
            Workload::Alltoall => Some(PatternKind::Alltoall),
            Workload::MpiTrace => None,
        }
    }
}

/// The flows of every pattern of `workload` on `g`'s endpoints (`patterns` draws for random
/// pairs, the phases for an Alltoall; none for a trace).
pub fn patterns(g: &FabricGraph, workload: Workload, patterns: usize, seed: u64) -> Vec<Vec<FixedFlow>> {
    let Some(kind) = workload.kind() else { return Vec::new() };
    let comps = Components::of(g);
    let rails: Vec<Vec<(PortId, u16)>> = comps
        .with_pairs()
        .map(|c| {
            let mut e = comps.endpoints[c].clone();
            e.sort_by_key(|e| (e.host, e.port));
            e.iter().map(|e| (e.port, e.lid)).collect()
        })
        .collect();
    let most = rails.iter().map(Vec::len).max().unwrap_or(0);
    let (draws, phases) = if kind.is_random() { (patterns, 1) } else { (1, kind.phases(most)) };
    let mut scratch = PatternScratch::default();
    let mut out = Vec::with_capacity(draws * phases);
    for draw in 0..draws {
        for phase in 0..phases {
            let mut flows = Vec::new();
            for rail in &rails {
                if phase >= kind.phases(rail.len()) {
                    continue;
                }
                let mut rng = SimRng::new(seed, kind.stream(draw));
                scratch.write(kind, rail.len(), phase, &mut rng);
                flows.extend(scratch.flows.iter().map(|&(s, d)| FixedFlow { src: rail[s as usize].0, dlid: rail[d as usize].1, bytes: PATTERN_BYTES }));
            }
            if !flows.is_empty() {
                out.push(flows);
            }
        }
    }
    out
}

/// Each pattern's slowest-pair bandwidth on `rf` with links of `capacity` (bytes per second
/// out of each port), Gb/s; 0 when a flow never gets through (its route is broken). And how
/// many flows in all never got through.
pub fn slowest_gbps(rf: &RoutedFabric, capacity: &TiSlice<PortId, f64>, patterns: &[Vec<FixedFlow>]) -> (Vec<f64>, u64) {
    let mut stuck = 0u64;
    let per_pattern = patterns
        .iter()
        .map(|flows| {
            let times = completion_times(rf, capacity, flows);
            stuck += times.iter().filter(|t| t.is_none()).count() as u64;
            let last = times.iter().try_fold(0.0f64, |m, t| t.map(|t| m.max(t)));
            match last {
                Some(t) if t > 0.0 => PATTERN_BYTES * 8.0 / t / 1e9,
                _ => 0.0,
            }
        })
        .collect();
    (per_pattern, stuck)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::build::{FatTree, GeneratorSpec, Rails};
    use crate::fabric::generate::generate;
    use crate::fabric::graph::NodeKind;
    use crate::fabric::rate::{LinkGen, LinkSpeed};

    fn two_rails() -> FabricGraph {
        let of = GeneratorSpec::FatTreeK(FatTree { k: 4, speed: LinkSpeed { gen: LinkGen::Qdr, width: 4 }, cable_m: 2.0 });
        generate(&GeneratorSpec::Rails(Rails { rails: 2, of: Box::new(of) })).unwrap().graph
    }

    /// (rail, source host, destination host) of every flow.
    fn hosts(g: &FabricGraph, flows: &[FixedFlow]) -> Vec<(u16, u32, u32)> {
        let host_of = |p: PortId| match g.nodes[g.ports[p].node].kind {
            NodeKind::Ca { host, rail } => (rail, host.0),
            NodeKind::Switch => unreachable!(),
        };
        let by_lid = |lid: u16| g.ports.iter_enumerated().find(|(_, p)| p.lid == lid).map(|(p, _)| host_of(p).1).unwrap();
        flows.iter().map(|f| (host_of(f.src).0, host_of(f.src).1, by_lid(f.dlid))).collect()
    }

    #[test]
    fn every_rail_gets_the_same_host_pairs_and_an_alltoall_its_phases() {
        let g = two_rails();
        let p = patterns(&g, Workload::RandomPairs, 3, 7);
        assert_eq!(p.len(), 3);
        for flows in &p {
            let h = hosts(&g, flows);
            assert_eq!(h.len(), 2 * 16, "16 hosts paired both ways, on each rail");
            let rail = |r: u16| h.iter().filter(|x| x.0 == r).map(|x| (x.1, x.2)).collect::<Vec<_>>();
            assert_eq!(rail(0), rail(1));
            assert!(rail(0).iter().all(|&(s, d)| s != d && rail(0).contains(&(d, s))));
        }
        assert_ne!(hosts(&g, &p[0]), hosts(&g, &p[1]), "a fresh draw per pattern");
        assert_eq!(p, patterns(&g, Workload::RandomPairs, 3, 7), "seeded");
        let a = patterns(&g, Workload::Alltoall, 99, 0);
        assert_eq!(a.len(), 15, "n - 1 shifts, whatever the patterns asked");
        assert!(hosts(&g, &a[0]).iter().all(|&(_, s, d)| d == (s + 1) % 16));
    }
}
