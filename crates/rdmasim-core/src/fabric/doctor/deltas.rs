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
