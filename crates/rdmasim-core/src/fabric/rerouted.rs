//! What `[topology] disable` did (disable.rs): the cables taken down and how each rail was
//! routed after, as a run reports it in its `routing` table.
use crate::fabric::routing::outcome::SubnetRouting;
use crate::report::tables::{row, Tables};
use serde_json::json;

/// What disabling did: the cables taken down and how each rail was routed after.
#[derive(Clone, Debug)]
pub struct Rerouted {
    /// Each disabled cable, `"a"[1] <-> "b"[2]`, in the order of `disable`.
    pub disabled: Vec<String>,
    pub subnets: Vec<SubnetRouting>,
}

impl Rerouted {
    /// The `routing` table of a run on a fabric with disabled links: one row per rail, its
    /// engine asked and used and OpenSM's reason when it fell back, and the disabled cables
    /// (joined by "; ", one cell in a CSV).
    pub fn push_table(&self, t: &mut Tables) {
        for s in &self.subnets {
            t.push(
                "routing",
                row(json!({
                    "rail": s.rail, "switches": s.switches, "endpoints": s.endpoints,
                    "asked": s.asked.name(), "used": s.used.name(),
                    "fallback": s.fallback.as_ref().map(|f| f.reason.as_str()),
                    "disabled": self.disabled.join("; "),
                })),
            );
        }
    }
}
