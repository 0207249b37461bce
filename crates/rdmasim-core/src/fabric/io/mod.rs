//! File formats operators already have, exactly as the real tools write them: one file per
//! format. Topology readers (ibnetdiscover, ibsim `net`, OpenSM's `opensm-subnet.lst`) all
//! describe what each port says it is cabled to; [`discovered`] turns that into a
//! [`FabricGraph`] after checking that both ends of every cable agree. LFT readers
//! (`opensm-lfts.dump`, `ibroute`) share [`lft_table`] and match switches by GUID or name.
//!
//! Readers never panic and never loop unboundedly: every number is parsed with range checks
//! (ports 1..=254, LIDs up to 0xBFFF) and every loop walks the input once.
pub mod discovered;
pub mod dot;
pub mod guid2lid;
pub mod iblinkinfo;
pub mod ibnetdiscover;
pub mod ibqueryerrors;
pub mod ibroute;
pub mod ibsim_net;
pub mod lft_table;
pub mod lfts_dump;
pub mod perfquery;
pub mod port_counters;
pub mod port_match;
pub mod subnet_lst;
pub mod text;

use crate::fabric::graph::{FabricGraph, Lfts, RoutedFabric};
use std::path::Path;

/// A file that could not be read: where, and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoError {
    /// The file (or the name the caller gave the text).
    pub source: String,
    /// 1-based line, when the problem is on one.
    pub line: Option<usize>,
    pub message: String,
}

impl IoError {
    pub fn at(source: &str, line: usize, message: impl Into<String>) -> IoError {
        IoError { source: source.to_string(), line: Some(line), message: message.into() }
    }
    pub fn whole(source: &str, message: impl Into<String>) -> IoError {
        IoError { source: source.to_string(), line: None, message: message.into() }
    }
}

impl std::fmt::Display for IoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.source, line, self.message),
            None => write!(f, "{}: {}", self.source, self.message),
        }
    }
}

impl std::error::Error for IoError {}

/// The topology formats [`import`] recognises by their content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopologyFormat {
    /// `ibnetdiscover` default output or an ibsim `net` file (ibsim reads the former as the
    /// latter, and so do we).
    NodeBlocks,
    /// `ibnetdiscover -p`: one line per port.
    IbnetdiscoverPorts,
    /// OpenSM's `opensm-subnet.lst`.
    SubnetLst,
}

/// Which topology format `text` is, from its first meaningful line.
pub fn sniff_topology(text: &str) -> Option<TopologyFormat> {
    for line in text.lines() {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with("{ ") || t.starts_with('{') && t.contains("NodeGUID:") {
            return Some(TopologyFormat::SubnetLst);
        }
        let mut words = t.split_whitespace();
        let first = words.next().unwrap_or("");
        let second_is_lid = words.next().is_some_and(|w| w.parse::<u32>().is_ok());
        if matches!(first, "SW" | "CA" | "RT") && second_is_lid {
            return Some(TopologyFormat::IbnetdiscoverPorts);
        }
        return Some(TopologyFormat::NodeBlocks);
    }
    None
}

/// Whether LFT text is ibroute's (else OpenSM's dump; both read the same way, but errors
/// name the format that was meant).
fn lfts_are_ibroute(text: &str) -> bool {
    // ibroute prints its column header under each switch; OpenSM's dump does not.
    text.lines().any(|l| l.trim_start().starts_with("Lid  Out"))
}

pub(crate) fn read_text(path: &Path) -> Result<String, IoError> {
    let source = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| IoError::whole(&source, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| IoError::whole(&source, format!("not UTF-8 text (byte {}): expected a text file", e.utf8_error().valid_up_to())))
}

/// Reads a topology from any of the formats above.
pub fn read_topology(text: &str, source: &str) -> Result<FabricGraph, IoError> {
    match sniff_topology(text) {
        // ibnetdiscover heads its output with this comment; its speeds are then active ones.
        Some(TopologyFormat::NodeBlocks) if text.contains("# Topology file:") => ibnetdiscover::read(text, source),
        Some(TopologyFormat::NodeBlocks) => ibsim_net::read(text, source),
        Some(TopologyFormat::IbnetdiscoverPorts) => ibnetdiscover::read_ports(text, source),
        Some(TopologyFormat::SubnetLst) => subnet_lst::read(text, source),
        None => Err(IoError::whole(source, "empty file (expected ibnetdiscover, ibnetdiscover -p, ibsim net or opensm-subnet.lst)")),
    }
}

/// Reads forwarding tables in either format (OpenSM's dump or ibroute / dump_lfts.sh output)
/// for the switches of `graph`.
pub fn read_lfts(text: &str, source: &str, graph: &FabricGraph) -> Result<Lfts, IoError> {
    if lfts_are_ibroute(text) {
        ibroute::read_for(text, source, graph)
    } else {
        lfts_dump::read_for(text, source, graph)
    }
}

/// A fabric read from files and routed: the files' LFTs, or minhop's when there are none
/// (`from_file` says which). HCA ports the file gives no LID get one, after the file's own.
/// What both a scenario's `[topology] file` and `rdmasim fabric import` start from.
pub fn import_routed(topology_path: &Path, lfts_path: Option<&Path>) -> Result<(RoutedFabric, bool), IoError> {
    let source = topology_path.display().to_string();
    let (mut graph, tables) = import(topology_path, lfts_path)?;
    graph.assign_lids().map_err(|e| IoError::whole(&source, e.0))?;
    let from_file = tables.is_some();
    let lfts = match tables {
        Some(l) => l,
        None => crate::fabric::routing::minhop::route(&graph).map_err(|e| IoError::whole(&source, e.0))?,
    };
    Ok((RoutedFabric::new(graph, lfts), from_file))
}

/// Reads a topology file and, if given, forwarding tables: a file (`opensm-lfts.dump`, or
/// ibroute output, one switch or many concatenated) or a directory of ibroute files (read in
/// file-name order, as one concatenation).
pub fn import(topology_path: &Path, lfts_path: Option<&Path>) -> Result<(FabricGraph, Option<Lfts>), IoError> {
    let graph = read_topology(&read_text(topology_path)?, &topology_path.display().to_string())?;
    let Some(lfts_path) = lfts_path else {
        return Ok((graph, None));
    };
    if lfts_path.is_dir() {
        let source = lfts_path.display().to_string();
        let mut files: Vec<_> = std::fs::read_dir(lfts_path)
            .map_err(|e| IoError::whole(&source, format!("cannot list: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        let mut tables = Vec::new();
        for f in &files {
            tables.extend(lft_table::parse_blocks(&read_text(f)?, &f.display().to_string())?);
        }
        return lft_table::to_lfts(&tables, &graph).map(|l| (graph, Some(l)));
    }
    let lfts = read_lfts(&read_text(lfts_path)?, &lfts_path.display().to_string(), &graph)?;
    Ok((graph, Some(lfts)))
}
