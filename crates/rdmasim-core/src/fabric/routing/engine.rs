//! The routing engines by name, as OpenSM's `-R` names them, and what routing a fabric returns:
//! the tables, the SL of each path when the engine assigns them (dfsssp's virtual layers), and
//! per subnet which engine was asked, which one routed, and why they differ (OpenSM's ftree
//! falls back to minhop on a fabric that is not a complete fat tree, and logs it).
pub use super::outcome::{Engine, Fallback, ALL, COMPARE_DEFAULT};
pub use crate::fabric::graph::PathSls;
use crate::fabric::graph::{FabricGraph, GraphError, Lfts};
use serde::Serialize;

/// What an engine may be told besides the fabric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RouteOptions {
    /// Root switches for updn (and ftree), by node name or GUID (`0x…`); empty: detect them
    /// as OpenSM does.
    pub roots: Vec<String>,
    /// Virtual lanes dfsssp may spread its layers over (OpenSM's default is what the ports
    /// support; 8 on the HCAs and switches we model).
    pub max_vls: u8,
}

impl Default for RouteOptions {
    fn default() -> RouteOptions {
        RouteOptions { roots: Vec::new(), max_vls: 8 }
    }
}

/// What one engine made of one subnet.
#[derive(Clone, Debug)]
pub struct EngineOutput {
    pub lfts: Lfts,
    pub sls: Option<PathSls>,
    /// Set when the engine could not route this fabric its own way and another did, with
    /// the reason in OpenSM's words where OpenSM logs one.
    pub fallback: Option<Fallback>,
}

impl EngineOutput {
    pub fn tables(lfts: Lfts) -> EngineOutput {
        EngineOutput { lfts, sls: None, fallback: None }
    }

    /// What OpenSM does when an engine gives up on a subnet: its default engine, minhop,
    /// routes it, and the log says why.
    pub fn minhop_instead(g: &FabricGraph, reason: String) -> Result<EngineOutput, GraphError> {
        Ok(EngineOutput { lfts: super::minhop::route(g)?, sls: None, fallback: Some(Fallback { to: Engine::Minhop, reason }) })
    }
}

/// Routes one subnet (a connected fabric) with `engine`.
pub fn run(engine: Engine, g: &FabricGraph, opts: &RouteOptions) -> Result<EngineOutput, GraphError> {
    use super::*;
    Ok(match engine {
        Engine::Dmodk => EngineOutput::tables(dmodk::route(g)?),
        Engine::MinhopMod => EngineOutput::tables(minhop_mod::route(g)?),
        Engine::Dor => EngineOutput::tables(dor::route_engine(g)?),
        Engine::Sssp => EngineOutput::tables(sssp::route(g)?),
        Engine::Dfsssp => dfsssp::route(g, opts)?,
        Engine::Ftree => ftree::route(g, opts)?,
        Engine::Minhop => EngineOutput::tables(minhop::route(g)?),
        Engine::Updn => updn::route(g, opts)?,
    })
}
