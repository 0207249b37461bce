use super::*;
use crate::fabric::routing::engine::{Engine, Fallback};
use crate::fabric::build::GeneratorSpec;
use crate::fabric::graph::{LinkProps, LinkState, NodeKind};
use crate::fabric::rate::{LinkGen, LinkSpeed};

const QDR: LinkSpeed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };

fn build(json: &str) -> FabricGraph {
    serde_json::from_str::<GeneratorSpec>(json).unwrap().build().unwrap()
}

/// The generator's level of a switch ("r0-L2-s5": 2), 0 for a CA.
fn level(g: &FabricGraph, n: crate::ids::NodeId) -> u32 {
    g.nodes[n].name.split('-').nth(1).and_then(|l| l.strip_prefix('L')).and_then(|l| l.parse().ok()).unwrap_or(0)
}

/// Per switch of `level`, the CA LIDs its tables send out of each up port.
fn host_routes_per_uplink(g: &FabricGraph, lfts: &Lfts, at: u32) -> Vec<Vec<usize>> {
    let ca_lids: Vec<u16> = g.lids().into_iter().filter(|l| l.2.is_some()).map(|l| l.0).collect();
    g.switches()
        .filter(|&s| level(g, s) == at)
        .map(|s| {
            let ups: Vec<u8> = g.nodes[s].ports().filter(|&p| g.peer_up(p).is_some_and(|q| level(g, g.ports[q].node) == at + 1)).map(|p| g.ports[p].num as u8).collect();
            ups.iter().map(|&up| ca_lids.iter().filter(|&&lid| lfts.route(s, lid) == Some(up)).count()).collect()
        })
        .collect()
}

