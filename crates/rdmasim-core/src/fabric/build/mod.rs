//! Topology generators: one file per family, each returning a `FabricGraph` (fabric/graph.rs)
//! with LIDs assigned, unique names (hosts `h0..`, HCAs `"h12 mlx4_1"` by rail, switches
//! `"r0-L1-s3"` by rail, level and index) and deterministic GUIDs. [`GeneratorSpec`] names
//! them for scenario files and [`generate`] builds and routes one.
pub mod back_to_back;
pub mod common;
pub mod director;
pub mod hyperx;
pub mod io_nodes;
pub mod leaf_placement;
pub mod lid_order;
pub mod pseudo_guids;
pub mod rails;
pub mod single_switch;
pub mod tsubame2;
pub mod xgft;

pub use back_to_back::{back_to_back, BackToBack};
pub use common::RailTopology;
pub use director::{add_director, Director, DirectorChips};
pub use hyperx::{hyperx, HyperX};
pub use io_nodes::IoAttach;
pub use leaf_placement::LeafPlacement;
pub use lid_order::LidOrder;
pub use rails::{rails, single_rail};
pub use single_switch::{single_switch, SingleSwitch};
pub use tsubame2::{tsubame2, Tsubame2};
pub use xgft::{fat_tree_k, k_ary_n_tree, xgft, FatTree, KAryNTree, Xgft};

use crate::fabric::graph::{FabricGraph, GraphError};
use serde::{Deserialize, Serialize};

/// A generator and its parameters, as a scenario names it: `kind = "fat-tree-k"`, `k = 16`.
/// Every parameter but the sizes has a default (see each struct).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum GeneratorSpec {
    BackToBack(BackToBack),
    SingleSwitch(SingleSwitch),
    Xgft(Xgft),
    KAryNTree(KAryNTree),
    FatTreeK(FatTree),
    Director(Director),
    Rails(Rails),
    Tsubame2(Tsubame2),
    Hyperx(HyperX),
}

/// `rails` independent copies of the topology `of` (one of the single-HCA-per-host kinds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rails {
    #[serde(default = "default_rails")]
    pub rails: u16,
    pub of: Box<GeneratorSpec>,
}

fn default_rails() -> u16 {
    2
}

impl GeneratorSpec {
    /// The `kind` of each generator as a scenario or `rdmasim fabric build` names it (the serde
    /// tags above; a test checks each is one).
    pub const KINDS: [&'static str; 9] =
        ["back-to-back", "single-switch", "xgft", "k-ary-n-tree", "fat-tree-k", "director", "rails", "tsubame2", "hyperx"];

    /// The per-rail form of a single-HCA-per-host topology, for [`rails`] (a `tsubame2` inside
    /// `rails` is one of its rails: its own `rails` count is then not used).
    pub fn rail_topology(&self) -> Result<Box<dyn RailTopology>, GraphError> {
        Ok(match self {
            GeneratorSpec::BackToBack(s) => Box::new(s.clone()),
            GeneratorSpec::SingleSwitch(s) => Box::new(s.clone()),
            GeneratorSpec::Xgft(s) => Box::new(s.clone()),
            GeneratorSpec::KAryNTree(s) => Box::new(s.to_xgft()?),
            GeneratorSpec::FatTreeK(s) => Box::new(s.to_xgft()?),
            GeneratorSpec::Director(s) => Box::new(s.clone()),
            // Inside `rails` the rails' GUIDs and numbering hold: another would be silently lost.
            GeneratorSpec::Tsubame2(s) if s.lid_order != LidOrder::Rack => {
                return Err(GraphError(format!("rails.of.lid_order = {}: expected rack (only the tsubame2 kind itself numbers LIDs in another order)", s.lid_order.name())))
            }
            GeneratorSpec::Tsubame2(s) if s.guid_seed.is_some() => {
                return Err(GraphError("rails.of.guid_seed: expected none (only the tsubame2 kind itself shuffles its GUIDs)".into()))
            }
            GeneratorSpec::Tsubame2(s) => Box::new(s.clone()),
            GeneratorSpec::Rails(_) | GeneratorSpec::Hyperx(_) => {
                return Err(GraphError(format!("rails.of = {}: expected a topology with one HCA per host (not rails or hyperx)", self.kind_name())))
            }
        })
    }

    pub fn kind_name(&self) -> &'static str {
        match self {
            GeneratorSpec::BackToBack(_) => "back-to-back",
            GeneratorSpec::SingleSwitch(_) => "single-switch",
            GeneratorSpec::Xgft(_) => "xgft",
            GeneratorSpec::KAryNTree(_) => "k-ary-n-tree",
            GeneratorSpec::FatTreeK(_) => "fat-tree-k",
            GeneratorSpec::Director(_) => "director",
            GeneratorSpec::Rails(_) => "rails",
            GeneratorSpec::Tsubame2(_) => "tsubame2",
            GeneratorSpec::Hyperx(_) => "hyperx",
        }
    }

    /// The graph alone, LIDs assigned.
    pub fn build(&self) -> Result<FabricGraph, GraphError> {
        match self {
            GeneratorSpec::Rails(r) => rails(r.of.rail_topology()?.as_ref(), r.rails),
            GeneratorSpec::Tsubame2(t) => tsubame2(t),
            GeneratorSpec::Hyperx(h) => hyperx(h),
            other => single_rail(other.rail_topology()?.as_ref()),
        }
    }
}

#[cfg(test)]
mod kinds_tests {
    use super::GeneratorSpec;

    #[test]
    fn the_kinds_list_is_exactly_the_generator_tags() {
        for k in GeneratorSpec::KINDS {
            let err = serde_json::from_str::<GeneratorSpec>(&format!(r#"{{"kind":"{k}"}}"#)).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(!err.contains("unknown variant"), "{k}: {err}");
        }
        // serde lists every tag when one is unknown: the same names, as many.
        let err = serde_json::from_str::<GeneratorSpec>(r#"{"kind":"nope"}"#).unwrap_err().to_string();
        let listed = err.split("expected one of").nth(1).unwrap_or("");
        assert_eq!(listed.matches('`').count() / 2, GeneratorSpec::KINDS.len(), "{err}");
        assert!(GeneratorSpec::KINDS.iter().all(|k| listed.contains(&format!("`{k}`"))), "{err}");
    }
}
