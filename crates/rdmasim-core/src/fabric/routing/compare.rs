//! Two sets of tables for one fabric, compared: entry by entry, and where entries differ, by
//! how many LIDs each switch port carries (two engines that break a tie on something the
//! other cannot see, such as the order a subnet manager discovered the switches in, still
//! agree on how many routes each port takes). How our engines are checked against the real
//! OpenSM, and how an operator checks a dump against an engine.
use crate::fabric::graph::{FabricGraph, Lfts, NO_ROUTE};
use crate::ids::NodeId;
use serde::Serialize;

/// One entry that differs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EntryDiff {
    pub switch: String,
    pub lid: u16,
    /// Port numbers, None for no route.
    pub ours: Option<u8>,
    pub theirs: Option<u8>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LftComparison {
    /// Entries compared (every LID of the fabric at every switch).
    pub entries: usize,
    pub differing: usize,
    /// Switches with a differing entry, and of those, the ones whose per-port route counts
    /// differ too.
    pub switches_differing: usize,
    pub switches_counts_differing: usize,
    /// The first differing entries, in switch then LID order.
    pub first: Vec<EntryDiff>,
}

impl LftComparison {
    pub fn identical(&self) -> bool {
        self.differing == 0
    }
    /// Identical, or every differing switch spreads its LIDs over its ports in equal numbers.
    pub fn same_port_counts(&self) -> bool {
        self.switches_counts_differing == 0
    }
}

/// Compares `ours` with `theirs` over every LID of `g` at every switch, naming at most `keep`
/// differing entries.
pub fn compare(g: &FabricGraph, ours: &Lfts, theirs: &Lfts, keep: usize) -> LftComparison {
    let lids: Vec<u16> = {
        let mut v: Vec<u16> = g.lids().into_iter().map(|l| l.0).collect();
        v.sort_unstable();
        v
    };
    let mut c = LftComparison::default();
    for sw in g.switches() {
        let mut differs = false;
        for &lid in &lids {
            let (a, b) = (entry(ours, sw, lid), entry(theirs, sw, lid));
            c.entries += 1;
            if a != b {
                c.differing += 1;
                differs = true;
                if c.first.len() < keep {
                    c.first.push(EntryDiff { switch: g.nodes[sw].name.clone(), lid, ours: a, theirs: b });
                }
            }
        }
        if differs {
            c.switches_differing += 1;
            if port_counts(ours, sw, &lids) != port_counts(theirs, sw, &lids) {
                c.switches_counts_differing += 1;
            }
        }
    }
    c
}

fn entry(l: &Lfts, sw: NodeId, lid: u16) -> Option<u8> {
    l.tables.get(sw).and_then(|t| t.get(usize::from(lid))).copied().filter(|&p| p != NO_ROUTE)
}

/// LIDs per port number (index 255: no route).
fn port_counts(l: &Lfts, sw: NodeId, lids: &[u16]) -> Vec<u32> {
    let mut counts = vec![0u32; 256];
    for &lid in lids {
        counts[usize::from(entry(l, sw, lid).unwrap_or(NO_ROUTE))] += 1;
    }
    counts
}

impl std::fmt::Display for LftComparison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} of {} entries differ, at {} switches ({} with other per-port route counts)", self.differing, self.entries, self.switches_differing, self.switches_counts_differing)?;
        for d in &self.first {
            let p = |x: Option<u8>| x.map_or("none".to_string(), |p| p.to_string());
            write!(f, "\n  {:?} LID {}: ours port {}, theirs port {}", d.switch, d.lid, p(d.ours), p(d.theirs))?;
        }
        Ok(())
    }
}
