//! The doctor's findings: every suspect link, worst first, as JSON (`Serialize`) or a table.
use super::suspect::Suspect;
use super::thresholds::Thresholds;
use serde::Serialize;
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Links of the topology that are cabled.
    pub links_checked: usize,
    /// Seconds between the two counter snapshots; None with one or none.
    pub interval_s: Option<f64>,
    pub thresholds: Thresholds,
    /// Worst first: by severity, then data rate lost, then bit error rate, then name.
    pub suspects: Vec<Suspect>,
}

impl Report {
    /// Orders the suspects worst first.
    pub fn rank(&mut self) {
        self.suspects.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then(b.lost_gbps().total_cmp(&a.lost_gbps()))
                .then(b.worst_ber().total_cmp(&a.worst_ber()))
                .then(a.label.cmp(&b.label))
        });
    }

    /// The table's first line: how many suspects, of how many links, over what interval.
    pub fn heading(&self) -> String {
        let interval = self.interval_s.map_or("no counter rates: one snapshot or none".to_string(), |dt| format!("counters over {dt} s"));
        format!("{} suspect link(s) of {} ({interval})", self.suspects.len(), self.links_checked)
    }

    /// A plain-text table: rank, severity, link, then each piece of evidence on its own line.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.heading());
        if self.suspects.is_empty() {
            return out;
        }
        let width = self.suspects.iter().map(|s| s.label.len()).max().unwrap_or(0).max(4);
        let _ = writeln!(out, "{:>4}  {:<8}  {:<width$}  evidence", "rank", "severity", "link");
        for (i, s) in self.suspects.iter().enumerate() {
            let severity = format!("{:?}", s.severity).to_lowercase();
            for (j, e) in s.evidence.iter().enumerate() {
                if j == 0 {
                    let _ = writeln!(out, "{:>4}  {:<8}  {:<width$}  {}", i + 1, severity, s.label, e.summary());
                } else {
                    let _ = writeln!(out, "{:>4}  {:<8}  {:<width$}  {}", "", "", "", e.summary());
                }
            }
        }
        out
    }
}
