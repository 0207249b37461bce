//! Pins the fabric generators and routing engines: sizes per generator, every host pair
//! routed on a shortest path with no loop, d-mod-k's spread over up ports, DOR hop counts on
//! the hyper-crossbar, the scenario spec, and parameter errors that name the parameter.
use rdmasim_core::fabric::build::*;
use rdmasim_core::fabric::generate::generate;
use rdmasim_core::fabric::graph::{FabricGraph, Lfts, NodeKind, NO_LID};
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use rdmasim_core::fabric::routing::{dmodk, dor, minhop_mod, path::trace};
use rdmasim_core::ids::{HostId, NodeId, PortId, TiVec};
use std::time::Instant;

fn qdr() -> LinkSpeed {
    LinkSpeed { gen: LinkGen::Qdr, width: 4 }
}

/// (hosts, switches, links), after checking names, GUIDs and LIDs are unique.
fn sizes(g: &FabricGraph) -> (usize, usize, usize) {
    g.check().unwrap();
    (g.hosts.len(), g.num_switches(), g.links.len())
}

/// The HCA port of `host` on `rail` (its first port).
fn hca_port(g: &FabricGraph, host: HostId, rail: usize) -> PortId {
    g.nodes[g.hosts[host].hcas[rail]].first_port
}

/// Switches crossed on a shortest path from `from_switch` (counted as 1) to every switch.
fn switch_distances(g: &FabricGraph, from_switch: NodeId) -> TiVec<NodeId, u32> {
    let mut dist: TiVec<NodeId, u32> = TiVec::from(vec![u32::MAX; g.nodes.len()]);
    dist[from_switch] = 1;
    let mut queue = vec![from_switch];
    let mut head = 0;
    while head < queue.len() {
        let s = queue[head];
        head += 1;
        for p in g.nodes[s].ports() {
            let Some(q) = g.peer_up(p) else { continue };
            let n = g.ports[q].node;
            if g.nodes[n].is_switch() && dist[n] == u32::MAX {
                dist[n] = dist[s] + 1;
                queue.push(n);
            }
        }
    }
    dist
}

/// From each of `sources`, on every rail, to every other host on that rail: the tables lead
/// there without a loop, across as few switches as the graph allows. Returns the pairs checked.
fn assert_routed_shortest(g: &FabricGraph, lfts: &Lfts, sources: impl Iterator<Item = HostId>) -> usize {
    let mut pairs = 0;
    for src in sources {
        for rail in 0..g.hosts[src].hcas.len() {
            let from = hca_port(g, src, rail);
            let first = g.ports[g.peer_up(from).unwrap()].node;
            // HCA to HCA (back to back): nothing in between.
            let dist = if g.nodes[first].is_switch() { switch_distances(g, first) } else { TiVec::from(vec![0; g.nodes.len()]) };
            for dst in g.hosts.keys().filter(|&d| d != src) {
                let to = hca_port(g, dst, rail);
                let lid = g.ports[to].lid;
                let crossed = trace(g, lfts, from, lid).unwrap_or_else(|e| panic!("{} -> {}: {e}", g.hosts[src].name, g.hosts[dst].name));
                let dst_switch = g.ports[g.peer_up(to).unwrap()].node;
                assert_eq!(crossed.len() as u32, dist[dst_switch], "{} -> {} on rail {rail}: not a shortest path", g.hosts[src].name, g.hosts[dst].name);
                pairs += 1;
            }
        }
    }
    pairs
}

/// Every switch routes its own LID to port 0.
fn assert_own_lids_to_port_0(g: &FabricGraph, lfts: &Lfts) {
    for sw in g.switches() {
        assert_eq!(lfts.route(sw, g.nodes[sw].lid), Some(0), "{}", g.nodes[sw].name);
    }
}

fn node(g: &FabricGraph, name: &str) -> NodeId {
    g.nodes.iter_enumerated().find(|(_, n)| n.name == name).map(|(id, _)| id).unwrap_or_else(|| panic!("no node {name:?}"))
}

