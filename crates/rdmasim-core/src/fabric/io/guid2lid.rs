//! OpenSM's `guid2lid` cache (in `OSM_CACHE_DIR`, /var/cache/opensm): the LIDs it gave each
//! port, which it keeps across restarts. One port per line, blank lines between:
//! ```text
//! 0x0002c90300000001 0x0001 0x0001
//! ```
//! port GUID (a switch's GUID for its port 0), then the first and last LID of its LMC range.
//! Reading it gives a fabric exactly the LIDs the operator's OpenSM gave it.
use super::text::{lid_in_range, parse_hex};
use super::IoError;
use crate::fabric::graph::{FabricGraph, NodeKind};
use crate::fabric::lid_assign::LidHolder as Holder;
use std::collections::HashMap;

/// (port GUID, base LID, line) per entry.
pub fn read(text: &str, source: &str) -> Result<Vec<(u64, u16, usize)>, IoError> {
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let guid = f.first().and_then(|s| parse_hex(s));
        let lid = f.get(1).and_then(|s| parse_hex(s)).and_then(lid_in_range);
        match (guid, lid, f.len()) {
            (Some(g), Some(l), 3) if l != 0 => v.push((g, l, i + 1)),
            _ => return Err(IoError::at(source, i + 1, format!("{line:?}: expected \"0xPORTGUID 0xLID 0xLID\" (guid2lid)"))),
        }
    }
    Ok(v)
}

/// Sets the LIDs `entries` give: a switch's by its GUID, an HCA port's by its port GUID; every
/// other LID is cleared first, so ports the file does not name have none. A GUID the fabric
/// does not have is an error naming the line.
pub fn apply(g: &mut FabricGraph, entries: &[(u64, u16, usize)], source: &str) -> Result<(), IoError> {
    let mut by_guid: HashMap<u64, Holder> = HashMap::new();
    for (id, n) in g.nodes.iter_enumerated() {
        if n.is_switch() {
            by_guid.insert(n.guid, Holder::Switch(id));
        }
    }
    for (p, port) in g.ports.iter_enumerated() {
        if matches!(g.nodes[port.node].kind, NodeKind::Ca { .. }) {
            by_guid.insert(port.guid, Holder::CaPort(p));
        }
    }
    g.clear_lids();
    for &(guid, lid, line) in entries {
        match by_guid.get(&guid) {
            Some(&h) => h.set_lid(g, lid),
            None => return Err(IoError::at(source, line, format!("port GUID {guid:#018x} is not in the fabric (expected a switch GUID or an HCA port GUID)"))),
        }
    }
    g.check().map_err(|e| IoError::whole(source, e.0))
}
