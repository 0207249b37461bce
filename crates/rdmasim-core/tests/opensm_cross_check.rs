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
use rdmasim_core::fabric::io::notes::Notes;
use rdmasim_core::fabric::io::{guid2lid, ibsim_net, lfts_dump};
use rdmasim_core::fabric::lid_assign::assign_lids_opensm;
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use rdmasim_core::fabric::routing::compare::{compare, LftComparison};
use rdmasim_core::fabric::routing::{self, ftree, Engine, RouteOptions};
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
    let (ours, run) = cross_check_full(case, engine, extra, &RouteOptions::default());
    (ours.unwrap_or_else(|e| panic!("{}: {e}", case.name)), run)
}

/// [`cross_check`] with our options `opts` (to match OpenSM's `extra`), and OpenSM's log; the
/// comparison is an error when our routing fails.
pub fn cross_check_logged(case: &Case, engine: Engine, extra: &[&str], opts: &RouteOptions) -> (Result<LftComparison, GraphError>, String) {
    let (ours, run) = cross_check_full(case, engine, extra, opts);
    (ours, run.log)
}

fn cross_check_full(case: &Case, engine: Engine, extra: &[&str], opts: &RouteOptions) -> (Result<LftComparison, GraphError>, opensm::OpensmRun) {
    let net = ibsim_net::write(&case.graph).unwrap();
    let run = opensm::route(&net, engine.name(), extra, case.name, case.sm_node.as_deref()).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let theirs = lfts_dump::read_for(&run.lfts_dump, "opensm-lfts.dump", &case.graph, &mut Notes::default()).unwrap();
    let ours = match routing::route(case.graph.clone(), &[engine], opts) {
        Ok(r) => r.fabric.lfts,
        Err(e) => return (Err(e), run),
    };
    // Only the subnet OpenSM managed: switches it wrote a table for.
    let mut g = case.graph.clone();
    let routed: Vec<bool> = g.nodes.iter_enumerated().map(|(id, _)| theirs.tables[id].iter().any(|&p| p != 255)).collect();
    for (id, n) in g.nodes.iter_mut_enumerated() {
        if n.is_switch() && !routed[usize::from(id)] {
            n.kind = NodeKind::Ca { host: 0usize.into(), rail: u16::MAX };
        }
    }
    (Ok(compare(&g, &ours, &theirs, 8)), run)
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
        let lfts = lfts_dump::read_for(&run.lfts_dump, "opensm-lfts.dump", &case.graph, &mut Notes::default()).unwrap();
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
/// one of OpenSM's messages); the tables are then minhop's, equal to OpenSM's.
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
        let r = routing::route(case.graph.clone(), &[Engine::Ftree], &RouteOptions::default()).unwrap();
        let f = r.subnets[0].fallback.clone().unwrap();
        assert_eq!((f.to, f.reason.as_str()), (Engine::Minhop, reason.as_str()));
        // Both fell back to minhop: the tables are minhop's, OpenSM's and ours alike.
        assert!(log.contains("minhop tables configured on all switches"), "{}", case.name);
        let cmp = cmp.unwrap();
        assert!(cmp.identical() && cmp.entries > 0, "{}: {cmp}", case.name);
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

/// minhop is OpenSM's own choice rule and order: every entry of every case equals OpenSM's.
#[test]
fn minhop_tables_equal_opensm_entry_by_entry() {
    if !opensm::available() {
        return;
    }
    for case in cases() {
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
    let theirs = lfts_dump::read_for(&run.lfts_dump, "opensm-lfts.dump", g, &mut Notes::default()).unwrap();
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
    let quirk = ibsim_net::read(include_str!("data/routing/updn-requeue.net"), "updn-requeue.net", &mut Notes::default()).unwrap();
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

/// dor on a 4 x 4 torus (ports numbered X then Y): OpenSM's tables, entry by entry; on a fat
/// tree ours refuses, naming a switch without hosts.
#[test]
fn dor_matches_opensm_on_a_torus_and_refuses_a_fat_tree() {
    let ft = cases().into_iter().find(|c| c.name == "ft3").unwrap().graph;
    let e = routing::route(ft, &[Engine::Dor], &RouteOptions::default()).unwrap_err().0;
    assert!(e.starts_with("dor routes meshes, tori and the hyper-crossbar, but switch \"r0-L2-s0\" carries no host"), "{e}");
    if !opensm::available() {
        return;
    }
    let case = Case { name: "torus-dor", graph: torus(), sm_node: None };
    let (c, run) = cross_check_with_run(&case, Engine::Dor, &[]);
    assert!(run.log.contains("dor tables configured on all switches"), "{}", run.log);
    assert!(c.identical() && c.entries > 0, "{c}");
    // Not minhop: dor keeps to the first dimension where minhop spreads over both.
    let minhop = routing::route(case.graph.clone(), &[Engine::Minhop], &RouteOptions::default()).unwrap().fabric.lfts;
    let dor = routing::route(case.graph.clone(), &[Engine::Dor], &RouteOptions::default()).unwrap().fabric.lfts;
    assert!(compare(&case.graph, &dor, &minhop, 0).differing > 0);
}
