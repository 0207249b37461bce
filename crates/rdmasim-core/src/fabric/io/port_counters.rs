//! The PortCounters (IBTA Vol. 1, 16.1.3.5) that perfquery and ibqueryerrors print, by the
//! names they print them under, and the record both readers produce: one port's counters as
//! the file gives them, before they are matched to a port of the topology
//! ([`super::port_match`]).
//!
//! Counters saturate at their width's maximum (they do not wrap), so a counter at its maximum
//! says "at least this many": [`Counter::max`] tells the doctor when a delta is a lower bound.
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Counter {
    SymbolErrorCounter,
    LinkErrorRecoveryCounter,
    LinkDownedCounter,
    PortRcvErrors,
    PortRcvRemotePhysicalErrors,
    PortRcvSwitchRelayErrors,
    PortXmitDiscards,
    PortXmitConstraintErrors,
    PortRcvConstraintErrors,
    LocalLinkIntegrityErrors,
    ExcessiveBufferOverrunErrors,
    VL15Dropped,
    QP1Dropped,
    PortXmitData,
    PortRcvData,
    PortXmitPkts,
    PortRcvPkts,
    PortXmitWait,
}

/// Every counter with its printed name and its width in bits in PortCounters (the data
/// counters are 64-bit in PortCountersExtended, `perfquery -x`).
const COUNTERS: [(Counter, &str, u32); 18] = [
    (Counter::SymbolErrorCounter, "SymbolErrorCounter", 16),
    (Counter::LinkErrorRecoveryCounter, "LinkErrorRecoveryCounter", 8),
    (Counter::LinkDownedCounter, "LinkDownedCounter", 8),
    (Counter::PortRcvErrors, "PortRcvErrors", 16),
    (Counter::PortRcvRemotePhysicalErrors, "PortRcvRemotePhysicalErrors", 16),
    (Counter::PortRcvSwitchRelayErrors, "PortRcvSwitchRelayErrors", 16),
    (Counter::PortXmitDiscards, "PortXmitDiscards", 16),
    (Counter::PortXmitConstraintErrors, "PortXmitConstraintErrors", 8),
    (Counter::PortRcvConstraintErrors, "PortRcvConstraintErrors", 8),
    (Counter::LocalLinkIntegrityErrors, "LocalLinkIntegrityErrors", 4),
    (Counter::ExcessiveBufferOverrunErrors, "ExcessiveBufferOverrunErrors", 4),
    (Counter::VL15Dropped, "VL15Dropped", 16),
    (Counter::QP1Dropped, "QP1Dropped", 16),
    (Counter::PortXmitData, "PortXmitData", 32),
    (Counter::PortRcvData, "PortRcvData", 32),
    (Counter::PortXmitPkts, "PortXmitPkts", 32),
    (Counter::PortRcvPkts, "PortRcvPkts", 32),
    (Counter::PortXmitWait, "PortXmitWait", 32),
];

/// The names perfquery printed before infiniband-diags 1.4 and ibqueryerrors.pl (OFED
/// 1.3-1.5) prints, for the counters above.
const OLD_NAMES: [(&str, Counter); 17] = [
    ("SymbolErrors", Counter::SymbolErrorCounter),
    ("LinkRecovers", Counter::LinkErrorRecoveryCounter),
    ("LinkDowned", Counter::LinkDownedCounter),
    ("RcvErrors", Counter::PortRcvErrors),
    ("RcvRemotePhysErrors", Counter::PortRcvRemotePhysicalErrors),
    ("RcvSwRelayErrors", Counter::PortRcvSwitchRelayErrors),
    ("XmtDiscards", Counter::PortXmitDiscards),
    ("XmtConstraintErrors", Counter::PortXmitConstraintErrors),
    ("RcvConstraintErrors", Counter::PortRcvConstraintErrors),
    ("LinkIntegrityErrors", Counter::LocalLinkIntegrityErrors),
    ("ExcBufOverrunErrors", Counter::ExcessiveBufferOverrunErrors),
    ("XmtData", Counter::PortXmitData),
    ("RcvData", Counter::PortRcvData),
    ("XmtPkts", Counter::PortXmitPkts),
    ("RcvPkts", Counter::PortRcvPkts),
    ("XmtWait", Counter::PortXmitWait),
    ("VL15Dropped", Counter::VL15Dropped),
];

impl Counter {
    /// The counter a tool names `name`: today's names, or the old ones ([`OLD_NAMES`]).
    pub fn from_name(name: &str) -> Option<Counter> {
        COUNTERS.iter().find(|c| c.1 == name).map(|c| c.0).or_else(|| OLD_NAMES.iter().find(|c| c.0 == name).map(|c| c.1))
    }

    pub fn name(self) -> &'static str {
        COUNTERS.iter().find(|c| c.0 == self).map_or("", |c| c.1)
    }

    /// The value the counter saturates at: 2^width - 1, or u64::MAX for an extended one.
    pub fn max(self, extended: bool) -> u64 {
        let bits = COUNTERS.iter().find(|c| c.0 == self).map_or(64, |c| c.2);
        if extended && self.is_data() {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    }

    /// Traffic counters (data, packets, wait): 64-bit in the extended attribute.
    pub fn is_data(self) -> bool {
        matches!(self, Counter::PortXmitData | Counter::PortRcvData | Counter::PortXmitPkts | Counter::PortRcvPkts)
    }
}

/// Which port a record is for: one port, or the sum over all of a node's ports (perfquery's
/// port 255 with `-a`, ibqueryerrors' `port ALL`), which no single link can be blamed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortSelect {
    /// A port (0: a switch's management port, which ibqueryerrors reports too).
    Port(u16),
    All,
}

/// How a file names the node a record is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeAddr {
    /// A LID: a switch's (port 0) or a CA port's.
    Lid(u16),
    /// A GUID: a switch's node GUID (its ports share it) or a CA's port GUID.
    Guid(u64),
}

/// One port's counters as a file gives them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CounterRecord {
    pub node: NodeAddr,
    /// The node's description where the file gives it (ibqueryerrors' "Errors for").
    pub node_name: Option<String>,
    pub port: PortSelect,
    pub counters: BTreeMap<Counter, u64>,
    /// PortCountersExtended (`perfquery -x`): the data counters are 64-bit.
    pub extended: bool,
    /// The line the record starts on.
    pub line: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_widths_follow_the_spec() {
        assert_eq!(Counter::from_name("PortRcvErrors"), Some(Counter::PortRcvErrors));
        assert_eq!(Counter::from_name("PortUnicastXmitPkts"), None);
        assert_eq!(Counter::from_name("XmtDiscards"), Some(Counter::PortXmitDiscards));
        assert_eq!(Counter::SymbolErrorCounter.max(false), 0xFFFF);
        assert_eq!(Counter::LocalLinkIntegrityErrors.max(false), 0xF);
        assert_eq!(Counter::PortXmitData.max(true), u64::MAX);
        for (c, name, _) in COUNTERS {
            assert_eq!(c.name(), name);
        }
    }
}
