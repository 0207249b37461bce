//! perfquery's output (infiniband-diags/perfquery.c), one port's or many concatenated, basic
//! (`perfquery LID PORT`) or extended (`perfquery -x`), one port or all summed (`-a`, port 255):
//! ```text
//! # Port counters: Lid 21 port 1 (CapMask: 0x1300)
//! PortSelect:......................1
//! CounterSelect:...................0x0000
//! SymbolErrorCounter:..............60000
//! ...
//! # Port extended counters: Lid 21 port 1 (CapMask: 0x1300 CapMask2: 0x0000000)
//! ```
//! Fields a newer perfquery adds are skipped, and old perfquery's names (`SymbolErrors`,
//! `XmtDiscards`) read as today's. A block without every counter perfquery always prints was
//! cut short: what it has is kept, and noted. Blocks of other attributes (`-E`'s
//! PortRcvErrorDetails, `-D`'s PortXmitDiscardDetails) and lines that are not `Name:...value`
//! (an e-mail's wrapped header) are skipped and noted.
use super::port_counters::{Counter, CounterRecord, NodeAddr, PortSelect};
use super::notes::Notes;
use super::text::lid_in_range;
use super::tool_lines::ToolLines;
use super::IoError;
use std::collections::BTreeMap;

const BASIC: &str = "Port counters:";
const EXTENDED: &str = "Port extended counters:";

pub const CUT_BLOCK: &str = "counter blocks cut short (missing counters perfquery always prints), kept with what they have";
pub const OTHER_BLOCK: &str = "blocks of other attributes (PortRcvErrorDetails, PortXmitDiscardDetails, ...) skipped";
pub const NOT_A_FIELD: &str = "lines that are not Counter:....value (wrapped or cut), skipped";
/// perfquery's PortSelect for "all ports" (AllPortSelect).
const ALL_PORTS: u64 = 255;

/// Counters every perfquery prints in each kind of block (PortXmitWait and the extended
/// unicast/multicast ones depend on the port's capabilities).
const ALWAYS_BASIC: [Counter; 4] = [Counter::SymbolErrorCounter, Counter::PortRcvErrors, Counter::PortXmitData, Counter::PortRcvPkts];
const ALWAYS_EXTENDED: [Counter; 4] = [Counter::PortXmitData, Counter::PortRcvData, Counter::PortXmitPkts, Counter::PortRcvPkts];

/// `Lid 21 port 1 (CapMask: ...)` after the header's colon.
fn header(rest: &str, source: &str, lineno: usize) -> Result<(u16, PortSelect), IoError> {
    let expected = "expected \"Lid <lid> port <port> (CapMask: ...)\"";
    let mut words = rest.split_whitespace();
    let (Some("Lid"), Some(lid), Some("port"), Some(port)) = (words.next(), words.next(), words.next(), words.next()) else {
        return Err(IoError::at(source, lineno, format!("{:?}: {expected}", rest.trim())));
    };
    let lid = lid.parse().ok().and_then(lid_in_range).filter(|l| *l != 0).ok_or_else(|| IoError::at(source, lineno, format!("LID {lid:?}: expected 1..=0xBFFF")))?;
    let port = match port.parse::<u64>() {
        Ok(ALL_PORTS) => PortSelect::All,
        Ok(n) if n <= 254 => PortSelect::Port(n as u16),
        _ => return Err(IoError::at(source, lineno, format!("port {port:?}: expected 0..=254, or 255 for all ports"))),
    };
    Ok((lid, port))
}

/// `Name:.....value`.
fn field(line: &str) -> Option<(&str, &str)> {
    let (name, rest) = line.split_once(':')?;
    Some((name.trim(), rest.trim_start_matches('.').trim()))
}

fn finish(block: Option<CounterRecord>, source: &str, out: &mut Vec<CounterRecord>, notes: &mut Notes) {
    let Some(b) = block else { return };
    let always: &[Counter] = if b.extended { &ALWAYS_EXTENDED } else { &ALWAYS_BASIC };
    if always.iter().any(|c| !b.counters.contains_key(c)) {
        notes.add(source, CUT_BLOCK, Some(b.line));
    }
    out.push(b);
}

/// Reads concatenated perfquery outputs: one record per block, in file order.
pub fn read(text: &str, source: &str, notes: &mut Notes) -> Result<Vec<CounterRecord>, IoError> {
    let mut out = Vec::new();
    let mut block: Option<CounterRecord> = None;
    // Inside a block of another attribute, whose lines are skipped.
    let mut other = false;
    let mut lines = ToolLines::new(text, source, notes);
    while let Some((lineno, raw)) = lines.next() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        // The header's '#' is lost where the output went through HTML.
        let bare = line.trim_start_matches('#').trim_start();
        let head = bare.strip_prefix(BASIC).map(|r| (r, false)).or_else(|| bare.strip_prefix(EXTENDED).map(|r| (r, true)));
        if let Some((rest, extended)) = head {
            finish(block.take(), source, &mut out, lines.notes());
            let (lid, port) = header(rest, source, lineno)?;
            block = Some(CounterRecord { node: NodeAddr::Lid(lid), node_name: None, port, counters: BTreeMap::new(), extended, line: lineno });
            other = false;
            continue;
        }
        if line.starts_with('#') && bare.split_once(':').is_some_and(|(h, _)| h.ends_with(" counters")) {
            finish(block.take(), source, &mut out, lines.notes());
            lines.note(OTHER_BLOCK, lineno);
            other = true;
            continue;
        }
        if other {
            continue;
        }
        let Some(b) = block.as_mut() else {
            return Err(IoError::at(source, lineno, format!("{line:?}: expected \"# {BASIC} Lid <lid> port <port> ...\" first")));
        };
        let Some((name, value)) = field(line) else {
            lines.note(NOT_A_FIELD, lineno);
            continue;
        };
        let Some(counter) = Counter::from_name(name) else { continue };
        let Ok(v) = value.parse::<u64>() else {
            return Err(IoError::at(source, lineno, format!("{name} {value:?}: expected a decimal count")));
        };
        if b.counters.insert(counter, v).is_some() {
            return Err(IoError::at(source, lineno, format!("{name} twice in one block: expected each counter once")));
        }
    }
    finish(block, source, &mut out, notes);
    if out.is_empty() && notes.count(OTHER_BLOCK) > 0 {
        return Err(IoError::whole(source, "only blocks of other attributes (perfquery -E, -D, ...): expected PortCounters (perfquery, perfquery -x)"));
    }
    if out.is_empty() {
        return Err(IoError::whole(source, format!("no counters: expected perfquery output (\"# {BASIC} Lid ...\")")));
    }
    Ok(out)
}
