//! The fabric a scenario's `[topology]` names, built once: generated (build/), or imported from
//! the operators' files (io/) with their forwarding tables, routed again by name or after links
//! are disabled (routing/, disable.rs). The scenario keeps it (`TopologySection::routed`) and
//! takes its host count, so the checks that follow see the real fabric.
use crate::scenario::{Scenario, TopologyKind, WorkloadSection};

/// Builds the fabric a `[topology] generator` names, once, and sets `hosts` to its host count
/// and `kind` to `Graph`, so that the checks of hosts and links see the real fabric. Nothing
/// to do for `back-to-back` and `single-switch`. An error names the key and why.
pub fn resolve_topology(s: &mut Scenario, source: &str) -> Result<(), (String, String)> {
    let t = &mut s.topology;
    if t.routed.is_some() || (t.generator.is_none() && t.file.is_none()) {
        if t.lfts.is_some() && t.file.is_none() {
            return Err(("topology.lfts".into(), "forwarding tables need the fabric they route; expected topology.file beside topology.lfts".into()));
        }
        if !t.disable.is_empty() && t.routed.is_none() {
            return Err(("topology.disable".into(), "links are disabled on a generated or imported fabric; expected topology.generator or topology.file beside topology.disable".into()));
        }
        return Ok(());
    }
    let what = if t.generator.is_some() { "topology.generator" } else { "topology.file" };
    if t.route.is_some() && t.lfts.is_some() {
        return Err(("topology.route".into(), "forwarding tables are read from topology.lfts or made by topology.route, not both; expected one of them".into()));
    }
    if !t.roots.is_empty() && t.route.is_none() {
        return Err(("topology.roots".into(), "roots are for a routing engine; expected topology.route beside topology.roots".into()));
    }
    if t.generator.is_some() && t.file.is_some() {
        return Err(("topology.file".into(), "a fabric is generated or read from a file, not both; expected topology.generator or topology.file".into()));
    }
    if t.generator.is_some() && t.cable_m != crate::scenario::default_cable_m() {
        return Err(("topology.cable_m".into(), "a generator gives its cables their length (its own cable_m); expected no topology.cable_m beside topology.generator".into()));
    }
    if t.kind != crate::scenario::default_topology_kind() || t.hosts != crate::scenario::default_hosts() {
        let key = if t.kind != crate::scenario::default_topology_kind() { "topology.kind" } else { "topology.hosts" };
        return Err((key.into(), format!("a generated or imported fabric has its own kind and hosts; expected {what} alone (remove topology.kind and topology.hosts)")));
    }
    let routed = match (&t.generator, &t.file) {
        (Some(spec), _) => crate::fabric::generate::generate(spec).map_err(|e| (what.to_string(), e.0))?,
        (None, Some(file)) => {
            let (routed, notes) = import_fabric(file, t.lfts.as_deref(), source, t.cable_m)?;
            t.import_notes = (!notes.is_empty()).then(|| std::sync::Arc::new(notes));
            routed
        }
        (None, None) => return Ok(()),
    };
    let routed = match &t.route {
        _ if !t.disable.is_empty() => {
            if t.lfts.is_some() && t.route.is_none() {
                return Err((
                    "topology.disable".into(),
                    "the forwarding tables of topology.lfts are fixed and would still send packets into the disabled links; expected topology.route beside topology.disable (the fabric is routed again, as OpenSM does after a link goes down), or no topology.disable".into(),
                ));
            }
            // The engine that routed the fabric routes it again; without `route`, the
            // generator's default or, for a file without tables, minhop (fabric/io import_routed).
            let engines = match (&t.route, &t.generator) {
                (Some(names), _) => crate::fabric::routing::Engine::parse_list(names).map_err(|e| ("topology.route".to_string(), e.0))?,
                (None, Some(spec)) => vec![spec.default_engine()],
                (None, None) => vec![crate::fabric::routing::Engine::Minhop],
            };
            let opts = crate::fabric::routing::RouteOptions { roots: t.roots.clone(), ..Default::default() };
            let (routing, rerouted) = crate::fabric::disable::route_without(routed.graph, &t.disable, &engines, &opts)?;
            t.rerouted = Some(std::sync::Arc::new(rerouted));
            routing.fabric
        }
        None => routed,
        Some(names) => {
            let engines = crate::fabric::routing::Engine::parse_list(names).map_err(|e| ("topology.route".to_string(), e.0))?;
            let opts = crate::fabric::routing::RouteOptions { roots: t.roots.clone(), ..Default::default() };
            crate::fabric::routing::route(routed.graph, &engines, &opts).map_err(|e| ("topology.route".to_string(), e.0))?.fabric
        }
    };
    if routed.graph.hosts.is_empty() {
        return Err((what.into(), "the fabric has no host (no HCA); expected at least two".into()));
    }
    if routed.sls.is_some() {
        // dfsssp gives every path its SL (a virtual layer): one set by hand would put the path
        // on another layer and could close the credit loop the layers break.
        let explicit = if s.qp.sl != 0 {
            Some("qp.sl".to_string())
        } else if let WorkloadSection::Flows(f) = &s.workload {
            f.flow.iter().position(|fl| fl.sl.is_some()).map(|i| format!("workload.flow[{i}].sl"))
        } else {
            None
        };
        if let Some(key) = explicit {
            return Err((key, "the routing gives every path its SL (dfsssp's virtual layers); expected no SL set by hand".into()));
        }
    }
    let hosts = routed.graph.hosts.len();
    t.hosts = u32::try_from(hosts).map_err(|_| ("topology.generator".to_string(), format!("{hosts} hosts is too many")))?;
    t.kind = TopologyKind::Graph;
    t.routed = Some(std::sync::Arc::new(routed));
    Ok(())
}

/// Reads `[topology] file` (and `lfts`), paths relative to the scenario file's directory, and
/// routes it as `rdmasim fabric import` does (fabric/io `import_routed`).
pub(crate) fn import_fabric(file: &str, lfts: Option<&str>, source: &str, cable_m: f64) -> Result<(crate::fabric::graph::RoutedFabric, crate::fabric::io::notes::Notes), (String, String)> {
    let base = std::path::Path::new(source).parent().filter(|_| std::path::Path::new(source).is_file());
    let at = |p: &str| base.map_or_else(|| std::path::PathBuf::from(p), |b| b.join(p));
    let key = |k: &str, e: String| (k.to_string(), e);
    let (mut fabric, _, notes) = crate::fabric::io::import_routed(&at(file), lfts.map(at).as_deref(), &Default::default())
        .map_err(|e| key(if lfts.is_some() && e.source != at(file).display().to_string() { "topology.lfts" } else { "topology.file" }, e.to_string()))?;
    // The files give no cable lengths: every link takes topology.cable_m.
    for l in fabric.graph.links.iter_mut() {
        l.length_m = cable_m;
    }
    Ok((fabric, notes))
}
