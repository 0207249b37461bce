//! `[flow]`: options of the flow engine (flow/: docs/flow.md).
use serde::{Deserialize, Serialize};

/// `[flow] hol`: whether the flow engine models head-of-line blocking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HolModel {
    /// Max-min alone (docs/flow.md's cross-check without the correction).
    #[default]
    None,
    /// The full FIFOs of a credit-based fabric couple the flows that share them (above).
    Credit,
}

/// `[flow]`: options of the flow engine.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSection {
    #[serde(default)]
    pub hol: HolModel,
}

impl FlowSection {
    pub fn is_default(&self) -> bool {
        *self == FlowSection::default()
    }
}
