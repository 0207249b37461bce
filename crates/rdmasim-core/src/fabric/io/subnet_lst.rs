//! OpenSM's `opensm-subnet.lst` (osm_dump.c, dump_topology_node): one line per cabled port of
//! every node, so each cable appears twice, once from each end.
//! ```text
//! { SW Ports:08 SystemGUID:0002c90000000300 NodeGUID:0002c90000000300 PortGUID:0002c90000000300
//!   VenID:000000 DevID:0000 Rev:000000A1 {leaf1} LID:0003 PN:04 } { CA Ports:02 ... {node2 HCA-2}
//!   LID:0007 PN:01 } PHY=1x LOG=ACT SPD=10
//! ```
//! (one line in the file). `-SM` after the type marks the SM's node; LID is a switch's port-0
//! LID or the CA port's; PHY is the active width, LOG the port state (ACT, ARM, INI: up; DWN:
//! down), SPD the lane rate in Gb/s (2.5, 5, 10, 14, 25, 50, 100, 200) or FDR10. ibdiagnet
//! writes the same lines, each cable once; ibutils' 2005 files have no SPD (the
//! `--default-speed` is taken, and noted).
use super::discovered::{Cable, Discovered, Enabled, NodeRec, NodeType, PeerHint, SpeedClaim};
use super::ibsim_net::NO_SPEED;
use super::notes::Notes;
use super::text::{lid_in_range, parse_hex, parse_width, port_in_range};
use super::tool_lines::ToolLines;
use super::{ImportOptions, IoError};
use crate::fabric::graph::FabricGraph;
use crate::fabric::rate::{LinkGen, LinkSpeed};

/// One `{ ... }` side of a line.
struct Side<'a> {
    kind: NodeType,
    num_ports: u16,
    node_guid: u64,
    port_guid: u64,
    desc: &'a str,
    lid: u16,
    port: u16,
}

fn field<'a>(s: &'a str, name: &str) -> Option<&'a str> {
    s.split_whitespace().find_map(|w| w.strip_prefix(name))
}

/// Parses `{ TYPE fields {desc} LID:xxxx PN:xx }` at the start of `s`; returns it and the rest.
fn side<'a>(s: &'a str, source: &str, lineno: usize) -> Result<(Side<'a>, &'a str), IoError> {
    let err = |m: &str| IoError::at(source, lineno, m.to_string());
    let expected = "expected { TYPE Ports:NN ... NodeGUID:... PortGUID:... {description} LID:NNNN PN:NN }";
    let s = s.trim_start().strip_prefix('{').ok_or_else(|| err(expected))?;
    // The description may hold anything; it ends at the last "} LID:" before this side's end.
    let desc_open = s.find('{').ok_or_else(|| err(expected))?;
    let head = &s[..desc_open];
    let after_open = &s[desc_open + 1..];
    let desc_close = after_open.find("} LID:").ok_or_else(|| err(expected))?;
    let desc = &after_open[..desc_close];
    let tail = &after_open[desc_close + 1..];
    let end = tail.find('}').ok_or_else(|| err(expected))?;
    let (lid_pn, rest) = (&tail[..end], &tail[end + 1..]);
    let kind = match head.split_whitespace().next().unwrap_or("").trim_end_matches("-SM") {
        "SW" => NodeType::Switch,
        "CA" => NodeType::Ca,
        "Rt" => return Err(err("routers are not modelled: expected SW or CA")),
        _ => return Err(err("node type: expected SW or CA (with -SM on the SM's node)")),
    };
    let hex = |name: &str, from: &str| field(from, name).and_then(parse_hex).ok_or_else(|| IoError::at(source, lineno, format!("{name}: expected hex digits ({expected})")));
    let num_ports = port_in_range(hex("Ports:", head)?).ok_or_else(|| err("Ports: expected 01..=FE"))?;
    let lid = lid_in_range(hex("LID:", lid_pn)?).ok_or_else(|| err("LID: expected 0000..=BFFF"))?;
    let port = port_in_range(hex("PN:", lid_pn)?).ok_or_else(|| err("PN: expected 01..=FE"))?;
    let side = Side { kind, num_ports, node_guid: hex("NodeGUID:", head)?, port_guid: hex("PortGUID:", head)?, desc, lid, port };
    Ok((side, rest))
}

