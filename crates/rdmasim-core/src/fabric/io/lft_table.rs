//! The "Unicast lids" block that OpenSM's `opensm-lfts.dump` and `ibroute` both print per
//! switch, and matching such blocks to the switches of a graph.
//! ```text
//! Unicast lids [0-9] of switch Lid 3 guid 0x0002c90000000300 ('leaf1'):       (OpenSM)
//! Unicast lids [0x0-0x9] of switch Lid 3 guid 0x0002c90000000300 (leaf1):     (ibroute)
//! 0x0005 001 # Channel Adapter portguid 0x0002c90000001001: 'node1 HCA-1'     (OpenSM)
//! 0x0005 001 : (Channel Adapter portguid 0x0002c90000001001: 'node1 HCA-1')   (ibroute)
//! ```
//! An entry is a hex LID and a decimal port (0: the switch itself, 255: no route).
use super::notes::Notes;
use super::text::{lid_in_range, parse_hex};
use super::tool_lines::ToolLines;
use super::IoError;
use crate::fabric::graph::{FabricGraph, Lfts, NO_ROUTE};
use crate::ids::{NodeId, TiVec};
use std::collections::HashMap;

/// One switch's table as a file gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchLft {
    pub source: String,
    /// The header's line.
    pub line: usize,
    pub guid: u64,
    /// The description in the header's parentheses, without OpenSM's quotes.
    pub name: Option<String>,
    /// (LID, port, line).
    pub entries: Vec<(u16, u8, usize)>,
    /// Whether the block ended with its "lids dumped" footer. Without it the tool stopped
    /// part way (ibroute's "iberror: failed: dump tables: linear forwarding table get
    /// failed"): the LIDs after the last entry were not dumped.
    pub complete: bool,
}

/// Notes the LFT readers may add.
pub const CUT_SHORT: &str = "switch tables cut short (no \"lids dumped\" footer: the LIDs after the last entry were not dumped)";
pub const NOT_IN_FILES: &str = "switches with no table in the LFT files (their routes count as not dumped)";

fn header(line: &str, source: &str, lineno: usize) -> Result<SwitchLft, IoError> {
    let Some(at) = line.find(" guid 0x") else {
        return Err(IoError::at(source, lineno, "expected \"Unicast lids [..] of switch ... guid 0x<16 hex digits> (name):\""));
    };
    let rest = &line[at + 8..];
    let hex_len = rest.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(rest.len());
    let Some(guid) = parse_hex(&rest[..hex_len]) else {
        return Err(IoError::at(source, lineno, "switch GUID: expected 1..=16 hex digits after \"guid 0x\""));
    };
    let rest = rest[hex_len..].trim();
    let name = rest.strip_prefix('(').and_then(|r| r.rfind(')').map(|e| &r[..e])).map(|n| n.strip_prefix('\'').and_then(|n| n.strip_suffix('\'')).unwrap_or(n).to_string());
    Ok(SwitchLft { source: source.to_string(), line: lineno, guid, name, entries: Vec::new(), complete: false })
}

fn entry(line: &str, source: &str, lineno: usize) -> Result<(u16, u8), IoError> {
    let mut words = line.split_whitespace();
    let lid = words.next().unwrap_or("");
    let Some(lid) = lid.strip_prefix("0x").and_then(parse_hex).and_then(lid_in_range) else {
        return Err(IoError::at(source, lineno, format!("LID {lid:?}: expected 0x0000..=0xbfff")));
    };
    let port = words.next().unwrap_or("");
    let Some(port) = port.parse::<u8>().ok() else {
        return Err(IoError::at(source, lineno, format!("port {port:?}: expected a decimal port 0..=255 after the LID")));
    };
    Ok((lid, port))
}

