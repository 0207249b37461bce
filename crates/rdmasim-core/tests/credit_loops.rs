//! The credit-loop check (fabric/analysis/credit_loops.rs) and dfsssp's virtual layers
//! (fabric/routing/dfsssp/): a ring of switches routed along shortest paths has a credit loop,
//! a fat tree has none, and dfsssp's layers split the ring's.
use rdmasim_core::fabric::analysis::check_credit_loops;
use rdmasim_core::fabric::build::GeneratorSpec;
use rdmasim_core::fabric::graph::{FabricGraph, LinkProps};
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use rdmasim_core::fabric::routing::{self, dfsssp, Engine, RouteOptions};

/// `n` switches in a ring (port 1 to the next, port 2 to the previous), two hosts on each.
fn ring(n: usize) -> FabricGraph {
    let speed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
    let mut g = FabricGraph::new();
    let sw: Vec<_> = (0..n).map(|i| g.add_switch(format!("r{i}"), 0x100 + i as u64, 4, speed).unwrap()).collect();
    for i in 0..n {
        let a = g.port_of(sw[i], 1).unwrap();
        let b = g.port_of(sw[(i + 1) % n], 2).unwrap();
        g.connect(a, b, LinkProps::new(speed, 1.0)).unwrap();
        for k in 0..2 {
            let host = g.add_host(format!("h{i}-{k}"));
            let ca = g.add_hca(host, format!("h{i}-{k} hca"), 0x1000 + (2 * i + k) as u64, 1, speed).unwrap();
            g.connect(g.port_of(ca, 1).unwrap(), g.port_of(sw[i], 3 + k as u16).unwrap(), LinkProps::new(speed, 1.0)).unwrap();
        }
    }
    g.assign_lids().unwrap();
    g
}

fn routed(g: FabricGraph, engine: Engine) -> routing::Routing {
    routing::route(g, &[engine], &RouteOptions::default()).unwrap()
}

#[test]
fn a_ring_routed_by_shortest_paths_has_a_credit_loop() {
    let r = routed(ring(6), Engine::MinhopMod);
    let check = check_credit_loops(&r.fabric);
    let l = check.credit_loop.expect("a credit loop");
    assert_eq!(l.vl, 0);
    // Six channels all one way round the ring: r0[1] -> r1[2], r1[1] -> r2[2], ...
    assert_eq!(l.hops.len(), 6, "{:?}", l.hops);
    let clockwise = l.hops.iter().all(|h| h.contains("[1] -> ")) || l.hops.iter().all(|h| h.contains("[2] -> "));
    assert!(clockwise, "{:?}", l.hops);
    // From each switch, its 2 hosts to the 2 hosts two switches on (4 paths, 1 dependency)
    // and to the one host opposite whose LID sends it this way round (2 paths): 6 x 6.
    assert_eq!(l.paths, 36);
    assert!(check.dependencies[1..].iter().all(|&d| d == 0));
}

#[test]
fn a_fat_tree_routed_by_dmodk_has_none() {
    let spec: GeneratorSpec = serde_json::from_str(r#"{"kind":"fat-tree-k","k":4}"#).unwrap();
    let r = routed(spec.build().unwrap(), Engine::Dmodk);
    let check = check_credit_loops(&r.fabric);
    assert_eq!(check.credit_loop, None);
    assert!(check.dependencies[0] > 0);
}

#[test]
fn dfsssp_layers_split_the_rings_credit_loop() {
    let r = routed(ring(6), Engine::Dfsssp);
    let sls = r.fabric.sls.as_ref().expect("dfsssp gives SLs");
    assert!(sls.max_sl() > 0);
    let check = check_credit_loops(&r.fabric);
    assert_eq!(check.credit_loop, None, "{:?}", check.dependencies);
    assert!(check.dependencies.iter().filter(|&&d| d > 0).count() >= 2, "{:?}", check.dependencies);
    // The same tables with every path on one VL do loop.
    let mut one_vl = r.fabric.clone();
    one_vl.sls = None;
    assert!(check_credit_loops(&one_vl).credit_loop.is_some());
}

#[test]
fn dfsssp_with_too_few_lanes_says_how_many_it_needed() {
    let layers = dfsssp::virtual_layers(&ring(6), 1).unwrap();
    assert_eq!((layers.layers.needed, layers.layers.available), (2, 1));
    let opts = RouteOptions { max_vls: 1, ..RouteOptions::default() };
    // OpenSM falls back to minhop, and so do we, naming both counts.
    let r = routing::route(ring(6), &[Engine::Dfsssp], &opts).unwrap();
    let f = r.subnets[0].fallback.clone().expect("a fallback");
    assert_eq!(f.to, Engine::Minhop);
    assert!(f.reason.contains("avail=1, needed=2"), "{}", f.reason);
    assert!(r.fabric.sls.is_none(), "minhop's tables carry no SLs");
    assert!(check_credit_loops(&r.fabric).credit_loop.is_some(), "and close the ring's loop");
}

/// Release only (`cargo test --release --test credit_loops -- --ignored`): dfsssp and the
/// check on TSUBAME2.0's two rails of 1408 hosts (2816 endpoints).
#[test]
#[ignore]
fn tsubame2_in_release_is_fast() {
    let spec: GeneratorSpec = serde_json::from_str(r#"{"kind":"tsubame2"}"#).unwrap();
    let g = spec.build().unwrap();
    for engine in [Engine::Sssp, Engine::Dfsssp] {
        let t = std::time::Instant::now();
        let r = routing::route(g.clone(), &[engine], &RouteOptions::default()).unwrap();
        let routing_s = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let check = check_credit_loops(&r.fabric);
        let check_s = t.elapsed().as_secs_f64();
        eprintln!("{engine}: routing {routing_s:.2} s, credit-loop check {check_s:.2} s, dependencies {:?}", check.dependencies);
        assert_eq!(check.credit_loop, None);
        assert!(routing_s < 2.0 && check_s < 3.0, "{engine}: {routing_s:.2} s, {check_s:.2} s");
    }
}