/// Per port of switch `sw` in `ports`, how many host LIDs it forwards there.
fn lids_per_port(g: &FabricGraph, lfts: &Lfts, sw: NodeId, ports: std::ops::RangeInclusive<u8>) -> Vec<usize> {
    let host_lids: Vec<u16> = g.hosts.iter().flat_map(|h| h.hcas.iter().map(|&ca| g.ports[g.nodes[ca].first_port].lid)).collect();
    ports.map(|p| host_lids.iter().filter(|&&lid| lfts.route(sw, lid) == Some(p)).count()).collect()
}

#[test]
fn back_to_back_is_two_hcas_on_one_cable_with_lids_1_and_2() {
    let g = back_to_back(qdr(), 3.0).unwrap();
    assert_eq!(sizes(&g), (2, 0, 1));
    assert_eq!(g.nodes[g.hosts[HostId(1)].hcas[0]].name, "h1 mlx4_0");
    assert_eq!([hca_port(&g, HostId(0), 0), hca_port(&g, HostId(1), 0)].map(|p| g.ports[p].lid), [1, 2]);
    assert_eq!(g.links[rdmasim_core::ids::LinkId(0)].length_m, 3.0);
    let lfts = dmodk::route(&g).unwrap();
    assert_eq!(assert_routed_shortest(&g, &lfts, g.hosts.keys()), 2);
}

#[test]
fn single_switch_keeps_the_engines_lids_and_ports() {
    let g = single_switch(8, Some(36), qdr(), 2.0).unwrap();
    assert_eq!(sizes(&g), (8, 1, 8));
    let sw = node(&g, "r0-L1-s0");
    assert_eq!(g.nodes[sw].num_ports, 36);
    assert_eq!(g.nodes[sw].lid, 9, "switch LID = hosts + 1");
    let lfts = dmodk::route(&g).unwrap();
    for h in 0..8u16 {
        let p = hca_port(&g, HostId(h.into()), 0);
        assert_eq!(g.ports[p].lid, h + 1, "host LID = index + 1");
        assert_eq!(g.ports[g.peer(p).unwrap()].num, h + 1, "host h on switch port h + 1");
        assert_eq!(lfts.route(sw, h + 1), Some(h as u8 + 1));
    }
    assert_own_lids_to_port_0(&g, &lfts);
    assert_eq!(single_switch(4, None, qdr(), 2.0).unwrap().nodes.iter().find(|n| n.is_switch()).unwrap().num_ports, 4, "radix defaults to the ports used");
}

#[test]
fn fat_tree_k16_is_htsims_1024_hosts_320_switches_3072_links_all_routed() {
    let g = fat_tree_k(16, qdr(), 2.0).unwrap();
    assert_eq!(sizes(&g), (1024, 320, 3072));
    // 128 edge, 128 aggregation, 64 core switches, every one with 16 ports.
    let per_level = |l: u32| g.nodes.iter().filter(|n| n.name.starts_with(&format!("r0-L{l}-"))).count();
    assert_eq!([per_level(1), per_level(2), per_level(3)], [128, 128, 64]);
    assert!(g.switches().all(|s| g.nodes[s].num_ports == 16));
    let lfts = dmodk::route(&g).unwrap();
    assert_own_lids_to_port_0(&g, &lfts);
    assert_eq!(assert_routed_shortest(&g, &lfts, g.hosts.keys()), 1024 * 1023);
}

#[test]
fn k_ary_n_trees_have_k_pow_n_hosts_and_n_k_pow_n_minus_1_switches() {
    for (k, n, switches) in [(2u16, 2u16, 4usize), (4, 2, 8), (4, 3, 48), (3, 3, 27)] {
        let g = k_ary_n_tree(k, n, qdr(), 2.0).unwrap();
        let hosts = usize::from(k).pow(n.into());
        assert_eq!(sizes(&g), (hosts, switches, hosts * usize::from(n)), "{k}-ary {n}-tree");
        let lfts = dmodk::route(&g).unwrap();
        assert_own_lids_to_port_0(&g, &lfts);
        assert_routed_shortest(&g, &lfts, g.hosts.keys());
    }
}

