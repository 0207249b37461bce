//! The tsubame2 generator's cabling families (issue #34 item 1): the defaults build the fabric
//! the generator built before they were parameters, every family builds a valid fabric with
//! the cabling it names (leaf chips per edge, I/O nodes on rail 0 only, GUIDs shuffled, LIDs
//! in the chosen order), bad values are errors naming the key, and the flow rounds run jobs on the compute
//! hosts only.
use rdmasim_core::apps::rounds::run_json;
use rdmasim_core::fabric::build::{tsubame2, GeneratorSpec, IoAttach, LeafPlacement, LidOrder, Tsubame2};
use rdmasim_core::fabric::compute_hosts::compute_hosts;
use rdmasim_core::fabric::graph::{FabricGraph, NodeKind};
use rdmasim_core::fabric::lid_assign::guid_key;
use rdmasim_core::fabric::routing::{route, Engine, RouteOptions};
use rdmasim_core::ids::NodeId;
use std::collections::BTreeSet;

/// A hash of every node (name, GUID, LID), port, cable and host, in arena order.
fn digest(g: &FabricGraph) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |s: &str| {
        for b in s.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    };
    for n in g.nodes.iter() {
        eat(&format!("{}|{:x}|{}|{}", n.name, n.guid, n.lid, n.num_ports));
    }
    for p in g.ports.iter() {
        eat(&format!("{:x}|{}|{}", p.guid, p.lid, p.num));
    }
    for l in g.links.iter() {
        eat(&format!("{}-{}", g.port_name(l.ends[0]), g.port_name(l.ends[1])));
    }
    for hs in g.hosts.iter() {
        eat(&hs.name);
    }
    h
}

