//! One reading of the fabric's port counters, matched to the topology's ports: what
//! perfquery or ibqueryerrors printed, with the time it was taken (the tools print none; the
//! caller knows when it ran them).
use crate::fabric::graph::FabricGraph;
use crate::fabric::io::port_counters::{Counter, CounterRecord, PortSelect};
use crate::fabric::io::{ibqueryerrors, perfquery};
use crate::fabric::io::port_match::{At, PortIndex};
use crate::fabric::io::notes::Notes;
use crate::fabric::io::tool_lines::ToolLines;
use crate::fabric::io::IoError;
use crate::ids::PortId;
use std::collections::BTreeMap;

/// What a port missing from the snapshot means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Only the listed ports were read (perfquery): a missing port is unknown.
    Listed,
    /// Every port was read and only those above the thresholds listed (ibqueryerrors): a
    /// missing port or counter was at most the threshold, taken as 0.
    NonZeroOnly,
}

/// One port's counters, and whether its data counters are the 64-bit extended ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortCounters {
    pub values: BTreeMap<Counter, u64>,
    pub extended_data: bool,
}

#[derive(Clone, Debug)]
pub struct CounterSnapshot {
    /// The file(s) it was read from, for messages.
    pub source: String,
    /// When it was taken, in seconds on any clock both snapshots share.
    pub taken_at_s: f64,
    pub coverage: Coverage,
    pub ports: BTreeMap<PortId, PortCounters>,
}

impl CounterSnapshot {
    /// Matches `records` to `graph`'s ports. Sums over all ports (`-a`, `port ALL`) and a
    /// switch's management port 0 are skipped: no link can be blamed for them. A port read
    /// twice keeps both readings only if they do not overlap (perfquery and perfquery -x);
    /// extended data counters replace basic ones.
    pub fn from_records(graph: &FabricGraph, records: &[CounterRecord], source: &str, taken_at_s: f64, coverage: Coverage) -> Result<CounterSnapshot, IoError> {
        if !taken_at_s.is_finite() {
            return Err(IoError::whole(source, format!("taken at {taken_at_s} s: expected a finite time")));
        }
        let index = PortIndex::new(graph);
        let mut ports: BTreeMap<PortId, PortCounters> = BTreeMap::new();
        let mut first_line: BTreeMap<PortId, usize> = BTreeMap::new();
        for r in records {
            let PortSelect::Port(num) = r.port else { continue };
            if num == 0 {
                continue;
            }
            let at = At { source, line: r.line };
            let p = index.by_addr(&r.node, num, at)?;
            let first = *first_line.entry(p).or_insert(r.line);
            let entry = ports.entry(p).or_default();
            for (&c, &v) in &r.counters {
                let replaces_basic_data = r.extended && c.is_data() && !entry.extended_data;
                if entry.values.insert(c, v).is_some() && !replaces_basic_data {
                    return Err(IoError::at(source, r.line, format!("{} of {} again (first at line {first}): expected one reading per port per snapshot", c.name(), graph.port_name(p))));
                }
            }
            entry.extended_data |= r.extended;
        }
        Ok(CounterSnapshot { source: source.to_string(), taken_at_s, coverage, ports })
    }

    /// Reads a snapshot in either format ([`read_records`]) and matches it to `graph`.
    pub fn read(graph: &FabricGraph, text: &str, source: &str, taken_at_s: f64, notes: &mut Notes) -> Result<CounterSnapshot, IoError> {
        let (records, coverage) = read_records(text, source, notes)?;
        CounterSnapshot::from_records(graph, &records, source, taken_at_s, coverage)
    }

    /// The value of `counter` at `port`, if the snapshot says (0 for what ibqueryerrors left
    /// out).
    pub fn value(&self, port: PortId, counter: Counter) -> Option<u64> {
        match (self.ports.get(&port).and_then(|p| p.values.get(&counter)), self.coverage) {
            (Some(&v), _) => Some(v),
            (None, Coverage::NonZeroOnly) => Some(0),
            (None, Coverage::Listed) => None,
        }
    }
}

/// A counter file's records, in either format told apart by content: perfquery's blocks start
/// `# Port counters:` (or `# Port extended counters:`, or another attribute's `# ... counters:`),
/// anything else is ibqueryerrors'.
pub fn read_records(text: &str, source: &str, notes: &mut Notes) -> Result<(Vec<CounterRecord>, Coverage), IoError> {
    let mut ignored = Notes::default();
    let first = ToolLines::new(text, source, &mut ignored).map(|(_, l)| l.trim()).find(|l| !l.is_empty()).unwrap_or("");
    let head = first.trim_start_matches('#').trim_start();
    if head.split_once(':').is_some_and(|(h, _)| h.ends_with(" counters")) {
        Ok((perfquery::read(text, source, notes)?, Coverage::Listed))
    } else {
        Ok((ibqueryerrors::read(text, source, notes)?, Coverage::NonZeroOnly))
    }
}
