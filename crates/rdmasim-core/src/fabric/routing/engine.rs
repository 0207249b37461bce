//! The routing engines by name, as OpenSM's `-R` names them, and what routing a fabric returns:
//! the tables, the SL of each path when the engine assigns them (dfsssp's virtual layers), and
//! per subnet which engine was asked, which one routed, and why they differ (OpenSM's ftree
//! falls back to minhop on a fabric that is not a complete fat tree, and logs it).
use crate::fabric::graph::{FabricGraph, GraphError, Lfts};
use serde::Serialize;

/// A routing engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// OpenSM's default: least-loaded port among the minimum-hop ports.
    Minhop,
    /// Up*/Down* over minimum hops, roots detected or given.
    Updn,
    /// OpenSM's fat-tree engine (falls back to minhop when the fabric is not a fat tree).
    Ftree,
    /// Single-source shortest paths with weights updated per destination.
    Sssp,
    /// SSSP with virtual layers (SLs) that break credit loops.
    Dfsssp,
    /// Dimension order: OpenSM's on meshes and tori, the hyper-crossbar's rows
    /// (fabric/routing/dor.rs).
    Dor,
    /// Ours, not OpenSM's: destination-mod-k on fat trees (the generators' default).
    Dmodk,
    /// Ours: shortest paths, ties by LID mod count (the importers' default without LFTs).
    MinhopMod,
}

/// The engines `rdmasim fabric --compare-engines` puts side by side when none are named: OpenSM's
/// that route any topology, and D-mod-K (dor routes only meshes; minhop-mod is the importers'
/// fallback, not a choice an operator makes).
pub const COMPARE_DEFAULT: [Engine; 6] = [Engine::Minhop, Engine::Updn, Engine::Ftree, Engine::Sssp, Engine::Dfsssp, Engine::Dmodk];

pub const ALL: [Engine; 8] = [Engine::Minhop, Engine::Updn, Engine::Ftree, Engine::Sssp, Engine::Dfsssp, Engine::Dor, Engine::Dmodk, Engine::MinhopMod];

impl Engine {
    /// The name OpenSM's `-R` takes (ours for the two that are not OpenSM's).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Minhop => "minhop",
            Engine::Updn => "updn",
            Engine::Ftree => "ftree",
            Engine::Sssp => "sssp",
            Engine::Dfsssp => "dfsssp",
            Engine::Dor => "dor",
            Engine::Dmodk => "dmodk",
            Engine::MinhopMod => "minhop-mod",
        }
    }

    pub fn parse(s: &str) -> Result<Engine, GraphError> {
        ALL.into_iter().find(|e| e.name() == s.trim()).ok_or_else(|| {
            let names: Vec<&str> = ALL.iter().map(|e| e.name()).collect();
            GraphError(format!("unknown routing engine {s:?}: expected one of {}", names.join(", ")))
        })
    }

    /// One engine per rail, comma separated: `ftree,dfsssp`.
    pub fn parse_list(s: &str) -> Result<Vec<Engine>, GraphError> {
        s.split(',').map(Engine::parse).collect()
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

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

/// The SL of every (source LID, destination LID) path, dense: `sl[src * stride + dst]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathSls {
    pub stride: usize,
    pub sl: Vec<u8>,
}

impl PathSls {
    /// All paths on SL 0, for LIDs up to `max_lid`.
    pub fn new(max_lid: u16) -> PathSls {
        let stride = usize::from(max_lid) + 1;
        PathSls { stride, sl: vec![0; stride * stride] }
    }
    pub fn get(&self, src: u16, dst: u16) -> u8 {
        self.sl.get(usize::from(src) * self.stride + usize::from(dst)).copied().unwrap_or(0)
    }
    pub fn set(&mut self, src: u16, dst: u16, sl: u8) {
        let i = usize::from(src) * self.stride + usize::from(dst);
        self.sl[i] = sl;
    }
    /// The highest SL any path uses.
    pub fn max_sl(&self) -> u8 {
        self.sl.iter().copied().max().unwrap_or(0)
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

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fallback {
    pub to: Engine,
    pub reason: String,
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
