//! Link selectors of `[[faults]]` on a graph fabric: `"*"` (every link, both directions),
//! `"a-b"` (both directions of the links between a and b), `"a->b"` (a to b only). A node is a
//! host by name (`h3`: any of its HCAs), an HCA by its node name (`"h3 mlx4_1"`) or a switch by
//! name (`r0-L1-s2`).
use crate::fabric::graph::{FabricGraph, NodeKind};
use crate::ids::{NodeId, PortId};

/// The directed links (sending port, receiving port) a selector picks, or why none.
pub fn select_links(sel: &str, g: &FabricGraph) -> Result<Vec<(PortId, PortId)>, String> {
    let s = sel.trim();
    let all = || g.links.iter().flat_map(|l| [(l.ends[0], l.ends[1]), (l.ends[1], l.ends[0])]);
    if s == "*" {
        return Ok(all().collect());
    }
    let (a, b, both) = if let Some((a, b)) = s.split_once("->") {
        (a, b, false)
    } else if let Some((a, b)) = s.split_once('-').filter(|_| !s.contains("->")) {
        // Names may contain '-' (switches `r0-L1-s2`): split at the '-' that leaves a known
        // name on both sides.
        match split_known(s, g) {
            Some((a, b)) => (a, b, true),
            None => (a, b, true),
        }
    } else {
        return Err(format!("invalid link selector {s:?}; expected \"*\", \"a-b\" or \"a->b\" with host, HCA or switch names"));
    };
    let (na, nb) = (nodes_named(a.trim(), g)?, nodes_named(b.trim(), g)?);
    let picked: Vec<(PortId, PortId)> = all()
        .filter(|&(x, y)| {
            let (nx, ny) = (g.ports[x].node, g.ports[y].node);
            (na.contains(&nx) && nb.contains(&ny)) || (both && nb.contains(&nx) && na.contains(&ny))
        })
        .collect();
    if picked.is_empty() {
        return Err(format!("link selector {s:?}: there is no link between {:?} and {:?}", a.trim(), b.trim()));
    }
    Ok(picked)
}

/// The '-' of `s` with a known name on each side, if there is one.
fn split_known<'a>(s: &'a str, g: &FabricGraph) -> Option<(&'a str, &'a str)> {
    s.match_indices('-').map(|(i, _)| (&s[..i], &s[i + 1..])).find(|(a, b)| nodes_named(a.trim(), g).is_ok() && nodes_named(b.trim(), g).is_ok())
}

/// The nodes a name stands for: a host's HCAs, or the one node of that name.
fn nodes_named(name: &str, g: &FabricGraph) -> Result<Vec<NodeId>, String> {
    if let Some(h) = g.hosts.iter().find(|h| h.name == name) {
        return Ok(h.hcas.clone());
    }
    if let Some((id, _)) = g.nodes.iter_enumerated().find(|(_, n)| n.name == name) {
        return Ok(vec![id]);
    }
    let example = g.nodes.iter().find(|n| n.kind == NodeKind::Switch).map(|n| n.name.as_str()).unwrap_or("sw0");
    Err(format!("no host, HCA or switch is named {name:?} (hosts are named like {:?}, switches like {example:?})", g.hosts.iter().next().map(|h| h.name.as_str()).unwrap_or("h0")))
}
