//! Link selectors of `[[faults]]` (`"*"`, `"h0-h1"`, `"sw0->h3"`) and the directed links of
//! each topology.
use crate::scenario::TopologyKind;
use std::fmt;

/// One end of a link: a host's HCA port or a switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Endpoint {
    Host(u32),
    Switch(u32),
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Host(n) => write!(f, "h{n}"),
            Endpoint::Switch(n) => write!(f, "sw{n}"),
        }
    }
}

const SELECTOR_SYNTAX: &str = "expected \"*\", \"hN-hM\", \"hN->hM\", \"hN-sw0\" or \"sw0->hN\"";

fn parse_endpoint(s: &str) -> Result<Endpoint, String> {
    let s = s.trim();
    let (ctor, digits): (fn(u32) -> Endpoint, &str) = if let Some(d) = s.strip_prefix("sw") {
        (Endpoint::Switch, d)
    } else if let Some(d) = s.strip_prefix('h') {
        (Endpoint::Host, d)
    } else {
        return Err(format!("`{s}` is not a host (hN) or switch (swN) name"));
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{s}` is not a host (hN) or switch (swN) name"));
    }
    digits.parse::<u32>().map(ctor).map_err(|_| format!("`{s}`: index too large"))
}

/// Every directed link of a topology.
pub fn topology_links(kind: TopologyKind, hosts: u32) -> Vec<(Endpoint, Endpoint)> {
    match kind {
        TopologyKind::BackToBack => vec![(Endpoint::Host(0), Endpoint::Host(1)), (Endpoint::Host(1), Endpoint::Host(0))],
        TopologyKind::SingleSwitch => (0..hosts)
            .flat_map(|h| [(Endpoint::Host(h), Endpoint::Switch(0)), (Endpoint::Switch(0), Endpoint::Host(h))])
            .collect(),
        // Graph fabrics name their links by node names (fabric/select.rs).
        TopologyKind::Graph => Vec::new(),
    }
}

/// The directed links a fault's `link` selector picks in a topology:
/// `"*"` (every link, both directions), `"a-b"` (both directions of the cable a–b),
/// `"a->b"` (a to b only), where a and b are hosts `hN` or the switch `sw0`.
///
/// Back-to-back has one cable, h0-h1; single-switch has hN-sw0 for each host. A selector that
/// names no existing link is an error saying which links exist.
pub fn parse_link_selector(sel: &str, kind: TopologyKind, hosts: u32) -> Result<Vec<(Endpoint, Endpoint)>, String> {
    let s = sel.trim();
    if s.is_empty() {
        return Err(format!("empty link selector; {SELECTOR_SYNTAX}"));
    }
    if s == "*" {
        return Ok(topology_links(kind, hosts));
    }
    let (a, b, both) = if let Some((a, b)) = s.split_once("->") {
        (a, b, false)
    } else if let Some((a, b)) = s.split_once('-') {
        (a, b, true)
    } else {
        return Err(format!("invalid link selector \"{s}\"; {SELECTOR_SYNTAX}"));
    };
    let (a, b) = match (parse_endpoint(a), parse_endpoint(b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return Err(format!("invalid link selector \"{s}\": {e}; {SELECTOR_SYNTAX}")),
    };
    let kind_name = match kind {
        TopologyKind::BackToBack => "back-to-back",
        TopologyKind::SingleSwitch => "single-switch",
        TopologyKind::Graph => "generated",
    };
    let existing = match kind {
        TopologyKind::BackToBack => "the only link is h0-h1".to_string(),
        TopologyKind::SingleSwitch => format!("links are hN-sw0 for N in 0..={}", hosts.saturating_sub(1)),
        TopologyKind::Graph => "a generated fabric names its links by node names".to_string(),
    };
    for e in [a, b] {
        match e {
            Endpoint::Host(n) if n >= hosts => {
                return Err(format!(
                    "link selector \"{s}\": host {e} does not exist (the topology has hosts h0..=h{})",
                    hosts.saturating_sub(1)
                ))
            }
            Endpoint::Switch(_) if kind == TopologyKind::BackToBack => {
                return Err(format!("link selector \"{s}\": a back-to-back topology has no switch; {existing}"))
            }
            Endpoint::Switch(n) if n != 0 => {
                return Err(format!("link selector \"{s}\": switch {e} does not exist (the single-switch topology has sw0)"))
            }
            _ => {}
        }
    }
    if a == b {
        return Err(format!("link selector \"{s}\": {a} to itself is not a link; {existing}"));
    }
    let all = topology_links(kind, hosts);
    if !all.contains(&(a, b)) {
        return Err(format!("link selector \"{s}\": there is no link between {a} and {b} in a {kind_name} topology; {existing}"));
    }
    Ok(if both { vec![(a, b), (b, a)] } else { vec![(a, b)] })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_selectors_pick_directed_links() {
        use Endpoint::*;
        let b2b = TopologyKind::BackToBack;
        let sw = TopologyKind::SingleSwitch;
        assert_eq!(parse_link_selector("h0->h1", b2b, 2).unwrap(), vec![(Host(0), Host(1))]);
        assert_eq!(parse_link_selector("h1-h0", b2b, 2).unwrap(), vec![(Host(1), Host(0)), (Host(0), Host(1))]);
        assert_eq!(parse_link_selector("*", b2b, 2).unwrap().len(), 2);
        assert_eq!(parse_link_selector("*", sw, 4).unwrap().len(), 8);
        assert_eq!(parse_link_selector("sw0->h3", sw, 4).unwrap(), vec![(Switch(0), Host(3))]);
        assert_eq!(parse_link_selector(" h2 - sw0 ", sw, 4).unwrap(), vec![(Host(2), Switch(0)), (Switch(0), Host(2))]);
        assert!(parse_link_selector("h0-h1", sw, 4).unwrap_err().contains("hN-sw0"));
        assert!(parse_link_selector("h0-sw0", b2b, 2).unwrap_err().contains("no switch"));
        assert!(parse_link_selector("h0->h2", b2b, 2).unwrap_err().contains("h2 does not exist"));
        assert!(parse_link_selector("h4-sw0", sw, 4).unwrap_err().contains("h4 does not exist"));
        assert!(parse_link_selector("h1-sw1", sw, 4).unwrap_err().contains("sw1 does not exist"));
        assert!(parse_link_selector("h0=>h1", b2b, 2).is_err());
        assert!(parse_link_selector("", b2b, 2).is_err());
        assert!(parse_link_selector("h0->h0", b2b, 2).is_err());
        assert!(parse_link_selector("hx-h1", b2b, 2).is_err());
        assert!(parse_link_selector("h99999999999-h1", b2b, 2).is_err());
    }
}
