//! Flows on a routed fabric directly, without a scenario: each (source port, destination LID,
//! wire bytes) starts at time 0 with no latency and no NIC cap, and the links share at max-min
//! fair rates, re-solved at every departure. For analyses that compare the same traffic on two
//! versions of a fabric (the doctor's kept and disabled links): only the links differ, so
//! nothing the links do not cause should enter the comparison.
use super::engine::{Engine, FlowInput, State, Until};
use super::paths::{Ends, Routes};
use crate::fabric::graph::RoutedFabric;
use crate::ids::{FlowId, PortId, TiSlice, TiVec};

/// Bytes a pattern's flows send when only rates matter (fluid flows starting together finish
/// at times proportional to their bytes): 1 MiB.
pub const PATTERN_BYTES: f64 = 1_048_576.0;

/// One flow: its data leaves by HCA port `src` for LID `dlid`, `bytes` on the wire.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedFlow {
    pub src: PortId,
    pub dlid: u16,
    pub bytes: f64,
}

/// When each flow is through, seconds from 0 (None: its route does not reach the destination,
/// or a link of its route carries nothing). `capacity`: bytes per second out of each port
/// (`link_model::capacities`, or a copy with some links reduced).
pub fn completion_times(rf: &RoutedFabric, capacity: &TiSlice<PortId, f64>, flows: &[FixedFlow]) -> TiVec<FlowId, Option<f64>> {
    let ends: Vec<Ends> = flows.iter().map(|f| Ends { src: f.src, dlid: f.dlid }).collect();
    let routes = Routes::trace(rf, &ends);
    let input: TiVec<FlowId, FlowInput> = flows.iter().map(|f| FlowInput { bytes: f.bytes, start_s: 0.0, cap: f64::INFINITY }).collect();
    let mut engine = Engine::new(routes, capacity.to_vec(), input, Until::All);
    engine.run();
    engine.state.iter().map(|s| if let State::Done(t) = s { Some(*t) } else { None }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::build::{single_rail, KAryNTree};
    use crate::fabric::rate::{LinkGen, LinkSpeed};
    use crate::fabric::routing::{route, Engine, RouteOptions};
    use crate::flow::link_model::capacities;

    #[test]
    fn flows_into_one_host_share_its_link_and_finish_together() {
        let tree = KAryNTree { k: 2, n: 2, speed: LinkSpeed { gen: LinkGen::Qdr, width: 4 }, cable_m: 2.0 };
        let rf = route(single_rail(&tree.to_xgft().unwrap()).unwrap(), &[Engine::Minhop], &RouteOptions::default()).unwrap().fabric;
        let g = &rf.graph;
        let cap = capacities(g);
        let hca: Vec<PortId> = g.hosts.iter().map(|h| g.nodes[h.hcas[0]].first_port).collect();
        let one = cap[hca[0]];
        let flow = |s: usize, d: usize| FixedFlow { src: hca[s], dlid: g.ports[hca[d]].lid, bytes: one };
        let t = completion_times(&rf, &cap, &[flow(0, 3), flow(1, 3), flow(2, 0)]);
        assert_eq!(t.len(), 3);
        for (f, want) in [(0, 2.0), (1, 2.0), (2, 1.0)] {
            assert!((t[FlowId(f)].unwrap() - want).abs() < 1e-9, "{t:?}");
        }
    }
}