#[test]
fn the_defaults_build_the_fabric_of_before_the_families() {
    // Measured on the generator before leaf_placement, io_nodes, io_attach and lid_order existed
    // (main at 4dc6e8c): the same nodes, GUIDs, LIDs, cables and hosts.
    let g = tsubame2(&Tsubame2::default()).unwrap();
    assert_eq!((g.nodes.len(), g.links.len(), g.hosts.len()), (3424, 9872, 1408));
    assert_eq!(format!("{:016x}", digest(&g)), "b9961a278aaad32f");
    let spec: GeneratorSpec = serde_json::from_str(r#"{"kind":"tsubame2","leaf_placement":"consecutive","io_nodes":0,"io_attach":"edge","lid_order":"rack"}"#).unwrap();
    assert_eq!(digest(&spec.build().unwrap()), digest(&g));
}

fn node(g: &FabricGraph, name: &str) -> NodeId {
    g.nodes.iter_enumerated().find(|(_, n)| n.name == name).map(|(id, _)| id).unwrap_or_else(|| panic!("no node {name}"))
}

/// Per director of `rail`, the leaf-chip numbers edge `e`'s cables land on (in port order).
fn chips_of_edge(g: &FabricGraph, rail: u16, e: usize) -> Vec<Vec<usize>> {
    let edge = node(g, &format!("r{rail}-L1-s{e}"));
    let mut per_core = vec![Vec::new(); 6];
    for p in g.nodes[edge].ports() {
        let Some(q) = g.peer(p) else { continue };
        let name = &g.nodes[g.ports[q].node].name;
        let Some(rest) = name.strip_prefix(&format!("r{rail}-L2-core")) else { continue };
        let (core, leaf) = rest.split_once("-leaf").unwrap_or_else(|| panic!("{name} is not a leaf chip"));
        per_core[core.parse::<usize>().unwrap()].push(leaf.parse().unwrap());
    }
    per_core
}

#[test]
fn same_chip_placements_land_an_edges_cables_to_a_director_on_one_chip() {
    for (placement, chip_of) in [(LeafPlacement::Consecutive, (|e| e / 6) as fn(usize) -> usize), (LeafPlacement::Interleaved, |e| e % 18)] {
        let g = tsubame2(&Tsubame2 { leaf_placement: placement, ..Tsubame2::default() }).unwrap();
        g.check().unwrap();
        for rail in 0..2 {
            for e in 0..88 {
                for chips in chips_of_edge(&g, rail, e) {
                    assert_eq!(chips, vec![chip_of(e); 3], "{placement:?} rail {rail} edge {e}");
                }
            }
        }
    }
}

#[test]
fn spread_lands_an_edges_cables_to_a_director_on_distinct_chips() {
    let g = tsubame2(&Tsubame2 { leaf_placement: LeafPlacement::Spread, ..Tsubame2::default() }).unwrap();
    g.check().unwrap();
    for e in 0..88 {
        for chips in chips_of_edge(&g, 0, e) {
            assert_eq!(chips.iter().collect::<BTreeSet<_>>().len(), 3, "edge {e}: {chips:?}");
            assert_eq!(chips, vec![(3 * e) % 18, (3 * e + 1) % 18, (3 * e + 2) % 18], "edge {e}");
        }
    }
    // Still a full fat tree: every director leaf chip takes at most 18 edge cables.
    for c in 0..6 {
        for l in 0..18 {
            let leaf = node(&g, &format!("r0-L2-core{c}-leaf{l}"));
            let down = g.nodes[leaf].ports().take(18).filter(|&p| g.ports[p].link.is_some()).count();
            assert!((14..=15).contains(&down), "core {c} leaf {l}: {down}");
        }
    }
}

/// The rail of the switch an HCA is cabled to, read from the switch's name.
fn rail_of_hca(g: &FabricGraph, ca: NodeId) -> u16 {
    let p = g.nodes[ca].first_port;
    let sw = g.ports[g.peer(p).expect("cabled")].node;
    g.nodes[sw].name[1..2].parse().unwrap()
}

#[test]
fn io_nodes_sit_on_rail_0_only() {
    for attach in [IoAttach::Edge, IoAttach::IoEdge] {
        let t = Tsubame2 { io_nodes: 28, io_attach: attach, ..Tsubame2::default() };
        let g = tsubame2(&t).unwrap();
        g.check().unwrap();
        let io: Vec<_> = g.hosts.iter().filter(|h| h.name.starts_with("io")).collect();
        assert_eq!((g.hosts.len(), io.len()), (1408 + 28, 28), "{attach:?}");
        assert!(io.iter().all(|h| h.hcas.len() == 1 && rail_of_hca(&g, h.hcas[0]) == 0), "{attach:?}");
        assert_eq!(compute_hosts(&g).len(), 1408);
        assert!(compute_hosts(&g).iter().all(|&h| g.hosts[h].hcas.len() == 2 && !g.hosts[h].name.starts_with("io")));
        // Rail 1 is the fabric without them: as many switches and cables as before.
        let on_rail = |r: &str| g.nodes.iter().filter(|n| n.is_switch() && n.name.starts_with(r)).count();
        match attach {
            IoAttach::Edge => {
                assert_eq!(on_rail("r0-"), on_rail("r1-"));
                // Evenly over the edges, on the ports after the 16 hosts and 18 uplinks.
                for (i, h) in io.iter().enumerate() {
                    let p = g.peer(g.nodes[h.hcas[0]].first_port).unwrap();
                    assert_eq!((g.nodes[g.ports[p].node].name.clone(), g.ports[p].num), (format!("r0-L1-s{}", i * 88 / 28), 35));
                }
            }
            IoAttach::IoEdge => {
                assert_eq!(on_rail("r0-"), on_rail("r1-") + 2);
                for (name, hosts) in [("r0-L1-io0", 16), ("r0-L1-io1", 12)] {
                    let e = node(&g, name);
                    let cabled = g.nodes[e].ports().filter(|&p| g.ports[p].link.is_some()).count();
                    assert_eq!(cabled, hosts + 18, "{name}");
                }
            }
        }
        // Routable: every engine the study used finds a route to an I/O node and between
        // compute hosts on both rails.
        let routing = route(g, &Engine::parse_list("updn").unwrap(), &RouteOptions::default()).unwrap();
        assert!(routing.subnets.iter().all(|s| s.fallback.is_none()));
    }
}

#[test]
fn shuffled_guids_keep_their_prefix_and_offsets_and_differ_by_seed() {
    let base = tsubame2(&Tsubame2::default()).unwrap();
    let shuffled = |seed| tsubame2(&Tsubame2 { guid_seed: Some(seed), ..Tsubame2::default() }).unwrap();
    let (a, b) = (shuffled(1), shuffled(2));
    a.check().unwrap();
    let guids = |g: &FabricGraph| g.nodes.iter().map(|n| n.guid).collect::<Vec<_>>();
    assert!(guids(&a) == guids(&shuffled(1)), "one seed, one draw");
    assert!(guids(&a) != guids(&b) && guids(&a) != guids(&base));
    // The index parts are a permutation of the creation indices.
    let mut index: Vec<u64> = guids(&a).iter().map(|g| (g & 0xffff_ffff) >> 8).collect();
    index.sort_unstable();
    assert!(index.iter().copied().eq(0..a.nodes.len() as u64), "not a permutation");
    for (n, m) in a.nodes.iter().zip(base.nodes.iter()) {
        assert_eq!(n.guid >> 32, m.guid >> 32, "{}: vendor prefix kept", n.name);
        let offsets = |g: &FabricGraph, n: &rdmasim_core::fabric::graph::Node| n.ports().map(|p| g.ports[p].guid - n.guid).collect::<Vec<_>>();
        assert_eq!(offsets(&a, n), offsets(&base, m), "{}: port offsets kept", n.name);
    }
    // The LIDs stay in rack order unless lid_order says otherwise.
    assert!(a.nodes.iter().zip(base.nodes.iter()).all(|(n, m)| n.lid == m.lid));
}

#[test]
fn guid_order_numbers_each_rail_in_opensm_port_guid_order() {
    let g = tsubame2(&Tsubame2 { lid_order: LidOrder::Guid, guid_seed: Some(5), io_nodes: 4, ..Tsubame2::default() }).unwrap();
    g.check().unwrap();
    // Per rail: (LID, key) of every switch and HCA port; LIDs ascend with the key after the
    // subnet manager's (the rail's first node, its first director's leaf chip 0).
    let mut max_lid = 0;
    for rail in 0..2u16 {
        let prefix = format!("r{rail}-");
        let mut held: Vec<(u16, u64, String)> = Vec::new();
        for n in g.nodes.iter() {
            match n.kind {
                NodeKind::Switch if n.name.starts_with(&prefix) => held.push((n.lid, guid_key(n.guid), n.name.clone())),
                NodeKind::Ca { rail: r, .. } if r == rail => {
                    let p = n.first_port;
                    held.push((g.ports[p].lid, guid_key(g.ports[p].guid), n.name.clone()));
                }
                _ => {}
            }
        }
        held.sort();
        assert_eq!(held[0].2, format!("r{rail}-L2-core0-leaf0"), "the subnet manager's port first");
        assert!(held[0].0 > max_lid, "rail {rail} numbered after rail {}", rail.saturating_sub(1));
        assert!(held.windows(2).all(|w| w[1].0 == w[0].0 + 1), "rail {rail}: consecutive LIDs");
        assert!(held[1..].windows(2).all(|w| w[0].1 < w[1].1), "rail {rail}: LIDs in port-GUID order");
        max_lid = held.last().unwrap().0;
    }
    // Not rack order: host 0's rail-0 port is not LID 1, and the two rails' LID orders differ.
    let lid = |h: usize, r: usize| g.ports[g.nodes[g.hosts[rdmasim_core::ids::HostId::from(h)].hcas[r]].first_port].lid;
    assert_ne!(lid(0, 0), 1);
    let rank = |r: usize| {
        let mut v: Vec<usize> = (0..1408).collect();
        v.sort_by_key(|&h| lid(h, r));
        v
    };
    assert_ne!(rank(0), rank(1));
}

#[test]
fn bad_family_values_are_errors_naming_the_key() {
    let bad = |t: Tsubame2| tsubame2(&t).unwrap_err().0;
    let e = bad(Tsubame2 { io_nodes: 177, ..Tsubame2::default() });
    assert!(e.starts_with("io_nodes = 177: expected at most 176"), "{e}");
    // 80 edges of 4 cables fit 324 ports, but dealt over 18 chips 5 edges x 4 cables need 20 of a chip's 18.
    let e = bad(Tsubame2 { leaf_placement: LeafPlacement::Interleaved, hosts: 1280, cores_per_rail: 4, links_per_core: 4, ..Tsubame2::default() });
    assert!(e.starts_with("leaf_placement = interleaved"), "{e}");
    let e = bad(Tsubame2 { io_nodes: 400, io_attach: IoAttach::IoEdge, ..Tsubame2::default() });
    assert!(e.starts_with("director_ports = 324"), "{e}");
    let e = serde_json::from_str::<GeneratorSpec>(r#"{"kind":"tsubame2","leaf_placement":"same-board"}"#).unwrap_err().to_string();
    assert!(e.contains("unknown variant `same-board`") && e.contains("`spread`"), "{e}");
    let rails: GeneratorSpec = serde_json::from_str(r#"{"kind":"rails","of":{"kind":"tsubame2","hosts":32,"lid_order":"guid"}}"#).unwrap();
    let e = rails.build().unwrap_err().0;
    assert!(e.starts_with("rails.of.lid_order = guid"), "{e}");
    let rails: GeneratorSpec = serde_json::from_str(r#"{"kind":"rails","of":{"kind":"tsubame2","hosts":32,"guid_seed":3}}"#).unwrap();
    let e = rails.build().unwrap_err().0;
    assert!(e.starts_with("rails.of.guid_seed"), "{e}");
}

#[test]
fn the_rounds_run_jobs_on_the_compute_hosts_only() {
    let req = |io: usize| {
        format!(
            r#"{{"generator":{{"kind":"tsubame2","hosts":160,"io_nodes":{io}}},"route":"updn",
               "cases":[{{"kind":"random-pair","nodes":150,"up":150,"missing_seed":3,"seed":3,"bytes":1048576,"rails":2}}]}}"#
        )
    };
    let with: serde_json::Value = serde_json::from_str(&run_json(&req(8)).unwrap()).unwrap();
    let without: serde_json::Value = serde_json::from_str(&run_json(&req(0)).unwrap()).unwrap();
    let case = |v: &serde_json::Value| v["cases"][0].clone();
    // The I/O nodes are not drawn into the job (it would ask them for rail 1 and fail).
    assert_eq!(case(&with)["unroutable"], 0);
    assert!(case(&with)["fluid_s"].as_f64().unwrap() > 0.0 && case(&without)["fluid_s"].as_f64().unwrap() > 0.0);
}
