//! The fabric as tables for pandas: nodes, links (with the all-to-all routes over each
//! direction) and the LFT entries. Each is a struct of columns, so the JSON is one list per
//! column (pandas builds a frame from that without a Python object per row, which matters for
//! the routes: switches × LIDs rows, 2 million on the TSUBAME2.0-like fabric).
use crate::fabric::analysis::RouteCounts;
use crate::fabric::graph::{FabricGraph, LinkState, NodeKind, RoutedFabric, NO_LID, NO_ROUTE};
use crate::ids::NodeId;
use serde::Serialize;
use std::collections::HashMap;

#[derive(Debug, Default, Serialize)]
pub struct NodeColumns {
    pub name: Vec<String>,
    /// `"switch"` or `"ca"`.
    pub kind: Vec<&'static str>,
    /// `0x...`, as the tools print GUIDs (and a u64 that pandas would turn negative or float).
    pub guid: Vec<String>,
    /// A switch's LID (port 0); an HCA's first port's (0 when none is cabled).
    pub lid: Vec<u16>,
    pub ports: Vec<u16>,
    /// The owning host and the HCA's rail; null for switches.
    pub host: Vec<Option<String>>,
    pub rail: Vec<Option<u16>>,
}

pub fn nodes(g: &FabricGraph) -> NodeColumns {
    let mut t = NodeColumns::default();
    for n in &g.nodes {
        t.name.push(n.name.clone());
        t.guid.push(format!("{:#018x}", n.guid));
        t.ports.push(n.num_ports);
        match n.kind {
            NodeKind::Switch => {
                t.kind.push("switch");
                t.lid.push(n.lid);
                t.host.push(None);
                t.rail.push(None);
            }
            NodeKind::Ca { host, rail } => {
                t.kind.push("ca");
                t.lid.push(n.ports().map(|p| g.ports[p].lid).find(|&l| l != NO_LID).unwrap_or(NO_LID));
                t.host.push(Some(g.hosts[host].name.clone()));
                t.rail.push(Some(rail));
            }
        }
    }
    t
}

#[derive(Debug, Default, Serialize)]
pub struct LinkColumns {
    pub a: Vec<String>,
    pub a_port: Vec<u16>,
    pub b: Vec<String>,
    pub b_port: Vec<u16>,
    /// Lanes: 1, 4, 8, 12.
    pub width: Vec<u8>,
    /// The generation: `"QDR"`, `"FDR10"`, ...
    pub speed: Vec<String>,
    /// `"4X QDR"`, as the summary counts links.
    pub label: Vec<String>,
    pub length_m: Vec<f64>,
    pub ber: Vec<f64>,
    /// `"up"` or `"down"`.
    pub state: Vec<&'static str>,
    /// Trained below what both ends support (narrower or slower).
    pub degraded: Vec<bool>,
    /// All-to-all routes from a to b and from b to a (fabric/analysis/loads.rs).
    pub routes_ab: Vec<u32>,
    pub routes_ba: Vec<u32>,
}

pub fn links(g: &FabricGraph, counts: &RouteCounts) -> LinkColumns {
    let mut t = LinkColumns::default();
    for (l, link) in g.links.iter_enumerated() {
        let [a, b] = link.ends;
        t.a.push(g.nodes[g.ports[a].node].name.clone());
        t.a_port.push(g.ports[a].num);
        t.b.push(g.nodes[g.ports[b].node].name.clone());
        t.b_port.push(g.ports[b].num);
        t.width.push(link.speed.width);
        t.speed.push(format!("{:?}", link.speed.gen).to_uppercase());
        t.label.push(link.speed.label());
        t.length_m.push(link.length_m);
        t.ber.push(link.ber);
        t.state.push(if link.state == LinkState::Up { "up" } else { "down" });
        t.degraded.push(g.is_degraded(l));
        t.routes_ab.push(counts.out_of[a]);
        t.routes_ba.push(counts.out_of[b]);
    }
    t
}

/// The LFT entries that route somewhere, switch by switch in node order, LIDs ascending.
/// Switches and destinations are codes into `names` (node names), as a pandas Categorical
/// takes them; `dest` is -1 for a LID no node has.
#[derive(Debug, Default, Serialize)]
pub struct RouteColumns {
    pub names: Vec<String>,
    pub switch: Vec<u32>,
    pub lid: Vec<u16>,
    /// Output port; 0 is the switch itself.
    pub port: Vec<u8>,
    pub dest: Vec<i64>,
}

pub fn routes(rf: &RoutedFabric) -> RouteColumns {
    let g = &rf.graph;
    let owner: HashMap<u16, NodeId> = g.lids().into_iter().map(|(lid, node, _)| (lid, node)).collect();
    let mut t = RouteColumns { names: g.nodes.iter().map(|n| n.name.clone()).collect(), ..Default::default() };
    for sw in g.switches() {
        let Some(table) = rf.lfts.tables.get(sw) else { continue };
        for (lid, &port) in table.iter().enumerate().filter(|(_, &p)| p != NO_ROUTE) {
            let lid = lid as u16;
            t.switch.push(sw.0);
            t.lid.push(lid);
            t.port.push(port);
            t.dest.push(owner.get(&lid).map_or(-1, |n| i64::from(n.0)));
        }
    }
    t
}
