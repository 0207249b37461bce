//! `ibroute <switch>` output (infiniband-diags/ibroute.c), one switch per file or many
//! concatenated as `dump_lfts.sh` (dump_fts) prints them.
//! ```text
//! Unicast lids [0x0-0x9] of switch Lid 3 guid 0x0002c90000000300 (leaf1):
//!   Lid  Out   Destination
//!        Port     Info
//! 0x0005 001 : (Channel Adapter portguid 0x0002c90000001001: 'node1 HCA-1')
//! 9 valid lids dumped
//! ```
//! A switch reached by directed route is headed "of switch DR path slid 0; dlid 0; 0,1 guid
//! 0x...": the GUID (or the name in parentheses) identifies it either way.
use super::lft_table::{parse_blocks, to_lfts, SwitchLft};
use super::notes::Notes;
use super::IoError;
use crate::fabric::graph::{FabricGraph, Lfts};

/// The switch tables of one or more concatenated ibroute outputs, unmatched.
pub fn read(text: &str, source: &str, notes: &mut Notes) -> Result<Vec<SwitchLft>, IoError> {
    parse_blocks(text, source, notes)
}

/// The tables for the switches of `g`.
pub fn read_for(text: &str, source: &str, g: &FabricGraph, notes: &mut Notes) -> Result<Lfts, IoError> {
    to_lfts(&read(text, source, notes)?, g, notes)
}
