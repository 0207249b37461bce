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
//! Fields a newer perfquery adds are skipped; a block must end with every counter perfquery
//! always prints, so a cut file is an error, not a port with fewer counters.
use super::port_counters::{Counter, CounterRecord, NodeAddr, PortSelect};
use super::text::lid_in_range;
use super::IoError;
use std::collections::BTreeMap;

const BASIC: &str = "# Port counters:";
const EXTENDED: &str = "# Port extended counters:";
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

fn finish(block: Option<CounterRecord>, source: &str, out: &mut Vec<CounterRecord>) -> Result<(), IoError> {
    let Some(b) = block else { return Ok(()) };
    let always: &[Counter] = if b.extended { &ALWAYS_EXTENDED } else { &ALWAYS_BASIC };
    if let Some(missing) = always.iter().find(|c| !b.counters.contains_key(c)) {
        return Err(IoError::at(source, b.line, format!("this block has no {}: expected perfquery's complete output (a cut file?)", missing.name())));
    }
    out.push(b);
    Ok(())
}

/// Reads concatenated perfquery outputs: one record per block, in file order.
pub fn read(text: &str, source: &str) -> Result<Vec<CounterRecord>, IoError> {
    let mut out = Vec::new();
    let mut block: Option<CounterRecord> = None;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = raw.trim();
        // perfquery's stderr, when the user captured it too.
        if line.is_empty() || line.starts_with("ibwarn:") {
            continue;
        }
        let head = line.strip_prefix(BASIC).map(|r| (r, false)).or_else(|| line.strip_prefix(EXTENDED).map(|r| (r, true)));
        if let Some((rest, extended)) = head {
            finish(block.take(), source, &mut out)?;
            let (lid, port) = header(rest, source, lineno)?;
            block = Some(CounterRecord { node: NodeAddr::Lid(lid), port, counters: BTreeMap::new(), extended, line: lineno });
            continue;
        }
        let Some(b) = block.as_mut() else {
            return Err(IoError::at(source, lineno, format!("{line:?}: expected \"{BASIC} Lid <lid> port <port> ...\" first")));
        };
        let Some((name, value)) = field(line) else {
            return Err(IoError::at(source, lineno, format!("{line:?}: expected <Counter>:....<value>")));
        };
        let Some(counter) = Counter::from_name(name) else { continue };
        let Ok(v) = value.parse::<u64>() else {
            return Err(IoError::at(source, lineno, format!("{name} {value:?}: expected a decimal count")));
        };
        if b.counters.insert(counter, v).is_some() {
            return Err(IoError::at(source, lineno, format!("{name} twice in one block: expected each counter once")));
        }
    }
    finish(block, source, &mut out)?;
    if out.is_empty() {
        return Err(IoError::whole(source, format!("no counters: expected perfquery output (\"{BASIC} Lid ...\")")));
    }
    Ok(out)
}
