//! A multi-rail fabric is several subnets, each with its own subnet manager: OpenSM routes
//! each rail on its own and an operator may choose a different engine per rail (the TSUBAME2.0
//! study's `hetero`). Here each connected component is cut out as a graph of its own (same
//! names, GUIDs, LIDs and port numbers), routed by its rail's engine, and its tables are put
//! back; LIDs are global, so the tables need no translation.
use super::engine::{run, Engine, EngineOutput, PathSls, RouteOptions};
use crate::fabric::analysis::components::Components;
use crate::fabric::graph::{FabricGraph, GraphError, Lfts, LinkProps, NodeKind, RoutedFabric};
use crate::ids::{HostId, NodeId, TiVec};

pub use super::outcome::SubnetRouting;

/// A routed fabric and how each subnet got its tables.
#[derive(Clone, Debug)]
pub struct Routing {
    pub fabric: RoutedFabric,
    pub subnets: Vec<SubnetRouting>,
}

/// Routes every subnet of `g`: `engines[rail]` for the subnet of that rail, or the one engine
/// for all when one is given.
pub fn route(g: FabricGraph, engines: &[Engine], opts: &RouteOptions) -> Result<Routing, GraphError> {
    if engines.iter().any(|e| matches!(e, Engine::Updn | Engine::Ftree)) {
        super::roots::check_exist(&g, &opts.roots, "the")?;
    }
    let comps = Components::of(&g);
    let rails: Vec<u16> = (0..comps.len()).map(|c| comps.rails(c).first().copied().unwrap_or(0)).collect();
    let engine_of = |rail: u16| -> Result<Engine, GraphError> {
        match engines {
            [] => Err(GraphError("no routing engine given".into())),
            [one] => Ok(*one),
            many => many.get(usize::from(rail)).copied().ok_or_else(|| {
                GraphError(format!("{} routing engines given (one per rail) but the fabric has rail {rail}", many.len()))
            }),
        }
    };
    let max_rail = rails.iter().copied().max().unwrap_or(0);
    if engines.len() > 1 && engines.len() != usize::from(max_rail) + 1 {
        let rails = max_rail + 1;
        return Err(GraphError(format!("{} routing engines given (one per rail) for a fabric of {rails} rail{}", engines.len(), if rails == 1 { "" } else { "s" })));
    }
    let mut subnets = Vec::new();
    let mut sls: Option<PathSls> = None;
    let lfts = if comps.len() <= 1 {
        let engine = engine_of(rails.first().copied().unwrap_or(0))?;
        let out = run(engine, &g, opts)?;
        subnets.push(subnet_routing(&comps, 0, rails.first().copied().unwrap_or(0), engine, &out));
        sls = out.sls;
        out.lfts
    } else {
        let mut lfts = Lfts::empty_for(&g);
        for (c, &rail) in rails.iter().enumerate() {
            let engine = engine_of(rail)?;
            let (sub, back) = cut(&g, &comps, c as u32)?;
            let out = run(engine, &sub, opts)?;
            subnets.push(subnet_routing(&comps, c, rail, engine, &out));
            for (i, table) in out.lfts.tables.into_iter().enumerate() {
                let orig = back[i];
                for (lid, &port) in table.iter().enumerate() {
                    lfts.tables[orig][lid] = port;
                }
            }
            if let Some(s) = out.sls {
                let all = sls.get_or_insert_with(|| PathSls::new(g.max_lid()));
                for src in 0..s.stride {
                    for dst in 0..s.stride {
                        let sl = s.sl[src * s.stride + dst];
                        if sl != 0 {
                            all.set(src as u16, dst as u16, sl);
                        }
                    }
                }
            }
        }
        lfts
    };
    Ok(Routing { fabric: RoutedFabric { graph: g, lfts, sls }, subnets })
}

fn subnet_routing(comps: &Components, c: usize, rail: u16, asked: Engine, out: &EngineOutput) -> SubnetRouting {
    SubnetRouting {
        rail,
        switches: comps.switches.get(c).copied().unwrap_or(0),
        endpoints: comps.endpoints.get(c).map_or(0, Vec::len),
        asked,
        used: out.fallback.as_ref().map_or(asked, |f| f.to),
        fallback: out.fallback.clone(),
    }
}

/// Component `c` of `g` as a graph of its own, nodes in their original order (so ties broken
/// by node order break the same way), and the original id of each of its nodes.
fn cut(g: &FabricGraph, comps: &Components, c: u32) -> Result<(FabricGraph, Vec<NodeId>), GraphError> {
    let mut sub = FabricGraph::new();
    let mut new_id: TiVec<NodeId, Option<NodeId>> = g.nodes.keys().map(|_| None).collect();
    let mut hosts: TiVec<HostId, Option<HostId>> = g.hosts.keys().map(|_| None).collect();
    let mut back = Vec::new();
    for (id, n) in g.nodes.iter_enumerated() {
        if comps.of_node[id] != c {
            continue;
        }
        let supported = g.ports[n.first_port].supported;
        let nid = match n.kind {
            NodeKind::Switch => sub.add_switch(n.name.clone(), n.guid, n.num_ports, supported)?,
            NodeKind::Ca { host, .. } => {
                let h = *hosts[host].get_or_insert_with(|| sub.add_host(g.hosts[host].name.clone()));
                sub.add_hca(h, n.name.clone(), n.guid, n.num_ports, supported)?
            }
        };
        sub.nodes[nid].lid = n.lid;
        for (p, q) in n.ports().zip(sub.nodes[nid].ports()) {
            sub.ports[q].lid = g.ports[p].lid;
            sub.ports[q].guid = g.ports[p].guid;
            sub.ports[q].supported = g.ports[p].supported;
        }
        new_id[id] = Some(nid);
        back.push(id);
    }
    for link in &g.links {
        let [a, b] = link.ends;
        let (Some(na), Some(nb)) = (new_id[g.ports[a].node], new_id[g.ports[b].node]) else { continue };
        let pa = sub.port_of(na, g.ports[a].num)?;
        let pb = sub.port_of(nb, g.ports[b].num)?;
        sub.connect(pa, pb, LinkProps { speed: link.speed, length_m: link.length_m, ber: link.ber, state: link.state })?;
    }
    Ok((sub, back))
}
