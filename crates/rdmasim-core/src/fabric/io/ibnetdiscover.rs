//! ibnetdiscover's output, both layouts (infiniband-diags/ibnetdiscover.c):
//!
//! The default one, node blocks: ibsim's `net` format with every port line ending in the link's
//! active width and speed (`# "leaf1" lid 3 4xQDR`); read by the `net` reader in its strict
//! mode (every port line must give them, and both ends must agree).
//!
//! `-p` (ports), one line per port of every node, highest port first:
//! ```text
//! SW     3  4 0x0002c90000000300 1x QDR - CA     7  1 0x0002c90000003001 ( 'leaf1' - 'node2 HCA-2' )
//! SW     3  7 0x0002c90000000300 4x SDR                                    'leaf1'
//! ```
//! type, LID (a switch's, or the CA port's), port, port GUID, width, speed, then the peer the
//! same way, then both descriptions. A port with no peer is uncabled (its width and speed mean
//! nothing, ibsim reports 4x SDR). The format has no node GUID for a CA: a CA's node is keyed
//! by its port GUID minus its port number, which is the node GUID where port GUIDs count on
//! from it (ConnectX-3 and older: node + 1, node + 2) and unique per node on adapters whose
//! every port is a node of its own (ConnectX-4 and later) — an assumption, stated. Real
//! listings are often excerpts (grep'd to the ports of interest), so a peer the listing does
//! not show is kept from the line that names it, and noted.
use super::discovered::{Cable, Discovered, NodeRec, NodeType, PeerHint, SpeedClaim};
use super::ibsim_net::{parse, Mode, ROUTER, UNKNOWN_SPEED};
use super::notes::Notes;
use super::text::{lid_in_range, parse_gen, parse_hex, parse_width, port_in_range, SPEEDS_EXPECTED};
use super::tool_lines::ToolLines;
use super::{ImportOptions, IoError};
use crate::fabric::graph::FabricGraph;
use crate::fabric::rate::{LinkGen, LinkSpeed};

/// Reads ibnetdiscover's default output (or ibdiagnet's copy of its format).
pub fn read(text: &str, source: &str, opts: &ImportOptions, notes: &mut Notes) -> Result<FabricGraph, IoError> {
    parse(text, source, Mode::Ibnetdiscover, opts, notes)?.build(notes)
}

/// One side of a `-p` line: type, LID, port, port GUID.
struct End {
    kind: NodeType,
    lid: u16,
    port: u16,
    guid: u64,
}

fn end<'a>(words: &mut impl Iterator<Item = &'a str>, source: &str, lineno: usize) -> Result<End, IoError> {
    let err = |m: String| IoError::at(source, lineno, m);
    let t = words.next().unwrap_or("");
    let kind = match t {
        "SW" => NodeType::Switch,
        "CA" => NodeType::Ca,
        "RT" => return Err(err("routers are not modelled: expected SW or CA".into())),
        _ => return Err(err(format!("{t:?}: expected SW or CA, then LID, port, port GUID, width and speed"))),
    };
    let lid = words.next().unwrap_or("");
    let lid = lid.parse().ok().and_then(lid_in_range).ok_or_else(|| err(format!("LID {lid:?}: expected 0..=0xBFFF")))?;
    let port = words.next().unwrap_or("");
    let port = port.parse().ok().and_then(port_in_range).ok_or_else(|| err(format!("port {port:?}: expected 1..=254")))?;
    let guid = words.next().unwrap_or("");
    let guid = guid.strip_prefix("0x").and_then(parse_hex).ok_or_else(|| err(format!("GUID {guid:?}: expected 0x and 16 hex digits")))?;
    Ok(End { kind, lid, port, guid })
}

/// The link's width and speed; None when ibnetdiscover printed them as unknown ("??", "???").
fn speed(w: &str, s: &str, source: &str, lineno: usize) -> Result<Option<LinkSpeed>, IoError> {
    match (parse_width(w), parse_gen(s)) {
        (Some(width), Some(gen)) => Ok(Some(LinkSpeed { gen, width })),
        _ if w.contains("??") || s.contains("??") => Ok(None),
        _ => Err(IoError::at(source, lineno, format!("link {w:?} {s:?}: expected a width (1x, 2x, 4x, 8x, 12x) and a speed ({SPEEDS_EXPECTED})"))),
    }
}

/// The node key `-p` lines name: a switch by its GUID, a CA by its port GUID less its port
/// number (see the module comment).
fn key(e: &End) -> String {
    format!("{}-{:016x}", if e.kind == NodeType::Switch { "S" } else { "H" }, node_guid(e))
}

/// The node GUID a `-p` end stands for: a switch's port GUID is its node's; a CA's port GUID
/// less its port number (the module comment's assumption).
fn node_guid(e: &End) -> u64 {
    match e.kind {
        NodeType::Switch => e.guid,
        NodeType::Ca => e.guid.wrapping_sub(u64::from(e.port)),
    }
}

