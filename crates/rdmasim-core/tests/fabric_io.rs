//! Fabric file formats: round trips through our writers, the real tools' output (fixtures made
//! with ibsim, OpenSM and infiniband-diags: tests/data/fabric/README.md), degraded links,
//! error messages that name file, line and expectation, and a deterministic fuzz.
mod common;
use rand::{Rng, SeedableRng};
use rdmasim_core::fabric::graph::{FabricGraph, LinkProps, LinkState, Lfts, NodeKind, NO_ROUTE};
use rdmasim_core::fabric::io::notes::Notes;
use rdmasim_core::fabric::io::{self, ibnetdiscover, ibroute, ibsim_net, lfts_dump, subnet_lst, ImportOptions, IoError};
use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fabric").join(name)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap()
}

const EDR4: LinkSpeed = LinkSpeed { gen: LinkGen::Edr, width: 4 };

/// A 2-level fat tree of 8-port EDR switches: 2 spines, 4 leaves (4 ports down, 2 up to each
/// spine), 8 hosts of 2 HCAs (rail r of host h on leaf 2*(h/4)+r); one leaf uplink trained to
/// 1x, one down.
fn fat_tree() -> FabricGraph {
    let mut g = FabricGraph::new();
    let spines: Vec<_> = (0..2).map(|i| g.add_switch(format!("spine{i}"), 0xa000 + i, 8, EDR4).unwrap()).collect();
    let leaves: Vec<_> = (0..4).map(|i| g.add_switch(format!("leaf{i}"), 0xb000 + i, 8, EDR4).unwrap()).collect();
    for (l, &leaf) in leaves.iter().enumerate() {
        for (s, &spine) in spines.iter().enumerate() {
            for k in 0..2u16 {
                let up = g.port_of(leaf, 5 + 2 * s as u16 + k).unwrap();
                let down = g.port_of(spine, 1 + 2 * l as u16 + k).unwrap();
                let mut props = LinkProps::new(EDR4, 3.0);
                if (l, s, k) == (1, 0, 0) {
                    props.speed.width = 1;
                }
                if (l, s, k) == (2, 1, 1) {
                    props.state = LinkState::Down;
                }
                g.connect(up, down, props).unwrap();
            }
        }
    }
    for h in 0..8u64 {
        let host = g.add_host(format!("host{h}"));
        for r in 0..2u64 {
            let ca = g.add_hca(host, format!("host{h} HCA-{}", r + 1), 0xc000 + 0x10 * h + 4 * r, 1, EDR4).unwrap();
            let leaf = leaves[(2 * (h / 4) + r) as usize];
            let sw_port = g.port_of(leaf, 1 + (h % 4) as u16).unwrap();
            g.connect(g.port_of(ca, 1).unwrap(), sw_port, LinkProps::new(EDR4, 2.0)).unwrap();
        }
    }
    g.assign_lids().unwrap();
    g.check().unwrap();
    g
}

/// Every link as (end, end, speed, state), ends by name and port, in one order.
fn links(g: &FabricGraph) -> BTreeSet<(String, String, String, bool)> {
    g.links
        .iter()
        .map(|l| {
            let mut ends = l.ends.map(|p| g.port_name(p));
            ends.sort();
            let [a, b] = ends;
            (a, b, l.speed.label(), l.state == LinkState::Up)
        })
        .collect()
}

fn degraded(g: &FabricGraph) -> BTreeSet<(String, String)> {
    g.links
        .iter_enumerated()
        .filter(|(l, _)| g.is_degraded(*l))
        .map(|(_, l)| {
            let mut ends = l.ends.map(|p| g.port_name(p));
            ends.sort();
            let [a, b] = ends;
            (a, b)
        })
        .collect()
}

