//! The doctor without a topology: one or two counter snapshots (perfquery, ibqueryerrors) as
//! an operator has them, ranked by port. No link can be named without the cabling, so a port
//! is what the tool named (a GUID or LID, and a port number); the ranking is by the
//! physical-layer error counters, each counted as a fraction of its counter's range so that a
//! saturated 8-bit LinkDownedCounter weighs as much as a saturated 16-bit SymbolErrorCounter
//! (an assumption, stated: no counter says more than "this many at least" once saturated).
//! Congestion counters (PortXmitWait, PortXmitDiscards) are kept apart: they say a port
//! waited, not that its cable is bad. A saturated counter says only "at least this many": the
//! advice is to clear the counters (`perfquery -R`, `ibclearcounters`) and take two snapshots
//! a known interval apart, which gives rates.
use crate::fabric::io::port_counters::{Counter, CounterRecord, NodeAddr, PortSelect};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Counters that a bad cable, connector or transceiver raises.
pub const PHYSICAL: [Counter; 7] = [
    Counter::SymbolErrorCounter,
    Counter::LinkErrorRecoveryCounter,
    Counter::LinkDownedCounter,
    Counter::PortRcvErrors,
    Counter::PortRcvRemotePhysicalErrors,
    Counter::LocalLinkIntegrityErrors,
    Counter::ExcessiveBufferOverrunErrors,
];

/// Counters that traffic waiting raises.
pub const CONGESTION: [Counter; 2] = [Counter::PortXmitWait, Counter::PortXmitDiscards];

/// One port as the files name it, with its counters split by kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PortErrorRow {
    /// `GUID 0x...` or `LID n`, with the node's description where the file gives it.
    pub node: String,
    /// The port number, `0` for a switch's management port, or `ALL` (the node's sum).
    pub port: String,
    /// Physical-layer counters that are not zero (a delta with two snapshots).
    pub physical: BTreeMap<String, u64>,
    pub congestion: BTreeMap<String, u64>,
    /// Counters at their maximum: "at least this many".
    pub saturated: Vec<String>,
    /// Σ value / counter maximum over the physical counters (see the module comment).
    pub score: f64,
    /// The file and line of the (later) reading.
    pub at: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PortErrorReport {
    /// Ports with a physical-layer error, worst first.
    pub erroring: Vec<PortErrorRow>,
    /// Ports with congestion only.
    pub congested: Vec<PortErrorRow>,
    /// Node sums (`port ALL`, perfquery -a): no single port to blame.
    pub node_totals: Vec<PortErrorRow>,
    /// Ports read in all.
    pub ports_read: usize,
    /// Seconds between the snapshots, with two.
    pub interval_s: Option<f64>,
    pub advice: Vec<String>,
}

fn node_label(r: &CounterRecord) -> String {
    let id = match r.node {
        NodeAddr::Guid(g) => format!("GUID {g:#x}"),
        NodeAddr::Lid(l) => format!("LID {l}"),
    };
    match &r.node_name {
        Some(n) => format!("{id} \"{n}\""),
        None => id,
    }
}

fn key(r: &CounterRecord) -> (String, String) {
    let id = match r.node {
        NodeAddr::Guid(g) => format!("{g:x}"),
        NodeAddr::Lid(l) => format!("lid{l}"),
    };
    let port = match r.port {
        PortSelect::Port(p) => p.to_string(),
        PortSelect::All => "ALL".into(),
    };
    (id, port)
}

/// Ranks the ports of `after` (with `before`, by the counts between the two).
pub fn rank(before: Option<(&[CounterRecord], &str)>, after: (&[CounterRecord], &str), interval_s: Option<f64>) -> PortErrorReport {
    let earlier: BTreeMap<(String, String), &CounterRecord> = before.map(|(b, _)| b.iter().map(|r| (key(r), r)).collect()).unwrap_or_default();
    let mut report = PortErrorReport { erroring: Vec::new(), congested: Vec::new(), node_totals: Vec::new(), ports_read: 0, interval_s, advice: Vec::new() };
    let mut any_saturated = false;
    for r in after.0 {
        report.ports_read += 1;
        let (_, port) = key(r);
        let was = earlier.get(&key(r));
        let mut row = PortErrorRow { node: node_label(r), port, physical: BTreeMap::new(), congestion: BTreeMap::new(), saturated: Vec::new(), score: 0.0, at: format!("{}:{}", after.1, r.line) };
        for (&c, &v) in &r.counters {
            let max = c.max(r.extended);
            // Above the maximum, the counter is wider than PortCounters' (ibqueryerrors reads
            // PortCountersExtended where the port has it): not saturated.
            if v == max {
                row.saturated.push(c.name().to_string());
            }
            let v = v.saturating_sub(was.and_then(|w| w.counters.get(&c)).copied().unwrap_or(0));
            if v == 0 {
                continue;
            }
            if PHYSICAL.contains(&c) {
                row.physical.insert(c.name().to_string(), v);
                row.score += v as f64 / max as f64;
            } else if CONGESTION.contains(&c) {
                row.congestion.insert(c.name().to_string(), v);
            }
        }
        any_saturated |= !row.saturated.is_empty();
        if r.port == PortSelect::All {
            report.node_totals.push(row);
        } else if !row.physical.is_empty() {
            report.erroring.push(row);
        } else if !row.congestion.is_empty() {
            report.congested.push(row);
        }
    }
    report.erroring.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)).then(a.port.cmp(&b.port)));
    if any_saturated {
        report.advice.push("saturated counters say only \"at least this many\": clear them (perfquery -R, or ibclearcounters) and take two snapshots a known interval apart (--counters twice, --interval S) for rates".into());
    }
    if before.is_none() {
        report.advice.push("one snapshot: counts since the counters were last cleared, at an unknown rate; two snapshots with --interval give rates".into());
    }
    report.advice.push("without a topology no link can be named or costed: give --topology (ibnetdiscover, iblinkinfo, ...) to see both ends and what disabling each costs".into());
    report
}

impl PortErrorReport {
    pub fn table(&self) -> String {
        let mut out = String::new();
        let over = self.interval_s.map_or("one snapshot".to_string(), |dt| format!("counts over {dt} s"));
        let _ = writeln!(out, "{} port(s) with physical-layer errors, {} congested only, of {} read ({over}; no topology)", self.erroring.len(), self.congested.len(), self.ports_read);
        let row = |out: &mut String, rank: String, r: &PortErrorRow| {
            let counts: Vec<String> = r.physical.iter().chain(&r.congestion).map(|(c, v)| format!("{c}={v}")).collect();
            let sat = if r.saturated.is_empty() { String::new() } else { format!("  saturated: {}", r.saturated.join(", ")) };
            let _ = writeln!(out, "{rank:>4}  {:.3}  {} port {}  {}{sat}", r.score, r.node, r.port, counts.join(" "));
        };
        for (i, r) in self.erroring.iter().enumerate() {
            row(&mut out, (i + 1).to_string(), r);
        }
        if !self.congested.is_empty() {
            let _ = writeln!(out, "congestion only (PortXmitWait, PortXmitDiscards):");
            for r in &self.congested {
                row(&mut out, String::new(), r);
            }
        }
        if !self.node_totals.is_empty() {
            let _ = writeln!(out, "node totals (port ALL; no single port to blame):");
            for r in &self.node_totals {
                row(&mut out, String::new(), r);
            }
        }
        for a in &self.advice {
            let _ = writeln!(out, "advice: {a}");
        }
        out
    }
}