#[test]
fn every_uplink_carries_as_many_host_routes_on_a_complete_fat_tree() {
    let g = build(r#"{"kind":"fat-tree-k","k":8}"#);
    let out = route(&g, &RouteOptions::default()).unwrap();
    assert!(out.fallback.is_none());
    // 128 hosts; a leaf has 4 below it and 4 uplinks: 124 / 4 each; a pod has 16 hosts
    // and each of its aggregation switches 4 uplinks: 112 / 4 each.
    let leaves = host_routes_per_uplink(&g, &out.lfts, 1);
    assert_eq!(leaves.len(), 32);
    assert!(leaves.iter().all(|ups| ups == &[31; 4]), "{leaves:?}");
    let aggregation = host_routes_per_uplink(&g, &out.lfts, 2);
    assert_eq!(aggregation.len(), 32);
    assert!(aggregation.iter().all(|ups| ups == &[28; 4]), "{aggregation:?}");
    // Every switch reaches every host; not every switch, as in OpenSM's tables without
    // connect_roots: up*/down* has no down-then-up turn, so an aggregation switch (level 2,
    // core group j of 4) reaches no other of its pod, nor those of other groups (24 of 31),
    // nor the 12 cores of other groups; a core reaches only the 8 aggregation switches of its
    // group and no other core. Leaves reach every switch.
    let host_lids: Vec<u16> = g.lids().into_iter().filter(|l| l.2.is_some()).map(|l| l.0).collect();
    for s in g.switches() {
        assert!(host_lids.iter().all(|&lid| out.lfts.route(s, lid).is_some()), "{}", g.nodes[s].name);
    }
    let mut missing = std::collections::BTreeMap::new();
    for s in g.switches() {
        for t in g.switches().filter(|&t| out.lfts.route(s, g.nodes[t].lid).is_none()) {
            *missing.entry((level(&g, s), level(&g, t))).or_insert(0) += 1;
        }
    }
    assert_eq!(missing.into_iter().collect::<Vec<_>>(), [((2, 2), 32 * 24), ((2, 3), 32 * 12), ((3, 2), 16 * 24), ((3, 3), 16 * 15)]);
}

/// What routing a fabric ftree gives up on returns: minhop's tables with the reason.
fn assert_falls_back(g: &FabricGraph, opts: &RouteOptions, reason_starts: &str) -> String {
    let reason = check(g, opts).unwrap().expect("ftree should give up");
    assert!(reason.starts_with(reason_starts), "{reason}");
    let out = route(g, opts).unwrap();
    assert_eq!(out.fallback, Some(Fallback { to: Engine::Minhop, reason: reason.clone() }));
    assert_eq!(out.lfts.tables, crate::fabric::routing::minhop::route(g).unwrap().tables, "the tables are minhop's");
    reason
}

#[test]
fn a_missing_uplink_falls_back_to_minhop() {
    let mut g = build(r#"{"kind":"fat-tree-k","k":8}"#);
    let up = g.nodes.iter_enumerated().find(|(_, n)| n.name == "r0-L1-s3").map(|(id, _)| id).unwrap();
    let port = g.nodes[up].ports().find(|&p| g.peer(p).is_some_and(|q| level(&g, g.ports[q].node) == 2)).unwrap();
    let link = g.ports[port].link.unwrap();
    g.links[link].state = LinkState::Down;
    let reason = assert_falls_back(&g, &RouteOptions::default(), "ERR AB09: Different number of upward port groups on switches: ");
    assert!(reason.contains(&format!("GUID {:#018x}, LID {}, Index 2.0.3 - 3 groups", g.nodes[up].guid, g.nodes[up].lid)), "{reason}");
    assert!(reason.ends_with("Fabric topology is not a fat-tree"), "{reason}");
}

fn host_on(g: &mut FabricGraph, sw: crate::ids::NodeId, port: u16, i: u64) {
    let h = g.add_host(format!("extra{i}"));
    let ca = g.add_hca(h, format!("extra{i} mlx4_0"), 0x0002_c903_00ff_0000 + i * 0x100, 1, QDR).unwrap();
    let (a, b) = (g.port_of(ca, 1).unwrap(), g.port_of(sw, port).unwrap());
    g.connect(a, b, LinkProps::new(QDR, 1.0)).unwrap();
}

#[test]
fn a_host_on_a_top_switch_is_at_the_wrong_rank() {
    let mut g = build(r#"{"kind":"xgft","m":[2,2],"w":[1,2],"radix":6}"#);
    let top = g.switches().find(|&s| level(&g, s) == 2).unwrap();
    host_on(&mut g, top, 3, 0);
    g.assign_lids().unwrap();
    // The host puts that top switch at distance 0 from the hosts, so the other top switch is
    // the only one farthest from them: the root. Ranked from it, the edges are at 1 and the
    // host's top switch at 2, the leaf rank; the edges' hosts are then too high.
    let reason = assert_falls_back(&g, &RouteOptions::default(), "ERR AB26: CN port ");
    assert!(reason.contains("with rank 1, while FatTree leaf rank is 2; Fabric topology is not a fat-tree"), "{reason}");
}

#[test]
fn switches_that_all_have_hosts_are_all_roots() {
    let mut g = FabricGraph::new();
    let a = g.add_switch("a", 0x10, 4, QDR).unwrap();
    let b = g.add_switch("b", 0x20, 4, QDR).unwrap();
    let (pa, pb) = (g.port_of(a, 1).unwrap(), g.port_of(b, 1).unwrap());
    g.connect(pa, pb, LinkProps::new(QDR, 1.0)).unwrap();
    host_on(&mut g, a, 2, 0);
    host_on(&mut g, b, 2, 1);
    g.assign_lids().unwrap();
    assert_falls_back(&g, &RouteOptions::default(), "ERR AB2B: Found more than one root on fabric with maximum rank 0");
}

#[test]
fn one_switch_is_not_a_fat_tree() {
    let g = build(r#"{"kind":"single-switch","hosts":4}"#);
    assert_falls_back(&g, &RouteOptions::default(), "Fabric has 1 switches - topology is not fat-tree");
}

#[test]
fn given_roots_route_as_the_detected_ones_and_must_be_switches() {
    let g = build(r#"{"kind":"fat-tree-k","k":4}"#);
    let detected = route(&g, &RouteOptions::default()).unwrap();
    let tops: Vec<String> = g.switches().filter(|&s| level(&g, s) == 3).map(|s| g.nodes[s].name.clone()).collect();
    let by_guid: Vec<String> = g.switches().filter(|&s| level(&g, s) == 3).map(|s| format!("{:#x}", g.nodes[s].guid)).collect();
    for roots in [tops, by_guid] {
        let given = route(&g, &RouteOptions { roots, ..RouteOptions::default() }).unwrap();
        assert!(given.fallback.is_none());
        assert_eq!(given.lfts.tables, detected.lfts.tables);
    }
    let host = g.nodes.iter().find(|n| matches!(n.kind, NodeKind::Ca { .. })).unwrap().name.clone();
    let err = route(&g, &RouteOptions { roots: vec![host.clone()], ..RouteOptions::default() }).unwrap_err();
    assert!(err.0.contains(&format!("{host:?} is not a switch")), "{err}");
    let err = route(&g, &RouteOptions { roots: vec!["nope".into()], ..RouteOptions::default() }).unwrap_err();
    assert!(err.0.contains("\"nope\"") && err.0.contains("none of them names a switch"), "{err}");
}

#[test]
fn given_roots_skip_the_pure_tree_check() {
    // OpenSM checks that the tree is pure only when it found the roots itself.
    let mut g = build(r#"{"kind":"fat-tree-k","k":4}"#);
    let leaf = g.switches().find(|&s| level(&g, s) == 1).unwrap();
    let port = g.nodes[leaf].ports().find(|&p| g.peer(p).is_some_and(|q| level(&g, g.ports[q].node) == 2)).unwrap();
    let link = g.ports[port].link.unwrap();
    g.links[link].state = LinkState::Down;
    assert_falls_back(&g, &RouteOptions::default(), "ERR AB09");
    let tops: Vec<String> = g.switches().filter(|&s| level(&g, s) == 3).map(|s| g.nodes[s].name.clone()).collect();
    let out = route(&g, &RouteOptions { roots: tops, ..RouteOptions::default() }).unwrap();
    assert!(out.fallback.is_none());
    let host_lids: Vec<u16> = g.lids().into_iter().filter(|l| l.2.is_some()).map(|l| l.0).collect();
    for s in g.switches().filter(|&s| level(&g, s) == 1) {
        assert!(host_lids.iter().all(|&lid| out.lfts.route(s, lid).is_some()), "{}", g.nodes[s].name);
    }
}

#[test]
fn a_ca_cabled_to_a_ca_is_not_a_fat_tree() {
    let mut g = build(r#"{"kind":"xgft","m":[2,2],"w":[1,2],"radix":6}"#);
    let leaves: Vec<_> = g.switches().filter(|&s| level(&g, s) == 1).collect();
    let mut cas = Vec::new();
    for (i, &leaf) in leaves.iter().enumerate() {
        let h = g.add_host(format!("dual{i}"));
        let ca = g.add_hca(h, format!("dual{i} mlx4_0"), 0x0002_c903_00ee_0000 + i as u64 * 0x100, 2, QDR).unwrap();
        let (a, b) = (g.port_of(ca, 1).unwrap(), g.port_of(leaf, 5).unwrap());
        g.connect(a, b, LinkProps::new(QDR, 1.0)).unwrap();
        cas.push(ca);
    }
    let (a, b) = (g.port_of(cas[0], 2).unwrap(), g.port_of(cas[1], 2).unwrap());
    g.connect(a, b, LinkProps::new(QDR, 1.0)).unwrap();
    g.assign_lids().unwrap();
    let pair = format!("{:#018x} <---> {:#018x}", g.nodes[cas[0]].guid, g.nodes[cas[1]].guid);
    let reason = assert_falls_back(&g, &RouteOptions::default(), "ERR AB0F: CA connected directly to another CA: ");
    assert!(reason.contains(&pair) && reason.ends_with("Failed ranking the tree"), "{reason}");
    let tops: Vec<String> = g.switches().filter(|&s| level(&g, s) == 2).map(|s| g.nodes[s].name.clone()).collect();
    let reason = assert_falls_back(&g, &RouteOptions { roots: tops, ..RouteOptions::default() }, "ERR AB11: CA connected directly to another CA: ");
    assert!(reason.contains(&pair), "{reason}");
}