/// Every switch block of `text`, in file order.
pub fn parse_blocks(text: &str, source: &str, notes: &mut Notes) -> Result<Vec<SwitchLft>, IoError> {
    let mut tables: Vec<SwitchLft> = Vec::new();
    for (lineno, line) in ToolLines::new(text, source, notes) {
        let line = line.trim();
        if line.ends_with("lids dumped") {
            if let Some(t) = tables.last_mut() {
                t.complete = true;
            }
            continue;
        }
        // dump_lfts.sh prints "*** WARNING ***: this command has been replaced by dump_fts".
        if line.is_empty() || line.starts_with('#') || line.starts_with("*** WARNING") || line.starts_with("Lid ") || line.starts_with("Port ") {
            continue;
        }
        if line.starts_with("Unicast lids") {
            tables.push(header(line, source, lineno)?);
        } else if line.starts_with("Multicast mlids") {
            return Err(IoError::at(source, lineno, "a multicast table: expected unicast LFTs (\"Unicast lids ...\")"));
        } else if line.starts_with("0x") {
            let (lid, port) = entry(line, source, lineno)?;
            let Some(t) = tables.last_mut() else {
                return Err(IoError::at(source, lineno, "an LFT entry before any switch: expected a \"Unicast lids ... guid 0x...\" header first"));
            };
            t.entries.push((lid, port, lineno));
        } else {
            return Err(IoError::at(source, lineno, format!("{line:?}: expected a \"Unicast lids\" header, an entry \"0x<lid> <port>\" or a \"lids dumped\" footer")));
        }
    }
    for t in tables.iter().filter(|t| !t.complete) {
        notes.add(source, CUT_SHORT, Some(t.line));
    }
    Ok(tables)
}

/// The graph's forwarding tables from `tables`: each switch matched by GUID, or by name where
/// the GUID is not the graph's. Switches the files do not mention keep no routes; they and
/// the tables cut short say where the files' routes end ([`Lfts::not_dumped_from`]).
pub fn to_lfts(tables: &[SwitchLft], g: &FabricGraph, notes: &mut Notes) -> Result<Lfts, IoError> {
    let by_guid: HashMap<u64, NodeId> = g.switches().map(|s| (g.nodes[s].guid, s)).collect();
    let by_name: HashMap<&str, NodeId> = g.switches().map(|s| (g.nodes[s].name.as_str(), s)).collect();
    let mut lfts = Lfts::empty_for(g);
    let mut seen: HashMap<NodeId, (&str, usize)> = HashMap::new();
    // Per switch: the first LID the files did not dump (0: no table at all).
    let mut not_dumped_from: TiVec<NodeId, u32> = g.nodes.iter().map(|n| if n.is_switch() { 0 } else { u32::MAX }).collect();
    for t in tables {
        let found = by_guid.get(&t.guid).or_else(|| t.name.as_deref().and_then(|n| by_name.get(n)));
        let Some(&sw) = found else {
            return Err(IoError::at(&t.source, t.line, format!("an LFT for switch guid {:#018x} ({:?}), which is not in the topology (expected one of its {} switches)", t.guid, t.name.as_deref().unwrap_or("no name"), g.num_switches())));
        };
        let node = &g.nodes[sw];
        if let Some((src, line)) = seen.insert(sw, (t.source.as_str(), t.line)) {
            return Err(IoError::at(&t.source, t.line, format!("a second LFT for switch {:?} (the first is at {src}:{line}; expected one per switch)", node.name)));
        }
        for &(lid, port, line) in &t.entries {
            if port != NO_ROUTE && u16::from(port) > node.num_ports {
                return Err(IoError::at(&t.source, line, format!("switch {:?} forwards LID {lid} to port {port}, which it does not have (expected 0..={} or 255)", node.name, node.num_ports)));
            }
            lfts.set(sw, lid, port);
        }
        not_dumped_from[sw] = if t.complete { u32::MAX } else { t.entries.iter().map(|e| u32::from(e.0) + 1).max().unwrap_or(0) };
    }
    for _ in g.switches().filter(|s| !seen.contains_key(s)) {
        notes.add(tables.first().map_or("LFTs", |t| t.source.as_str()), NOT_IN_FILES, None);
    }
    if not_dumped_from.iter().any(|&f| f != u32::MAX) {
        lfts.not_dumped_from = Some(not_dumped_from);
    }
    Ok(lfts)
}
