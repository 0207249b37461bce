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
pub mod linkinfo_fabric;
pub mod notes;
pub mod perfquery;
pub mod port_counters;
pub mod port_match;
pub mod subnet_lst;
pub mod text;
pub mod tool_lines;

use crate::fabric::graph::{FabricGraph, Lfts, RoutedFabric};
use crate::fabric::rate::{LinkGen, LinkSpeed};
use notes::Notes;
use std::path::Path;

/// What the caller decides for what a file does not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// The width and speed of a link whose line gives none (ibnetdiscover before 1.4.4) or
    /// gives them as unknown (`??`, `???`). 4x SDR by default: what ibsim takes for a port
    /// line without them, so both read such a file alike.
    pub default_speed: LinkSpeed,
}

impl ImportOptions {
    /// The options with `--default-speed` as ibnetdiscover spells a link (`4xQDR`, `2xNDR`).
    pub fn with_default_speed(spec: Option<&str>) -> Result<ImportOptions, IoError> {
        let mut o = ImportOptions::default();
        if let Some(spec) = spec {
            o.default_speed = text::parse_compact(spec).ok_or_else(|| {
                IoError::whole("--default-speed", format!("{spec:?}: expected <width>x<speed> as ibnetdiscover prints it, e.g. 4xQDR (width 1, 2, 4, 8 or 12; speed {})", text::SPEEDS_EXPECTED))
            })?;
        }
        Ok(o)
    }
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions { default_speed: LinkSpeed { gen: LinkGen::Sdr, width: 4 } }
    }
}

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
    /// iblinkinfo's output (either layout).
    Iblinkinfo,
}

/// Which topology format `text` is, from its first line of data.
pub fn sniff_topology(text: &str) -> Option<TopologyFormat> {
    let mut ignored = Notes::default();
    for (_, line) in tool_lines::ToolLines::new(text, "", &mut ignored) {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with("{ ") || t.starts_with('{') && t.contains("NodeGUID:") {
            return Some(TopologyFormat::SubnetLst);
        }
        if t.contains("==(") && t.contains(")==>") || (t.starts_with("CA: ") || t.starts_with("Switch: ") || t.starts_with("Switch 0x")) && t.ends_with(':') {
            return Some(TopologyFormat::Iblinkinfo);
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

/// Reads a topology from any of the formats above; what was set aside goes to `notes`.
pub fn read_topology(text: &str, source: &str, opts: &ImportOptions, notes: &mut Notes) -> Result<FabricGraph, IoError> {
    match sniff_topology(text) {
        // ibnetdiscover's output (its header, or its GUID-named nodes): speeds are active ones.
        Some(TopologyFormat::NodeBlocks) if ibsim_net::looks_discovered(text) => ibnetdiscover::read(text, source, opts, notes),
        Some(TopologyFormat::NodeBlocks) => ibsim_net::read(text, source, notes),
        Some(TopologyFormat::IbnetdiscoverPorts) => ibnetdiscover::read_ports(text, source, opts, notes),
        Some(TopologyFormat::SubnetLst) => subnet_lst::read(text, source, opts, notes),
        Some(TopologyFormat::Iblinkinfo) => linkinfo_fabric::fabric(&iblinkinfo::read(text, source, notes)?, source, opts, notes),
        None => Err(IoError::whole(source, "empty file (expected ibnetdiscover, ibnetdiscover -p, ibsim net, opensm-subnet.lst or iblinkinfo)")),
    }
}

/// Reads forwarding tables in either format (OpenSM's dump or ibroute / dump_lfts.sh output)
/// for the switches of `graph`.
pub fn read_lfts(text: &str, source: &str, graph: &FabricGraph, notes: &mut Notes) -> Result<Lfts, IoError> {
    if lfts_are_ibroute(text) {
        ibroute::read_for(text, source, graph, notes)
    } else {
        lfts_dump::read_for(text, source, graph, notes)
    }
}

/// What an import read: the fabric, its forwarding tables if files gave them, and what was
/// set aside or assumed on the way.
pub struct Imported {
    pub graph: FabricGraph,
    pub lfts: Option<Lfts>,
    pub notes: Notes,
}

/// A fabric read from files and routed: the files' LFTs, or minhop's when there are none
/// (`from_file` says which). HCA ports the file gives no LID get one, after the file's own.
/// What both a scenario's `[topology] file` and `rdmasim fabric import` start from.
pub fn import_routed(topology_path: &Path, lfts_path: Option<&Path>, opts: &ImportOptions) -> Result<(RoutedFabric, bool, Notes), IoError> {
    let source = topology_path.display().to_string();
    let Imported { mut graph, lfts, notes } = import(topology_path, lfts_path, opts)?;
    graph.assign_lids().map_err(|e| IoError::whole(&source, e.0))?;
    let from_file = lfts.is_some();
    let lfts = match lfts {
        Some(l) => l,
        None => crate::fabric::routing::minhop::route(&graph).map_err(|e| IoError::whole(&source, e.0))?,
    };
    Ok((RoutedFabric::new(graph, lfts), from_file, notes))
}

/// Reads a topology file and, if given, forwarding tables: a file (`opensm-lfts.dump`, or
/// ibroute output, one switch or many concatenated) or a directory of ibroute files (read in
/// file-name order, as one concatenation).
pub fn import(topology_path: &Path, lfts_path: Option<&Path>, opts: &ImportOptions) -> Result<Imported, IoError> {
    let mut notes = Notes::default();
    let graph = read_topology(&read_text(topology_path)?, &topology_path.display().to_string(), opts, &mut notes)?;
    let Some(lfts_path) = lfts_path else {
        return Ok(Imported { graph, lfts: None, notes });
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
            tables.extend(lft_table::parse_blocks(&read_text(f)?, &f.display().to_string(), &mut notes)?);
        }
        let lfts = lft_table::to_lfts(&tables, &graph, &mut notes)?;
        return Ok(Imported { graph, lfts: Some(lfts), notes });
    }
    let lfts = read_lfts(&read_text(lfts_path)?, &lfts_path.display().to_string(), &graph, &mut notes)?;
    Ok(Imported { graph, lfts: Some(lfts), notes })
}
