//! The doctor's table with costs: the suspects by what disabling each gains, with the
//! slowest-pair bandwidth kept and disabled, their evidence, and the plan.
use super::cost::{CostReport, SuspectCost};
use super::Report;
use std::fmt::Write;

/// The notes under a suspect's evidence: what the cost model took its errors to cost, and the
/// endpoints disabling it would cut off.
fn notes(c: &SuspectCost) -> Vec<String> {
    let mut out = Vec::new();
    if c.useful_share.iter().any(|&s| s < 1.0) {
        let pct = c.useful_share.map(|s| format!("{:.2}%", s * 100.0));
        out.push(format!("errors leave {} / {} of its rate (each direction)", pct[0], pct[1]));
    }
    if !c.cut_off.is_empty() {
        out.push(format!("disabling cuts off {}", c.cut_off.join(", ")));
    }
    out
}

pub fn table(diagnosis: &Report, cost: &CostReport) -> String {
    let mut out = String::new();
    let o = &cost.options;
    let _ = writeln!(out, "{}", diagnosis.heading());
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
    if cost.suspects.is_empty() {
        return out;
    }
    let width = cost.suspects.iter().map(|s| s.label.len()).max().unwrap_or(0).max(4);
    let _ = writeln!(out, "{:>4}  {:<8}  {:<width$}  {:>9}  {:>13}  {:>8}  evidence", "rank", "severity", "link", "kept Gb/s", "disabled Gb/s", "gain");
    for (i, c) in cost.suspects.iter().enumerate() {
        let severity = format!("{:?}", c.severity).to_lowercase();
        let evidence = diagnosis.suspects.iter().find(|s| s.label == c.label).map(|s| s.evidence.iter().map(|e| e.summary()).collect()).unwrap_or_else(Vec::new);
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
        let _ = writeln!(out, "slowest-pair bandwidth {:.2} -> {:.2} Gb/s with the plan's links disabled", cost.kept_gbps, cost.after_plan_gbps);
    }
    out
}
