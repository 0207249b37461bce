//! The routes: for each destination, from its leaf switch up the tree ("down-going" entries:
//! each switch above learns the port down toward the destination) and, from every switch on
//! the way, down the other branches ("up-going" entries: switches below learn the port up).
//! The counters of routes per port and per group balance the choices:
//!
//! - Going up, a switch takes its up group with the fewest downward routes (ties: lowest
//!   neighbour index) and in it the first port with the fewest; that is the main path, and
//!   only it is counted. Every other up group then gets the route too, unless its neighbour
//!   has it already as short, and climbs on uncounted.
//! - Going down, a switch visits its down groups by fewest upward routes (ties: index),
//!   skipping the one it came up from, and gives each neighbour the port of the group with
//!   the fewest upward routes, unless the neighbour already has a route as short; those
//!   counters move whenever the branch below reaches a CA.
//!
//! Destinations in OpenSM's order: leaf switches by index, each leaf's compute nodes by port,
//! then on a leaf with fewer compute nodes than the fullest leaf, as many "dummy" routes as
//! are missing (they only move counters, so the next leaves balance as on a full tree); then
//! the switches' own LIDs, in OpenSM's switch order, uncounted on the main path but moving
//! the going-down counters. The hop counts per switch only decide whether a route found later
//! is shorter; each destination starts with none.
//!
//! Not modelled, as we give OpenSM no files for them: compute-node and I/O GUID files (every
//! CA port is a compute node), hence no reverse hops; connect_roots (off by default).
use super::model::{Fabric, GroupId, Remote};
use crate::fabric::graph::{Lfts, NO_ROUTE};
use crate::fabric::routing::port_hops::NO_HOPS;
use crate::ids::{NodeId, TiVec};

/// One destination's routes while they are made: port and hop count per switch.
struct Target {
    lid: u16,
    port: TiVec<NodeId, u8>,
    hops: TiVec<NodeId, u8>,
    touched: Vec<NodeId>,
}

impl Target {
    fn set(&mut self, sw: NodeId, port: u8, hops: u8) {
        if self.port[sw] == NO_ROUTE && self.hops[sw] == NO_HOPS {
            self.touched.push(sw);
        }
        self.port[sw] = port;
        self.hops[sw] = hops;
    }
    /// Writes the routes into `lfts` (unless the destination is a dummy) and clears them.
    fn finish(&mut self, lfts: &mut Lfts) {
        for &s in &self.touched {
            if self.lid != 0 && self.port[s] != NO_ROUTE {
                lfts.set(s, self.lid, self.port[s]);
            }
            self.port[s] = NO_ROUTE;
            self.hops[s] = NO_HOPS;
        }
        self.touched.clear();
    }
}

struct Router<'a> {
    f: &'a mut Fabric,
    t: Target,
}

/// Routes every destination; returns the tables.
pub fn route(f: &mut Fabric, mut lfts: Lfts) -> Lfts {
    let n = f.sw.len();
    let t = Target { lid: 0, port: TiVec::from(vec![NO_ROUTE; n]), hops: TiVec::from(vec![NO_HOPS; n]), touched: Vec::new() };
    let mut r = Router { f, t };
    for leaf in r.f.leaves.clone() {
        let mut routed = 0;
        let mut i = 0;
        while i < r.f.sw[leaf].down.len() {
            let g = r.f.sw[leaf].down[i];
            i += 1;
            if !matches!(r.f.groups[g].remote, Remote::Ca(_)) {
                continue;
            }
            r.t.lid = r.f.groups[g].remote_lid;
            let port = r.f.groups[g].ports[0].num;
            r.t.set(leaf, port, 1);
            r.climb(leaf, None, true, 1);
            r.t.finish(&mut lfts);
            routed += 1;
        }
        for _ in routed..r.f.max_cn_per_leaf {
            r.t.lid = 0;
            r.t.hops[leaf] = 1;
            r.t.touched.push(leaf);
            r.climb(leaf, None, true, 1);
            r.t.finish(&mut lfts);
        }
    }
    for s in r.f.switches.clone() {
        r.t.lid = r.f.sw[s].lid;
        r.t.set(s, 0, 0);
        r.climb(s, None, false, 0);
        r.t.finish(&mut lfts);
    }
    lfts
}

