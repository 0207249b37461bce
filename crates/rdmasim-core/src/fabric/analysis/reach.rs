//! Every switch's outcome for one destination LID, each switch walked once.
//!
//! Following the LFTs separately for every (source, destination) pair costs pairs × hops: 1408²
//! pairs × ~4 hops per rail of a TSUBAME-like fat tree. But for a fixed destination the LFTs
//! give each switch exactly one next hop, so a switch's outcome ("reaches the destination in k
//! switches", "no route at X", "loops", ...) does not depend on where the packet came from.
//! [`DestinationWalk`] computes it once per switch: it follows the LFT from a switch, marking
//! each switch it passes as on the walk, until it meets a switch already resolved, the
//! destination, or a failure, then gives every switch of the walk that outcome. Meeting a switch
//! that is still on the walk is a loop. A whole destination costs O(switches), and each source
//! then only asks its first switch.
//!
//! The state is flat vectors indexed by `NodeId`, stamped with the destination's epoch so that
//! moving to the next destination clears nothing; no allocation once the buffers are grown.
use crate::fabric::graph::{FabricGraph, LinkState, RoutedFabric, NO_ROUTE};
use crate::ids::{NodeId, PortId, TiVec};
use serde::Serialize;

/// The outcome of following the LFTs from a switch (or a source port) to one destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Reaches the destination after passing `switches` switches (this one included; 0 from a
    /// source port cabled straight to the destination).
    Arrives { switches: u16 },
    NoRoute { at: NodeId },
    LinkDown { port: PortId },
    DeadEnd { at: NodeId, port: u8 },
    /// Enters a loop; `entry` is the first switch of the cycle this destination's walk met.
    Loop { entry: NodeId },
}

impl Reach {
    pub fn failure(self) -> Option<FailureKind> {
        match self {
            Reach::Arrives { .. } => None,
            Reach::NoRoute { .. } => Some(FailureKind::NoRoute),
            Reach::LinkDown { .. } => Some(FailureKind::LinkDown),
            Reach::DeadEnd { .. } => Some(FailureKind::DeadEnd),
            Reach::Loop { .. } => Some(FailureKind::Loop),
        }
    }
}

/// The reason a pair is unroutable, without its details.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    NoRoute,
    Loop,
    LinkDown,
    DeadEnd,
}

#[derive(Clone, Copy, Debug)]
enum Slot {
    OnWalk,
    Done(Reach),
}

/// Per-switch outcomes for one destination LID at a time; see the module comment.
pub struct DestinationWalk<'a> {
    rf: &'a RoutedFabric,
    dlid: u16,
    /// A slot is this destination's only when its stamp is `epoch`.
    epoch: u32,
    stamp: TiVec<NodeId, u32>,
    slot: TiVec<NodeId, Slot>,
    /// The port a switch that arrives sends the destination's packets out of.
    out_port: TiVec<NodeId, Option<PortId>>,
    walk: Vec<NodeId>,
    /// Switches that arrive, in the order they were resolved: each after the switch it forwards
    /// to, so the reverse order visits every switch before its next hop (what loads needs).
    arriving: Vec<NodeId>,
    /// The first switch of each cycle met for this destination, once per cycle.
    loops: Vec<NodeId>,
}

impl<'a> DestinationWalk<'a> {
    pub fn new(rf: &'a RoutedFabric) -> DestinationWalk<'a> {
        let n = rf.graph.nodes.len();
        DestinationWalk {
            rf,
            dlid: 0,
            epoch: 0,
            stamp: vec![0; n].into(),
            slot: vec![Slot::OnWalk; n].into(),
            out_port: vec![None; n].into(),
            walk: Vec::new(),
            arriving: Vec::new(),
            loops: Vec::new(),
        }
    }

    /// Forgets the previous destination and starts on `dlid`.
    pub fn start(&mut self, dlid: u16) {
        self.dlid = dlid;
        if self.epoch == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 0;
        }
        self.epoch += 1;
        self.arriving.clear();
        self.loops.clear();
    }

    /// The outcome from HCA port `src`: its own link, then its first switch.
    pub fn from_port(&mut self, src: PortId) -> Reach {
        let g = &self.rf.graph;
        let port = &g.ports[src];
        let at = port.node;
        let num = port.num as u8;
        let Some(link) = port.link else {
            return Reach::DeadEnd { at, port: num };
        };
        if g.links[link].state == LinkState::Down {
            return Reach::LinkDown { port: src };
        }
        let to = g.links[link].other(src);
        let next = g.ports[to].node;
        if g.nodes[next].is_switch() {
            self.from_switch(next)
        } else if g.ports[to].lid == self.dlid {
            Reach::Arrives { switches: 0 }
        } else {
            Reach::DeadEnd { at, port: num }
        }
    }

