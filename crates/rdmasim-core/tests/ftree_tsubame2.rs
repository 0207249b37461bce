//! OpenSM's ftree on the TSUBAME2.0-like fabric, whose cores are directors modelled as
//! 2-level Clos networks of 36-port chips, so a rail is a 3-level tree of chips.
use rdmasim_core::fabric::build::GeneratorSpec;
use rdmasim_core::fabric::graph::FabricGraph;
use rdmasim_core::fabric::routing::{self, ftree, Engine, RouteOptions};
use std::time::Instant;

fn tsubame2(rails: u16) -> FabricGraph {
    serde_json::from_str::<GeneratorSpec>(&format!(r#"{{"kind":"tsubame2","rails":{rails}}}"#)).unwrap().build().unwrap()
}

/// The directors' spine chips, by GUID: the roots an operator would give ftree.
fn spine_roots(g: &FabricGraph) -> RouteOptions {
    let roots = g.nodes.iter().filter(|n| n.name.contains("spine")).map(|n| format!("{:#018x}", n.guid)).collect();
    RouteOptions { roots, ..RouteOptions::default() }
}

/// Without roots OpenSM's ftree rejects a rail: the director leaf chips no edge is cabled to
/// are the switches farthest from the hosts, so they become the roots (rank 0), the spine
/// chips rank 1, the cabled leaf chips rank 2 and the edges rank 3, the leaves. The 88 edges
/// of a rail (1408 hosts, 16 per edge) take 3 ports on each director, 264 of its 324: 14
/// leaf chips with 6 edges each, a fifteenth with 4 and 3 idle, so the leaf chips of rank 2
/// differ in down groups.
#[test]
fn a_rail_is_not_a_pure_fat_tree_without_roots() {
    let g = tsubame2(1);
    let t = Instant::now();
    let reason = ftree::check(&g, &RouteOptions::default()).unwrap().expect("OpenSM's ftree gives up on a TSUBAME2 rail");
    eprintln!("check: {:?}", t.elapsed());
    assert!(reason.starts_with("ERR AB0A: Different number of downward port groups on switches: "), "{reason}");
    assert!(reason.contains("Index 2.0.1.0 - 6 port groups, ") && reason.contains("Index 2.0.14.0 - 4 port groups; "), "{reason}");
}

/// With the spine chips as roots (OpenSM's root GUID file) ftree routes both rails: the
/// cabled and the idle leaf chips are rank 1, the edges rank 2. But it does not spread an
/// edge's routes evenly over its 18 uplinks (6 directors x 3 parallel links): every edge
/// sends a destination up toward the director its own edge took for it, and an edge spreads
/// its 16 hosts over the 6 directors 3, 3, 3, 3, 2, 2 (ties to the lowest index, the same on
/// every edge), so of the 1392 other hosts of the rail 4 directors carry 264 - 3 = 261 and 2
/// carry 176 - 2 = 174, 87 and 58 per link.
#[test]
fn both_rails_route_with_the_spines_as_roots() {
    let g = tsubame2(2);
    let opts = spine_roots(&g);
    let t = Instant::now();
    let r = routing::route(g.clone(), &[Engine::Ftree], &opts).unwrap();
    eprintln!("route: {:?}", t.elapsed());
    assert_eq!(r.subnets.len(), 2);
    assert!(r.subnets.iter().all(|s| s.used == Engine::Ftree && s.fallback.is_none()));
    let lfts = &r.fabric.lfts;
    let edges: Vec<_> = g.switches().filter(|&s| g.nodes[s].name.contains("-L1-s")).collect();
    assert_eq!(edges.len(), 2 * 88);
    for e in edges {
        // Host routes per up port (ports 17..=34), the edge's own 16 hosts left out.
        let mut per_up = [0usize; 18];
        for (lid, _, port) in g.lids() {
            let (Some(p), Some(out)) = (port, lfts.route(e, lid)) else { continue };
            if g.peer_up(p).map(|q| g.ports[q].node) != Some(e) && out > 16 {
                per_up[usize::from(out) - 17] += 1;
            }
        }
        let per_director: Vec<usize> = (0..6).map(|d| (0..3).map(|link| per_up[link * 6 + d]).sum()).collect();
        assert_eq!(per_director, [261, 261, 261, 261, 174, 174], "{}: {per_up:?}", g.nodes[e].name);
        assert!((0..18).all(|i| per_up[i] == if i % 6 < 4 { 87 } else { 58 }), "{}: {per_up:?}", g.nodes[e].name);
    }
}

/// Release timing of ftree on both rails (cargo test --release -- --ignored): the check
/// that gives up without roots, and the full routing with the spine chips as roots.
#[test]
#[ignore]
fn timing() {
    let g = tsubame2(2);
    let t = Instant::now();
    let r = routing::route(g.clone(), &[Engine::Ftree], &RouteOptions::default());
    eprintln!("tsubame2, both rails, no roots (gives up; minhop routes): {:?} ({})", t.elapsed(), r.map_or_else(|e| e.0, |r| format!("{:?}", r.subnets.iter().map(|s| s.used).collect::<Vec<_>>())));
    let opts = spine_roots(&g);
    let t = Instant::now();
    let r = routing::route(g, &[Engine::Ftree], &opts).unwrap();
    eprintln!("tsubame2, both rails, spine chips as roots: {:?} ({} subnets by ftree)", t.elapsed(), r.subnets.iter().filter(|s| s.fallback.is_none()).count());
}
