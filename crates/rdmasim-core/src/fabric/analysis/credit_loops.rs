//! Credit loops: a cycle in the channel dependency graph of one virtual lane. A channel is one
//! direction of a switch-to-switch cable (named by its sending port); a path between two
//! endpoints that enters a switch by channel a and leaves it by channel b makes a depend on b
//! (a packet holding a's buffer waits for b's credits). Credits are kept per VL, so each VL has
//! its own graph: a path is on the VL its SL maps to (fabric/sl2vl.rs; SL 0 without SLs). A
//! cycle can deadlock the fabric under load, and dfsssp's layers exist to remove every cycle.
//!
//! Endpoints are HCA ports (analysis/components.rs); paths to and from a switch's own LID are
//! management traffic on VL 15, which the data VLs' credits do not hold.
//!
//! Cost: for a fixed destination and VL, the tables give each switch one way out, so the rest
//! of a path from a switch already walked is known: each walk stops at the first switch seen
//! for that destination on that VL, after adding the dependency that enters it. That is
//! O(destinations × (sources + switches)) steps, not pairs × hops. Dependencies are bits
//! indexed by (incoming channel, outgoing port number); the cycle search is an iterative
//! depth-first search. Only when a cycle is found are the pairs walked in full, to count those
//! whose path makes one of its dependencies.
use super::components::{Components, Endpoint};
use crate::fabric::channel::NUM_VL;
use crate::fabric::graph::{FabricGraph, RoutedFabric};
use crate::fabric::routing::dfsssp::channels::{Channels, NO_CHANNEL};
use crate::fabric::sl2vl::vl_of;
use crate::ids::{NodeId, PortId, TiVec};

/// A cycle of channel dependencies on one VL.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CreditLoop {
    pub vl: u8,
    /// The cycle's channels in order, each `"switch"[port] -> "switch"[port]`; the last
    /// depends on the first.
    pub hops: Vec<String>,
    /// The sending port of each channel.
    #[serde(skip)]
    pub channels: Vec<PortId>,
    /// Endpoint pairs on this VL whose path makes at least one of the cycle's dependencies.
    pub paths: usize,
}

/// What the check found: dependencies per VL, and the first credit loop, if any.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CreditLoopCheck {
    pub dependencies: [usize; NUM_VL],
    pub credit_loop: Option<CreditLoop>,
}

/// Builds the channel dependency graph of every VL and looks for a cycle, VL by VL.
pub fn check_credit_loops(rf: &RoutedFabric) -> CreditLoopCheck {
    let g = &rf.graph;
    let ch = Channels::new(g);
    let walk = Walker { rf, ch: &ch, far: ch.port.iter().map(|&p| g.ports[g.peer_up(p).unwrap_or(p)].node).collect() };
    let comps = Components::of(g);
    let deps = walk.dependencies(&comps.endpoints);
    let mut dependencies = [0; NUM_VL];
    for (n, bits) in dependencies.iter_mut().zip(&deps) {
        *n = bits.iter().map(|w| w.count_ones() as usize).sum();
    }
    for (vl, bits) in deps.iter().enumerate() {
        if let Some(cycle) = walk.find_cycle(bits) {
            let paths = walk.count_paths(&comps.endpoints, vl as u8, &cycle);
            let hops = cycle.iter().map(|&c| hop_name(g, ch.port[c as usize])).collect();
            let channels = cycle.iter().map(|&c| ch.port[c as usize]).collect();
            return CreditLoopCheck { dependencies, credit_loop: Some(CreditLoop { vl: vl as u8, hops, channels, paths }) };
        }
    }
    CreditLoopCheck { dependencies, credit_loop: None }
}

fn hop_name(g: &FabricGraph, p: PortId) -> String {
    let to = g.peer_up(p).unwrap_or(p);
    format!("{} -> {}", g.port_name(p), g.port_name(to))
}

struct Walker<'a> {
    rf: &'a RoutedFabric,
    ch: &'a Channels,
    /// The switch each channel leads to.
    far: Vec<NodeId>,
}

