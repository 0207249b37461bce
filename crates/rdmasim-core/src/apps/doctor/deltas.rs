//! How much each counter grew between two snapshots, per second. Counters saturate at their
//! maximum (a delta up to a saturated value is a lower bound) and are reset by
//! `perfquery -R` or `ibqueryerrors -k` (a value below the earlier one: the later value is the
//! growth since the reset, also a lower bound). With one snapshot, or a port the earlier one
//! does not cover, the count is the one since the counters were last cleared, with no rate.
use super::snapshot::CounterSnapshot;
use crate::fabric::io::port_counters::Counter;
use crate::fabric::io::IoError;
use crate::ids::PortId;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CounterDelta {
    pub counter: Counter,
    /// The earlier value; None without one (the count is then since the last clear).
    pub before: Option<u64>,
    pub after: u64,
    pub delta: u64,
    /// Seconds between the snapshots, when there were two.
    pub interval_s: Option<f64>,
    pub per_second: Option<f64>,
    /// The later value is the counter's maximum: at least this many.
    pub saturated: bool,
    /// The counter went down between the snapshots: it was cleared.
    pub reset: bool,
}

/// The interval between two snapshots, which must be positive.
pub fn interval(before: &CounterSnapshot, after: &CounterSnapshot) -> Result<f64, IoError> {
    let dt = after.taken_at_s - before.taken_at_s;
    if dt.is_finite() && dt > 0.0 {
        Ok(dt)
    } else {
        Err(IoError::whole(&after.source, format!("taken at {} s, {} s after {} (taken at {} s): expected a later snapshot", after.taken_at_s, dt, before.source, before.taken_at_s)))
    }
}

/// The growth of every counter `after` has at `port`.
pub fn port_deltas(before: Option<&CounterSnapshot>, after: &CounterSnapshot, port: PortId, interval_s: Option<f64>) -> Vec<CounterDelta> {
    let Some(now) = after.ports.get(&port) else { return Vec::new() };
    now.values
        .iter()
        .map(|(&counter, &v)| {
            let earlier = before.and_then(|b| b.value(port, counter));
            let reset = earlier.is_some_and(|e| v < e);
            let delta = match earlier {
                Some(e) if !reset => v - e,
                _ => v,
            };
            let dt = interval_s.filter(|_| earlier.is_some());
            CounterDelta {
                counter,
                before: earlier,
                after: v,
                delta,
                interval_s: dt,
                per_second: dt.map(|dt| delta as f64 / dt),
                saturated: v >= counter.max(now.extended_data),
                reset,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::doctor::snapshot::{Coverage, PortCounters};

    fn snap(at: f64, coverage: Coverage, values: &[(Counter, u64)]) -> CounterSnapshot {
        let mut ports = std::collections::BTreeMap::new();
        if !values.is_empty() {
            ports.insert(PortId(0), PortCounters { values: values.iter().copied().collect(), extended_data: false });
        }
        CounterSnapshot { source: format!("t{at}"), taken_at_s: at, coverage, ports }
    }

    #[test]
    fn saturated_reset_and_missing_counters_are_said_so() {
        let before = snap(0.0, Coverage::Listed, &[(Counter::SymbolErrorCounter, 10), (Counter::PortRcvErrors, 50)]);
        let after = snap(10.0, Coverage::Listed, &[(Counter::SymbolErrorCounter, 0xFFFF), (Counter::PortRcvErrors, 5), (Counter::LinkDownedCounter, 1)]);
        let dt = interval(&before, &after).unwrap();
        let d = port_deltas(Some(&before), &after, PortId(0), Some(dt));
        let by = |c| d.iter().find(|x| x.counter == c).unwrap();
        let sym = by(Counter::SymbolErrorCounter);
        assert_eq!((sym.delta, sym.saturated, sym.reset, sym.per_second), (0xFFFF - 10, true, false, Some(6552.5)));
        let rcv = by(Counter::PortRcvErrors);
        assert_eq!((rcv.delta, rcv.reset), (5, true), "cleared between the snapshots: growth since the clear");
        let down = by(Counter::LinkDownedCounter);
        assert_eq!((down.before, down.delta, down.per_second), (None, 1, None), "perfquery did not read it before: a count since the last clear");
        // ibqueryerrors leaves out what is at or below its threshold: taken as 0.
        let quiet = snap(0.0, Coverage::NonZeroOnly, &[]);
        let d = port_deltas(Some(&quiet), &after, PortId(0), Some(10.0));
        assert!(d.iter().all(|x| x.before == Some(0) && x.per_second.is_some()));
        assert!(interval(&after, &before).unwrap_err().message.contains("expected a later snapshot"));
    }
}
