//! `[topology] disable`: cables taken down before the fabric is routed, so that each rail is
//! routed by its engine as OpenSM routes it after a sweep finds the link down (an operator
//! disabling a bad link with `ibportstate … disable`; the SM re-routes around it). The
//! engines skip down links (they walk `FabricGraph::peer_up`), and one that no longer
//! recognises its topology gives up as OpenSM's does (ftree: minhop instead,
//! `EngineOutput::minhop_instead`, with OpenSM's message). Both engines start from the fabric
//! this returns, so the packet and the flow engine take the same re-routed paths.
use crate::fabric::graph::{FabricGraph, LinkState};
use crate::fabric::routing::{route, Engine, RouteOptions, Routing};

pub use crate::fabric::rerouted::Rerouted;

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