fn assert_same_graph(a: &FabricGraph, b: &FabricGraph) {
    assert_eq!(a.nodes.len(), b.nodes.len());
    for (x, y) in a.nodes.iter().zip(b.nodes.iter()) {
        assert_eq!((&x.name, x.guid, x.num_ports, x.lid, x.kind), (&y.name, y.guid, y.num_ports, y.lid, y.kind));
    }
    for (x, y) in a.ports.iter().zip(b.ports.iter()) {
        assert_eq!((x.node, x.num, x.guid, x.lid, x.supported), (y.node, y.num, y.guid, y.lid, y.supported), "port {}", a.port_name(a.nodes[x.node].port(x.num).unwrap()));
    }
    assert_eq!(links(a), links(b));
    let hosts = |g: &FabricGraph| g.hosts.iter().map(|h| (h.name.clone(), h.hcas.clone())).collect::<Vec<_>>();
    assert_eq!(hosts(a), hosts(b));
}

#[test]
fn ibsim_net_round_trip_keeps_nodes_ports_links_speeds_and_lids() {
    let g = fat_tree();
    let text = ibsim_net::write(&g).unwrap();
    let back = ibsim_net::read(&text, "fat_tree.net", &mut Notes::default()).unwrap();
    assert_same_graph(&g, &back);
    assert_eq!(back.links.len(), 16 + 16);
    assert_eq!(degraded(&back).len(), 1, "the 1x uplink, and only it");
    assert_eq!(back.links.iter().filter(|l| l.state == LinkState::Down).count(), 1);
    // Written twice, the same bytes (deterministic).
    assert_eq!(ibsim_net::write(&back).unwrap(), text);
    // The same text through the format sniffer.
    assert_same_graph(&g, &io::read_topology(&text, "fat_tree.net", &ImportOptions::default(), &mut Notes::default()).unwrap());
    // For the cross-check with the real ibsim and OpenSM (tests/data/fabric/README.md).
    if let Some(dir) = std::env::var_os("RDMASIM_FABRIC_OUT") {
        std::fs::write(Path::new(&dir).join("fat_tree.net"), &text).unwrap();
        std::fs::write(Path::new(&dir).join("fat_tree-lfts.dump"), lfts_dump::write(&g, &some_lfts(&g))).unwrap();
    }
}

/// A routing good enough to fill tables: up to spine 0 unless the LID is below this leaf.
fn some_lfts(g: &FabricGraph) -> Lfts {
    let mut lfts = Lfts::empty_for(g);
    for sw in g.switches().collect::<Vec<_>>() {
        for (lid, node, port) in g.lids() {
            let out = if node == sw {
                0
            } else if let Some(p) = port.and_then(|p| g.peer(p)).filter(|p| g.ports[*p].node == sw) {
                g.ports[p].num as u8
            } else {
                (1 + lid % 4) as u8
            };
            lfts.set(sw, lid, out);
        }
    }
    lfts
}

#[test]
fn lfts_dump_round_trip_keeps_every_table() {
    let g = fat_tree();
    let lfts = some_lfts(&g);
    let text = lfts_dump::write(&g, &lfts);
    assert!(text.starts_with("Unicast lids [0-"), "{text}");
    let back = lfts_dump::read_for(&text, "lfts.dump", &g, &mut Notes::default()).unwrap();
    for sw in g.switches() {
        assert_eq!(back.tables[sw], lfts.tables[sw], "switch {}", g.nodes[sw].name);
    }
    assert_eq!(lfts_dump::write(&g, &back), text);
}

