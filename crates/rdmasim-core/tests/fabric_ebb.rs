//! Pins the effective bisection bandwidth (fabric/analysis/ebb.rs) on fabrics whose figure is
//! known: a crossbar (1), a leaf forced through one uplink (worked out by hand), D-mod-K shifts
//! on a k-ary n-tree (1: Zahavi 2010), a 2:1 oversubscribed tree (at most about 1/2), a degraded
//! cable with rate weighting, and seeded reproducibility.
use rdmasim_core::fabric::analysis::ebb::KindEbb;
use rdmasim_core::fabric::analysis::{effective_bisection_bandwidth, EbbOptions, PatternKind, Weighting};
use rdmasim_core::fabric::build::GeneratorSpec;
use rdmasim_core::fabric::generate::generate;
use rdmasim_core::fabric::graph::RoutedFabric;
use rdmasim_core::fabric::routing::{route, Engine, RouteOptions};
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use rdmasim_core::ids::HostId;

fn fabric(spec: &str) -> RoutedFabric {
    let spec: GeneratorSpec = serde_json::from_str(spec).unwrap();
    generate(&spec).unwrap()
}

fn options(patterns: usize, seed: u64, kinds: &[PatternKind]) -> EbbOptions {
    EbbOptions { patterns, seed, kinds: kinds.to_vec(), weighting: Weighting::Flows }
}

/// The figures of the only rail of `rf`, one per kind.
fn single_rail(rf: &RoutedFabric, opts: &EbbOptions) -> Vec<KindEbb> {
    let report = effective_bisection_bandwidth(rf, opts);
    assert_eq!(report.rails.len(), 1);
    report.rails[0].kinds.clone()
}

const ALL_KINDS: [PatternKind; 5] = [PatternKind::Bisection, PatternKind::RandomPair { hosts: 5 }, PatternKind::Permutation, PatternKind::Shift { k: 3 }, PatternKind::Alltoall];

