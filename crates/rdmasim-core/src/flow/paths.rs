//! The route of every flow through the LFTs, as the packet engine's packets take it: traced by
//! the reference tracer ([`trace_route_into`], the one `rdmasim fabric --route` and the static
//! analysis use) and kept as the sending port of each hop, flow after flow, in one flat vector.
//! A directed link is named by its sending port, so the ports are the flow engine's links.
use crate::fabric::analysis::paths::{trace_route_into, Hop, RouteError};
use crate::fabric::graph::RoutedFabric;
use crate::ids::{FlowId, PortId, TiVec};

/// One flow's ends: the HCA port its data leaves by and the LID it goes to.
#[derive(Clone, Copy, Debug)]
pub struct Ends {
    pub src: PortId,
    pub dlid: u16,
}

pub struct Routes {
    ports: Vec<PortId>,
    /// Flow f's ports are `ports[start[f]..start[f + 1]]`.
    start: TiVec<FlowId, u32>,
    /// Why a flow has no route (its range is then empty).
    pub errors: TiVec<FlowId, Option<RouteError>>,
    /// Cable metres along each route (for its propagation delay).
    pub cable_m: TiVec<FlowId, f64>,
}

impl Routes {
    pub fn trace(rf: &RoutedFabric, ends: &[Ends]) -> Routes {
        let g = &rf.graph;
        let mut hops: Vec<Hop> = Vec::new();
        let mut r = Routes { ports: Vec::new(), start: TiVec::with_capacity(ends.len() + 1), errors: TiVec::with_capacity(ends.len()), cable_m: TiVec::with_capacity(ends.len()) };
        r.start.push(0);
        for e in ends {
            let (error, metres) = match trace_route_into(rf, e.src, e.dlid, &mut hops) {
                Ok(()) => {
                    r.ports.extend(hops.iter().map(|h| h.from));
                    (None, hops.iter().map(|h| g.links[h.link].length_m).sum())
                }
                Err(err) => (Some(err), 0.0),
            };
            r.errors.push(error);
            r.cable_m.push(metres);
            r.start.push(r.ports.len() as u32);
        }
        r
    }

    #[inline]
    pub fn of(&self, f: FlowId) -> &[PortId] {
        &self.ports[self.start[f] as usize..self.start[FlowId(f.0 + 1)] as usize]
    }

    pub fn len(&self) -> usize {
        self.errors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
}
