//! The routing engines by name (OpenSM's `-R` names) and what routing a subnet came to (the
//! engine asked, the one that routed, OpenSM's reason when they differ): data a scenario and a
//! run's `routing` table carry, apart from the engines themselves (engine.rs runs them).
use crate::fabric::graph::GraphError;
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

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fallback {
    pub to: Engine,
    pub reason: String,
}

/// How one subnet was routed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SubnetRouting {
    /// The lowest rail of the subnet's HCAs (a subnet with no HCA: 0).
    pub rail: u16,
    pub switches: usize,
    pub endpoints: usize,
    pub asked: Engine,
    /// The engine whose tables the subnet has (`asked` unless it fell back).
    pub used: Engine,
    pub fallback: Option<Fallback>,
}