impl Walker<'_> {
    fn vl(&self, src: u16, dst: u16) -> usize {
        self.rf.sls.as_ref().map_or(0, |s| usize::from(vl_of(s.get(src, dst))))
    }

    /// The channel switch `s` sends `dlid` on, if its route leads to another switch.
    fn out(&self, s: NodeId, dlid: u16) -> u32 {
        let Some(port) = self.rf.lfts.route(s, dlid).filter(|&p| p != 0) else { return NO_CHANNEL };
        self.rf.graph.nodes[s].port(port.into()).map_or(NO_CHANNEL, |p| self.ch.of_port[p])
    }

    /// The first switch a source port sends to.
    fn first_switch(&self, src: &Endpoint) -> Option<NodeId> {
        let g = &self.rf.graph;
        let s = g.ports[g.peer_up(src.port)?].node;
        g.nodes[s].is_switch().then_some(s)
    }

    fn bit(&self, from: u32, to: u32) -> usize {
        from as usize * self.ch.port_stride + usize::from(self.ch.port_num[to as usize])
    }

    /// Dependency bits per VL, `[from * port_stride + port number of to]`.
    fn dependencies(&self, components: &[Vec<Endpoint>]) -> Vec<Vec<u64>> {
        let g = &self.rf.graph;
        let words = (self.ch.len() * self.ch.port_stride).div_ceil(64);
        let mut bits = vec![vec![0u64; words]; NUM_VL];
        let mut seen: Vec<TiVec<NodeId, u32>> = (0..NUM_VL).map(|_| g.nodes.keys().map(|_| 0).collect()).collect();
        let mut stamp = 0u32;
        for endpoints in components {
            for dst in endpoints {
                stamp += 1;
                for src in endpoints.iter().filter(|s| s.port != dst.port) {
                    let vl = self.vl(src.lid, dst.lid);
                    let Some(mut s) = self.first_switch(src) else { continue };
                    let mut prev = NO_CHANNEL;
                    loop {
                        let first_visit = seen[vl][s] != stamp;
                        seen[vl][s] = stamp;
                        let c = self.out(s, dst.lid);
                        if c == NO_CHANNEL {
                            break;
                        }
                        if prev != NO_CHANNEL {
                            let b = self.bit(prev, c);
                            bits[vl][b / 64] |= 1 << (b % 64);
                        }
                        if !first_visit {
                            break;
                        }
                        prev = c;
                        s = self.far[c as usize];
                    }
                }
            }
        }
        bits
    }

    /// The channels channel `c` depends on.
    fn successors<'b>(&'b self, bits: &'b [u64], c: u32) -> impl Iterator<Item = u32> + 'b {
        let g = &self.rf.graph;
        let s = self.far[c as usize];
        let base = c as usize * self.ch.port_stride;
        (1..self.ch.port_stride).filter(move |&num| bits[(base + num) / 64] >> ((base + num) % 64) & 1 == 1).filter_map(move |num| g.nodes[s].port(num as u16).map(|p| self.ch.of_port[p]))
    }

    /// A cycle of the graph, as channels in dependency order, by an iterative depth-first
    /// search (white, on the stack, done).
    fn find_cycle(&self, bits: &[u64]) -> Option<Vec<u32>> {
        if bits.iter().all(|&w| w == 0) {
            return None;
        }
        let n = self.ch.len();
        let succ: Vec<Vec<u32>> = (0..n as u32).map(|c| self.successors(bits, c).collect()).collect();
        const WHITE: u8 = 0;
        const ON_STACK: u8 = 1;
        const DONE: u8 = 2;
        let mut color = vec![WHITE; n];
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for root in 0..n as u32 {
            if color[root as usize] != WHITE {
                continue;
            }
            color[root as usize] = ON_STACK;
            stack.push((root, 0));
            while let Some(top) = stack.last_mut() {
                let (c, i) = *top;
                if let Some(&next) = succ[c as usize].get(i) {
                    top.1 += 1;
                    match color[next as usize] {
                        WHITE => {
                            color[next as usize] = ON_STACK;
                            stack.push((next, 0));
                        }
                        ON_STACK => {
                            let from = stack.iter().position(|&(x, _)| x == next).unwrap_or(0);
                            return Some(stack[from..].iter().map(|&(x, _)| x).collect());
                        }
                        _ => {}
                    }
                } else {
                    color[c as usize] = DONE;
                    stack.pop();
                }
            }
        }
        None
    }

    /// Pairs on `vl` whose path makes one of the cycle's dependencies, each path walked in full.
    fn count_paths(&self, components: &[Vec<Endpoint>], vl: u8, cycle: &[u32]) -> usize {
        let mut next_in_cycle = vec![NO_CHANNEL; self.ch.len()];
        for (i, &c) in cycle.iter().enumerate() {
            next_in_cycle[c as usize] = cycle[(i + 1) % cycle.len()];
        }
        let max_hops = self.rf.graph.num_switches() + 1;
        let mut count = 0;
        for endpoints in components {
            for dst in endpoints {
                for src in endpoints.iter().filter(|s| s.port != dst.port && self.vl(s.lid, dst.lid) == usize::from(vl)) {
                    let Some(mut s) = self.first_switch(src) else { continue };
                    let mut prev = NO_CHANNEL;
                    for _ in 0..max_hops {
                        let c = self.out(s, dst.lid);
                        if c == NO_CHANNEL {
                            break;
                        }
                        if prev != NO_CHANNEL && next_in_cycle[prev as usize] == c {
                            count += 1;
                            break;
                        }
                        prev = c;
                        s = self.far[c as usize];
                    }
                }
            }
        }
        count
    }
}

impl std::fmt::Display for CreditLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "credit loop on VL {}: {} channels, made by {} paths: {}", self.vl, self.hops.len(), self.paths, self.hops.join(" => "))
    }
}