/// Reads `ibnetdiscover -p` output.
pub fn read_ports(text: &str, source: &str, opts: &ImportOptions, notes: &mut Notes) -> Result<FabricGraph, IoError> {
    let mut d = Discovered::new(source, LinkSpeed { gen: LinkGen::Sdr, width: 4 });
    let mut lines = ToolLines::new(text, source, notes);
    while let Some((lineno, line)) = lines.next() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // Routers are not modelled: their lines, and the links to them, are skipped.
        if line.starts_with("RT ") {
            lines.note(ROUTER, lineno);
            continue;
        }
        let line_owned;
        let line = match line.split_once(" - RT ") {
            Some((here, rest)) => {
                lines.note(ROUTER, lineno);
                let descs = rest.find('\'').map_or("", |q| &rest[q..]);
                let here_desc = descs.trim_start_matches("'").split('\'').next().unwrap_or("");
                line_owned = format!("{here} '{here_desc}'");
                line_owned.as_str()
            }
            None => line,
        };
        let (fields, descs) = match line.find('\'') {
            Some(q) => line.split_at(q),
            None => return Err(IoError::at(source, lineno, "expected the node's description in quotes at the end, as in 'leaf1'")),
        };
        let fields = fields.trim_end().trim_end_matches('(').trim_end();
        let mut words = fields.split_whitespace();
        let here = end(&mut words, source, lineno)?;
        let width = words.next().unwrap_or("");
        let gen = words.next().unwrap_or("");
        let peer = match words.next() {
            None => None,
            Some("-") => {
                let p = end(&mut words, source, lineno)?;
                if let Some(extra) = words.next() {
                    return Err(IoError::at(source, lineno, format!("{extra:?} after the peer: expected ( 'description' - 'peer description' )")));
                }
                Some(p)
            }
            Some(x) => return Err(IoError::at(source, lineno, format!("{x:?}: expected '-' and the peer, or the description"))),
        };
        // An uncabled port's width and speed mean nothing (ibsim's "4x SDR", a real switch's
        // "??"); only a cabled port's must make sense.
        let link = match peer {
            Some(_) => Some(speed(width, gen, source, lineno)?.unwrap_or_else(|| {
                lines.note(UNKNOWN_SPEED, lineno);
                opts.default_speed
            })),
            None => None,
        };
        let (desc, peer_desc) = if peer.is_some() {
            let inner = descs.trim_end().strip_suffix(')').map(str::trim_end).unwrap_or("");
            match inner.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')).and_then(|s| s.split_once("' - '")) {
                Some((a, b)) => (a, Some(b)),
                None => return Err(IoError::at(source, lineno, "expected ( 'description' - 'peer description' ) at the end")),
            }
        } else {
            match descs.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
                Some(a) => (a, None),
                None => return Err(IoError::at(source, lineno, "expected 'description' at the end")),
            }
        };
        let k = key(&here);
        let node = match d.keys.get(&k) {
            Some(&n) => n,
            None => {
                let n = d.nodes.len();
                d.keys.insert(k, n);
                d.nodes.push(NodeRec::new(here.kind, desc.trim().to_string(), node_guid(&here), 1, lineno));
                n
            }
        };
        let rec = &mut d.nodes[node];
        rec.num_ports = rec.num_ports.max(here.port);
        match here.kind {
            NodeType::Switch if rec.lid != here.lid && rec.lid != 0 => {
                return Err(IoError::at(source, lineno, format!("switch {desc:?} has LID {} here and {} at line {} (expected one LID per switch)", here.lid, rec.lid, rec.line)))
            }
            NodeType::Switch => rec.lid = here.lid,
            NodeType::Ca => {
                rec.port_lids.insert(here.port, (here.lid, lineno));
                rec.port_guids.insert(here.port, here.guid);
            }
        }
        if let (Some(p), Some(pd), Some(link)) = (peer, peer_desc, link) {
            let hint = PeerHint { kind: p.kind, guid: node_guid(&p), name: pd.trim().to_string(), lid: p.lid, port_guid: (p.kind == NodeType::Ca).then_some(p.guid) };
            d.cables.push(Cable { node, port: here.port, peer_key: key(&p), peer_port: p.port, speed: SpeedClaim::Active(link), up: true, line: lineno, peer_hint: Some(hint) });
        }
    }
    d.build(notes)
}

/// Writes `g` in ibnetdiscover's default layout: its header, then the node blocks with the
/// nodes named by their GUIDs (`S-…`, `H-…`), each port's peer with its LID and active width
/// and speed (the `net` writer's blocks, which are ibnetdiscover's).
pub fn write(g: &FabricGraph) -> String {
    let mut out = String::from("#\n# Topology file: generated by rdmasim\n#\n");
    // Names need no escaping as descriptions: only ibsim's ids have limits.
    let _ = super::ibsim_net::write_blocks(g, true, &mut out);
    out
}
