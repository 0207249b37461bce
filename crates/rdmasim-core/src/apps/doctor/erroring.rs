//! Links whose counters say they corrupt or drop what they carry: each end's link counters,
//! as growth over the interval between two snapshots (a rate), or with one snapshot as the
//! count since the counters were last cleared (which says nothing of when: low severity).
use super::deltas::{port_deltas, CounterDelta};
use super::snapshot::CounterSnapshot;
use super::suspect::Evidence;
use super::thresholds::{lifetime_severity, rate_severity, Thresholds};
use crate::fabric::graph::FabricGraph;
use crate::fabric::io::port_counters::Counter;
use crate::ids::LinkId;

/// Symbol errors per bit signalled on the link (all lanes) over the interval.
fn ber(g: &FabricGraph, link: LinkId, d: &CounterDelta) -> Option<f64> {
    let dt = d.interval_s?;
    (d.counter == Counter::SymbolErrorCounter).then(|| d.delta as f64 / (g.links[link].speed.signalling_bps() as f64 * dt))
}

/// Evidence against every link with an end whose link counters cross the thresholds.
/// `observed` gives each link's active speed (for the bit error rate).
pub fn erroring_links(observed: &FabricGraph, before: Option<&CounterSnapshot>, after: &CounterSnapshot, interval_s: Option<f64>, t: &Thresholds) -> Vec<(LinkId, Evidence)> {
    let mut out = Vec::new();
    for &p in after.ports.keys() {
        let Some(link) = observed.ports[p].link else { continue };
        for d in port_deltas(before, after, p, interval_s) {
            let ber = ber(observed, link, &d);
            let severity = match d.per_second {
                Some(_) => rate_severity(t, d.counter, d.delta, ber),
                None => lifetime_severity(t, d.counter, d.after),
            };
            if let Some(severity) = severity {
                out.push((link, Evidence::Counter { port: observed.port_name(p), delta: d, ber, severity }));
            }
        }
    }
    out
}
