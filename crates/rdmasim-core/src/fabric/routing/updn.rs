//! OpenSM's Up*/Down* engine (`-R updn`): switches are ranked by hops from the roots
//! (fabric/routing/updn_roots.rs), a link leads up toward the lower rank (between equal ranks,
//! toward the lower GUID; between two roots, both ways are up), and a path may go down after
//! up but never up after down, the rule that leaves no credit loop. The hop column of each
//! destination switch comes from OpenSM's BFS out of it, and the tables from the same
//! least-loaded choice as minhop (fabric/routing/least_loaded.rs). With no root, OpenSM falls
//! back to minhop, and so do we, saying so.
//!
//! The BFS is OpenSM's, quirks included, since its hop counts decide the tables: it walks
//! backward from the destination, carrying one direction per queued switch (the one it was
//! first queued with); a switch is queued again whenever one of its ports improves while it
//! is not in the queue, even if its fewest hops did not change, and then takes the new
//! direction. A BFS that queues a switch only when its fewest hops improve finds fewer
//! least-hop ports on some fabrics; and since a switch carries its fewest hops, not the hops
//! of the way it came in the direction it now has, OpenSM's tables may hold a path that
//! turns up after down (tests/data/routing/updn-requeue.net is such a fabric: one of its
//! 154 switch-to-LID paths turns). We keep both: our tables are OpenSM's.
use super::engine::EngineOutput;
use super::port_hops::PortHops;
use super::shortest::SwitchLinks;
use super::{least_loaded, updn_roots, RouteOptions};
use crate::fabric::graph::{FabricGraph, GraphError};
use crate::ids::{NodeId, TiVec};
use std::collections::VecDeque;

/// OpenSM's words when it finds no root and hands the fabric to minhop.
pub const NO_ROOTS: &str = "disabling UPDN algorithm, no root nodes were found";

pub fn route(g: &FabricGraph, opts: &RouteOptions) -> Result<EngineOutput, GraphError> {
    let links = SwitchLinks::new(g);
    let roots = if opts.roots.is_empty() { updn_roots::detect(g, &links) } else { updn_roots::given(g, &opts.roots)? };
    if roots.is_empty() {
        let reason = if opts.roots.is_empty() { NO_ROOTS.to_string() } else { format!("{NO_ROOTS} (none of {:?} is a switch of this subnet)", opts.roots) };
        return EngineOutput::minhop_instead(g, reason);
    }
    let mut walk = UpDownWalk::new(g, &links, &roots);
    let lfts = least_loaded::route(g, &links, |dest, hops| walk.fill(g, &links, dest, hops))?;
    Ok(EngineOutput::tables(lfts))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Up,
    Down,
}

/// The direction of the link from a switch of `rank` and `guid` to one of `rank_to`, `guid_to`.
fn direction(rank: u32, guid: u64, rank_to: u32, guid_to: u64) -> Dir {
    if rank == 0 && rank_to == 0 {
        return Dir::Up;
    }
    match rank.cmp(&rank_to) {
        std::cmp::Ordering::Less => Dir::Down,
        std::cmp::Ordering::Greater => Dir::Up,
        std::cmp::Ordering::Equal if guid > guid_to => Dir::Up,
        std::cmp::Ordering::Equal => Dir::Down,
    }
}

/// OpenSM's BFS state; `dir` and `queued` are per switch and reused across destinations.
struct UpDownWalk {
    /// Hops from the nearest root (u32::MAX: not reached from any).
    rank: TiVec<NodeId, u32>,
    dir: TiVec<NodeId, Dir>,
    queued: TiVec<NodeId, bool>,
    queue: VecDeque<NodeId>,
}

impl UpDownWalk {
    fn new(g: &FabricGraph, links: &SwitchLinks, roots: &[NodeId]) -> UpDownWalk {
        let rank = super::shortest::hops_from(links, roots.iter().copied());
        let queue = VecDeque::new();
        UpDownWalk { rank, dir: TiVec::from(vec![Dir::Up; g.nodes.len()]), queued: TiVec::from(vec![false; g.nodes.len()]), queue }
    }

