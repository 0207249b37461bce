//! Pins the static analysis (fabric/analysis/) on hand-built fat trees with hand-set d-mod-k
//! LFTs: route counts per link, unroutable pairs by reason, loops, degraded and down links, and
//! that the memoised all-pairs passes agree with tracing every pair hop by hop.
use rdmasim_core::fabric::analysis::loads::{count_routes, HistogramBin};
use rdmasim_core::fabric::analysis::reach::FailureKind;
use rdmasim_core::fabric::analysis::{link_loads, summarize, trace_route, Components, DestinationWalk, Hop, RouteError};
use rdmasim_core::fabric::graph::{FabricGraph, LinkProps, LinkState, Lfts, RoutedFabric, NO_ROUTE};
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use rdmasim_core::ids::{NodeId, PortId, TiVec};
use std::time::Instant;

const QDR4: LinkSpeed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
const QDR1: LinkSpeed = LinkSpeed { gen: LinkGen::Qdr, width: 1 };

/// A two-level fat tree per rail: leaves with `per_leaf` hosts on ports 1..=per_leaf and spine
/// k on port per_leaf+1+k; spine k's port i+1 goes to leaf i. Host j is on leaf j / per_leaf,
/// port j % per_leaf + 1, with one single-port HCA per rail.
struct Tree {
    rf: RoutedFabric,
    /// [rail][leaf]
    leaves: Vec<Vec<NodeId>>,
    /// [rail][spine]
    spines: Vec<Vec<NodeId>>,
    /// [rail][host]: the HCA port.
    hca: Vec<Vec<PortId>>,
    per_leaf: usize,
}

impl Tree {
    fn lid(&self, rail: usize, host: usize) -> u16 {
        self.rf.graph.ports[self.hca[rail][host]].lid
    }
    fn port(&self, node: NodeId, num: u16) -> PortId {
        self.rf.graph.port_of(node, num).unwrap()
    }
    /// The link between leaf `leaf` and spine `spine` of rail 0, as (leaf port, spine port).
    fn uplink(&self, leaf: usize, spine: usize) -> (PortId, PortId) {
        (self.port(self.leaves[0][leaf], (self.per_leaf + 1 + spine) as u16), self.port(self.spines[0][spine], leaf as u16 + 1))
    }
}

fn fat_tree(hosts: usize, per_leaf: usize, spines: usize, rails: usize) -> Tree {
    let leaves_per_rail = hosts.div_ceil(per_leaf);
    let mut g = FabricGraph::new();
    let mut guid = 0x1000u64;
    let mut next_guid = || {
        guid += 0x100;
        guid
    };
    let (mut leaves, mut spine_ids) = (Vec::new(), Vec::new());
    for r in 0..rails {
        // Names of rail 0 carry no prefix, so the small tests read as "leaf0", "spine1".
        let prefix = if r == 0 { String::new() } else { format!("r{r}-") };
        leaves.push((0..leaves_per_rail).map(|i| g.add_switch(format!("{prefix}leaf{i}"), next_guid(), (per_leaf + spines) as u16, QDR4).unwrap()).collect::<Vec<_>>());
        spine_ids.push((0..spines).map(|k| g.add_switch(format!("{prefix}spine{k}"), next_guid(), leaves_per_rail as u16, QDR4).unwrap()).collect::<Vec<_>>());
    }
    let mut hca = vec![Vec::new(); rails];
    for j in 0..hosts {
        let h = g.add_host(format!("h{j}"));
        for (r, ports) in hca.iter_mut().enumerate() {
            let ca = g.add_hca(h, format!("h{j} mlx4_{r}"), next_guid(), 1, QDR4).unwrap();
            let p = g.port_of(ca, 1).unwrap();
            let leaf_port = g.port_of(leaves[r][j / per_leaf], (j % per_leaf + 1) as u16).unwrap();
            g.connect(p, leaf_port, LinkProps::new(QDR4, 2.0)).unwrap();
            ports.push(p);
        }
    }
    for r in 0..rails {
        for (i, &leaf) in leaves[r].iter().enumerate() {
            for (k, &spine) in spine_ids[r].iter().enumerate() {
                let a = g.port_of(leaf, (per_leaf + 1 + k) as u16).unwrap();
                let b = g.port_of(spine, i as u16 + 1).unwrap();
                g.connect(a, b, LinkProps::new(QDR4, 10.0)).unwrap();
            }
        }
    }
    g.assign_lids().unwrap();
    g.check().unwrap();
    let mut lfts = Lfts::empty_for(&g);
    for r in 0..rails {
        for (j, &p) in hca[r].iter().enumerate() {
            // d-mod-k: destination j leaves a leaf that is not its own by spine j mod k.
            let lid = g.ports[p].lid;
            for (i, &leaf) in leaves[r].iter().enumerate() {
                let port = if j / per_leaf == i { j % per_leaf + 1 } else { per_leaf + 1 + j % spines };
                lfts.set(leaf, lid, port as u8);
            }
            for &spine in &spine_ids[r] {
                lfts.set(spine, lid, (j / per_leaf + 1) as u8);
            }
        }
        for &sw in leaves[r].iter().chain(&spine_ids[r]) {
            lfts.set(sw, g.nodes[sw].lid, 0);
        }
    }
    Tree { rf: RoutedFabric::new(g, lfts), leaves, spines: spine_ids, hca, per_leaf }
}