/// The real fixtures' fabric: 4 switches, 4 CAs on 3 hosts, 9 cables; leaf1 has LID 3.
fn assert_is_the_fixture_fabric(g: &FabricGraph, ca_ports: [u16; 4]) {
    assert_eq!(g.num_switches(), 4);
    assert_eq!(g.nodes.len(), 8);
    assert_eq!(g.links.len(), 9);
    let hosts: Vec<_> = g.hosts.iter().map(|h| (h.name.as_str(), h.hcas.iter().map(|&c| g.nodes[c].name.as_str()).collect::<Vec<_>>())).collect();
    let mut hosts_sorted = hosts.clone();
    hosts_sorted.sort();
    assert_eq!(hosts_sorted, vec![("node1", vec!["node1 HCA-1"]), ("node2", vec!["node2 HCA-1", "node2 HCA-2"]), ("node3", vec!["node3 HCA-1"])]);
    let by_name = |n: &str| g.nodes.iter_enumerated().find(|(_, x)| x.name == n).unwrap().0;
    assert_eq!(g.nodes[by_name("leaf1")].lid, 3);
    assert_eq!(g.nodes[by_name("leaf1")].guid, 0x0002c90000000300);
    let hca2 = by_name("node2 HCA-2");
    assert_eq!(g.nodes[hca2].kind, NodeKind::Ca { host: g.nodes[by_name("node2 HCA-1")].kind_host(), rail: 1 });
    assert_eq!(g.nodes[hca2].guid, 0x0002c90000003000);
    assert_eq!(g.ports[g.port_of(hca2, 1).unwrap()].lid, 7);
    let cas = ["node1 HCA-1", "node2 HCA-1", "node2 HCA-2", "node3 HCA-1"].map(|n| g.nodes[by_name(n)].num_ports);
    assert_eq!(cas, ca_ports);
    let l = links(g);
    assert!(l.contains(&("\"leaf1\"[4]".into(), "\"node2 HCA-2\"[1]".into(), "1X QDR".into(), true)));
    assert!(l.contains(&("\"leaf2\"[2]".into(), "\"node3 HCA-1\"[2]".into(), "4X SDR".into(), true)));
    assert_eq!(l.iter().filter(|x| x.2 == "4X QDR").count(), 7);
}

trait KindHost {
    fn kind_host(&self) -> rdmasim_core::ids::HostId;
}
impl KindHost for rdmasim_core::fabric::graph::Node {
    fn kind_host(&self) -> rdmasim_core::ids::HostId {
        match self.kind {
            NodeKind::Ca { host, .. } => host,
            NodeKind::Switch => panic!("a switch"),
        }
    }
}

