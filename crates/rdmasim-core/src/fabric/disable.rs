//! `[topology] disable`: cables taken down before the fabric is routed, so that each rail is
//! routed by its engine as OpenSM routes it after a sweep finds the link down (an operator
//! disabling a bad link with `ibportstate … disable`; the SM re-routes around it). The
//! engines skip down links (they walk `FabricGraph::peer_up`), and one that no longer
//! recognises its topology gives up as OpenSM's does (ftree: minhop instead,
//! `EngineOutput::minhop_instead`, with OpenSM's message). Both engines start from the fabric
//! this returns, so the packet and the flow engine take the same re-routed paths.
use crate::fabric::graph::{FabricGraph, LinkState};
use crate::fabric::routing::{route, Engine, RouteOptions, Routing, SubnetRouting};
use crate::report::tables::{row, Tables};
use serde_json::json;

/// What disabling did: the cables taken down and how each rail was routed after.
#[derive(Clone, Debug)]
pub struct Rerouted {
    /// Each disabled cable, `"a"[1] <-> "b"[2]`, in the order of `disable`.
    pub disabled: Vec<String>,
    pub subnets: Vec<SubnetRouting>,
}

/// Takes down the cables `selectors` name (fabric/select.rs; a one-direction selector takes
/// its cable down too: a link is up or down as a whole) and routes `g` with `engines` (one, or
/// one per rail). Errors name the key: `topology.disable[i]` or `topology.route`.
pub fn route_without(mut g: FabricGraph, selectors: &[String], engines: &[Engine], opts: &RouteOptions) -> Result<(Routing, Rerouted), (String, String)> {
    let mut disabled = Vec::new();
    for (i, sel) in selectors.iter().enumerate() {
        let links = crate::fabric::select::select_cables(sel, &g).map_err(|m| (format!("topology.disable[{i}]"), m))?;
        for l in links {
            g.links[l].state = LinkState::Down;
            let [a, b] = g.links[l].ends;
            disabled.push(format!("{} <-> {}", g.port_name(a), g.port_name(b)));
        }
    }
    let routing = route(g, engines, opts).map_err(|e| ("topology.route".to_string(), e.0))?;
    let subnets = routing.subnets.clone();
    Ok((routing, Rerouted { disabled, subnets }))
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