#[test]
fn dmodk_spreads_each_switchs_destinations_evenly_over_its_up_ports() {
    // 4-ary 3-tree: 64 hosts, switches of 4 down (ports 1-4) and 4 up (ports 5-8) ports.
    let g = k_ary_n_tree(4, 3, qdr(), 2.0).unwrap();
    let lfts = dmodk::route(&g).unwrap();
    // Edge s0 has hosts 0-3 below it; the 60 others go up, D mod 4 each: 15 per port.
    let edge = node(&g, "r0-L1-s0");
    assert_eq!(lids_per_port(&g, &lfts, edge, 1..=4), [1, 1, 1, 1]);
    assert_eq!(lids_per_port(&g, &lfts, edge, 5..=8), [15, 15, 15, 15]);
    for d in 4..64u16 {
        assert_eq!(lfts.route(edge, d + 1), Some(5 + (d % 4) as u8), "edge: host {d} goes up port D mod 4");
    }
    // An aggregation switch of pod 0 reaches its pod's 16 hosts down and sends the other 48 up
    // by floor(D / 4) mod 4: 12 per port.
    let agg = node(&g, "r0-L2-s0");
    assert_eq!(lids_per_port(&g, &lfts, agg, 5..=8), [12, 12, 12, 12]);
    for d in 16..64u16 {
        assert_eq!(lfts.route(agg, d + 1), Some(5 + (d / 4 % 4) as u8), "aggregation: host {d} goes up port floor(D/4) mod 4");
    }
}

#[test]
fn oversubscribed_xgft_routes_every_pair() {
    // XGFT(2; 4, 4; 1, 2): 4 edges of 4 hosts, 2 top switches: 2:1 oversubscribed.
    let g = xgft(&[4, 4], &[1, 2], qdr(), 2.0).unwrap();
    assert_eq!(sizes(&g), (16, 6, 16 + 4 * 2));
    let lfts = dmodk::route(&g).unwrap();
    assert_routed_shortest(&g, &lfts, g.hosts.keys());
    assert_eq!(lids_per_port(&g, &lfts, node(&g, "r0-L1-s0"), 5..=6), [6, 6]);
    // Hosts with two-port HCAs (w1 = 2): each port its own LID and edge switch.
    let g2 = xgft(&[2, 2], &[2, 2], qdr(), 2.0).unwrap();
    assert_eq!(sizes(&g2), (4, 4 + 4, 4 * 2 + 4 * 2));
    let lfts2 = dmodk::route(&g2).unwrap();
    assert_routed_shortest(&g2, &lfts2, g2.hosts.keys());
}

#[test]
fn directors_are_two_level_clos_of_36_port_chips() {
    for (ports, leaves) in [(324u16, 18usize), (648, 36)] {
        let g = single_rail(&Director { ports, ..Director::default() }).unwrap();
        assert_eq!(sizes(&g), (usize::from(ports), leaves + 18, usize::from(ports) + leaves * 18), "{ports}-port director");
        assert!(g.switches().all(|s| g.nodes[s].num_ports == 36));
        let lfts = dmodk::route(&g).unwrap();
        assert_own_lids_to_port_0(&g, &lfts);
        // Hosts on one leaf chip cross 1 chip, others 3.
        assert_routed_shortest(&g, &lfts, [0usize, 17, 18, usize::from(ports) - 1].into_iter().map(HostId::from));
    }
}

