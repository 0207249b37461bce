//! Our routing engines against the real OpenSM: each fabric below is written as an ibsim net
//! file, routed by OpenSM 3.3 over ibsim for the engine, and OpenSM's dumped tables are
//! compared with ours on the same graph (same LIDs: OpenSM keeps the LIDs the net file gives
//! the ports). Identical entries, or where a choice depends on something we cannot see, the
//! same route count per port; docs/routing.md lists every remaining difference and its cause.
//! Skipped where the tools are not installed, but never in CI (common/opensm.rs).
mod common;
use common::opensm;
use rdmasim_core::fabric::build::GeneratorSpec;
use rdmasim_core::fabric::graph::{FabricGraph, LinkProps, LinkState, NodeKind};
use rdmasim_core::fabric::io::{guid2lid, ibsim_net, lfts_dump};
use rdmasim_core::fabric::lid_assign::assign_lids_opensm;
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use rdmasim_core::fabric::routing::compare::{compare, LftComparison};
use rdmasim_core::fabric::routing::{self, Engine, RouteOptions};
use rdmasim_core::ids::{LinkId, NodeId, PortId, TiVec};

/// A fabric to route, and the CA OpenSM runs on, which picks the subnet it manages.
pub struct Case {
    pub name: &'static str,
    pub graph: FabricGraph,
    pub sm_node: Option<String>,
}

fn spec(json: &str) -> GeneratorSpec {
    serde_json::from_str(json).unwrap()
}

fn links_between(g: &FabricGraph, a: &str, b: &str) -> Vec<LinkId> {
    let name = |p: PortId| g.nodes[g.ports[p].node].name.as_str();
    g.links
        .iter_enumerated()
        .filter(|(_, l)| {
            let [x, y] = l.ends;
            (name(x).contains(a) && name(y).contains(b)) || (name(x).contains(b) && name(y).contains(a))
        })
        .map(|(id, _)| id)
        .collect()
}