#[test]
fn a_crossbar_has_every_pattern_at_full_bandwidth() {
    let rf = fabric(r#"{"kind":"single-switch","hosts":12}"#);
    for k in single_rail(&rf, &options(50, 1, &ALL_KINDS)) {
        assert_eq!((k.mean, k.min_pattern, k.slowest, k.ci95, k.unroutable_flows), (1.0, 1.0, 1.0, 0.0, 0), "{:?}", k.pattern);
    }
}

#[test]
fn a_leaf_forced_through_one_uplink_shares_it_four_ways() {
    // XGFT(2; 4,4; 1,4): 4 leaves of 4 hosts (ports 1-4), uplinks on ports 5-8, 4 spines.
    let mut rf = fabric(r#"{"kind":"xgft","m":[4,4],"w":[1,4]}"#);
    let shift = [PatternKind::Shift { k: 4 }];
    assert_eq!(single_rail(&rf, &options(1, 0, &shift))[0].mean, 1.0, "D-mod-K: leaf i to leaf i+1 uses all four uplinks");
    let g = &rf.graph;
    let leaf0 = g.nodes.iter_enumerated().find(|(_, n)| n.name == "r0-L1-s0").unwrap().0;
    let local: Vec<u16> = g.nodes[leaf0].ports().filter_map(|p| g.peer(p)).map(|q| g.ports[q].lid).filter(|&l| l != 0).collect();
    assert_eq!(local.len(), 4);
    let max_lid = rf.graph.max_lid();
    for lid in 1..=max_lid {
        if !local.contains(&lid) && lid != rf.graph.nodes[leaf0].lid {
            rf.lfts.set(leaf0, lid, 5);
        }
    }
    // Shift by 4: leaf 0's four hosts send to leaf 1's over one uplink and one spine's single
    // downlink to leaf 1: 1/4 each. The 12 other flows keep their own paths: 1 each.
    let k = &single_rail(&rf, &options(1, 0, &shift))[0];
    assert_eq!((k.mean, k.slowest, k.flows), ((12.0 + 4.0 * 0.25) / 16.0, 0.25, 16));
}

#[test]
fn d_mod_k_routes_every_shift_of_a_k_ary_n_tree_without_contention() {
    let rf = fabric(r#"{"kind":"k-ary-n-tree","k":4,"n":3}"#);
    let k = &single_rail(&rf, &options(1, 0, &[PatternKind::Alltoall]))[0];
    assert_eq!((k.patterns, k.flows), (63, 63 * 64));
    assert_eq!((k.mean, k.min_pattern, k.slowest), (1.0, 1.0, 1.0));
    // A random bisection does contend on the same tree.
    let b = &single_rail(&rf, &options(200, 0, &[PatternKind::Bisection]))[0];
    assert!(b.mean < 0.9 && b.slowest <= 0.5, "{b:?}");
}

#[test]
fn a_two_to_one_oversubscribed_tree_gives_at_most_about_half() {
    // XGFT(2; 8,8; 1,4): leaves of 8 hosts with 4 uplinks.
    let rf = fabric(r#"{"kind":"xgft","m":[8,8],"w":[1,4]}"#);
    let k = &single_rail(&rf, &options(200, 3, &[PatternKind::Bisection]))[0];
    assert!(k.mean <= 0.5 + 0.02, "{k:?}");
    assert!(k.mean > 0.3, "{k:?}");
}

#[test]
fn the_same_seed_gives_the_same_figure_and_another_seed_other_patterns() {
    let rf = fabric(r#"{"kind":"k-ary-n-tree","k":4,"n":2}"#);
    let kinds = [PatternKind::Bisection, PatternKind::Permutation];
    let a = single_rail(&rf, &options(100, 11, &kinds));
    let b = single_rail(&rf, &options(100, 11, &kinds));
    let c = single_rail(&rf, &options(100, 12, &kinds));
    for i in 0..kinds.len() {
        assert_eq!((a[i].mean, a[i].ci95, a[i].slowest), (b[i].mean, b[i].ci95, b[i].slowest));
        assert_ne!(a[i].mean, c[i].mean, "{:?}", kinds[i]);
        assert!(a[i].ci95 > 0.0 && a[i].ci95 < 0.05, "{:?}", a[i]);
    }
}

#[test]
fn rate_weighting_narrows_a_degraded_cable_and_counting_flows_does_not() {
    let mut rf = fabric(r#"{"kind":"single-switch","hosts":4}"#);
    let g = &mut rf.graph;
    let h0 = g.hosts[HostId(0)].hcas[0];
    let link = g.ports[g.nodes[h0].first_port].link.unwrap();
    g.links[link].speed = LinkSpeed { gen: LinkGen::Qdr, width: 1 };
    let shift = [PatternKind::Shift { k: 1 }];
    assert_eq!(single_rail(&rf, &options(1, 0, &shift))[0].mean, 1.0);
    let rate = EbbOptions { weighting: Weighting::Rate, ..options(1, 0, &shift) };
    // h0 -> h1 and h3 -> h0 cross the 1x cable: a quarter of a 4x one.
    let k = &single_rail(&rf, &rate)[0];
    assert_eq!((k.mean, k.slowest), ((2.0 + 2.0 * 0.25) / 4.0, 0.25));
}

#[test]
fn each_rail_is_its_own_component_with_the_same_host_pairs() {
    let rf = fabric(r#"{"kind":"rails","rails":2,"of":{"kind":"k-ary-n-tree","k":4,"n":2}}"#);
    let report = effective_bisection_bandwidth(&rf, &options(50, 5, &[PatternKind::Bisection]));
    assert_eq!(report.rails.len(), 2);
    assert_eq!(report.rails.iter().map(|r| (r.rails.clone(), r.endpoints)).collect::<Vec<_>>(), [(vec![0], 16), (vec![1], 16)]);
    // Two identical rails, routed alike, given the same host pairs: the same figure.
    assert_eq!(report.rails[0].kinds[0].mean, report.rails[1].kinds[0].mean);
    assert!(report.to_string().contains("component 1 (rail 1), 16 endpoints"));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["rails"][1]["kinds"][0]["pattern"], serde_json::json!({"kind": "bisection"}));
    assert_eq!(json["rails"][1]["kinds"][0]["patterns"], 50);
}

#[test]
fn options_read_from_json_with_defaults() {
    let opts: EbbOptions = serde_json::from_str(r#"{"seed":4,"kinds":[{"kind":"random-pair","hosts":40},{"kind":"shift","k":3},{"kind":"alltoall"}],"weighting":"rate"}"#).unwrap();
    assert_eq!(opts, EbbOptions { patterns: 1000, seed: 4, kinds: vec![PatternKind::RandomPair { hosts: 40 }, PatternKind::Shift { k: 3 }, PatternKind::Alltoall], weighting: Weighting::Rate });
    assert_eq!(serde_json::from_str::<EbbOptions>("{}").unwrap(), EbbOptions::default());
    assert!(serde_json::from_str::<EbbOptions>(r#"{"kinds":[{"kind":"shift"}]}"#).is_err(), "a shift needs its k");
}

/// The figures docs/routing-ebb.md quotes, and the speed bound: 1000 bisections of both rails
/// of the TSUBAME2.0-like fabric in under 5 s. Release only:
/// `cargo test --release -p rdmasim-core --test fabric_ebb -- --ignored --nocapture`.
#[test]
#[ignore]
fn figures_and_speed() {
    let t = std::time::Instant::now();
    let rf = fabric(r#"{"kind":"tsubame2"}"#);
    let build = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let report = effective_bisection_bandwidth(&rf, &options(1000, 0, &[PatternKind::Bisection]));
    let wall = t.elapsed().as_secs_f64();
    println!("tsubame2 (built and routed in {build:.2} s), 1000 bisections per rail in {wall:.3} s\n{report}");
    assert!(wall < 5.0, "{wall} s");
    // The study's random-pair benchmark on the first n nodes (seeds/004 Fig. 1): the slowest pair.
    for hosts in [16, 32, 40, 64, 128, 256, 512, 600, 1000, 1300] {
        let k = &effective_bisection_bandwidth(&rf, &options(1000, 0, &[PatternKind::RandomPair { hosts }])).rails[0].kinds[0];
        println!("tsubame2 dmodk random-pair {hosts}: slowest pair {:.4} mean ({:.4} worst, {:.4} best pattern... mean share {:.4})", k.mean_slowest, k.slowest, k.max_pattern, k.mean);
    }
    let kinds = [PatternKind::Bisection, PatternKind::Permutation, PatternKind::RandomPair { hosts: 1300 }, PatternKind::Shift { k: 16 }];
    for spec in [
        r#"{"kind":"tsubame2"}"#,
        r#"{"kind":"fat-tree-k","k":8}"#,
        r#"{"kind":"fat-tree-k","k":16}"#,
        r#"{"kind":"k-ary-n-tree","k":8,"n":3}"#,
        r#"{"kind":"xgft","m":[16,16],"w":[1,16]}"#,
        r#"{"kind":"xgft","m":[8,8],"w":[1,4]}"#,
        r#"{"kind":"xgft","m":[16,32],"w":[1,8]}"#,
    ] {
        let dmodk = fabric(spec);
        let minhop = route(dmodk.graph.clone(), &[Engine::MinhopMod], &RouteOptions::default()).unwrap().fabric;
        for (engine, rf) in [("dmodk", &dmodk), ("minhop-mod", &minhop)] {
            let rail = &effective_bisection_bandwidth(rf, &options(1000, 0, &kinds)).rails[0];
            for k in &rail.kinds {
                println!("{spec} {engine} {}: {:.4} ± {:.4} (patterns {:.4}..{:.4}), slowest flow {:.4} mean, {:.4} worst", k.pattern.label(), k.mean, k.ci95, k.min_pattern, k.max_pattern, k.mean_slowest, k.slowest);
            }
        }
    }
}

#[test]
fn d_mod_k_spreads_a_directors_parallel_cables_to_an_edge() {
    // TSUBAME2.0-like: each edge has 3 parallel cables to each of 6 directors. Going down, a
    // director's leaf chip takes the cable the edge itself would take up toward the
    // destination; by D mod 3 it took the same cable for every destination that shares the
    // director (shift 16: 0.375, the slowest flow at 1/3).
    let rf = fabric(r#"{"kind":"tsubame2","hosts":320,"rails":1}"#);
    let k = &single_rail(&rf, &options(1, 0, &[PatternKind::Shift { k: 16 }]))[0];
    assert!(k.mean > 0.9, "{k:?}");
    let k = &single_rail(&rf, &options(1, 0, &[PatternKind::RandomPair { hosts: 32 }]))[0];
    assert_eq!(k.slowest, 1.0, "32 random pairs at full rate, as the study measured: {k:?}");
}
