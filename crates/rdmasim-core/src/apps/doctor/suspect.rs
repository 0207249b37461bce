//! A suspect link: both ends by name, what makes it one (each piece of evidence with its own
//! severity) and the worst of them.
use super::deltas::CounterDelta;
use super::thresholds::Severity;
use crate::fabric::graph::FabricGraph;
use crate::ids::LinkId;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Evidence {
    /// Trained below what both ends support.
    Degraded { active: String, expected: String, active_gbps: f64, expected_gbps: f64, severity: Severity },
    /// Cabled in the topology, down in iblinkinfo.
    Down { port: String, state: String, phys_state: String, severity: Severity },
    /// A link counter grew (or, with one snapshot, has a high lifetime count) at one end.
    Counter {
        port: String,
        #[serde(flatten)]
        delta: CounterDelta,
        /// Errors per bit signalled in the interval (symbol errors only).
        ber: Option<f64>,
        severity: Severity,
    },
}

impl Evidence {
    pub fn severity(&self) -> Severity {
        match self {
            Evidence::Degraded { severity, .. } | Evidence::Down { severity, .. } | Evidence::Counter { severity, .. } => *severity,
        }
    }

    /// Data rate the link lost, Gb/s (0 for evidence other than degradation).
    pub fn lost_gbps(&self) -> f64 {
        match self {
            Evidence::Degraded { active_gbps, expected_gbps, .. } => expected_gbps - active_gbps,
            _ => 0.0,
        }
    }

    /// One line for the table.
    pub fn summary(&self) -> String {
        match self {
            Evidence::Degraded { active, expected, .. } => format!("{active}, expected {expected}"),
            Evidence::Down { port, state, phys_state, .. } => format!("{port} {state}/{phys_state}"),
            Evidence::Counter { port, delta, ber, .. } => {
                let at_least = if delta.saturated || delta.reset { ">=" } else { "" };
                let mut s = format!("{port} {} +{at_least}{}", delta.counter.name(), delta.delta);
                match (delta.per_second, delta.interval_s) {
                    (Some(r), Some(dt)) => s.push_str(&format!(" in {dt} s ({r:.3}/s)")),
                    _ => s.push_str(" since last clear"),
                }
                if let Some(b) = ber {
                    s.push_str(&format!(", BER {b:.1e}"));
                }
                s
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Suspect {
    #[serde(skip)]
    pub link: LinkId,
    /// `"switch"[port] <-> "node"[port]`, the switch end first.
    pub label: String,
    pub ends: [String; 2],
    pub severity: Severity,
    pub evidence: Vec<Evidence>,
}

impl Suspect {
    pub fn new(g: &FabricGraph, link: LinkId, evidence: Vec<Evidence>) -> Suspect {
        let [a, b] = g.links[link].ends;
        let (a, b) = if !g.nodes[g.ports[a].node].is_switch() && g.nodes[g.ports[b].node].is_switch() { (b, a) } else { (a, b) };
        let ends = [g.port_name(a), g.port_name(b)];
        let severity = evidence.iter().map(Evidence::severity).max().unwrap_or(Severity::Low);
        Suspect { link, label: format!("{} <-> {}", ends[0], ends[1]), ends, severity, evidence }
    }

    pub fn lost_gbps(&self) -> f64 {
        self.evidence.iter().map(Evidence::lost_gbps).sum()
    }

    pub fn worst_ber(&self) -> f64 {
        self.evidence.iter().filter_map(|e| if let Evidence::Counter { ber: Some(b), .. } = e { Some(*b) } else { None }).fold(0.0, f64::max)
    }
}
