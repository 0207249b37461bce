//! When a counter makes a link a suspect, and how bad it is.
//!
//! Only counters that count what happens on the cable are the link's (IBTA Vol. 1 16.1.3.5):
//! SymbolErrorCounter (bad symbols on a lane), LinkErrorRecoveryCounter (the link retrained),
//! LinkDownedCounter (it went down), PortRcvErrors (packets received corrupt),
//! LocalLinkIntegrityErrors and ExcessiveBufferOverrunErrors. The others are someone else's:
//! PortRcvRemotePhysicalErrors counts packets already marked bad upstream, PortXmitDiscards
//! and PortXmitWait congestion or a dead destination, the constraint, relay, VL15 and QP1
//! counters partitioning, routing and management traffic.
//!
//! Sources: ibqueryerrors (infiniband-diags 44) reports any counter above its threshold, 0
//! unless a threshold file says otherwise; the file it ships lists, commented out, 10 for the
//! link counters above (`/etc/infiniband-diags/error_thresholds`), which [`Thresholds`] uses
//! for a lifetime count when there is no second snapshot to give a rate. IBTA Vol. 2 requires
//! links to run at a bit error rate of at most 1e-12; a symbol error is taken as one bit
//! error (ASSUMPTION: a lower bound when errors come in bursts), over every lane's signalling.
use crate::fabric::io::port_counters::Counter;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Thresholds {
    /// Bit error rate above which symbol errors make a link a suspect (IBTA: 1e-12).
    pub ber_suspect: f64,
    /// ... and a high-severity one. ASSUMPTION: 1e-9, a thousand times the specification.
    pub ber_high: f64,
    /// Lifetime count above which a link counter makes a suspect when there is one snapshot
    /// (the commented values of infiniband-diags' error_thresholds).
    pub lifetime_count: u64,
    /// A degraded link keeping at most this share of its expected data rate is high
    /// severity. ASSUMPTION: 0.25 (1x of 4x, SDR of QDR); the diagnosis ranks by it, the cost
    /// simulation (cost.rs) by what each link costs a workload.
    pub degraded_high_share: f64,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds { ber_suspect: 1e-12, ber_high: 1e-9, lifetime_count: 10, degraded_high_share: 0.25 }
    }
}

/// Whether a counter counts what happens on the link itself.
pub fn is_link_counter(c: Counter) -> bool {
    matches!(
        c,
        Counter::SymbolErrorCounter
            | Counter::LinkErrorRecoveryCounter
            | Counter::LinkDownedCounter
            | Counter::PortRcvErrors
            | Counter::LocalLinkIntegrityErrors
            | Counter::ExcessiveBufferOverrunErrors
    )
}

/// How bad growth of `counter` over an interval is, if it is bad at all: symbol errors by the
/// bit error rate they make (`ber`), a retrain or a drop always high, other link counters
/// medium on any growth (ibqueryerrors' default threshold, 0).
pub fn rate_severity(t: &Thresholds, counter: Counter, delta: u64, ber: Option<f64>) -> Option<Severity> {
    if delta == 0 || !is_link_counter(counter) {
        return None;
    }
    match counter {
        Counter::SymbolErrorCounter => match ber {
            Some(b) if b >= t.ber_high => Some(Severity::High),
            Some(b) if b > t.ber_suspect => Some(Severity::Medium),
            _ => None,
        },
        Counter::LinkErrorRecoveryCounter | Counter::LinkDownedCounter => Some(Severity::High),
        _ => Some(Severity::Medium),
    }
}

/// How bad a lifetime count is (one snapshot): low above the suggested threshold, since
/// nothing says when the errors happened.
pub fn lifetime_severity(t: &Thresholds, counter: Counter, count: u64) -> Option<Severity> {
    (is_link_counter(counter) && count > t.lifetime_count).then_some(Severity::Low)
}