#[test]
fn rails_are_independent_copies_with_one_hca_per_host_per_rail() {
    let tree = FatTree { k: 4, speed: qdr(), cable_m: 2.0 }.to_xgft().unwrap();
    let g = rails(&tree, 2).unwrap();
    assert_eq!(sizes(&g), (16, 2 * 20, 2 * 48));
    assert_eq!(g.nodes[g.hosts[HostId(3)].hcas[1]].name, "h3 mlx4_1");
    assert!(g.hosts.iter().all(|h| h.hcas.len() == 2));
    assert_eq!((0..16).map(|h| g.ports[hca_port(&g, HostId(h), 1)].lid).collect::<Vec<_>>(), (17..=32).collect::<Vec<u16>>(), "rail 1's hosts follow rail 0's");
    assert!(g.nodes.iter().any(|n| n.name == "r1-L3-s3"));
    let lfts = dmodk::route(&g).unwrap();
    assert_routed_shortest(&g, &lfts, g.hosts.keys());
    // No route leads from one rail into the other.
    let r0_edge = node(&g, "r0-L1-s0");
    assert_eq!(lfts.route(r0_edge, 17), None);
    // Rail 1 spreads exactly like rail 0 (d-mod-k ranks within each rail).
    let r1_edge = node(&g, "r1-L1-s0");
    assert_eq!(lids_per_port(&g, &lfts, r1_edge, 3..=4), lids_per_port(&g, &lfts, r0_edge, 3..=4));
}

#[test]
fn tsubame2_has_1408_hosts_on_two_rails_of_88_edges_and_6_directors() {
    let t0 = Instant::now();
    let g = tsubame2(&Tsubame2::default()).unwrap();
    let built = t0.elapsed();
    let lfts = dmodk::route(&g).unwrap();
    let routed = t0.elapsed();
    println!("tsubame2: build {built:?}, build + d-mod-k {routed:?} ({} nodes, {} LIDs); run with --release for the real figure", g.nodes.len(), g.max_lid());
    // Per rail: 88 edges + 6 directors x (18 leaf + 18 spine chips) = 304 switches; 1408 host
    // links + 88 x 18 uplinks + 6 x 324 chassis links = 4936 links.
    assert_eq!(sizes(&g), (1408, 2 * 304, 2 * 4936));
    let edges: Vec<NodeId> = g.switches().filter(|&s| g.nodes[s].name.starts_with("r0-L1-s")).collect();
    assert_eq!(edges.len(), 88);
    for &e in &edges {
        let cabled = g.nodes[e].ports().filter(|&p| g.ports[p].link.is_some()).count();
        assert_eq!((g.nodes[e].num_ports, cabled), (36, 16 + 18), "{}", g.nodes[e].name);
    }
    assert!(g.hosts.iter().all(|h| h.hcas.len() == 2));
    assert_own_lids_to_port_0(&g, &lfts);
    let pairs = assert_routed_shortest(&g, &lfts, (0..1408).step_by(37).map(HostId::from));
    assert_eq!(pairs, 39 * 1407 * 2);
    // An edge's 1392 remote destinations spread over its 18 up ports within one of each other.
    let spread = lids_per_port(&g, &lfts, edges[0], 17..=34);
    assert_eq!(spread.iter().sum::<usize>(), 1392);
    assert!(spread.iter().max().unwrap() - spread.iter().min().unwrap() <= 1, "{spread:?}");
}