/// 4 leaves of 4-port switches with 2 hosts each, 2 spines: 8 hosts, 56 ordered pairs.
fn small_tree() -> Tree {
    fat_tree(8, 2, 2, 1)
}

/// Routes out of every port, by tracing every pair hop by hop: the reference for the memoised
/// pass. Also the number of pairs traced and routed.
fn brute_force_counts(rf: &RoutedFabric) -> (TiVec<PortId, u32>, u64, u64) {
    let comps = Components::of(&rf.graph);
    let mut out_of: TiVec<PortId, u32> = vec![0; rf.graph.ports.len()].into();
    let (mut pairs, mut routed) = (0, 0);
    for eps in &comps.endpoints {
        for dst in eps {
            for src in eps.iter().filter(|s| s.host != dst.host) {
                pairs += 1;
                if let Ok(hops) = trace_route(rf, src.port, dst.lid) {
                    routed += 1;
                    for h in hops {
                        out_of[h.from] += 1;
                    }
                }
            }
        }
    }
    (out_of, pairs, routed)
}

/// Every pair's outcome from the memoised walk has the kind tracing it gives, and the route
/// counts equal the brute-force ones.
fn assert_memo_agrees_with_tracing(rf: &RoutedFabric) {
    let comps = Components::of(&rf.graph);
    let mut walk = DestinationWalk::new(rf);
    for eps in &comps.endpoints {
        for dst in eps {
            walk.start(dst.lid);
            for src in eps.iter().filter(|s| s.host != dst.host) {
                let traced = trace_route(rf, src.port, dst.lid).err().map(|e| e.kind());
                assert_eq!(walk.from_port(src.port).failure(), traced, "{} -> LID {}", rf.graph.port_name(src.port), dst.lid);
            }
        }
    }
    let counts = count_routes(rf, &comps);
    let (brute, pairs, routed) = brute_force_counts(rf);
    assert_eq!(counts.out_of, brute);
    assert_eq!(counts.components.iter().map(|c| (c.pairs, c.routed_pairs)).fold((0, 0), |a, c| (a.0 + c.0, a.1 + c.1)), (pairs, routed));
}

/// The (source host, destination host) pairs of rail 0 whose trace fails.
fn failing_pairs(t: &Tree) -> Vec<(usize, usize)> {
    let n = t.hca[0].len();
    let all = (0..n).flat_map(|s| (0..n).map(move |d| (s, d)));
    all.filter(|&(s, d)| s != d && trace_route(&t.rf, t.hca[0][s], t.lid(0, d)).is_err()).collect()
}

fn names(rf: &RoutedFabric, hops: &[Hop]) -> Vec<(String, String)> {
    hops.iter().map(|h| (rf.graph.port_name(h.from), rf.graph.port_name(h.to))).collect()
}

#[test]
fn trace_route_lists_each_hop_of_a_dmodk_route() {
    let t = small_tree();
    let hops = trace_route(&t.rf, t.hca[0][0], t.lid(0, 7)).unwrap();
    // Host 7 is odd: it leaves leaf0 by spine 1 (port 4), which reaches leaf3 on its port 4.
    let want = [("\"h0 mlx4_0\"[1]", "\"leaf0\"[1]"), ("\"leaf0\"[4]", "\"spine1\"[1]"), ("\"spine1\"[4]", "\"leaf3\"[4]"), ("\"leaf3\"[2]", "\"h7 mlx4_0\"[1]")];
    assert_eq!(names(&t.rf, &hops), want.map(|(a, b)| (a.to_string(), b.to_string())));
    // A neighbour on the same leaf is two hops away, through the leaf alone.
    assert_eq!(trace_route(&t.rf, t.hca[0][0], t.lid(0, 1)).unwrap().len(), 2);
}