#[test]
fn real_ibnetdiscover_output_parses_with_its_lids_hosts_and_speeds() {
    let g = ibnetdiscover::read(&fixture("ibnetdiscover.txt"), "ibnetdiscover.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    assert_is_the_fixture_fabric(&g, [2, 2, 2, 2]);
    // "node3 HCA-1" trained port 2 to SDR beside port 1 at QDR: degraded. "node2 HCA-2" has
    // only its 1x link, so nothing in the file says it could do better.
    let d = degraded(&g);
    assert_eq!(d, BTreeSet::from([("\"leaf2\"[2]".to_string(), "\"node3 HCA-1\"[2]".to_string())]));
}

#[test]
fn real_ibnetdiscover_ports_output_parses() {
    let g = ibnetdiscover::read_ports(&fixture("ibnetdiscover-p.txt"), "ibnetdiscover-p.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    // -p lists a CA's cabled ports only: node1's HCA shows 1 port, node3's 2.
    assert_is_the_fixture_fabric(&g, [1, 1, 1, 2]);
    let from_blocks = ibnetdiscover::read(&fixture("ibnetdiscover.txt"), "ibnetdiscover.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    assert_eq!(links(&g), links(&from_blocks));
}

#[test]
fn real_subnet_lst_parses() {
    let g = subnet_lst::read(&fixture("opensm-subnet.lst"), "opensm-subnet.lst", &ImportOptions::default(), &mut Notes::default()).unwrap();
    assert_is_the_fixture_fabric(&g, [2, 2, 2, 2]);
}

#[test]
fn the_fixture_net_file_is_the_fabric_ibsim_simulated() {
    let g = ibsim_net::read(&fixture("ibsim.net"), "ibsim.net", &mut Notes::default()).unwrap();
    let discovered = ibnetdiscover::read(&fixture("ibnetdiscover.txt"), "ibnetdiscover.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    assert_eq!(links(&g), links(&discovered));
    assert_eq!(g.nodes.iter().map(|n| n.guid).collect::<BTreeSet<_>>(), discovered.nodes.iter().map(|n| n.guid).collect());
}

#[test]
fn real_lfts_from_opensm_ibroute_and_dump_lfts_agree() {
    let g = ibnetdiscover::read(&fixture("ibnetdiscover.txt"), "ibnetdiscover.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    let dump = lfts_dump::read_for(&fixture("opensm-lfts.dump"), "opensm-lfts.dump", &g, &mut Notes::default()).unwrap();
    let all = ibroute::read_for(&fixture("dump_lfts.txt"), "dump_lfts.txt", &g, &mut Notes::default()).unwrap();
    let leaf1 = g.switches().find(|&s| g.nodes[s].name == "leaf1").unwrap();
    for sw in g.switches() {
        assert_eq!(dump.tables[sw], all.tables[sw], "{}", g.nodes[sw].name);
        assert_eq!(dump.route(sw, g.nodes[sw].lid), Some(0), "a switch routes its own LID to port 0");
    }
    assert_eq!((1..=9).map(|lid| dump.route(leaf1, lid).unwrap()).collect::<Vec<_>>(), vec![5, 6, 0, 5, 1, 2, 4, 5, 6]);
    let one = ibroute::read_for(&fixture("ibroute-leaf1.txt"), "ibroute-leaf1.txt", &g, &mut Notes::default()).unwrap();
    assert_eq!(one.tables[leaf1], dump.tables[leaf1]);
    assert!(g.switches().filter(|&s| s != leaf1).all(|s| one.tables[s].iter().all(|&p| p == NO_ROUTE)), "switches the file does not name keep no routes");
    // Written back, OpenSM's own dump is byte for byte what OpenSM wrote.
    assert_eq!(lfts_dump::write(&g, &dump), fixture("opensm-lfts.dump"));
}

#[test]
fn import_sniffs_formats_and_reads_a_directory_of_ibroute_files() {
    for topo in ["ibnetdiscover.txt", "ibnetdiscover-p.txt", "opensm-subnet.lst", "ibsim.net"] {
        let io::Imported { graph: g, lfts, .. } = io::import(&data(topo), Some(&data("opensm-lfts.dump")), &ImportOptions::default()).unwrap();
        assert_eq!(g.links.len(), 9, "{topo}");
        assert!(lfts.is_some());
    }
    let io::Imported { graph: g, lfts: none, .. } = io::import(&data("ibnetdiscover.txt"), None, &ImportOptions::default()).unwrap();
    assert!(none.is_none());
    let dir = std::env::temp_dir().join(format!("rdmasim-ibroute-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(data("ibroute-leaf1.txt"), dir.join("leaf1")).unwrap();
    let io::Imported { lfts: from_dir, .. } = io::import(&data("ibnetdiscover.txt"), Some(&dir), &ImportOptions::default()).unwrap();
    let from_file = ibroute::read_for(&fixture("ibroute-leaf1.txt"), "x", &g, &mut Notes::default()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(from_dir.unwrap().tables, from_file.tables);
}

#[test]
fn ibnetdiscover_ports_file_with_degraded_links_reports_exactly_those() {
    // Every port 4x QDR-capable (each node has a 4x QDR link); sw1-sw2 trained to 1x, and
    // ca1's port 2 to SDR.
    let text = "\
SW     1  3 0x0000000000000001 4x QDR - SW     2  3 0x0000000000000002 ( 'sw1' - 'sw2' )
SW     1  2 0x0000000000000001 1x QDR - SW     2  2 0x0000000000000002 ( 'sw1' - 'sw2' )
SW     1  1 0x0000000000000001 4x QDR - CA     3  1 0x0000000000000011 ( 'sw1' - 'ca1 HCA-1' )
SW     2  3 0x0000000000000002 4x QDR - SW     1  3 0x0000000000000001 ( 'sw2' - 'sw1' )
SW     2  2 0x0000000000000002 1x QDR - SW     1  2 0x0000000000000001 ( 'sw2' - 'sw1' )
SW     2  1 0x0000000000000002 4x SDR - CA     4  2 0x0000000000000012 ( 'sw2' - 'ca1 HCA-1' )
SW     2  4 0x0000000000000002 4x SDR                                    'sw2'
CA     4  2 0x0000000000000012 4x SDR - SW     2  1 0x0000000000000002 ( 'ca1 HCA-1' - 'sw2' )
CA     3  1 0x0000000000000011 4x QDR - SW     1  1 0x0000000000000001 ( 'ca1 HCA-1' - 'sw1' )
";
    let g = ibnetdiscover::read_ports(text, "degraded.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    assert_eq!(g.links.len(), 4);
    assert_eq!(degraded(&g), BTreeSet::from([("\"sw1\"[2]".into(), "\"sw2\"[2]".into()), ("\"ca1 HCA-1\"[2]".into(), "\"sw2\"[1]".into())]));
    assert_eq!(g.nodes.iter().find(|n| n.name == "ca1 HCA-1").unwrap().guid, 0x10);
}

fn err(r: Result<impl std::fmt::Debug, IoError>) -> String {
    r.expect_err("expected an error").to_string()
}

#[test]
fn errors_name_file_line_and_expectation() {
    let net = "Switch 4 \"a\"\n[1] \"b\"[1]\n\nSwitch 4 \"b\"\n[1] \"a\"[1]\n[2] \"a\"[3]\n";
    let e = err(ibsim_net::read(net, "one-sided.net", &mut Notes::default()));
    assert!(e.starts_with("one-sided.net:6: \"b\"[2] is cabled to \"a\"[3], but \"a\"[3] (node at line 1) lists no link"), "{e}");
    assert!(e.contains("expected both ends"), "{e}");

    let net = "Switch 4 \"a\"\n[1] \"b\"[1]\n\nSwitch 4 \"b\"\n[1] \"c\"[1]\n\nSwitch 4 \"c\"\n[1] \"b\"[1]\n";
    let e = err(ibsim_net::read(net, "crossed.net", &mut Notes::default()));
    assert!(e.starts_with("crossed.net:2: \"a\"[1] is cabled to \"b\"[1], but line 5 says \"b\"[1] is cabled to \"c\"[1]"), "{e}");

    let p = "SW 1 1 0x0000000000000001 4x QDR - SW 1 1 0x0000000000000002 ( 'a' - 'b' )\nSW 1 1 0x0000000000000002 4x QDR - SW 1 1 0x0000000000000001 ( 'b' - 'a' )\n";
    let e = err(ibnetdiscover::read_ports(p, "lids.txt", &ImportOptions::default(), &mut Notes::default()));
    assert!(e.starts_with("lids.txt:2: LID 1 is assigned twice: to \"a\" (line 1) and to \"b\""), "{e}");

    let e = err(ibsim_net::read("Switch 4 \"a\"\n[1] \"b\"[1] # lid 2 4xQXR\n", "speed.net", &mut Notes::default()));
    assert!(e.starts_with("speed.net:2: link \"4xQXR\": expected <width>x<speed>"), "{e}");

    let e = err(ibsim_net::read("Switch 300 \"a\"\n", "ports.net", &mut Notes::default()));
    assert!(e.starts_with("ports.net:1: \"300\" ports: expected a port count 1..=254"), "{e}");

    let g = ibnetdiscover::read(&fixture("ibnetdiscover.txt"), "ibnetdiscover.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    let lft = "Unicast lids [0-9] of switch Lid 3 guid 0x0002c90000000300 ('leaf1'):\n0x0005 001 # x\n0x0006 009 # x\n";
    let e = err(lfts_dump::read_for(lft, "bad-port.dump", &g, &mut Notes::default()));
    assert_eq!(e, "bad-port.dump:3: switch \"leaf1\" forwards LID 6 to port 9, which it does not have (expected 0..=8 or 255)");
    let lft = "Unicast lids [0-9] of switch Lid 3 guid 0x00000000deadbeef ('ghost'):\n0x0005 001 # x\n";
    let e = err(lfts_dump::read_for(lft, "ghost.dump", &g, &mut Notes::default()));
    assert!(e.starts_with("ghost.dump:1: an LFT for switch guid 0x00000000deadbeef (\"ghost\"), which is not in the topology"), "{e}");
    let e = err(lfts_dump::read_for("0x0005 001\n", "headless.dump", &g, &mut Notes::default()));
    assert!(e.starts_with("headless.dump:1: an LFT entry before any switch: expected"), "{e}");

    let lst = fixture("opensm-subnet.lst").replacen("SPD=10", "SPD=11", 1);
    let e = err(subnet_lst::read(&lst, "opensm-subnet.lst", &ImportOptions::default(), &mut Notes::default()));
    assert!(e.starts_with("opensm-subnet.lst:1: PHY=4x SPD=11: expected"), "{e}");
}

#[test]
fn dot_shows_degraded_and_down_links() {
    let g = fat_tree();
    let dot = io::dot::write(&g);
    assert!(dot.starts_with("graph fabric {"));
    assert_eq!(dot.matches("color=orange").count(), 1);
    assert_eq!(dot.matches("style=dashed").count(), 1);
    assert_eq!(dot.matches("subgraph cluster_host").count(), 8);
    assert_eq!(dot.matches(" -- ").count(), g.links.len());
}

/// Runs every reader on `text`; only a panic fails.
fn read_all(text: &str, g: &FabricGraph) {
    let _ = io::read_topology(text, "fuzz", &ImportOptions::default(), &mut Notes::default());
    let _ = ibsim_net::read(text, "fuzz", &mut Notes::default());
    let _ = ibnetdiscover::read(text, "fuzz", &ImportOptions::default(), &mut Notes::default());
    let _ = ibnetdiscover::read_ports(text, "fuzz", &ImportOptions::default(), &mut Notes::default());
    let _ = subnet_lst::read(text, "fuzz", &ImportOptions::default(), &mut Notes::default());
    let _ = io::read_lfts(text, "fuzz", g, &mut Notes::default());
    if let Ok(entries) = rdmasim_core::fabric::io::guid2lid::read(text, "fuzz") {
        let _ = rdmasim_core::fabric::io::guid2lid::apply(&mut g.clone(), &entries, "fuzz");
    }
}

#[test]
fn fuzz_cut_and_mutated_fixtures_never_panic() {
    let start = std::time::Instant::now();
    let g = ibnetdiscover::read(&fixture("ibnetdiscover.txt"), "ibnetdiscover.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    let names = ["ibsim.net", "ibnetdiscover.txt", "ibnetdiscover-p.txt", "opensm-subnet.lst", "opensm-lfts.dump", "ibroute-leaf1.txt", "dump_lfts.txt", "guid2lid"];
    let mut fixtures: Vec<Vec<u8>> = names.iter().map(|n| fixture(n).into_bytes()).collect();
    fixtures.push(ibsim_net::write(&fat_tree()).unwrap().into_bytes());
    // Every fixture cut at every 5th byte.
    for f in &fixtures {
        for cut in (0..f.len()).step_by(5) {
            read_all(&String::from_utf8_lossy(&f[..cut]), &g);
        }
    }
    // Seeded mutations: bytes replaced by ones the formats care about, lines dropped,
    // duplicated or swapped, numbers made huge.
    let mut rng = rand_pcg::Pcg64::seed_from_u64(0x1b51);
    let alphabet = b"[]()\"'#=-x0123456789abcdefABCDEF {}:\n\t@SWCAlidLIDPN";
    for _ in 0..3000 {
        let which = rng.gen_range(0..fixtures.len());
        let f = common::fuzz::mutate(&mut rng, &fixtures[which], alphabet);
        read_all(&String::from_utf8_lossy(&f), &g);
    }
    assert!(start.elapsed().as_secs() < 30, "fuzz took {:?}", start.elapsed());
}

/// The cross-check with the real tools (run by tests/data/fabric/cross_check.sh, which sets
/// RDMASIM_FABRIC_OUT): ibsim simulated our fat_tree.net, ibnetdiscover found our links (all
/// but the one that is down) with our GUIDs, LIDs, widths and speeds, and OpenSM, loading our
/// LFT dump with `-R file`, dumped it back byte for byte.
#[test]
#[ignore = "needs ibsim, OpenSM and infiniband-diags: tests/data/fabric/cross_check.sh"]
fn cross_check_with_real_ibsim_and_opensm() {
    let dir = PathBuf::from(std::env::var_os("RDMASIM_FABRIC_OUT").expect("RDMASIM_FABRIC_OUT"));
    let g = fat_tree();
    let found = ibnetdiscover::read(&std::fs::read_to_string(dir.join("ibnetdiscover.txt")).unwrap(), "ibnetdiscover.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    let mut ours = links(&g);
    ours.retain(|l| l.3);
    assert_eq!(links(&found), ours);
    for n in &g.nodes {
        let f = found.nodes.iter().find(|x| x.name == n.name).unwrap();
        assert_eq!((f.guid, f.lid), (n.guid, n.lid), "{}", n.name);
    }
    for p in &g.ports {
        let name = &g.nodes[p.node].name;
        let f = found.nodes.iter_enumerated().find(|(_, x)| &x.name == name).unwrap().0;
        assert_eq!(found.ports[found.port_of(f, p.num).unwrap()].lid, p.lid);
    }
    let ours = lfts_dump::write(&g, &some_lfts(&g));
    assert_eq!(std::fs::read_to_string(dir.join("opensm-lfts.dump")).unwrap(), ours);
}

#[test]
fn opensms_guid2lid_gives_the_lids_ibnetdiscover_saw() {
    use rdmasim_core::fabric::io::guid2lid;
    let seen = ibnetdiscover::read(&fixture("ibnetdiscover.txt"), "ibnetdiscover.txt", &ImportOptions::default(), &mut Notes::default()).unwrap();
    let mut g = seen.clone();
    let entries = guid2lid::read(&fixture("guid2lid"), "guid2lid").unwrap();
    guid2lid::apply(&mut g, &entries, "guid2lid").unwrap();
    assert_eq!(g.lids(), seen.lids());
    assert_eq!(entries.len(), seen.lids().len());
}

#[test]
fn guid2lid_sets_lids_and_names_bad_lines() {
    use rdmasim_core::fabric::io::guid2lid;
    let spec: rdmasim_core::fabric::build::GeneratorSpec = serde_json::from_str(r#"{"kind":"single-switch","hosts":2}"#).unwrap();
    let mut g = spec.build().unwrap();
    let sw = g.switches().next().unwrap();
    let ca_port = g.nodes.iter().find(|n| !n.is_switch()).map(|n| n.first_port).unwrap();
    let text = format!("{:#018x} 0x0007 0x0007\n\n{:#018x} 0x0009 0x0009\n", g.nodes[sw].guid, g.ports[ca_port].guid);
    let e = guid2lid::read(&text, "g2l").unwrap();
    guid2lid::apply(&mut g, &e, "g2l").unwrap();
    assert_eq!((g.nodes[sw].lid, g.ports[ca_port].lid), (7, 9));
    assert_eq!(g.lids().len(), 2, "ports the file does not name have no LID");
    let err = guid2lid::read("0x1 0x2\n", "g2l").unwrap_err().to_string();
    assert!(err.starts_with("g2l:1: \"0x1 0x2\": expected"), "{err}");
    let e = guid2lid::read("\n0xdead 0x0003 0x0003\n", "g2l").unwrap();
    let err = guid2lid::apply(&mut g, &e, "g2l").unwrap_err().to_string();
    assert!(err.starts_with("g2l:2: port GUID 0x000000000000dead is not in the fabric"), "{err}");
}
