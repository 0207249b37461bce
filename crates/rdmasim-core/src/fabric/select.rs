//! Link selectors on a graph fabric, for `[[faults]] link` and `[topology] disable`: `"*"`
//! (every link, both directions), `"a-b"` (both directions of the links between a and b),
//! `"a->b"` (a to b only), `"a <-> b"` (both, as `rdmasim doctor` prints a cable). An end is a host by name (`h3`: any of its HCAs' ports), an HCA by
//! its node name (`"h3 mlx4_1"`), a switch by name (`r0-L1-s2`: any of its ports), or one port
//! of a node, `name[port]` (`r0-L1-s3[5]`, `"h3 mlx4_1"[1]`: the name may be quoted, as
//! perfquery-style output and the doctor print ports), which picks one cable of a switch pair
//! joined by several.
use crate::fabric::graph::{FabricGraph, NodeKind};
use crate::ids::{LinkId, PortId};

/// How many of a node's cables an error lists before "…".
const LISTED_CABLES: usize = 8;

/// The directed links (sending port, receiving port) a selector picks, or why none.
pub fn select_links(sel: &str, g: &FabricGraph) -> Result<Vec<(PortId, PortId)>, String> {
    let s = sel.trim();
    let all = || g.links.iter().flat_map(|l| [(l.ends[0], l.ends[1]), (l.ends[1], l.ends[0])]);
    if s == "*" {
        return Ok(all().collect());
    }
    let (a, b, both) = if let Some((a, b)) = s.split_once("<->") {
        // As `rdmasim doctor` and the `routing` table print a cable.
        (a, b, true)
    } else if let Some((a, b)) = s.split_once("->") {
        (a, b, false)
    } else if let Some((a, b)) = s.split_once('-') {
        // Names may contain '-' (switches `r0-L1-s2`): split at the '-' that leaves a known
        // end on both sides.
        match split_known(s, g) {
            Some((a, b)) => (a, b, true),
            None => (a, b, true),
        }
    } else {
        return Err(format!("invalid link selector {s:?}; expected \"*\", \"a-b\", \"a<->b\" or \"a->b\" with host, HCA or switch names, each optionally with a port, as \"r0-L1-s3[5]\""));
    };
    let (pa, pb) = (ports_named(a.trim(), g)?, ports_named(b.trim(), g)?);
    let picked: Vec<(PortId, PortId)> =
        all().filter(|(x, y)| (pa.contains(x) && pb.contains(y)) || (both && pb.contains(x) && pa.contains(y))).collect();
    if picked.is_empty() {
        return Err(format!("link selector {s:?}: there is no link between {:?} and {:?}; {}", a.trim(), b.trim(), cables_of(&pa, g)));
    }
    Ok(picked)
}

/// The cables (both directions) a selector picks, once each: what `[topology] disable` takes
/// down (a link goes down as a whole, whichever direction names it).
pub fn select_cables(sel: &str, g: &FabricGraph) -> Result<Vec<LinkId>, String> {
    let mut links: Vec<LinkId> = select_links(sel, g)?.into_iter().filter_map(|(p, _)| g.ports[p].link).collect();
    links.sort_unstable();
    links.dedup();
    Ok(links)
}

/// The '-' of `s` with a known end on each side, if there is one.
fn split_known<'a>(s: &'a str, g: &FabricGraph) -> Option<(&'a str, &'a str)> {
    s.match_indices('-').map(|(i, _)| (&s[..i], &s[i + 1..])).find(|(a, b)| ports_named(a.trim(), g).is_ok() && ports_named(b.trim(), g).is_ok())
}

/// The ports an end stands for: every port of a host's HCAs or of a node, or one port.
fn ports_named(end: &str, g: &FabricGraph) -> Result<Vec<PortId>, String> {
    let (name, port) = match end.strip_suffix(']').and_then(|e| e.rsplit_once('[')) {
        Some((name, num)) => (name.trim(), Some(num.trim())),
        None => (end, None),
    };
    let name = name.strip_prefix('"').and_then(|n| n.strip_suffix('"')).unwrap_or(name);
    if let Some(h) = g.hosts.iter().find(|h| h.name == name) {
        if port.is_some() {
            return Err(format!("{end:?}: a port number needs an HCA or a switch, not the host {name:?}; expected e.g. {:?}", format!("{}[1]", g.nodes[h.hcas[0]].name)));
        }
        return Ok(h.hcas.iter().flat_map(|&ca| g.nodes[ca].ports()).collect());
    }
    let Some(node) = g.nodes.iter().find(|n| n.name == name) else {
        let example = g.nodes.iter().find(|n| n.kind == NodeKind::Switch).map(|n| n.name.as_str()).unwrap_or("sw0");
        let host = g.hosts.iter().next().map(|h| h.name.as_str()).unwrap_or("h0");
        return Err(format!("no host, HCA or switch is named {name:?} (hosts are named like {host:?}, switches like {example:?}, a port like {:?})", format!("{example}[1]")));
    };
    let Some(num) = port else {
        return Ok(node.ports().collect());
    };
    match num.parse::<u16>().ok().and_then(|n| node.port(n)) {
        Some(p) => Ok(vec![p]),
        None => Err(format!("{end:?}: {name:?} has no port {num:?}; expected a port number in 1..={}", node.num_ports)),
    }
}

/// What the ports of one end are cabled to, for an error: `"a"[1] -> "b"[4], …`.
fn cables_of(ports: &[PortId], g: &FabricGraph) -> String {
    let cabled: Vec<String> = ports.iter().filter_map(|&p| g.peer(p).map(|q| format!("{} -> {}", g.port_name(p), g.port_name(q)))).collect();
    if cabled.is_empty() {
        return "it has no cable".into();
    }
    let more = if cabled.len() > LISTED_CABLES { format!(", … ({} in all)", cabled.len()) } else { String::new() };
    format!("expected one of its cables: {}{more}", cabled[..cabled.len().min(LISTED_CABLES)].join(", "))
}
