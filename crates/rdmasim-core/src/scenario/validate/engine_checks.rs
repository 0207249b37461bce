//! What each engine can run from a fabric scenario: the packet engine anything; the flow
//! engine a `flows` workload of flows it can rate (no key-value store, no sender-side split, no
//! packet faults or capture), and `[flow]`'s options need it; PM none (its scenario has other
//! sections, scenario/pm.rs).
use crate::scenario::{EngineKind, Scenario, WorkloadSection};

/// What the scenario's engine cannot run, named by key.
pub(super) fn check_engine(s: &Scenario) -> Result<(), (String, String)> {
    if s.engine == EngineKind::Pm {
        return Err(("engine".into(), "\"pm\" runs a PM scenario ([ethernet], [host], [pm]: docs/pm.md), read by prepare::parse; expected \"packet\" or \"flow\" beside [hardware]".into()));
    }
    if s.engine != EngineKind::Flow {
        if !s.flow.is_default() {
            return Err(("flow.hol".into(), "[flow] sets the flow engine's options; expected engine = \"flow\" beside it (the packet engine has its credits and FIFOs already)".into()));
        }
        return Ok(());
    }
    let WorkloadSection::Flows(f) = &s.workload else {
        return Err(("engine".into(), "the flow engine runs a `flows` workload; expected engine = \"packet\" for this workload, or workload.kind = \"flows\"".into()));
    };
    if f.kv.is_some() {
        return Err(("workload.kv".into(), "the key-value store is request by request, not a flow; expected engine = \"packet\" with a [workload.kv]".into()));
    }
    for (i, fl) in f.flow.iter().enumerate() {
        let key = |k: &str| format!("workload.flow[{i}].{k}");
        if fl.split_bytes.is_some() {
            return Err((key("split_bytes"), "the sender-side scheduler paces work requests, which the flow engine does not see; expected engine = \"packet\" for split_bytes".into()));
        }
    }
    if !s.faults.is_empty() {
        return Err(("faults".into(), "packet loss and bit errors act on packets; expected engine = \"packet\" with [[faults]] (a degraded link is a link of another speed)".into()));
    }
    if s.output.capture {
        return Err(("output.capture".into(), "the flow engine sends no packets to capture; expected engine = \"packet\" with capture = true".into()));
    }
    Ok(())
}
