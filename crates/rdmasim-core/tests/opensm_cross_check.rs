//! Our routing engines against the real OpenSM: each fabric below is written as an ibsim net
//! file, routed by OpenSM 3.3 over ibsim for the engine, and OpenSM's dumped tables are
//! compared with ours on the same graph (same LIDs: OpenSM keeps the LIDs the net file gives
//! the ports). Identical entries, or where a choice depends on something we cannot see, the
//! same route count per port; docs/routing.md lists every remaining difference and its cause.
//! Skipped where the tools are not installed, but never in CI (common/opensm.rs).
mod common;
use common::opensm;
use rdmasim_core::fabric::build::GeneratorSpec;
use rdmasim_core::fabric::graph::{FabricGraph, GraphError, LinkProps, LinkState, NodeKind};
use rdmasim_core::fabric::io::{ibsim_net, lfts_dump};
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use rdmasim_core::fabric::routing::compare::{compare, LftComparison};
use rdmasim_core::fabric::routing::{self, ftree, Engine, RouteOptions};
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
    let (ours, _) = cross_check_logged(case, engine, extra, &RouteOptions::default());
    ours.unwrap_or_else(|e| panic!("{}: {e}", case.name))
}

/// [`cross_check`] with our options `opts` (to match OpenSM's `extra`), and OpenSM's log; the
/// comparison is an error when our routing fails (an engine not built yet).
pub fn cross_check_logged(case: &Case, engine: Engine, extra: &[&str], opts: &RouteOptions) -> (Result<LftComparison, GraphError>, String) {
    let net = ibsim_net::write(&case.graph).unwrap();
    let run = opensm::route(&net, engine.name(), extra, case.name, case.sm_node.as_deref()).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let theirs = lfts_dump::read_for(&run.lfts_dump, "opensm-lfts.dump", &case.graph).unwrap();
    let ours = match routing::route(case.graph.clone(), &[engine], opts) {
        Ok(r) => r.fabric.lfts,
        Err(e) => return (Err(e), run.log),
    };
    // Only the subnet OpenSM managed: switches it wrote a table for.
    let mut g = case.graph.clone();
    let routed: Vec<bool> = g.nodes.iter_enumerated().map(|(id, _)| theirs.tables[id].iter().any(|&p| p != 255)).collect();
    for (id, n) in g.nodes.iter_mut_enumerated() {
        if n.is_switch() && !routed[usize::from(id)] {
            n.kind = NodeKind::Ca { host: 0usize.into(), rail: u16::MAX };
        }
    }
    (Ok(compare(&g, &ours, &theirs, 8)), run.log)
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


/// OpenSM's log with each message on one line: the time and function prefix dropped and
/// continuation lines joined with ", " (a space after a colon), as ftree's fallback reasons quote it.
fn log_messages(log: &str) -> String {
    let mut out = String::new();
    for line in log.lines() {
        if line.starts_with(char::is_whitespace) {
            out.push_str(if out.ends_with(':') { " " } else { ", " });
            out.push_str(line.trim());
            continue;
        }
        let msg = line.split_once(" -> ").map_or(line, |(_, m)| m);
        let msg = match msg.split_once(": ") {
            Some((func, rest)) if !func.contains(' ') => rest,
            _ => msg,
        };
        out.push('\n');
        out.push_str(msg.trim_end());
    }
    out
}

/// ftree against OpenSM: identical tables on the complete fat trees; on the others OpenSM
/// falls back to minhop, and we detect it with the same words (each part of our reason is
/// one of OpenSM's messages); their tables are minhop's (compared once minhop is built).
#[test]
fn ftree_matches_opensm() {
    if !opensm::available() {
        return;
    }
    for case in cases() {
        let (cmp, log) = cross_check_logged(&case, Engine::Ftree, &[], &RouteOptions::default());
        if !["ft3-missing-uplink", "irregular"].contains(&case.name) {
            assert!(log.contains("ftree tables configured on all switches"), "{}: OpenSM fell back:\n{log}", case.name);
            let cmp = cmp.unwrap_or_else(|e| panic!("{}: {e}", case.name));
            assert!(cmp.identical() && cmp.entries > 0, "{}: {cmp}", case.name);
            eprintln!("{}: {cmp}", case.name);
            continue;
        }
        assert!(log.contains("ftree: cannot build lid matrices"), "{}: OpenSM did not fall back:\n{log}", case.name);
        let reason = ftree::check(&case.graph, &RouteOptions::default()).unwrap().unwrap_or_else(|| panic!("{}: we did not fall back", case.name));
        let messages = log_messages(&log);
        for part in reason.split("; ") {
            assert!(messages.contains(part), "{}: OpenSM did not log {part:?}:\n{messages}", case.name);
        }
        match routing::route(case.graph.clone(), &[Engine::Ftree], &RouteOptions::default()) {
            Ok(r) => {
                let f = r.subnets[0].fallback.clone().unwrap();
                assert_eq!((f.to, f.reason.as_str()), (Engine::Minhop, reason.as_str()));
                eprintln!("{}: fell back to minhop as OpenSM did; tables: {}", case.name, cmp.unwrap());
            }
            Err(e) => assert!(e.0.contains("minhop"), "{}: {e}", case.name),
        }
    }
}

/// ftree against OpenSM beyond the six: a leaf missing a host (dummy routes), a slimmed
/// 2-level XGFT, alone and with its top switches cabled together (siblings), a 3-level XGFT
/// with two middle switches cabled together, a 4-level tree, roots given (OpenSM's root GUID file; then it routes a tree
/// with a missing uplink too, as it checks the tree is pure only without roots), and small
/// TSUBAME2-like rails whose cores are directors of chips with parallel edge links: OpenSM
/// takes an unused director leaf chip as a root there, and gives up when the director leaf
/// chips carry unequal numbers of edges; with 5 hosts per edge over 2 directors, routes
/// favour the first director as in tests/ftree_tsubame2.rs.
#[test]
fn ftree_matches_opensm_beyond_the_six() {
    if !opensm::available() {
        return;
    }
    let mut missing_host = spec(r#"{"kind":"fat-tree-k","k":8}"#).build().unwrap();
    let host = links_between(&missing_host, "h5 mlx4_0", "L1-s")[0];
    missing_host.links[host].state = LinkState::Down;
    let ft3 = spec(r#"{"kind":"fat-tree-k","k":8}"#).build().unwrap();
    let missing_uplink = cases().into_iter().find(|c| c.name == "ft3-missing-uplink").unwrap().graph;
    let tsubame = |hosts: usize, per_edge: usize| spec(&format!(r#"{{"kind":"tsubame2","hosts":{hosts},"rails":1,"hosts_per_edge":{per_edge},"edge_radix":12,"cores_per_rail":2,"links_per_core":2,"director_ports":16,"chip_radix":8}}"#)).build().unwrap();
    let spines = |g: &FabricGraph| g.nodes.iter().filter(|n| n.name.contains("spine")).map(|n| format!("{:#018x}", n.guid)).collect::<Vec<_>>();
    let l3 = |g: &FabricGraph| g.nodes.iter().filter(|n| n.name.contains("L3-")).map(|n| n.name.clone()).collect::<Vec<_>>();
    let case = |name, graph| Case { name, graph, sm_node: None };
    // The two top switches of a slimmed tree cabled together, twice: sibling groups. (Not
    // leaves: see docs/routing-ftree.md.)
    let mut siblings = spec(r#"{"kind":"xgft","m":[4,4],"w":[1,2],"radix":8}"#).build().unwrap();
    let top = |g: &FabricGraph, i: usize| g.nodes.iter_enumerated().filter(|(_, n)| n.name.contains("-L2-")).nth(i).map(|(id, _)| id).unwrap();
    let (a, b) = (top(&siblings, 0), top(&siblings, 1));
    for port in [6, 8] {
        let (pa, pb) = (siblings.port_of(a, port).unwrap(), siblings.port_of(b, port).unwrap());
        siblings.connect(pa, pb, LinkProps::new(LinkSpeed { gen: LinkGen::Qdr, width: 4 }, 1.0)).unwrap();
    }
    // And two middle switches of a 3-level tree: siblings on the way up.
    let mut mid_siblings = spec(r#"{"kind":"xgft","m":[2,2,2],"w":[1,2,2],"radix":8}"#).build().unwrap();
    let mids: Vec<_> = mid_siblings.nodes.iter_enumerated().filter(|(_, n)| n.name.contains("-L2-")).map(|(id, _)| id).collect();
    let (pa, pb) = (mid_siblings.port_of(mids[0], 8).unwrap(), mid_siblings.port_of(mids[3], 8).unwrap());
    mid_siblings.connect(pa, pb, LinkProps::new(LinkSpeed { gen: LinkGen::Qdr, width: 4 }, 1.0)).unwrap();
    let small = tsubame(48, 8);
    let odd = tsubame(30, 5);
    let cases: Vec<(Case, Vec<String>, Option<&str>)> = vec![
        (case("ft3-missing-host", missing_host), vec![], None),
        (case("xgft-slim", spec(r#"{"kind":"xgft","m":[4,4],"w":[1,2]}"#).build().unwrap()), vec![], None),
        (case("xgft-siblings", siblings), vec![], None),
        (case("xgft3-mid-siblings", mid_siblings), vec![], None),
        (case("2-ary-4-tree", spec(r#"{"kind":"k-ary-n-tree","k":2,"n":4}"#).build().unwrap()), vec![], None),
        (case("ft3-roots", ft3.clone()), l3(&ft3), None),
        (case("ft3-missing-uplink-roots", missing_uplink), l3(&ft3), None),
        (case("tsubame-small", small.clone()), vec![], None),
        (case("tsubame-small-roots", small.clone()), spines(&small), None),
        (case("tsubame-odd-roots", odd.clone()), spines(&odd), None),
        (case("tsubame-uneven", tsubame(40, 8)), vec![], Some("ERR AB0A: Different number of downward port groups")),
    ];
    for (case, roots, fallback) in cases {
        let mut extra = Vec::new();
        let file = std::env::temp_dir().join(format!("rdmasim-ftree-roots-{}-{}", std::process::id(), case.name));
        if !roots.is_empty() {
            let guids: Vec<String> = roots.iter().map(|r| case.graph.nodes.iter().find(|n| &n.name == r || format!("{:#018x}", n.guid) == *r).map(|n| format!("{:#018x}\n", n.guid)).unwrap()).collect();
            std::fs::write(&file, guids.concat()).unwrap();
            extra = vec!["-a".to_string(), file.display().to_string()];
        }
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let opts = RouteOptions { roots, ..RouteOptions::default() };
        let (cmp, log) = cross_check_logged(&case, Engine::Ftree, &extra, &opts);
        let _ = std::fs::remove_file(&file);
        let reason = ftree::check(&case.graph, &opts).unwrap();
        if let Some(expected) = fallback {
            assert!(log.contains("ftree: cannot build lid matrices"), "{}: OpenSM did not fall back:\n{log}", case.name);
            let reason = reason.unwrap_or_else(|| panic!("{}: we did not fall back", case.name));
            assert!(reason.starts_with(expected), "{}: {reason}", case.name);
            let messages = log_messages(&log);
            for part in reason.split("; ") {
                assert!(messages.contains(part), "{}: OpenSM did not log {part:?}:\n{messages}", case.name);
            }
            continue;
        }
        assert!(log.contains("ftree tables configured on all switches"), "{}: OpenSM fell back:\n{log}", case.name);
        assert_eq!(reason, None, "{}", case.name);
        let cmp = cmp.unwrap_or_else(|e| panic!("{}: {e}", case.name));
        eprintln!("{}: {cmp}", case.name);
        assert!(cmp.identical() && cmp.entries > 0, "{}: {cmp}", case.name);
    }
}

/// A full-size TSUBAME2-like rail (1408 hosts, 88 edges, directors of 36 chips) against
/// OpenSM, with 4 directors instead of 6 as ibsim simulates at most 256 switches: without
/// roots it gives up as we do (ERR AB0A), with the spine chips as roots the tables are the
/// same. Slow (OpenSM sweeps 1640 nodes over ibsim): run with --ignored.
#[test]
#[ignore]
fn ftree_matches_opensm_on_a_tsubame2_rail() {
    if !opensm::available() {
        return;
    }
    let g = spec(r#"{"kind":"tsubame2","rails":1,"cores_per_rail":4}"#).build().unwrap();
    let case = Case { name: "tsubame2-rail", graph: g, sm_node: None };
    let (_, log) = cross_check_logged(&case, Engine::Ftree, &[], &RouteOptions::default());
    let reason = ftree::check(&case.graph, &RouteOptions::default()).unwrap().unwrap();
    let messages = log_messages(&log);
    for part in reason.split("; ") {
        assert!(messages.contains(part), "OpenSM did not log {part:?}:\n{messages}");
    }
    let spines: Vec<String> = case.graph.nodes.iter().filter(|n| n.name.contains("spine")).map(|n| format!("{:#018x}", n.guid)).collect();
    let file = std::env::temp_dir().join(format!("rdmasim-ftree-roots-{}-tsubame2", std::process::id()));
    std::fs::write(&file, spines.iter().map(|s| format!("{s}\n")).collect::<String>()).unwrap();
    let opts = RouteOptions { roots: spines, ..RouteOptions::default() };
    let (cmp, log) = cross_check_logged(&case, Engine::Ftree, &["-a", &file.display().to_string()], &opts);
    let _ = std::fs::remove_file(&file);
    assert!(log.contains("ftree tables configured on all switches"), "{log}");
    let cmp = cmp.unwrap();
    eprintln!("tsubame2 rail with spine roots: {cmp}");
    assert!(cmp.identical(), "{cmp}");
}
