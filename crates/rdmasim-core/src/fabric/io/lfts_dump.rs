//! OpenSM's `opensm-lfts.dump` (osm_dump.c, dump_ucast_lfts), read and written: what
//! `opensm -R file -U <file>` loads (osm_ucast_file.c matches switches by the header's GUID
//! and reads each entry's LID and port; the "portguid" comment lets it follow a LID change).
//! ```text
//! Unicast lids [0-9] of switch Lid 3 guid 0x0002c90000000300 ('leaf1'):
//! 0x0001 005 # Switch portguid 0x0002c90000000100: 'spine1'
//! 0x0005 001 # Channel Adapter portguid 0x0002c90000001001: 'node1 HCA-1'
//! 9 lids dumped
//! ```
//! Entries with no route are left out, as OpenSM leaves them out.
use super::lft_table::{parse_blocks, to_lfts, SwitchLft};
use super::notes::Notes;
use super::IoError;
use crate::fabric::graph::{FabricGraph, Lfts, NO_ROUTE};
use std::collections::HashMap;
use std::fmt::Write;

/// The switch tables of a dump, unmatched.
pub fn read(text: &str, source: &str, notes: &mut Notes) -> Result<Vec<SwitchLft>, IoError> {
    parse_blocks(text, source, notes)
}

/// The dump's tables for the switches of `g`.
pub fn read_for(text: &str, source: &str, g: &FabricGraph, notes: &mut Notes) -> Result<Lfts, IoError> {
    to_lfts(&read(text, source, notes)?, g, notes)
}

/// Writes `lfts` as OpenSM dumps them, byte for byte: switches in the order of OpenSM's switch
/// table, a map keyed by the GUID in network byte order compared as a host (little-endian)
/// integer, hence the byte swap.
pub fn write(g: &FabricGraph, lfts: &Lfts) -> String {
    let mut owners: HashMap<u16, String> = HashMap::new();
    for (lid, node, port) in g.lids() {
        let n = &g.nodes[node];
        let (kind, guid) = match port {
            Some(p) => ("Channel Adapter", g.ports[p].guid),
            None => ("Switch", n.guid),
        };
        owners.insert(lid, format!("{kind} portguid 0x{guid:016x}: '{}'", n.name));
    }
    let switches = crate::fabric::routing::opensm_order::switch_table_order(g);
    let mut out = String::new();
    for sw in switches {
        let node = &g.nodes[sw];
        let table = lfts.tables.get(sw).map(Vec::as_slice).unwrap_or(&[]);
        let max_lid = table.len().saturating_sub(1);
        let _ = writeln!(out, "Unicast lids [0-{max_lid}] of switch Lid {} guid 0x{:016x} ('{}'):", node.lid, node.guid, node.name);
        for (lid, &port) in table.iter().enumerate() {
            if port == NO_ROUTE || u16::from(port) > node.num_ports {
                continue;
            }
            let owner = owners.get(&(lid as u16)).map_or("unknown node and type", String::as_str);
            let _ = writeln!(out, "0x{lid:04x} {port:03} # {owner}");
        }
        let _ = writeln!(out, "{max_lid} lids dumped");
    }
    out
}
