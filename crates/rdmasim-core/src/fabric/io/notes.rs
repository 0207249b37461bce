//! What a reader set aside or assumed while reading a real tool's output: diagnostic lines,
//! shell prompts, section headers, links to nodes the file does not list, a default speed.
//! Real output is not bad input, so none of these refuse the file; each is counted here and
//! reported as a warning with the first line numbers, so nothing is dropped without a word.
use serde::Serialize;
use std::fmt;

/// How many line numbers a note keeps (the count is always whole).
pub const FIRST_LINES: usize = 5;

/// One kind of thing set aside in one file: how often, and where first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    pub source: String,
    /// What was set aside or assumed, e.g. "diagnostic lines (ibwarn:, iberror:, src/…: umad)".
    pub what: String,
    pub count: usize,
    /// The first [`FIRST_LINES`] lines it happened on (1-based; empty for a whole-file note).
    pub lines: Vec<usize>,
}

/// Every note of one import, in the order each kind first appeared.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Notes {
    pub items: Vec<Note>,
}

impl Notes {
    /// Counts one more `what` in `source`, at `line` when it is on one.
    pub fn add(&mut self, source: &str, what: &str, line: Option<usize>) {
        let found = self.items.iter_mut().find(|n| n.source == source && n.what == what);
        let note = match found {
            Some(n) => n,
            None => {
                self.items.push(Note { source: source.to_string(), what: what.to_string(), count: 0, lines: Vec::new() });
                self.items.last_mut().expect("pushed above")
            }
        };
        note.count += 1;
        if let Some(l) = line {
            if note.lines.len() < FIRST_LINES {
                note.lines.push(l);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The count of `what` over every file (0 when never noted).
    pub fn count(&self, what: &str) -> usize {
        self.items.iter().filter(|n| n.what == what).map(|n| n.count).sum()
    }

    /// The notes as rows of a result table (`import_warnings`): source, what, count, lines.
    pub fn push_table(&self, t: &mut crate::report::tables::Tables) {
        for n in &self.items {
            let lines: Vec<String> = n.lines.iter().map(usize::to_string).collect();
            t.push("import_warnings", crate::report::tables::row(serde_json::json!({"source": n.source, "what": n.what, "count": n.count, "first_lines": lines.join(" ")})));
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} × {}", self.source, self.count, self.what)?;
        if !self.lines.is_empty() {
            let first: Vec<String> = self.lines.iter().map(usize::to_string).collect();
            let more = if self.count > self.lines.len() { ", …" } else { "" };
            write!(f, " (line {}{more})", first.join(", "))?;
        }
        Ok(())
    }
}

impl fmt::Display for Notes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for n in &self.items {
            writeln!(f, "warning: {n}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_count_every_time_and_keep_the_first_lines() {
        let mut n = Notes::default();
        for l in 1..=7 {
            n.add("f", "shell prompt lines", Some(l * 10));
        }
        n.add("g", "shell prompt lines", None);
        assert_eq!(n.count("shell prompt lines"), 8);
        assert_eq!(n.items[0].lines, vec![10, 20, 30, 40, 50]);
        assert_eq!(n.items[0].to_string(), "f: 7 × shell prompt lines (line 10, 20, 30, 40, 50, …)");
        assert_eq!(n.items[1].to_string(), "g: 1 × shell prompt lines");
    }
}