impl Router<'_> {
    /// Sorts one of `sw`'s group lists by `counter` then neighbour index. OpenSM bubble-sorts
    /// the list it keeps, skipping the sort while no counter of the list moved; by these keys,
    /// distinct for switch neighbours, the result is the same. Its up-group comparison has a
    /// middle key, the least downward count among the neighbour's down groups, which never
    /// moves from 0 (only up groups are counted down), so it is left out. CAs' groups (only
    /// on leaves, whose lists OpenSM never re-sorts) keep their port order.
    fn sort(&mut self, list: fn(&mut super::model::FtSwitch) -> &mut Vec<GroupId>, sw: NodeId, counter: fn(&super::model::PortGroup) -> u32) {
        let mut groups = std::mem::take(list(&mut self.f.sw[sw]));
        groups.sort_by_key(|&g| (counter(&self.f.groups[g]), self.f.groups[g].remote_tuple));
        *list(&mut self.f.sw[sw]) = groups;
    }

    /// Routes the destination up from `sw` (reached at `hops`), coming from `prev`.
    fn climb(&mut self, sw: NodeId, prev: Option<NodeId>, main: bool, hops: u8) -> bool {
        let mut created = self.descend(sw, prev, hops);
        if self.f.sw[sw].rank == 0 {
            return created;
        }
        self.sort(|s| &mut s.up, sw, |g| g.counter_down);
        let Some(&main_group) = self.f.sw[sw].up.first() else { return created };
        if main {
            let gr = &mut self.f.groups[main_group];
            let p = gr.least_loaded(|p| p.counter_down);
            gr.counter_down += 1;
            gr.ports[p].counter_down += 1;
            let remote_port = gr.ports[p].remote_num;
            let Remote::Switch(remote) = gr.remote else { return created };
            if self.t.port[remote] == NO_ROUTE || hops + 1 < self.t.hops[remote] {
                self.t.set(remote, remote_port, hops + 1);
            }
            created |= self.climb(remote, Some(sw), true, hops + 1);
        }
        let mut i = usize::from(main);
        while i < self.f.sw[sw].up.len() {
            let g = self.f.sw[sw].up[i];
            i += 1;
            created |= self.climb_secondary(sw, g, hops).is_some_and(|(routed, _)| routed);
        }
        if self.f.sw[sw].siblings.is_empty() {
            return created;
        }
        self.sort(|s| &mut s.siblings, sw, |g| g.counter_down);
        let mut i = 0;
        while i < self.f.sw[sw].siblings.len() {
            let g = self.f.sw[sw].siblings[i];
            i += 1;
            if let Some((routed, p)) = self.climb_secondary(sw, g, hops) {
                created |= routed;
                // OpenSM counts these on the main up group and on the sibling's port.
                if routed {
                    self.f.groups[main_group].counter_down += 1;
                    self.f.groups[g].ports[p].counter_down += 1;
                }
            }
        }
        created
    }

    /// Gives `g`'s neighbour the route through `g`'s least loaded port unless it has one as
    /// short, and climbs on from it uncounted. None: skipped; else whether a route reached a
    /// CA, and the port taken.
    fn climb_secondary(&mut self, sw: NodeId, g: GroupId, hops: u8) -> Option<(bool, usize)> {
        let gr = &self.f.groups[g];
        let Remote::Switch(remote) = gr.remote else { return None };
        if self.t.port[remote] != NO_ROUTE && hops + 1 >= self.t.hops[remote] {
            return None;
        }
        let p = gr.least_loaded(|p| p.counter_down);
        self.t.set(remote, gr.ports[p].remote_num, hops + 1);
        Some((self.climb(remote, Some(sw), false, hops + 1), p))
    }

    /// Routes the destination down from `sw` (reached at `hops`) into every branch but the
    /// one toward `prev`; true when some branch reaches a CA.
    fn descend(&mut self, sw: NodeId, prev: Option<NodeId>, hops: u8) -> bool {
        if self.f.sw[sw].down.is_empty() {
            return false;
        }
        self.sort(|s| &mut s.down, sw, |g| g.counter_up);
        if !self.f.sw[sw].siblings.is_empty() {
            self.sort(|s| &mut s.siblings, sw, |g| g.counter_up);
        }
        let downs = self.f.sw[sw].down.len();
        let n = downs + if self.t.lid != 0 { self.f.sw[sw].siblings.len() } else { 0 };
        let mut created = false;
        for k in 0..n {
            let s = &self.f.sw[sw];
            let g = if k < downs { s.down[k] } else { s.siblings[k - downs] };
            let gr = &self.f.groups[g];
            let remote = match gr.remote {
                Remote::Ca(_) => {
                    created = true;
                    continue;
                }
                Remote::Switch(r) => r,
            };
            if prev == Some(remote) {
                continue;
            }
            let p = gr.least_loaded(|p| p.counter_up);
            let least = self.t.hops[remote];
            if least != NO_HOPS && hops + 1 >= least {
                continue;
            }
            self.t.set(remote, gr.ports[p].remote_num, hops + 1);
            let routed = self.descend(remote, None, hops + 1);
            created |= routed;
            if routed {
                let gr = &mut self.f.groups[g];
                gr.ports[p].counter_up += 1;
                gr.counter_up += 1;
            }
        }
        created
    }
}
