//! The doctor's table with costs: the suspects by what disabling each gains, with the
//! slowest-pair bandwidth kept and disabled, their evidence, and the plan.
use super::cost::{CostReport, SuspectCost};
use super::Report;
use std::fmt::Write;

/// The notes under a suspect's evidence: what the cost model took its errors to cost, and the
/// endpoints disabling it would cut off.
fn notes(c: &SuspectCost) -> Vec<String> {
    let mut out = Vec::new();
    let lossy: Vec<_> = c.useful_share.iter().filter(|d| d.share < 1.0).collect();
    match lossy.as_slice() {
        [] => {}
        [a, b] if a.share == b.share => out.push(format!("errors cost {} of its rate both ways", percent(1.0 - a.share))),
        some => {
            let each: Vec<String> = some.iter().map(|d| format!("{} of its rate from {}", percent(1.0 - d.share), d.from)).collect();
            out.push(format!("errors cost {}", each.join(", ")));
        }
    }
    if !c.cut_off.is_empty() {
        out.push(format!("disabling cuts off {}", c.cut_off.join(", ")));
    }
    out
}

/// A share as a percentage, two decimals, or two significant digits when smaller than that.
fn percent(share: f64) -> String {
    let pct = share * 100.0;
    if pct >= 0.01 {
        format!("{pct:.2}%")
    } else {
        format!("{pct:.1e}%")
    }
}

pub fn table(diagnosis: &Report, cost: &CostReport) -> String {
    let mut out = String::new();
    let o = &cost.options;
    let _ = writeln!(out, "{}", diagnosis.heading());
    match &o.trace {
        Some(dir) => {
            let _ = writeln!(
                out,
                "workload mpi-trace {}: {} ranks replayed on the packet engine ({}), seed {}, routed by {}; trace bandwidth (bytes sent / replay time) as observed {:.2} Gb/s",
                dir.display(),
                cost.flows_per_pattern,
                o.profile,
                o.seed,
                cost.routed_by,
                cost.kept_gbps
            );
        }
        None => {
            let _ = writeln!(
                out,
                "workload {}: {} pattern(s) of {} flows, seed {}, routed by {}; slowest-pair bandwidth as observed {:.2} Gb/s (mean over patterns)",
                o.workload.name(),
                cost.patterns,
                cost.flows_per_pattern,
                o.seed,
                cost.routed_by,
                cost.kept_gbps
            );
        }
    }
    if cost.suspects.is_empty() {
        return out;
    }
    let width = cost.suspects.iter().map(|s| s.label.len()).max().unwrap_or(0).max(4);
    let _ = writeln!(out, "{:>4}  {:<8}  {:<width$}  {:>9}  {:>13}  {:>8}  evidence", "rank", "severity", "link", "kept Gb/s", "disabled Gb/s", "gain");
    for (i, c) in cost.suspects.iter().enumerate() {
        let severity = format!("{:?}", c.severity).to_lowercase();
        // diagnosis_rank is the suspect's 1-based place in the diagnosis.
        let evidence: Vec<String> = diagnosis.suspects.get(c.diagnosis_rank - 1).map(|s| s.evidence.iter().map(|e| e.summary()).collect()).unwrap_or_default();
        let lines: Vec<String> = evidence.into_iter().chain(notes(c)).collect();
        for (j, e) in lines.iter().enumerate() {
            if j == 0 {
                let _ = writeln!(out, "{:>4}  {:<8}  {:<width$}  {:>9.2}  {:>13.2}  {:>+8.2}  {e}", i + 1, severity, c.label, c.kept_gbps, c.disabled_gbps, c.gain_gbps);
            } else {
                let _ = writeln!(out, "{:>4}  {:<8}  {:<width$}  {:>9}  {:>13}  {:>8}  {e}", "", "", "", "", "", "");
            }
        }
    }
    if cost.plan.is_empty() {
        let _ = writeln!(out, "disable none: no suspect gains {:.0}% by being disabled (replace them at the next maintenance)", o.min_gain_share * 100.0);
    } else {
        let steps: Vec<String> = cost.plan.iter().map(|p| format!("{} ({:+.2} -> {:.2} Gb/s)", p.label, p.gain_gbps, p.gbps)).collect();
        let _ = writeln!(out, "disable first: {}", steps.join(", then "));
        let measure = if o.trace.is_some() { "trace bandwidth" } else { "slowest-pair bandwidth" };
        let _ = writeln!(out, "{measure} {:.2} -> {:.2} Gb/s with the plan's links disabled", cost.kept_gbps, cost.after_plan_gbps);
    }
    out
}
