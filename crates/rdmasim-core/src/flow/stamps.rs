//! The rate solvers' per-call marks on ports and flows (`maxmin`, `hol`): an entry is marked
//! in this call when its stamp equals the call's generation, so a call clears nothing
//! (engine::Generation).
use crate::engine::Generation;
use crate::ids::{FlowId, PortId, TiVec};

#[derive(Default)]
pub struct Stamps {
    pub port: TiVec<PortId, u32>,
    pub flow: TiVec<FlowId, u32>,
    generation: Generation,
}

impl Stamps {
    /// Stamps for `ports` ports and `flows` flows, whose generations stay at or below `limit`
    /// (a solver that keeps a flag bit in a stamp passes a smaller one).
    pub fn new(ports: usize, flows: usize, limit: u32) -> Stamps {
        Stamps { port: vec![0; ports].into(), flow: vec![0; flows].into(), generation: Generation::below(limit) }
    }

    /// Starts a call; returns its generation.
    pub fn start_call(&mut self) -> u32 {
        let (port, flow) = (&mut self.port, &mut self.flow);
        self.generation.advance(|| {
            port.iter_mut().for_each(|s| *s = 0);
            flow.iter_mut().for_each(|s| *s = 0);
        });
        self.generation.get()
    }

    /// The current call's generation.
    pub fn current(&self) -> u32 {
        self.generation.get()
    }
}