/// The fabrics of the cross-check: a 2-level and a 3-level fat tree, the latter with an
/// uplink missing and with a degraded link, one rail of a dual-rail fabric, and an irregular
/// fabric (a ring of switches with chords).
pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    v.push(Case { name: "ft2", graph: spec(r#"{"kind":"k-ary-n-tree","k":4,"n":2}"#).build().unwrap(), sm_node: None });
    let ft3 = spec(r#"{"kind":"fat-tree-k","k":8}"#).build().unwrap();
    v.push(Case { name: "ft3", graph: ft3.clone(), sm_node: None });
    let mut missing = ft3.clone();
    let up = links_between(&missing, "L1-s3", "L2-s")[1];
    missing.links[up].state = LinkState::Down;
    v.push(Case { name: "ft3-missing-uplink", graph: missing, sm_node: None });
    let mut degraded = ft3;
    let up = links_between(&degraded, "L2-s5", "L3-s")[0];
    degraded.links[up].speed = LinkSpeed { gen: LinkGen::Sdr, width: 1 };
    v.push(Case { name: "ft3-degraded", graph: degraded, sm_node: None });
    let rails = spec(r#"{"kind":"rails","rails":2,"of":{"kind":"fat-tree-k","k":6}}"#).build().unwrap();
    let rail1 = rails.nodes.iter().find(|n| matches!(n.kind, NodeKind::Ca { rail: 1, .. })).map(|n| n.name.clone());
    v.push(Case { name: "rail1-of-2", graph: rails, sm_node: rail1 });
    v.push(Case { name: "irregular", graph: irregular(), sm_node: None });
    v
}

/// Eight 8-port switches in a ring with two chords and a parallel link, two hosts on each.
fn irregular() -> FabricGraph {
    let mut g = irregular_without_lids(|i| i);
    g.assign_lids().unwrap();
    g
}

/// The ring, no LIDs yet; switch i gets GUID number `guid_of(i)`, so the GUID order need not
/// be the node order.
fn irregular_without_lids(guid_of: impl Fn(u64) -> u64) -> FabricGraph {
    let speed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
    let mut g = FabricGraph::new();
    let sw: Vec<_> = (0..8).map(|i| g.add_switch(format!("sw{i}"), 0x0008_f104_0400_0000 + guid_of(i) * 0x100, 8, speed).unwrap()).collect();
    let mut next_port = [1u16; 8];
    let mut cable = |g: &mut FabricGraph, a: usize, b: usize| {
        let pa = g.port_of(sw[a], next_port[a]).unwrap();
        let pb = g.port_of(sw[b], next_port[b]).unwrap();
        next_port[a] += 1;
        next_port[b] += 1;
        g.connect(pa, pb, LinkProps::new(speed, 3.0)).unwrap();
    };
    for i in 0..8 {
        cable(&mut g, i, (i + 1) % 8);
    }
    cable(&mut g, 0, 4);
    cable(&mut g, 2, 5);
    cable(&mut g, 1, 2);
    for i in 0..16 {
        let h = g.add_host(format!("h{i}"));
        let ca = g.add_hca(h, format!("h{i} mlx4_0"), 0x0002_c903_0001_0000 + i as u64 * 0x100, 1, speed).unwrap();
        let s = i / 2;
        let ps = g.port_of(sw[s], next_port[s]).unwrap();
        next_port[s] += 1;
        let pc = g.port_of(ca, 1).unwrap();
        g.connect(pc, ps, LinkProps::new(speed, 2.0)).unwrap();
    }
    g
}

/// Routes `case` with OpenSM and with ours; compares on the switches OpenSM routed.
pub fn cross_check(case: &Case, engine: Engine, extra: &[&str]) -> LftComparison {
    cross_check_with_run(case, engine, extra).0
}

/// [`cross_check`], with OpenSM's run (its log) for what the tables do not show.
pub fn cross_check_with_run(case: &Case, engine: Engine, extra: &[&str]) -> (LftComparison, opensm::OpensmRun) {
    let net = ibsim_net::write(&case.graph).unwrap();
    let run = opensm::route(&net, engine.name(), extra, case.name, case.sm_node.as_deref()).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let theirs = lfts_dump::read_for(&run.lfts_dump, "opensm-lfts.dump", &case.graph).unwrap();
    let ours = routing::route(case.graph.clone(), &[engine], &RouteOptions::default()).unwrap().fabric.lfts;
    // Only the subnet OpenSM managed: switches it wrote a table for.
    let mut g = case.graph.clone();
    let routed: Vec<bool> = g.nodes.iter_enumerated().map(|(id, _)| theirs.tables[id].iter().any(|&p| p != 255)).collect();
    for (id, n) in g.nodes.iter_mut_enumerated() {
        if n.is_switch() && !routed[usize::from(id)] {
            n.kind = NodeKind::Ca { host: 0usize.into(), rail: u16::MAX };
        }
    }
    (compare(&g, &ours, &theirs, 8), run)
}

#[test]
fn opensm_routes_every_case_and_its_tables_read_back() {
    if !opensm::available() {
        return;
    }
    for case in cases() {
        let net = ibsim_net::write(&case.graph).unwrap();
        let run = opensm::route(&net, "minhop", &[], case.name, case.sm_node.as_deref()).unwrap();
        assert!(run.log.contains("minhop tables configured on all switches"), "{}: {}", case.name, run.log);
        let lfts = lfts_dump::read_for(&run.lfts_dump, "opensm-lfts.dump", &case.graph).unwrap();
        let routed = case.graph.switches().filter(|&s| lfts.tables[s].iter().any(|&p| p != 255)).count();
        let expect = if case.sm_node.is_some() { case.graph.num_switches() / 2 } else { case.graph.num_switches() };
        assert_eq!(routed, expect, "{}: switches OpenSM routed", case.name);
    }
}

#[test]
fn opensm_assigns_lids_as_we_do() {
    if !opensm::available() {
        return;
    }
    // Switch GUIDs in another order than the nodes (and than the net file lists them).
    let bare = irregular_without_lids(|i| (i * 5 + 3) % 8);
    let run = opensm::route(&ibsim_net::write(&bare).unwrap(), "minhop", &[], "lids", None).unwrap();
    let text = std::fs::read_to_string(run.dir.join("guid2lid")).unwrap();
    let entries = guid2lid::read(&text, "guid2lid").unwrap();
    let theirs: std::collections::BTreeMap<u64, u16> = entries.iter().map(|&(guid, lid, _)| (guid, lid)).collect();
    let mut ours = bare.clone();
    assign_lids_opensm(&mut ours, &[]).unwrap();
    let mut mine = std::collections::BTreeMap::new();
    for (lid, node, port) in ours.lids() {
        mine.insert(port.map_or(ours.nodes[node].guid, |p| ours.ports[p].guid), lid);
    }
    assert_eq!(mine.len(), 8 + 16);
    assert_eq!(mine, theirs);
    // The file read back gives the fabric the same LIDs.
    let mut from_file = bare.clone();
    guid2lid::apply(&mut from_file, &entries, "guid2lid").unwrap();
    assert_eq!(from_file.lids(), ours.lids());
}

#[test]
fn sssp_matches_opensm() {
    if !opensm::available() {
        return;
    }
    for_each_case_in_parallel(|case| {
        let c = cross_check(case, Engine::Sssp, &[]);
        assert!(c.identical() && c.entries > 0, "{}: {c:?}", case.name);
    });
}

/// OpenSM keeps its switches in a map keyed by the GUID in network byte order, so the order
/// (which breaks sssp's ties) follows the byte-swapped GUID: here the irregular fabric with
/// GUIDs whose low byte falls as the high ones rise.
#[test]
fn sssp_orders_switches_as_opensm() {
    if !opensm::available() {
        return;
    }
    // Its own name: OpenSM's run directory and ibsim socket are named after the case.
    let mut case = Case { name: "irregular-guids", ..cases().pop().unwrap() };
    let switches: Vec<_> = case.graph.switches().collect();
    for (i, s) in switches.into_iter().enumerate() {
        case.graph.nodes[s].guid = 0x0008_f104_0400_0000 + (i as u64 % 3) * 0x10000 + (8 - i as u64);
    }
    let c = cross_check(&case, Engine::Sssp, &[]);
    assert!(c.identical(), "{c:?}");
}

/// Runs `check` on every case, each in its own thread (OpenSM runs go in parallel).
fn for_each_case_in_parallel(check: impl Fn(&Case) + Sync) {
    let cases = cases();
    std::thread::scope(|s| {
        for case in &cases {
            let check = &check;
            s.spawn(move || check(case));
        }
    });
}

/// OpenSM's "Virtual Lanes needed: N".
fn layers_needed(log: &str) -> Option<u8> {
    log.lines().find_map(|l| l.split("Virtual Lanes needed: ").nth(1)).and_then(|n| n.trim().parse().ok())
}

#[test]
fn dfsssp_matches_opensm() {
    if !opensm::available() {
        return;
    }
    for_each_case_in_parallel(|case| {
        let (c, run) = cross_check_with_run(case, Engine::Dfsssp, &[]);
        assert!(c.identical() && c.entries > 0, "{}: {c:?}", case.name);
        assert!(run.log.contains("dfsssp tables configured on all switches"), "{}", case.name);
        // The fat trees need one layer, the ring with chords two (ours on the single-subnet
        // fabrics: virtual_layers takes one subnet).
        let expect = if case.name == "irregular" { 2 } else { 1 };
        assert_eq!(layers_needed(&run.log), Some(expect), "{}", case.name);
        if case.sm_node.is_none() {
            let ours = routing::dfsssp::virtual_layers(&case.graph, 8).unwrap();
            assert_eq!(ours.layers.needed, expect, "{}", case.name);
        }
    });
}

/// Cables `(a, b)` in order, each on the next free port of both nodes.
fn cable_in_order(g: &mut FabricGraph, cables: &[(NodeId, NodeId)]) {
    let speed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
    let mut used: TiVec<NodeId, u16> = g.nodes.keys().map(|_| 0).collect();
    for &(a, b) in cables {
        used[a] += 1;
        used[b] += 1;
        let (pa, pb) = (g.port_of(a, used[a]).unwrap(), g.port_of(b, used[b]).unwrap());
        g.connect(pa, pb, LinkProps::new(speed, 3.0)).unwrap();
    }
}

/// `switches` switches of `radix` ports (GUIDs `guid_step` apart) cabled as `links` gives
/// (switch, switch) pairs, then one HCA on every switch `host_of(i)` for hosts `0..hosts`.
fn switch_graph(name: &str, switches: usize, radix: u16, guid_step: u64, links: &[(usize, usize)], hosts: usize, host_of: impl Fn(usize) -> usize) -> FabricGraph {
    let speed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
    let mut g = FabricGraph::new();
    let sw: Vec<_> = (0..switches).map(|i| g.add_switch(format!("{name}{i}"), 0x0008_f104_0500_0000 + i as u64 * guid_step, radix, speed).unwrap()).collect();
    let mut cables: Vec<(NodeId, NodeId)> = links.iter().map(|&(a, b)| (sw[a], sw[b])).collect();
    for i in 0..hosts {
        let h = g.add_host(format!("{name}h{i}"));
        let ca = g.add_hca(h, format!("{name}h{i} mlx4_0"), 0x0002_c903_0002_0000 + i as u64 * 0x100, 1, speed).unwrap();
        cables.push((ca, sw[host_of(i)]));
    }
    cable_in_order(&mut g, &cables);
    g.assign_lids().unwrap();
    g
}

/// A 4 x 4 torus of 8-port switches, a host on each: dfsssp needs three layers.
fn torus() -> FabricGraph {
    let n = 4;
    let links: Vec<_> = (0..n * n).flat_map(|i| [(i, i / n * n + (i + 1) % n), (i, (i + n) % (n * n))]).collect();
    switch_graph("t", n * n, 8, 0x100, &links, n * n, |i| i)
}

/// Thirty 12-port switches, each cabled to the ones 1, 7 and 11 further round, two hosts on
/// each (host i on switch 7i mod 30): dfsssp needs four layers. GUIDs 0x10203 apart, so that
/// OpenSM's switch order (byte-swapped GUID) is not the GUID order.
fn circulant() -> FabricGraph {
    let n = 30;
    let links: Vec<_> = (0..n).flat_map(|i| [1, 7, 11].map(|d| (i, (i + d) % n))).collect();
    switch_graph("c", n, 12, 0x10203, &links, 2 * n, |i| i * 7 % n)
}

/// OpenSM's debug log prints the SL of every (source, destination) pair after balancing (the
/// first lane of the pair's layer): ours equal it pair for pair on the irregular fabric (two
/// layers), a torus (three) and a circulant graph (four, after many cuts).
#[test]
fn dfsssp_layers_match_opensm() {
    if !opensm::available() {
        return;
    }
    let irregular = Case { name: "irregular-debug", ..cases().pop().unwrap() };
    let torus = Case { name: "torus", graph: torus(), sm_node: None };
    let circulant = Case { name: "circulant", graph: circulant(), sm_node: None };
    let fabrics = [(irregular, 2, vec![508, 44]), (torus, 3, vec![908, 77, 7]), (circulant, 4, vec![6770, 998, 240, 2])];
    for (case, layers, per_layer) in fabrics {
        let (c, run) = cross_check_with_run(&case, Engine::Dfsssp, &["-D", "0x4b"]);
        assert!(c.identical(), "{}: {c:?}", case.name);
        let ours = routing::dfsssp::virtual_layers(&case.graph, 8).unwrap();
        assert_eq!((layers_needed(&run.log), ours.layers.needed), (Some(layers), layers), "{}", case.name);
        assert_eq!(ours.layers.paths[..usize::from(layers)], per_layer[..], "{}", case.name);
        let sls = ours.group_sls();
        let mut pairs = 0;
        for line in run.log.lines() {
            let Some(rest) = line.split("route from src_lid=").nth(1) else { continue };
            let n: Vec<u16> = rest.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
            assert_eq!(sls.get(n[0], n[1]), n[2] as u8, "{}: SL of {} -> {}", case.name, n[0], n[1]);
            pairs += 1;
        }
        let lids = case.graph.lids().len();
        assert_eq!(pairs, lids * (lids - 1), "{}: pairs in OpenSM's log", case.name);
    }
}