    /// The hop column of `dest`: hops toward it over legal paths, as OpenSM's BFS finds them.
    fn fill(&mut self, g: &FabricGraph, links: &SwitchLinks, dest: NodeId, hops: &mut PortHops) {
        hops.clear();
        hops.least[dest] = 0;
        self.dir[dest] = Dir::Up;
        self.queue.push_back(dest);
        while let Some(u) = self.queue.pop_front() {
            self.queued[u] = false;
            let came = self.dir[u];
            let step = u16::from(hops.least[u]) + 1;
            for &(num, r) in &links.links[u] {
                let next = direction(self.rank[u], g.nodes[u].guid, self.rank[r], g.nodes[r].guid);
                if came == Dir::Down && next == Dir::Up {
                    continue;
                }
                // The port of r that leads back to u: where r's hops toward dest improve.
                let Some(back) = g.nodes[u].port(num.into()).and_then(|p| g.peer_up(p)) else { continue };
                if step < u16::from(hops.via[back]) {
                    hops.set(r, back, step as u8);
                    if !self.queued[r] {
                        self.dir[r] = next;
                        self.queued[r] = true;
                        self.queue.push_back(r);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::{minhop, Engine, Fallback};
    use crate::fabric::graph::{LinkProps, Lfts};
    use crate::fabric::io::ibsim_net;
    use crate::fabric::rate::{LinkGen, LinkSpeed};

    fn node(g: &FabricGraph, name: &str) -> NodeId {
        g.nodes.iter_enumerated().find(|(_, n)| n.name == name).map(|(id, _)| id).unwrap()
    }

    fn requeue_fabric() -> FabricGraph {
        ibsim_net::read(include_str!("../../../tests/data/routing/updn-requeue.net"), "updn-requeue.net", &mut crate::fabric::io::notes::Notes::default()).unwrap()
    }

    #[test]
    fn a_switch_left_down_is_queued_again_going_up_as_opensm_does() {
        let g = requeue_fabric();
        let links = SwitchLinks::new(&g);
        let mut walk = UpDownWalk::new(&g, &links, &[node(&g, "sw0")]);
        let mut hops = PortHops::new(&g);
        walk.fill(&g, &links, node(&g, "sw5"), &mut hops);
        let via = |name: &str, num: u16| hops.via[g.port_of(node(&g, name), num).unwrap()];
        // sw4: 2 hops up through sw1 (port 3); its ports 1 and 2 got 3 from sw3 going up.
        assert_eq!((hops.least[node(&g, "sw4")], via("sw4", 3), via("sw4", 1), via("sw4", 2)), (2, 2, 3, 3));
        // Queued again, sw4 stepped up to sw2, whose port 3 ties with its other three.
        assert_eq!((hops.least[node(&g, "sw2")], [1, 2, 3, 4].map(|p| via("sw2", p))), (3, [3, 3, 3, 3]));
        let out = route(&g, &RouteOptions { roots: vec!["sw0".into()], ..RouteOptions::default() }).unwrap();
        assert_eq!(out.lfts.route(node(&g, "sw2"), 6), Some(3));
    }

    #[test]
    fn links_go_up_to_the_lower_rank_then_to_the_lower_guid_and_both_ways_between_roots() {
        assert!(direction(2, 5, 1, 9) == Dir::Up && direction(1, 9, 2, 5) == Dir::Down);
        assert!(direction(1, 9, 1, 5) == Dir::Up && direction(1, 5, 1, 9) == Dir::Down);
        assert!(direction(0, 5, 0, 9) == Dir::Up && direction(0, 9, 0, 5) == Dir::Up);
    }

    /// Four 3-port switches in a ring (port 1 to the next, 2 to the previous), a host on
    /// each port 3.
    fn ring() -> FabricGraph {
        let speed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
        let mut g = FabricGraph::new();
        let s: Vec<NodeId> = (0..4).map(|i| g.add_switch(format!("s{i}"), 0x100 + i, 3, speed).unwrap()).collect();
        for i in 0..4 {
            let (a, b) = (g.port_of(s[i], 1).unwrap(), g.port_of(s[(i + 1) % 4], 2).unwrap());
            g.connect(a, b, LinkProps::new(speed, 1.0)).unwrap();
            let h = g.add_host(format!("h{i}"));
            let ca = g.add_hca(h, format!("h{i} mlx4_0"), 0x200 + 0x10 * i as u64, 1, speed).unwrap();
            g.connect(g.port_of(ca, 1).unwrap(), g.port_of(s[i], 3).unwrap(), LinkProps::new(speed, 1.0)).unwrap();
        }
        g.assign_lids().unwrap();
        g
    }

    #[test]
    fn across_the_ring_paths_turn_at_the_root_not_below_it() {
        let g = ring();
        let (s1, s3) = (node(&g, "s1"), node(&g, "s3"));
        let lid = |name: &str| g.lids().into_iter().find(|&(_, n, _)| g.nodes[n].name == name).unwrap().0;
        let ports = |lfts: &Lfts| [lfts.route(s1, lid("h3 mlx4_0")), lfts.route(s1, lid("s3")), lfts.route(s3, lid("h1 mlx4_0")), lfts.route(s3, lid("s1"))];
        // With s0 the root, s2 is below s1 and s3: s1 -> s2 -> s3 would turn up after down.
        let out = route(&g, &RouteOptions { roots: vec!["s0".into()], ..RouteOptions::default() }).unwrap();
        assert_eq!(out.fallback, None);
        assert_eq!(ports(&out.lfts), [Some(2), Some(2), Some(1), Some(1)]);
        // minhop balances the two 2-hop ways: at s1, h2 took port 1 and h0 port 2, so h3 (a
        // tie, the lower port) goes by s2, and s3's LID (not counted) by s0.
        assert_eq!(ports(&minhop::route(&g).unwrap()), [Some(1), Some(2), Some(2), Some(1)]);
    }

    #[test]
    fn without_a_root_it_falls_back_to_minhop_saying_so() {
        // Every switch of the ring has its host at 0 hops, two at 1, one at 2: no spine.
        let g = ring();
        let out = route(&g, &RouteOptions::default()).unwrap();
        assert_eq!(out.fallback, Some(Fallback { to: Engine::Minhop, reason: NO_ROOTS.into() }));
        assert_eq!(out.lfts.tables, minhop::route(&g).unwrap().tables);
        let out = route(&g, &RouteOptions { roots: vec!["r1-spine0".into()], ..RouteOptions::default() }).unwrap();
        let reason = out.fallback.unwrap().reason;
        assert!(reason.starts_with(NO_ROOTS) && reason.contains("r1-spine0"), "{reason}");
    }

    #[test]
    fn one_list_of_roots_serves_every_rail_each_taking_its_own() {
        let spec = r#"{"kind":"rails","rails":2,"of":{"kind":"k-ary-n-tree","k":2,"n":3}}"#;
        let g = serde_json::from_str::<crate::fabric::build::GeneratorSpec>(spec).unwrap().build().unwrap();
        let used = |roots: &[&str]| {
            let opts = RouteOptions { roots: roots.iter().map(|r| r.to_string()).collect(), ..RouteOptions::default() };
            let r = super::super::route(g.clone(), &[Engine::Updn], &opts).unwrap();
            r.subnets.iter().map(|s| (s.rail, s.used, s.fallback.as_ref().map(|f| f.reason.contains("r0-L2-s1")))).collect::<Vec<_>>()
        };
        assert_eq!(used(&["r0-L2-s1", "r1-L3-s0"]), vec![(0, Engine::Updn, None), (1, Engine::Updn, None)]);
        // Rail 1 has none of the roots: it falls back, naming what it was given.
        assert_eq!(used(&["r0-L2-s1"]), vec![(0, Engine::Updn, None), (1, Engine::Minhop, Some(true))]);
    }

    /// (switch, LID) pairs whose path through `lfts` takes a link up after one down.
    fn down_then_up(g: &FabricGraph, lfts: &Lfts, roots: &[NodeId]) -> usize {
        let walk = UpDownWalk::new(g, &SwitchLinks::new(g), roots);
        let step = |a: NodeId, b: NodeId| direction(walk.rank[a], g.nodes[a].guid, walk.rank[b], g.nodes[b].guid);
        let mut turns = 0;
        for from in g.switches() {
            for (lid, _, _) in g.lids() {
                let (mut at, mut went_down) = (from, false);
                while let Some(next) = lfts.route(at, lid).filter(|&p| p != 0).and_then(|p| g.peer_up(g.nodes[at].port(p.into())?)) {
                    let next = g.ports[next].node;
                    if !g.nodes[next].is_switch() {
                        break;
                    }
                    match step(at, next) {
                        Dir::Up if went_down => {
                            turns += 1;
                            break;
                        }
                        Dir::Up => {}
                        Dir::Down => went_down = true,
                    }
                    at = next;
                }
            }
        }
        turns
    }

    #[test]
    fn paths_never_turn_up_after_down_on_a_fat_tree_but_may_elsewhere_as_in_opensm() {
        let spec = r#"{"kind":"k-ary-n-tree","k":4,"n":3}"#;
        let g = serde_json::from_str::<crate::fabric::build::GeneratorSpec>(spec).unwrap().build().unwrap();
        let roots = updn_roots::detect(&g, &SwitchLinks::new(&g));
        let out = route(&g, &RouteOptions::default()).unwrap();
        assert_eq!((roots.len(), down_then_up(&g, &out.lfts, &roots)), (16, 0));
        // minhop's tables on it do turn (a leaf reaches a leaf of its pod through any middle
        // switch, also by way of the top).
        assert!(down_then_up(&g, &minhop::route(&g).unwrap(), &roots) > 0);
        // On the re-queue fabric, OpenSM's one turning path: sw2 -> sw4 -> sw1 to LID 6.
        let g = requeue_fabric();
        let out = route(&g, &RouteOptions { roots: vec!["sw0".into()], ..RouteOptions::default() }).unwrap();
        assert_eq!(down_then_up(&g, &out.lfts, &[node(&g, "sw0")]), 1);
    }
}
