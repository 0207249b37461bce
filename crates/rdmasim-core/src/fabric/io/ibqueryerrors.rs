//! ibqueryerrors' output (infiniband-diags/ibqueryerrors.c): the ports whose error counters
//! exceed its thresholds, under a line per node.
//! ```text
//! Errors for 0x8f10400001300 "r0-L1-s3"
//!    GUID 0x8f10400001300 port ALL: [LinkErrorRecoveryCounter == 7] [LinkDownedCounter == 2]
//!    GUID 0x8f10400001300 port 5: [LinkErrorRecoveryCounter == 7] [LinkDownedCounter == 2]
//!        Link info:     20   5[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==> ...
//! Errors for "h5 mlx4_0"
//!    GUID 0x2c90300000501 port 1: [SymbolErrorCounter == 900] [PortRcvErrors == 350]
//! ## Summary: 24 nodes checked, 6 bad nodes found
//! ```
//! A switch's GUID is its node GUID, a CA's the port's GUID. `--data` adds data counters with
//! a human-readable size (`[PortXmitData == 2808 (10.969KB)]`), `-r` a link line, `--details`
//! discard details (skipped, as are other names this reader does not know). A port that is
//! not listed had every error counter at or below the threshold (all 0 by default: the shipped
//! threshold file is all comments), which [`read`]'s caller takes as 0.
//!
//! As operators keep it: ibqueryerrors.pl's old names (`[XmtDiscards == 44]`), `port 0` (a
//! switch's management port) and `port ALL`, GUIDs without leading zeros, `--data` sizes on
//! any counter (`[LinkDownedCounter == 25 (25.000)]`), port lines grep'd out of their node,
//! and a file cut short (no `## Summary`, a half line at the end) are read, and noted.
use super::port_counters::{Counter, CounterRecord, NodeAddr, PortSelect};
use super::notes::Notes;
use super::text::parse_hex;
use super::tool_lines::ToolLines;
use super::IoError;

pub const NO_SUMMARY: &str = "no \"## Summary\" line (the output was cut short?); the port lines before it are read";
pub const CUT_LINE: &str = "a last line cut short, skipped";
use std::collections::BTreeMap;

/// `GUID 0x... port N: [..] [..]` to a record.
fn port_line(rest: &str, node_name: Option<&str>, source: &str, lineno: usize) -> Result<CounterRecord, IoError> {
    let err = |m: String| IoError::at(source, lineno, m);
    let (head, items) = rest.split_once(':').ok_or_else(|| err("expected \"GUID 0x<guid> port <port>: [Counter == value] ...\"".into()))?;
    let mut words = head.split_whitespace();
    let (Some(guid), Some("port"), Some(port), None) = (words.next(), words.next(), words.next(), words.next()) else {
        return Err(err(format!("{:?}: expected \"GUID 0x<guid> port <port>:\"", head.trim())));
    };
    let guid = guid.strip_prefix("0x").and_then(parse_hex).ok_or_else(|| err(format!("GUID {guid:?}: expected 0x and up to 16 hex digits")))?;
    let port = match port {
        "ALL" => PortSelect::All,
        n => PortSelect::Port(n.parse().ok().filter(|p| *p <= 254).ok_or_else(|| err(format!("port {n:?}: expected 0..=254 or ALL")))?),
    };
    let mut counters = BTreeMap::new();
    let mut rest = items.trim();
    while !rest.is_empty() {
        let Some(inner) = rest.strip_prefix('[').and_then(|r| r.split_once(']')) else {
            return Err(err(format!("{rest:?}: expected [Counter == value]")));
        };
        let (item, after) = inner;
        rest = after.trim_start();
        let Some((name, value)) = item.split_once(" == ") else {
            return Err(err(format!("[{item}]: expected [Counter == value]")));
        };
        // `--data` follows the count with its size in parentheses.
        let value = value.split_whitespace().next().unwrap_or("");
        let Some(counter) = Counter::from_name(name.trim()) else { continue };
        let v = value.parse::<u64>().map_err(|_| err(format!("{name} {value:?}: expected a decimal count")))?;
        if counters.insert(counter, v).is_some() {
            return Err(err(format!("{name} twice on one line: expected each counter once")));
        }
    }
    Ok(CounterRecord { node: NodeAddr::Guid(guid), node_name: node_name.map(str::to_string), port, counters, extended: false, line: lineno })
}

/// Reads ibqueryerrors' output: one record per port line (`port ALL` lines included), in file
/// order.
pub fn read(text: &str, source: &str, notes: &mut Notes) -> Result<Vec<CounterRecord>, IoError> {
    let mut out = Vec::new();
    let mut summary = false;
    let mut name: Option<String> = None;
    let last = text.trim_end().lines().count();
    let mut lines = ToolLines::new(text, source, notes);
    while let Some((lineno, raw)) = lines.next() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with("Link info:") {
            continue;
        }
        if line.starts_with("##") {
            summary |= line.starts_with("## Summary:");
            continue;
        }
        if let Some(node) = line.strip_prefix("Errors for ") {
            // `Errors for 0x<guid> "name"` (a switch) or `Errors for "name"` (a CA).
            name = node.split_once('"').map(|(_, n)| n.trim_end_matches('"').to_string());
            continue;
        }
        match line.strip_prefix("GUID ") {
            Some(rest) if lineno == last && !rest.contains(':') => lines.note(CUT_LINE, lineno),
            Some(rest) => out.push(port_line(rest, name.as_deref(), source, lineno)?),
            None => return Err(IoError::at(source, lineno, format!("{line:?}: expected \"Errors for <node>\", \"GUID 0x<guid> port <port>: [...]\", a Link info line or the ## Summary"))),
        }
    }
    if out.is_empty() && !summary {
        return Err(IoError::whole(source, "no port lines and no \"## Summary:\": expected ibqueryerrors' output"));
    }
    if !summary {
        notes.add(source, NO_SUMMARY, None);
    }
    Ok(out)
}
