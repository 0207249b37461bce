//! A Graphviz picture of the fabric: switches as boxes, each host as a cluster of its HCAs,
//! links labelled with width and speed; degraded links (trained below what both ends support)
//! drawn thick and orange, down links dashed and grey. `dot -Tsvg fabric.dot > fabric.svg`.
use crate::fabric::graph::{FabricGraph, LinkState};
use crate::fabric::rate::LinkSpeed;
use crate::ids::NodeId;
use std::fmt::Write;

/// A dot string literal (quotes and backslashes escaped).
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n"))
}

fn node_id(n: NodeId) -> String {
    format!("n{n}")
}

fn label(speed: LinkSpeed) -> String {
    super::text::compact(speed)
}

pub fn write(g: &FabricGraph) -> String {
    let mut out = String::from("graph fabric {\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=9];\n");
    for s in g.switches() {
        let n = &g.nodes[s];
        let _ = writeln!(out, "  {} [shape=box, label={}];", node_id(s), quoted(&format!("{}\nlid {}", n.name, n.lid)));
    }
    for (h, host) in g.hosts.iter_enumerated() {
        let _ = writeln!(out, "  subgraph cluster_host{h} {{\n    label={};", quoted(&host.name));
        for &ca in &host.hcas {
            let _ = writeln!(out, "    {} [shape=ellipse, label={}];", node_id(ca), quoted(&g.nodes[ca].name));
        }
        out.push_str("  }\n");
    }
    for (l, link) in g.links.iter_enumerated() {
        let [a, b] = link.ends.map(|p| &g.ports[p]);
        let style = if link.state == LinkState::Down {
            ", style=dashed, color=gray"
        } else if g.is_degraded(l) {
            ", color=orange, penwidth=3"
        } else {
            ""
        };
        let text = format!("{}\n[{}]-[{}]{}", label(link.speed), a.num, b.num, if link.state == LinkState::Down { " down" } else { "" });
        let _ = writeln!(out, "  {} -- {} [label={}{style}];", node_id(a.node), node_id(b.node), quoted(&text));
    }
    out.push_str("}\n");
    out
}
