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
use rdmasim_core::fabric::io::{ibsim_net, lfts_dump};
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use rdmasim_core::fabric::routing::compare::{compare, LftComparison};
use rdmasim_core::fabric::routing::{self, Engine, RouteOptions};
use rdmasim_core::ids::{LinkId, PortId};

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
    let speed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
    let mut g = FabricGraph::new();
    let sw: Vec<_> = (0..8).map(|i| g.add_switch(format!("sw{i}"), 0x0008_f104_0400_0000 + i as u64 * 0x100, 8, speed).unwrap()).collect();
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
    g.assign_lids().unwrap();
    g
}

/// Routes `case` with OpenSM and with ours; compares on the switches OpenSM routed.
pub fn cross_check(case: &Case, engine: Engine, extra: &[&str]) -> LftComparison {
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
    compare(&g, &ours, &theirs, 8)
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

/// minhop is OpenSM's own choice rule and order: every entry of every case equals OpenSM's.
#[test]
fn minhop_tables_equal_opensm_entry_by_entry() {
    if !opensm::available() {
        return;
    }
    for mut case in cases() {
        // Not the name opensm_routes_every_case_and_its_tables_read_back runs minhop under:
        // common/opensm.rs names a run's directory and ibsim socket by case and engine.
        case.name = Box::leak(format!("{}-minhop", case.name).into_boxed_str());
        let c = cross_check(&case, Engine::Minhop, &[]);
        assert!(c.entries > 0, "{}: nothing compared", case.name);
        assert!(c.identical(), "{}: {c}", case.name);
    }
}

/// updn with the roots OpenSM detects (the top switches of the fat trees; none on the
/// irregular ring, where both fall back to minhop): every entry equals OpenSM's.
#[test]
fn updn_tables_equal_opensm_entry_by_entry() {
    if !opensm::available() {
        return;
    }
    for case in cases() {
        let c = cross_check(&case, Engine::Updn, &[]);
        assert!(c.entries > 0, "{}: nothing compared", case.name);
        assert!(c.identical(), "{}: {c}", case.name);
    }
}

/// updn on one subnet with `roots` given by name (to OpenSM as `-a`, a file of their GUIDs):
/// the comparison with OpenSM's tables, the engine OpenSM's log says configured them, and
/// the engine ours used.
fn updn_against_opensm(name: &str, g: &FabricGraph, roots: &[&str]) -> (LftComparison, &'static str, Engine) {
    let mut extra = Vec::new();
    let file = std::env::temp_dir().join(format!("rdmasim-updn-roots-{}-{name}", std::process::id()));
    if !roots.is_empty() {
        let guids: String = roots.iter().map(|r| format!("{:#018x}\n", g.nodes.iter().find(|n| n.name == *r).unwrap().guid)).collect();
        std::fs::write(&file, guids).unwrap();
        extra = vec!["-a".to_string(), file.display().to_string()];
    }
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let run = opensm::route(&ibsim_net::write(g).unwrap(), "updn", &extra, name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    let _ = std::fs::remove_file(&file);
    let theirs = lfts_dump::read_for(&run.lfts_dump, "opensm-lfts.dump", g).unwrap();
    let opts = RouteOptions { roots: roots.iter().map(|r| r.to_string()).collect(), ..RouteOptions::default() };
    let ours = routing::route(g.clone(), &[Engine::Updn], &opts).unwrap();
    let configured = ["updn", "minhop"].into_iter().find(|e| run.log.contains(&format!("{e} tables configured on all switches"))).unwrap_or("none");
    (compare(g, &ours.fabric.lfts, &theirs, 8), configured, ours.subnets[0].used)
}

/// Roots given, including the fabric where OpenSM's BFS queues a switch again in a new
/// direction and writes a path that turns up after down (tests/data/routing/updn-requeue.net)
/// and a 3-level fat tree ranked from two of its middle switches; with none given on the
/// ring, both detect none and fall back to minhop.
#[test]
fn updn_with_given_roots_equals_opensm() {
    if !opensm::available() {
        return;
    }
    let quirk = ibsim_net::read(include_str!("data/routing/updn-requeue.net"), "updn-requeue.net").unwrap();
    let by_name = |name: &str| cases().into_iter().find(|c| c.name == name).unwrap().graph;
    let runs: [(&str, FabricGraph, &[&str], &str); 4] = [
        ("updn-requeue", quirk, &["sw0"], "updn"),
        ("irregular-roots", by_name("irregular"), &["sw0", "sw3"], "updn"),
        ("irregular-none", by_name("irregular"), &[], "minhop"),
        ("ft3-middle-roots", by_name("ft3"), &["r0-L2-s0", "r0-L2-s5"], "updn"),
    ];
    for (name, g, roots, engine) in runs {
        let (c, configured, used) = updn_against_opensm(name, &g, roots);
        assert_eq!((configured, used.name()), (engine, engine), "{name}");
        assert!(c.entries > 0 && c.identical(), "{name}: {c}");
    }
}