#[test]
fn hyperx_4x4x4_dor_relays_once_per_differing_dimension() {
    let spec = HyperX::default();
    let g = hyperx(&spec).unwrap();
    assert_eq!(sizes(&g), (64, 48, 64 * 3));
    assert_eq!(g.nodes[g.hosts[HostId(5)].hcas[2]].name, "h5 mlx4_2");
    assert!(g.nodes.iter().any(|n| n.name == "hxb-Z-x3-y2"));
    let lfts = dor::route(&g).unwrap();
    assert_own_lids_to_port_0(&g, &lfts);
    for src in g.hosts.keys() {
        for dst in g.hosts.keys() {
            let hops = dor::dor_path(spec.dims, src, dst);
            let differing = (0..3).filter(|&d| hyperx::coords(spec.dims, src)[d] != hyperx::coords(spec.dims, dst)[d]).count();
            assert_eq!(hops.len(), differing, "{src} -> {dst}");
            assert!(hops.windows(2).all(|w| w[0].dim < w[1].dim), "X before Y before Z");
            let mut at = src;
            for hop in &hops {
                // One crossbar from this host's HCA of the hop's dimension to the next host's.
                let to_lid = g.ports[hca_port(&g, hop.to, hop.dim)].lid;
                assert_eq!(trace(&g, &lfts, hca_port(&g, at, hop.dim), to_lid).unwrap().len(), 1);
                at = hop.to;
            }
            assert_eq!(at, dst);
        }
    }
    // A crossbar does not know LIDs off its row: (0,0,0) -> (1,1,0) needs a relay.
    let x_row = node(&g, "hxb-X-y0-z0");
    assert_eq!(lfts.route(x_row, g.ports[hca_port(&g, hyperx::host_at(spec.dims, [1, 1, 0]), 0)].lid), None);
    assert_eq!(dor::dor_next_hop(spec.dims, HostId(0), hyperx::host_at(spec.dims, [1, 1, 0])), Some(dor::DorHop { dim: 0, to: HostId(1) }));
}

#[test]
fn pacs_cs_16x16x10_with_two_links_per_dimension() {
    // PACS-CS: 2560 nodes on a 16 x 16 x 10 hyper-crossbar, 2 links per dimension (seeds/003: GigaE x 6).
    let spec = HyperX { dims: [16, 16, 10], links_per_dim: 2, ..HyperX::default() };
    let g = hyperx(&spec).unwrap();
    assert_eq!(sizes(&g), (2560, 160 + 160 + 256, 2560 * 3 * 2));
    assert_eq!(spec.num_switches(), 576);
    let z_row = node(&g, "hxb-Z-x0-y0");
    assert_eq!(g.nodes[z_row].num_ports, 20);
    let lfts = dor::route(&g).unwrap();
    let far = hyperx::host_at(spec.dims, [15, 15, 9]);
    let hops = dor::dor_path(spec.dims, HostId(0), far);
    assert_eq!(hops.iter().map(|h| h.dim).collect::<Vec<_>>(), [0, 1, 2]);
    let mut at = HostId(0);
    for hop in hops {
        // Both trunk ports of the HCA reach the next host.
        let ca = g.hosts[at].hcas[hop.dim];
        for p in g.nodes[ca].ports() {
            let to = g.ports[g.nodes[g.hosts[hop.to].hcas[hop.dim]].first_port].lid;
            assert_eq!(trace(&g, &lfts, p, to).unwrap().len(), 1);
        }
        at = hop.to;
    }
}

#[test]
fn minhop_mod_takes_the_closer_port_at_lid_mod_count() {
    let g = k_ary_n_tree(4, 3, qdr(), 2.0).unwrap();
    let lfts = minhop_mod::route(&g).unwrap();
    assert_own_lids_to_port_0(&g, &lfts);
    assert_routed_shortest(&g, &lfts, g.hosts.keys());
    let edge = node(&g, "r0-L1-s0");
    for lid in 5..=64u16 {
        assert_eq!(lfts.route(edge, lid), Some(5 + (lid % 4) as u8));
    }
    // It also routes the trees d-mod-k routes, and the hyper-crossbar's rows.
    let t = tsubame2(&Tsubame2 { hosts: 64, rails: 1, ..Tsubame2::default() }).unwrap();
    let tl = minhop_mod::route(&t).unwrap();
    assert_routed_shortest(&t, &tl, t.hosts.keys());
}

