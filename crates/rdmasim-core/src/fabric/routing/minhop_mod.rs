//! A fallback for any graph: shortest paths (BFS from each destination's switch), and at each
//! switch, among the ports to neighbours one hop closer in port-number order, the one at
//! `lid mod count`. Deterministic, and it spreads destinations over equal-cost ports as
//! OpenSM's minhop does, without its port-load balancing.
use super::shortest::route_shortest;
use crate::fabric::graph::{FabricGraph, GraphError, Lfts};

pub fn route(g: &FabricGraph) -> Result<Lfts, GraphError> {
    route_shortest(g, |_, d, candidates| usize::from(d.lid) % candidates.len())
}