#[test]
fn dmodk_fat_tree_puts_six_routes_on_every_switch_link_direction() {
    let t = small_tree();
    let loads = link_loads(&t.rf, 3);
    assert_eq!((loads.pairs, loads.routed_pairs, loads.unroutable_pairs), (56, 56, 0));
    // 48 pairs cross leaves, each over 2 switch-to-switch hops: 96 routes on 16 directions. Each
    // leaf uplink to spine k carries the 2 local sources to the 3 remote hosts of parity k;
    // each spine downlink carries the 6 remote sources to its one host of that parity.
    assert_eq!(loads.switch_links.histogram, vec![HistogramBin { routes: 6, links: 16 }]);
    assert_eq!((loads.switch_links.max, loads.switch_links.mean, loads.switch_links.routes), (6, 6.0, 96));
    // Each host sends 7 routes up and receives 7 down.
    assert_eq!(loads.host_links.histogram, vec![HistogramBin { routes: 7, links: 16 }]);
    assert_eq!(loads.per_rail.len(), 1);
    assert_eq!(loads.per_rail[0].switch_links, loads.switch_links);
    let json = serde_json::to_value(&loads).unwrap();
    assert_eq!(json["switch_links"]["histogram"], serde_json::json!([{"routes": 6, "links": 16}]));
    assert_eq!(json["per_rail"][0]["rails"], serde_json::json!([0]));
    let counts = count_routes(&t.rf, &Components::of(&t.rf.graph));
    let (up, down) = t.uplink(2, 1);
    assert_eq!((counts.out_of[up], counts.out_of[down]), (6, 6));
    let s = summarize(&t.rf);
    assert_eq!((s.hosts, s.hcas, s.hca_ports, s.switches, s.links), (8, 8, 8, 6, 16));
    assert_eq!((s.pairs, s.unroutable.pairs, s.loops.count), (56, 0, 0));
    assert_eq!(s.components[0].max_switch_hops, 3, "leaf, spine, leaf");
    assert_memo_agrees_with_tracing(&t.rf);
}

#[test]
fn a_leaf_sending_everything_up_spine_0_doubles_that_uplink() {
    let mut t = small_tree();
    let leaf0 = t.leaves[0][0];
    for j in 2..8 {
        let lid = t.lid(0, j);
        t.rf.lfts.set(leaf0, lid, 3);
    }
    let counts = count_routes(&t.rf, &Components::of(&t.rf.graph));
    let at = |leaf, spine| {
        let (up, down) = t.uplink(leaf, spine);
        (counts.out_of[up], counts.out_of[down])
    };
    // Leaf0's 2 hosts to the 6 remote hosts all go by spine 0: 12 up, none by spine 1.
    assert_eq!(at(0, 0), (12, 6));
    assert_eq!(at(0, 1), (0, 6));
    // Spine 0 now brings leaf M (M = 1..3) 2 x 2 routes from leaf0 and 2 x 2 x 1 from the
    // other two leaves (to M's even host): 8; spine 1 only those 4 (to M's odd host).
    for m in 1..4 {
        assert_eq!(at(m, 0), (6, 8), "leaf{m} with spine 0");
        assert_eq!(at(m, 1), (6, 4), "leaf{m} with spine 1");
    }
    let loads = link_loads(&t.rf, 2);
    let bins: Vec<(u32, usize)> = loads.switch_links.histogram.iter().map(|b| (b.routes, b.links)).collect();
    assert_eq!(bins, [(0, 1), (4, 3), (6, 8), (8, 3), (12, 1)]);
    assert_eq!(loads.switch_links.routes, 96, "the same 48 pairs, 2 switch hops each");
    assert_eq!((loads.busiest[0].from.as_str(), loads.busiest[0].to.as_str(), loads.busiest[0].routes), ("\"leaf0\"[3]", "\"spine0\"[1]", 12));
    assert_memo_agrees_with_tracing(&t.rf);
}