    /// The outcome from switch `sw`, resolving it (and every switch on its way) if needed.
    pub fn from_switch(&mut self, sw: NodeId) -> Reach {
        self.walk.clear();
        let mut cur = sw;
        // `end` is the outcome of the switch after the last one on the walk (for `Arrives`,
        // the switches from there on: 0 when the last one delivers to the destination).
        let end = loop {
            if self.stamp[cur] == self.epoch {
                match self.slot[cur] {
                    Slot::Done(r) => break r,
                    Slot::OnWalk => {
                        self.loops.push(cur);
                        break Reach::Loop { entry: cur };
                    }
                }
            }
            self.stamp[cur] = self.epoch;
            self.slot[cur] = Slot::OnWalk;
            self.walk.push(cur);
            let lft = self.rf.lfts.tables.get(cur).map_or(&[][..], Vec::as_slice);
            match step(&self.rf.graph, lft, cur, self.dlid) {
                Step::Next(out, next) => {
                    self.out_port[cur] = Some(out);
                    cur = next;
                }
                Step::Delivered(out) => {
                    self.out_port[cur] = out;
                    break Reach::Arrives { switches: 0 };
                }
                Step::Fails(r) => break r,
            }
        };
        let mut r = end;
        while let Some(s) = self.walk.pop() {
            if let Reach::Arrives { switches } = r {
                r = Reach::Arrives { switches: switches.saturating_add(1) };
                self.arriving.push(s);
            }
            self.slot[s] = Slot::Done(r);
        }
        r
    }

    /// The port switch `sw` sends the destination's packets out of, when it arrives (`None`
    /// when the destination is the switch itself).
    pub fn out_port(&self, sw: NodeId) -> Option<PortId> {
        self.out_port[sw]
    }

    /// Switches resolved as arriving so far for this destination, each after its next hop.
    pub fn arriving(&self) -> &[NodeId] {
        &self.arriving
    }

    /// The entry switch of each distinct cycle met for this destination.
    pub fn loops(&self) -> &[NodeId] {
        &self.loops
    }
}

enum Step {
    /// Leaves by the port to the next switch.
    Next(PortId, NodeId),
    /// Leaves by the port to the destination HCA, or (`None`) is the destination switch.
    Delivered(Option<PortId>),
    Fails(Reach),
}

/// One switch's LFT entry for `dlid`, checked against the graph. Mirrors `paths::follow_switches`.
fn step(g: &FabricGraph, lft: &[u8], sw: NodeId, dlid: u16) -> Step {
    let entry = lft.get(usize::from(dlid)).copied().unwrap_or(NO_ROUTE);
    if entry == NO_ROUTE {
        return Step::Fails(Reach::NoRoute { at: sw });
    }
    let node = &g.nodes[sw];
    if entry == 0 {
        return if node.lid == dlid { Step::Delivered(None) } else { Step::Fails(Reach::DeadEnd { at: sw, port: 0 }) };
    }
    let dead_end = Step::Fails(Reach::DeadEnd { at: sw, port: entry });
    let Some(out) = node.port(u16::from(entry)) else { return dead_end };
    let Some(link) = g.ports[out].link else { return dead_end };
    if g.links[link].state == LinkState::Down {
        return Step::Fails(Reach::LinkDown { port: out });
    }
    let to = g.links[link].other(out);
    let next = g.ports[to].node;
    if g.nodes[next].is_switch() {
        Step::Next(out, next)
    } else if g.ports[to].lid == dlid {
        Step::Delivered(Some(out))
    } else {
        dead_end
    }
}

#[cfg(test)]
mod tests {
    use super::super::paths::trace_route;
    use super::super::test_fabrics::line;
    use super::*;

    #[test]
    fn each_switch_is_resolved_once_and_after_its_next_hop() {
        let (rf, s, h) = line();
        let lid1 = rf.graph.ports[h[1]].lid;
        let mut walk = DestinationWalk::new(&rf);
        walk.start(lid1);
        assert_eq!(walk.from_port(h[0]), Reach::Arrives { switches: 3 });
        assert_eq!(walk.arriving(), [s[2], s[1], s[0]]);
        assert_eq!(walk.from_switch(s[1]), Reach::Arrives { switches: 2 });
        assert_eq!(walk.arriving().len(), 3, "s1 was resolved already");
        assert_eq!(walk.out_port(s[2]), rf.graph.peer(h[1]));
    }

    #[test]
    fn a_loop_is_found_once_and_agrees_with_tracing() {
        let (mut rf, s, h) = line();
        let lid1 = rf.graph.ports[h[1]].lid;
        rf.lfts.set(s[2], lid1, 1);
        let mut walk = DestinationWalk::new(&rf);
        walk.start(lid1);
        assert_eq!(walk.from_port(h[0]), Reach::Loop { entry: s[1] });
        assert_eq!(walk.from_switch(s[2]), Reach::Loop { entry: s[1] });
        assert_eq!(walk.loops(), [s[1]]);
        assert_eq!(trace_route(&rf, h[0], lid1).unwrap_err().kind(), FailureKind::Loop);
        // The next destination starts afresh.
        walk.start(rf.graph.ports[h[0]].lid);
        assert_eq!(walk.from_port(h[1]), Reach::Arrives { switches: 3 });
        assert!(walk.loops().is_empty());
    }
}