fn lane_rate(s: &str) -> Option<LinkGen> {
    Some(match s {
        "2.5" => LinkGen::Sdr,
        "5" => LinkGen::Ddr,
        "10" => LinkGen::Qdr,
        "FDR10" => LinkGen::Fdr10,
        "14" => LinkGen::Fdr,
        "25" => LinkGen::Edr,
        "50" => LinkGen::Hdr,
        "100" => LinkGen::Ndr,
        "200" => LinkGen::Xdr,
        _ => return None,
    })
}

fn node_for(d: &mut Discovered, s: &Side<'_>, lineno: usize) -> Result<usize, IoError> {
    let key = format!("{:016x}", s.node_guid);
    let n = match d.keys.get(&key) {
        Some(&n) => n,
        None => {
            let n = d.nodes.len();
            d.keys.insert(key, n);
            d.nodes.push(NodeRec::new(s.kind, s.desc.to_string(), s.node_guid, s.num_ports, lineno));
            n
        }
    };
    let rec = &mut d.nodes[n];
    if rec.kind != s.kind || rec.num_ports != s.num_ports || rec.name != s.desc {
        return Err(IoError::at(&d.source, lineno, format!("NodeGUID {:016x} is {:?} with {} ports here but {:?} with {} ports at line {} (expected one node per GUID)", s.node_guid, s.desc, s.num_ports, rec.name, rec.num_ports, rec.line)));
    }
    match s.kind {
        NodeType::Switch => {
            if rec.lid != 0 && rec.lid != s.lid {
                return Err(IoError::at(&d.source, lineno, format!("switch {:?} has LID {} here and {} before (expected one LID per switch)", s.desc, s.lid, rec.lid)));
            }
            rec.lid = s.lid;
        }
        NodeType::Ca => {
            if let Some(&(prev, at)) = rec.port_lids.get(&s.port) {
                if prev != s.lid {
                    return Err(IoError::at(&d.source, lineno, format!("{:?}[{}] has LID {} here and {prev} at line {at} (expected one LID per port)", s.desc, s.port, s.lid)));
                }
            } else {
                rec.port_lids.insert(s.port, (s.lid, lineno));
            }
            rec.port_guids.insert(s.port, s.port_guid);
        }
    }
    Ok(n)
}

/// Reads `opensm-subnet.lst` (or ibdiagnet's `.lst`).
pub fn read(text: &str, source: &str, opts: &ImportOptions, notes: &mut Notes) -> Result<FabricGraph, IoError> {
    let mut d = Discovered::new(source, LinkSpeed { gen: LinkGen::Sdr, width: 4 });
    let mut lines = ToolLines::new(text, source, notes);
    while let Some((lineno, line)) = lines.next() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (here, rest) = side(line, source, lineno)?;
        let (there, rest) = side(rest, source, lineno)?;
        let phy = field(rest, "PHY=").unwrap_or("");
        let log = field(rest, "LOG=").unwrap_or("");
        let spd = field(rest, "SPD=");
        let up = match log {
            "ACT" | "ARM" | "INI" => true,
            "DWN" => false,
            _ => return Err(IoError::at(source, lineno, format!("LOG={log}: expected ACT, ARM, INI or DWN"))),
        };
        let speed = match (parse_width(phy), spd.map(lane_rate)) {
            (Some(width), Some(Some(gen))) => SpeedClaim::Active(LinkSpeed { gen, width }),
            // A down port may not know its width or speed; any will do for a link that is down.
            _ if !up => SpeedClaim::Enabled(Enabled { width: 1, speed: 1, ext: 0, fdr10: false }),
            (Some(width), None) => {
                lines.note(NO_SPEED, lineno);
                SpeedClaim::Active(LinkSpeed { width, ..opts.default_speed })
            }
            _ => return Err(IoError::at(source, lineno, format!("PHY={phy} SPD={}: expected PHY=1x|2x|4x|8x|12x and SPD=2.5|5|10|FDR10|14|25|50|100|200", spd.unwrap_or("")))),
        };
        let node = node_for(&mut d, &here, lineno)?;
        node_for(&mut d, &there, lineno)?;
        let hint = PeerHint { kind: there.kind, guid: there.node_guid, name: there.desc.to_string(), lid: there.lid, port_guid: Some(there.port_guid) };
        d.cables.push(Cable { node, port: here.port, peer_key: format!("{:016x}", there.node_guid), peer_port: there.port, speed, up, line: lineno, peer_hint: Some(hint) });
    }
    d.build(notes)
}