#[test]
fn a_missing_lft_entry_makes_exactly_its_pairs_unroutable() {
    let mut t = small_tree();
    let (leaf0, lid7) = (t.leaves[0][0], t.lid(0, 7));
    t.rf.lfts.set(leaf0, lid7, NO_ROUTE);
    // Only leaf0's two hosts use leaf0's entry for host 7.
    let s = summarize(&t.rf);
    assert_eq!((s.unroutable.pairs, s.unroutable.no_route, s.loops.count), (2, 2, 0));
    // Both fail the same way at the same switch, so the summary names the first only.
    let ex: Vec<(&str, &str, FailureKind)> = s.unroutable.examples.iter().map(|e| (e.src.as_str(), e.dst.as_str(), e.kind)).collect();
    assert_eq!(ex, [("\"h0 mlx4_0\"[1]", "\"h7 mlx4_0\"[1]", FailureKind::NoRoute)]);
    assert_eq!(failing_pairs(&t), [(0, 7), (1, 7)]);
    assert_eq!(s.unroutable.examples[0].reason, format!("no route to LID {lid7} at \"leaf0\""));
    assert_eq!(trace_route(&t.rf, t.hca[0][0], lid7), Err(RouteError::NoRoute { at: leaf0, lid: lid7 }));
    assert_eq!(link_loads(&t.rf, 1).routed_pairs, 54);
    assert_memo_agrees_with_tracing(&t.rf);
}

#[test]
fn a_two_cycle_in_the_lfts_is_reported_as_a_loop() {
    let mut t = small_tree();
    // Host 6 (leaf3, even, so by spine 0): spine 0 sends it back down to leaf0, which sends it
    // up to spine 0 again.
    let (leaf0, spine0, lid6) = (t.leaves[0][0], t.spines[0][0], t.lid(0, 6));
    t.rf.lfts.set(spine0, lid6, 1);
    let s = summarize(&t.rf);
    // Every source off leaf3 goes through spine 0 for host 6: leaf0's directly, leaf1's and
    // leaf2's by d-mod-k. Host 7 shares leaf3 with host 6 and does not go up.
    assert_eq!((s.unroutable.pairs, s.unroutable.in_loop), (6, 6));
    assert_eq!(s.loops.count, 1, "one cycle, met by six pairs");
    assert_eq!(s.loops.examples[0].switches, ["leaf0", "spine0"]);
    assert_eq!(s.loops.examples[0].dlid, lid6);
    assert_eq!(trace_route(&t.rf, t.hca[0][2], lid6), Err(RouteError::Loop { switches: vec![spine0, leaf0] }), "from leaf1 the cycle is met at spine 0");
    assert_eq!(s.unroutable.examples[0].reason, "loop \"leaf0\" -> \"spine0\" -> \"leaf0\"");
    assert_memo_agrees_with_tracing(&t.rf);
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!((json["unroutable"]["in_loop"].as_u64(), json["loops"]["count"].as_u64()), (Some(6), Some(1)));
    assert_eq!(json["unroutable"]["examples"][0]["kind"], "loop");
    assert_eq!(json["loops"]["examples"][0]["switches"], serde_json::json!(["leaf0", "spine0"]));
    println!("{s}");
}

#[test]
fn a_1x_link_between_4x_ports_is_listed_degraded() {
    let mut t = small_tree();
    let link = t.rf.graph.ports[t.hca[0][3]].link.unwrap();
    t.rf.graph.links[link].speed = QDR1;
    let s = summarize(&t.rf);
    assert_eq!(s.links_by_speed.iter().map(|(k, v)| (k.as_str(), *v)).collect::<Vec<_>>(), [("1X QDR", 1), ("4X QDR", 15)]);
    assert_eq!(s.degraded_links.len(), 1);
    let d = &s.degraded_links[0];
    assert_eq!((d.a.as_str(), d.b.as_str(), d.active.as_str(), d.supported.as_str()), ("\"h3 mlx4_0\"[1]", "\"leaf1\"[2]", "1X QDR", "4X QDR"));
    assert_eq!(s.unroutable.pairs, 0, "degraded is slow, not broken");
    assert!(s.to_string().contains("\"h3 mlx4_0\"[1] <-> \"leaf1\"[2]  1X QDR (supports 4X QDR)"), "{s}");
}