#[test]
fn generator_specs_parse_from_toml_with_defaults_and_reject_unknown_fields() {
    let spec: GeneratorSpec = toml::from_str("kind = \"fat-tree-k\"\nk = 4").unwrap();
    assert_eq!(spec, GeneratorSpec::FatTreeK(FatTree { k: 4, speed: qdr(), cable_m: 2.0 }));
    let err = toml::from_str::<GeneratorSpec>("kind = \"fat-tree-k\"\nk = 4\nradix = 8").unwrap_err().to_string();
    assert!(err.contains("unknown field"), "{err}");
    let spec: GeneratorSpec = toml::from_str("kind = \"rails\"\n[of]\nkind = \"k-ary-n-tree\"\nk = 2\nn = 2\nspeed = { gen = \"edr\", width = 4 }").unwrap();
    let f = generate(&spec).unwrap();
    assert_eq!(sizes(&f.graph), (4, 8, 16));
    assert_eq!(f.graph.links[rdmasim_core::ids::LinkId(0)].speed, LinkSpeed { gen: LinkGen::Edr, width: 4 });
    for text in [
        "kind = \"back-to-back\"",
        "kind = \"single-switch\"\nhosts = 4",
        "kind = \"xgft\"\nm = [2, 2]\nw = [1, 2]",
        "kind = \"director\"",
        "kind = \"tsubame2\"\nhosts = 96",
        "kind = \"hyperx\"\ndims = [2, 3, 2]",
    ] {
        let spec: GeneratorSpec = toml::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let f = generate(&spec).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_own_lids_to_port_0(&f.graph, &f.lfts);
        if !matches!(spec, GeneratorSpec::Hyperx(_)) {
            assert_routed_shortest(&f.graph, &f.lfts, f.graph.hosts.keys().take(4));
        }
    }
}

#[test]
fn bad_parameters_are_errors_naming_the_parameter() {
    let cases: Vec<(Result<FabricGraph, _>, &str)> = vec![
        (fat_tree_k(5, qdr(), 2.0), "k = 5"),
        (k_ary_n_tree(4, 0, qdr(), 2.0), "n = 0"),
        (xgft(&[4, 4], &[1], qdr(), 2.0), "w = [1]"),
        (xgft(&[200, 2], &[1, 100], qdr(), 2.0), "m[0] + w[1]"),
        (single_switch(8, Some(4), qdr(), 2.0), "radix = 4"),
        (back_to_back(qdr(), -1.0), "cable_m = -1"),
        (single_rail(&Director { ports: 100, ..Director::default() }), "ports = 100"),
        (tsubame2(&Tsubame2 { edge_radix: 24, ..Tsubame2::default() }), "edge_radix = 24"),
        (tsubame2(&Tsubame2 { rails: 0, ..Tsubame2::default() }), "rails = 0"),
        (hyperx(&HyperX { dims: [4, 1, 4], ..HyperX::default() }), "dims[1] = 1"),
        (hyperx(&HyperX { dims: [200, 2, 2], links_per_dim: 2, ..HyperX::default() }), "dims[0] x links_per_dim"),
    ];
    for (r, want) in cases {
        let err = r.expect_err(want).0;
        assert!(err.contains(want), "{err:?} should name {want:?}");
    }
}

#[test]
fn builds_are_deterministic() {
    let a = tsubame2(&Tsubame2 { hosts: 200, ..Tsubame2::default() }).unwrap();
    let b = tsubame2(&Tsubame2 { hosts: 200, ..Tsubame2::default() }).unwrap();
    assert!(a.nodes.iter().zip(&b.nodes).all(|(x, y)| x.name == y.name && x.guid == y.guid && x.lid == y.lid));
    assert_eq!(dmodk::route(&a).unwrap().tables, dmodk::route(&b).unwrap().tables);
    // Port GUIDs are unique too (an HCA's ports are its node GUID + port number).
    let mut guids: Vec<u64> = a.ports.iter().filter(|p| !a.nodes[p.node].is_switch()).map(|p| p.guid).collect();
    guids.extend(a.nodes.iter().map(|n| n.guid));
    let n = guids.len();
    guids.sort_unstable();
    guids.dedup();
    assert_eq!(guids.len(), n);
    assert!(a.nodes.iter().all(|n| matches!(n.kind, NodeKind::Switch) || a.ports[n.first_port].lid != NO_LID));
}
