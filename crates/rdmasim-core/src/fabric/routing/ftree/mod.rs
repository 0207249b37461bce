//! OpenSM's fat-tree routing (`-R ftree`, osm_ucast_ftree.c of OpenSM 3.3.23), entry for
//! entry: rank the switches ([`rank`]), check that the fabric is a fat tree ([`validate`]),
//! index the switches ([`index`]), then route every compute node, the missing ones as
//! dummies, and the switches' own LIDs with counters that balance each port's routes
//! ([`assign`]).
//!
//! When the fabric is not a fat tree OpenSM's ftree gives up and its default engine, minhop,
//! routes instead; so do we, with OpenSM's log words as the reason. [`check`] says whether
//! (and why) without routing.
pub mod assign;
pub mod index;
pub mod model;
pub mod rank;
pub mod validate;

use super::engine::{EngineOutput, RouteOptions};
use crate::fabric::graph::{FabricGraph, GraphError, Lfts};
use model::Fabric;

/// The fabric as ftree sees it, ranked, checked and indexed; Ok(Err(reason)) when OpenSM's
/// ftree would give up on it, with OpenSM's log words. Errors: a root that is not a switch.
pub fn build(g: &FabricGraph, opts: &RouteOptions) -> Result<Result<Fabric, String>, GraphError> {
    let roots = if opts.roots.is_empty() { None } else { Some(rank::resolve_roots(g, &opts.roots)?) };
    let switches = g.num_switches();
    let cas = g.nodes.len() - switches;
    if switches < 2 {
        return Ok(Err(format!("Fabric has {switches} switches - topology is not fat-tree")));
    }
    if cas < 2 {
        return Ok(Err(format!("Fabric has {} nodes ({switches} switches) - topology is not fat-tree", g.nodes.len())));
    }
    let mut f = Fabric::new(g);
    Ok(shape(g, &mut f, roots.as_deref()).map(|()| f))
}

/// Ranks, checks and indexes `f`, in OpenSM's order of checks.
fn shape(g: &FabricGraph, f: &mut Fabric, roots: Option<&[crate::ids::NodeId]>) -> Result<(), String> {
    rank::rank(g, f, roots)?;
    rank::drop_unranked(f);
    if f.max_rank == 0 && f.switches.len() > 1 {
        return Err("ERR AB2B: Found more than one root on fabric with maximum rank 0".into());
    }
    if let Some((a, b)) = rank::ca_cabled_to_ca(g, f) {
        // Only reachable with given roots: ranking from the leaves checks this first.
        return Err(format!("ERR AB11: CA connected directly to another CA: {a:#018x} <---> {b:#018x}; {}", validate::NOT_FAT_TREE));
    }
    f.build_groups(g);
    if f.cas.iter().all(|&c| f.ca_ports[c].is_empty()) {
        return Err("Fabric has no valid compute nodes".into());
    }
    validate::leaf_rank(f, roots.is_some())?;
    validate::mark_leaves(f)?;
    index::index(f)?;
    if roots.is_none() {
        validate::check_pure(f)?;
    }
    Ok(())
}

/// Whether OpenSM's ftree would give up on `g`, and why (its log words).
pub fn check(g: &FabricGraph, opts: &RouteOptions) -> Result<Option<String>, GraphError> {
    Ok(build(g, opts)?.err())
}

/// Routes `g` as OpenSM's ftree does, or with minhop where ftree gives up.
pub fn route(g: &FabricGraph, opts: &RouteOptions) -> Result<EngineOutput, GraphError> {
    match build(g, opts)? {
        Ok(mut f) => Ok(EngineOutput::tables(assign::route(&mut f, Lfts::empty_for(g)))),
        Err(reason) => EngineOutput::minhop_instead(g, reason),
    }
}

#[cfg(test)]
mod tests;
