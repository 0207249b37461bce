//! Routing engines by name and per rail (fabric/routing/engine.rs, subnets.rs).
use rdmasim_core::run::Engine as _;
use rdmasim_core::fabric::build::GeneratorSpec;
use rdmasim_core::fabric::generate::generate;
use rdmasim_core::fabric::routing::{self, dmodk, Engine, RouteOptions};

fn two_rails_k4() -> GeneratorSpec {
    serde_json::from_str(r#"{"kind":"rails","rails":2,"of":{"kind":"fat-tree-k","k":4}}"#).unwrap()
}

#[test]
fn engines_parse_by_opensm_name_and_refuse_unknown_ones() {
    assert_eq!(Engine::parse_list("ftree,dfsssp").unwrap(), vec![Engine::Ftree, Engine::Dfsssp]);
    let e = Engine::parse("lash").unwrap_err().0;
    assert!(e.contains("\"lash\"") && e.contains("minhop, updn, ftree"), "{e}");
}

#[test]
fn each_rail_is_routed_as_its_own_subnet() {
    let g = two_rails_k4().build().unwrap();
    let whole = dmodk::route(&g).unwrap();
    let r = routing::route(g.clone(), &[Engine::Dmodk, Engine::MinhopMod], &RouteOptions::default()).unwrap();
    assert_eq!(r.subnets.len(), 2);
    assert_eq!((r.subnets[0].rail, r.subnets[0].used), (0, Engine::Dmodk));
    assert_eq!((r.subnets[1].rail, r.subnets[1].used), (1, Engine::MinhopMod));
    assert_eq!(r.subnets[0].endpoints, 16);
    // Rail 0 has exactly the tables D-mod-K gives the whole fabric (it ranks LIDs per
    // component), rail 1 those of minhop-mod.
    let mm = routing::minhop_mod::route(&g).unwrap();
    for sw in g.switches() {
        let rail1 = g.nodes[sw].name.starts_with("r1-");
        let want = if rail1 { &mm.tables[sw] } else { &whole.tables[sw] };
        assert_eq!(&r.fabric.lfts.tables[sw], want, "{}", g.nodes[sw].name);
    }
    assert_eq!(generate(&two_rails_k4()).unwrap().lfts.tables, routing::route(g.clone(), &[Engine::Dmodk], &RouteOptions::default()).unwrap().fabric.lfts.tables);
    let e = routing::route(g, &[Engine::Dmodk; 3], &RouteOptions::default()).unwrap_err().0;
    assert!(e.contains("3 routing engines") && e.contains("2 rails"), "{e}");
}

/// Six switches in a ring, two hosts on each, written as an ibsim net file: minhop-style
/// routing closes a credit loop round the ring.
fn ring_net_file(dir: &std::path::Path) -> std::path::PathBuf {
    use rdmasim_core::fabric::graph::{FabricGraph, LinkProps};
    use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
    let speed = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
    let mut g = FabricGraph::new();
    let sw: Vec<_> = (0..6).map(|i| g.add_switch(format!("sw{i}"), 0x100 + i, 8, speed).unwrap()).collect();
    for i in 0..6 {
        let (a, b) = (g.port_of(sw[i], 1).unwrap(), g.port_of(sw[(i + 1) % 6], 2).unwrap());
        g.connect(a, b, LinkProps::new(speed, 2.0)).unwrap();
    }
    for h in 0..12u64 {
        let host = g.add_host(format!("h{h}"));
        let ca = g.add_hca(host, format!("h{h} mlx4_0"), 0x1000 + h * 0x10, 1, speed).unwrap();
        let p = g.port_of(sw[(h / 2) as usize], 3 + (h % 2) as u16).unwrap();
        let c = g.port_of(ca, 1).unwrap();
        g.connect(c, p, LinkProps::new(speed, 2.0)).unwrap();
    }
    g.assign_lids().unwrap();
    let path = dir.join("ring.net");
    std::fs::write(&path, rdmasim_core::fabric::io::ibsim_net::write(&g).unwrap()).unwrap();
    path
}

fn ring_scenario(net: &std::path::Path, topology_extra: &str) -> String {
    format!(
        r#"
[hardware]
profile = "cx3-fdr"
[topology]
file = "{}"
{topology_extra}
[workload]
kind = "flows"
[[workload.flow]]
client = 0
server = 6
verb = "write"
size = 4096
count = 20
"#,
        net.display()
    )
}

#[test]
fn a_credit_loop_is_refused_unless_warned_and_dfsssp_breaks_it_with_path_sls() {
    use rdmasim_core::sim::Simulation;
    let dir = std::env::temp_dir().join(format!("rdmasim-ring-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let net = ring_net_file(&dir);
    let e = Simulation::from_toml(&ring_scenario(&net, ""), "ring.toml").err().expect("refused").to_string();
    assert!(e.contains("topology.credit_loops") && e.contains("credit loop on VL 0: 6 channels"), "{e}");
    let mut sim = Simulation::from_toml(&ring_scenario(&net, "credit_loops = \"warn\""), "ring.toml").unwrap();
    sim.run();
    let mut sim = Simulation::from_toml(&ring_scenario(&net, "route = \"dfsssp\""), "ring.toml").unwrap();
    let sls: Vec<u8> = sim.world.hcas.iter().flat_map(|h| h.qps.iter().map(|q| q.attr.sl)).collect();
    assert_eq!(sls.len(), 2);
    let table = sim.world.path_sls.clone().expect("dfsssp gives paths SLs");
    assert!(table.max_sl() >= 1, "the ring needs two layers");
    let (a, b) = (sim.world.hcas.iter().next().unwrap(), sim.world.hcas.iter().nth(6).unwrap());
    assert_eq!(sls, vec![table.get(a.lid, b.lid), table.get(b.lid, a.lid)]);
    sim.run();
    let e = Simulation::from_toml(&ring_scenario(&net, "route = \"dfsssp\"\n[qp]\nsl = 3"), "ring.toml").err().unwrap().to_string();
    assert!(e.contains("qp.sl") && e.contains("expected no SL set by hand"), "{e}");
}

#[test]
fn roots_must_name_switches_of_the_fabric() {
    let g = two_rails_k4().build().unwrap();
    let with = |roots: &[&str], e: Engine| routing::route(g.clone(), &[e], &RouteOptions { roots: roots.iter().map(|r| r.to_string()).collect(), ..Default::default() });
    // One list for both rails: each rail takes the roots it has.
    let r = with(&["r0-L3-s0", "r1-L3-s0"], Engine::Updn).unwrap();
    assert!(r.subnets.iter().all(|s| s.fallback.is_none()), "{:?}", r.subnets);
    for e in [Engine::Updn, Engine::Ftree] {
        let err = with(&["r0-L3-s0", "r0-L3-sx"], e).unwrap_err().0;
        assert!(err.contains("root \"r0-L3-sx\": no switch of the fabric has that name or GUID"), "{err}");
        let err = with(&["h0 mlx4_0"], e).unwrap_err().0;
        assert!(err.contains("is not a switch (it is the CA \"h0 mlx4_0\")"), "{err}");
    }
}