#[test]
fn a_link_set_down_makes_the_pairs_through_it_unroutable() {
    let mut t = small_tree();
    let (up, down) = t.uplink(0, 0);
    let link = t.rf.graph.ports[up].link.unwrap();
    t.rf.graph.links[link].state = LinkState::Down;
    let s = summarize(&t.rf);
    // Up: leaf0's 2 hosts to the 3 remote even hosts. Down: the 6 hosts of leaves 1-3 to
    // leaf0's even host h0 (which they send by spine 0).
    assert_eq!((s.unroutable.pairs, s.unroutable.link_down), (6 + 6, 12));
    assert_eq!(s.down_links.len(), 1);
    assert_eq!((s.down_links[0].a.as_str(), s.down_links[0].b.as_str()), ("\"leaf0\"[3]", "\"spine0\"[1]"));
    assert_eq!(trace_route(&t.rf, t.hca[0][0], t.lid(0, 2)), Err(RouteError::LinkDown { port: up }));
    assert_eq!(trace_route(&t.rf, t.hca[0][2], t.lid(0, 0)), Err(RouteError::LinkDown { port: down }));
    let reasons: Vec<&str> = s.unroutable.examples.iter().map(|e| e.reason.as_str()).collect();
    assert!(reasons.contains(&"link down \"spine0\"[1] -> \"leaf0\"[3]"), "{reasons:?}");
    assert!(reasons.contains(&"link down \"leaf0\"[3] -> \"spine0\"[1]"), "{reasons:?}");
    let loads = link_loads(&t.rf, 1);
    assert_eq!((loads.routed_pairs, loads.switch_links.directed_links), (44, 14), "the down link carries nothing and is not counted");
    assert_memo_agrees_with_tracing(&t.rf);
}

#[test]
fn a_dual_rail_fabric_is_two_components_counted_apart() {
    let t = fat_tree(8, 2, 2, 2);
    let s = summarize(&t.rf);
    assert_eq!((s.hosts, s.hcas, s.hca_ports, s.switches, s.links), (8, 16, 16, 12, 32));
    let comps: Vec<(Vec<u16>, usize, u64)> = s.components.iter().map(|c| (c.rails.clone(), c.switches, c.pairs)).collect();
    assert_eq!(comps, [(vec![0], 6, 56), (vec![1], 6, 56)], "no pair crosses rails");
    let loads = link_loads(&t.rf, 1);
    assert_eq!(loads.per_rail.len(), 2);
    for r in &loads.per_rail {
        assert_eq!(r.switch_links.histogram, vec![HistogramBin { routes: 6, links: 16 }]);
    }
    assert_eq!(loads.switch_links.histogram, vec![HistogramBin { routes: 6, links: 32 }]);
}

#[test]
fn the_memoised_passes_agree_with_tracing_on_a_damaged_medium_tree() {
    // 72 hosts, 6 per leaf, 3 spines: with a missing entry, a loop, a down link and a dead end.
    let mut t = fat_tree(72, 6, 3, 1);
    let (leaf, spine) = (t.leaves[0].clone(), t.spines[0].clone());
    let lid = |t: &Tree, j| t.lid(0, j);
    let (l10, l20, l30, l40) = (lid(&t, 10), lid(&t, 20), lid(&t, 30), lid(&t, 40));
    t.rf.lfts.set(spine[1], l10, NO_ROUTE);
    t.rf.lfts.set(spine[2], l20, 1); // back to leaf0, which sends it up to spine 2: a loop
    t.rf.lfts.set(leaf[5], l30, 1); // to host 30's neighbour, an HCA that is not it: dead end
    let (up, _) = t.uplink(7, 1);
    let l = t.rf.graph.ports[up].link.unwrap();
    t.rf.graph.links[l].state = LinkState::Down;
    t.rf.lfts.set(leaf[3], l40, 0); // the LFT names the switch itself
    assert_memo_agrees_with_tracing(&t.rf);
    let s = summarize(&t.rf);
    assert!(s.unroutable.no_route > 0 && s.unroutable.in_loop > 0 && s.unroutable.dead_end > 0 && s.unroutable.link_down > 0, "{s}");
    assert_eq!(s.loops.count, 1);
}

/// Not a timing assertion: prints how long the all-pairs passes take (run with --release
/// --nocapture to read it).
#[test]
fn all_pairs_analysis_of_large_fat_trees_prints_its_time() {
    for (hosts, rails) in [(1024, 1), (1408, 2)] {
        let t0 = Instant::now();
        let t = fat_tree(hosts, 18, 18, rails);
        let built = t0.elapsed();
        let t1 = Instant::now();
        let s = summarize(&t.rf);
        let summary_time = t1.elapsed();
        let t2 = Instant::now();
        let loads = link_loads(&t.rf, 5);
        let loads_time = t2.elapsed();
        let per_rail = (hosts * (hosts - 1)) as u64;
        assert_eq!((s.pairs, s.unroutable.pairs), (per_rail * rails as u64, 0));
        assert_eq!(loads.routed_pairs, per_rail * rails as u64);
        assert_eq!(s.components.len(), rails);
        println!("{hosts} hosts x {rails} rails, {} switches: built {built:?}, summary {summary_time:?}, loads {loads_time:?}", s.switches);
        println!("{loads}");
    }
}
