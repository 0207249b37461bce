//! `rdmasim doctor`'s diagnosis: which links of a fabric are suspects, from what operators
//! already collect. Degraded links (trained below what both ends support, or down) come from
//! the topology's link speeds or from iblinkinfo; erroring links from one or two snapshots of
//! the port counters (perfquery, ibqueryerrors), as rates when there are two. Each suspect
//! names both ends, its evidence and a severity; the report ranks them. What each costs a
//! workload, disabled or kept, the flow engine says ([`cost`]); [`request`] is `rdmasim
//! doctor`: the files read, diagnosed, costed.
pub mod cost;
pub mod cost_table;
pub mod deltas;
pub mod degraded;
pub mod error_cost;
pub mod erroring;
pub mod port_errors;
pub mod report;
pub mod request;
pub mod snapshot;
pub mod suspect;
pub mod thresholds;
pub mod trace_cost;
pub mod workload;

pub use report::Report;
pub use snapshot::{CounterSnapshot, Coverage};
pub use suspect::{Evidence, Suspect};
pub use thresholds::{Severity, Thresholds};

use crate::fabric::graph::FabricGraph;
use crate::fabric::io::iblinkinfo::LinkInfoPort;
use crate::fabric::io::IoError;
use crate::ids::LinkId;
use std::collections::BTreeMap;

/// What the doctor reads: the topology (what each port supports, and the link speeds unless
/// iblinkinfo is given) and what the tools saw.
pub struct Observations<'a> {
    pub graph: &'a FabricGraph,
    /// iblinkinfo's ports and the file they came from.
    pub links: Option<(&'a [LinkInfoPort], &'a str)>,
    pub before: Option<&'a CounterSnapshot>,
    pub after: Option<&'a CounterSnapshot>,
    /// Take iblinkinfo's "Could be" as what both ends support (where it says more than the
    /// topology). Right on real hardware, whose PortInfo says what it supports; wrong over
    /// ibsim, which says 1x..12x on every port.
    pub trust_could_be: bool,
}

/// The fabric as the tools saw it (links at iblinkinfo's speeds, the ports it saw down down),
/// and those ports.
pub fn observe(obs: &Observations) -> Result<(FabricGraph, Vec<degraded::DownPort>), IoError> {
    match obs.links {
        Some((ports, source)) => degraded::observe(obs.graph, ports, source, obs.trust_could_be),
        None => Ok((obs.graph.clone(), Vec::new())),
    }
}

/// Every suspect link, ranked. Errors: iblinkinfo disagreeing with the topology's cabling,
/// snapshots out of order.
pub fn diagnose(obs: &Observations, t: &Thresholds) -> Result<Report, IoError> {
    diagnose_observed(obs, t).map(|(report, _)| report)
}

/// [`diagnose`], and the fabric as observed ([`observe`]) that the report's link ids index
/// and the cost runs on.
pub fn diagnose_observed(obs: &Observations, t: &Thresholds) -> Result<(Report, FabricGraph), IoError> {
    let (observed, down) = observe(obs)?;
    let interval_s = match (obs.before, obs.after) {
        (Some(b), Some(a)) => Some(deltas::interval(b, a)?),
        _ => None,
    };
    let mut evidence: BTreeMap<LinkId, Vec<Evidence>> = BTreeMap::new();
    let mut found = degraded::degraded_links(&observed, t);
    found.extend(degraded::down_links(&observed, &down));
    // One snapshot alone is read as the later one: counts since the last clear.
    if let Some(after) = obs.after.or(obs.before) {
        let before = obs.after.and(obs.before);
        found.extend(erroring::erroring_links(&observed, before, after, interval_s, t));
    }
    for (link, e) in found {
        evidence.entry(link).or_default().push(e);
    }
    let suspects = evidence.into_iter().map(|(l, e)| Suspect::new(&observed, l, e)).collect();
    let mut report = Report { links_checked: observed.links.len(), interval_s, thresholds: t.clone(), suspects };
    report.rank();
    Ok((report, observed))
}
