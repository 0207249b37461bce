//! The packet engine on generated fabrics: packets follow the LFTs hop by hop, unroutable
//! packets and down links are counted, never lost silently.
mod common;
use common::*;
use rdmasim_core::api::Simulation;
use rdmasim_core::fabric::build::GeneratorSpec;
use rdmasim_core::fabric::generate::generate;
use rdmasim_core::fabric::graph::{LinkState, RoutedFabric, NO_ROUTE};
use rdmasim_core::prepare::parse_toml;
use serde_json::Value;

/// perftest between two hosts of the fat tree k = 4 (16 hosts, 20 switches), `rest` appended.
fn fat_tree_perftest(client: u32, server: u32, test: &str, extra: &str) -> String {
    format!(
        "[hardware]\nprofile = \"cx4-edr\"\n[topology]\ngenerator = {{ kind = \"fat-tree-k\", k = 4, speed = {{ gen = \"edr\", width = 4 }} }}\n\
         [workload]\nkind = \"perftest\"\ntest = \"{test}\"\nclient = {client}\nserver = {server}\n{extra}\n"
    )
}

fn ports_of<'a>(r: &'a Value, node: &str) -> Vec<&'a Value> {
    table(r, "ports").iter().filter(|p| p["node"] == node).collect()
}

fn sum(rows: &[&Value], key: &str) -> u64 {
    rows.iter().map(|p| p[key].as_u64().unwrap()).sum()
}

#[test]
fn packets_cross_a_fat_tree_on_the_shortest_path_at_the_link_rate() {
    // h0 and h15 sit in different pods: host -> edge -> agg -> core -> agg -> edge -> host,
    // six links each way. 1000 one-packet WRITEs and their ACKs (coalesced: fewer).
    let r = run(&fat_tree_perftest(0, 15, "ib_write_bw", "size = 4096\niters = 1000"));
    let run_row = &table(&r, "run")[0];
    let hops = run_row["packet_hops"].as_u64().unwrap();
    let data = sum(&ports_of(&r, "h0"), "PortXmitPkts");
    let acks = sum(&ports_of(&r, "h15"), "PortXmitPkts");
    assert_eq!(data, 1000, "one packet per 4 KiB WRITE");
    assert_eq!(hops, 6 * (data + acks), "every packet crossed six links: {hops} hops for {data} data + {acks} ACKs");
    assert_eq!(run_row["unroutable_packets"].as_u64().unwrap(), 0);
    // Same pod, same edge switch: two links.
    let r = run(&fat_tree_perftest(0, 1, "ib_write_bw", "size = 4096\niters = 1000"));
    let hops = table(&r, "run")[0]["packet_hops"].as_u64().unwrap();
    let pkts = sum(&ports_of(&r, "h0"), "PortXmitPkts") + sum(&ports_of(&r, "h1"), "PortXmitPkts");
    assert_eq!(hops, 2 * pkts);
    // Bandwidth through five switches is still the EDR link's (64 KiB messages).
    let r = run(&fat_tree_perftest(0, 15, "ib_write_bw", "size = 65536\niters = 2000"));
    let bw = f(&table(&r, "perftest")[0], "bw_avg_Gbps");
    let bound = 100.0 * 65536.0 / (65536.0 + 16.0 * 26.0 + 16.0);
    assert!(bw > 0.95 * bound && bw <= bound * 1.0001, "{bw} Gb/s across the fat tree, bound {bound}");
}

/// Runs `toml`'s scenario on `routed` instead of the fabric its generator builds.
fn run_on(toml: &str, routed: RoutedFabric) -> Value {
    let mut s = parse_toml(toml, "<test>").expect("valid scenario");
    s.topology.routed = Some(std::sync::Arc::new(routed));
    let mut sim = Simulation::from_scenario(s, "<test>").expect("builds");
    sim.run();
    results(&sim)
}

fn fat_tree_4() -> RoutedFabric {
    let spec: GeneratorSpec = toml::from_str("kind = \"fat-tree-k\"\nk = 4\nspeed = { gen = \"edr\", width = 4 }").unwrap();
    generate(&spec).unwrap()
}

#[test]
fn a_packet_without_a_route_is_dropped_and_counted_at_the_switch() {
    // Take h15's LID out of h0's edge switch: every request to h15 is discarded there, counted
    // as PortRcvSwitchRelayErrors at the port it came in on; the requester retries and fails.
    let mut rf = fat_tree_4();
    let g = &rf.graph;
    let h0_port = g.nodes[g.hosts[rdmasim_core::ids::HostId(0)].hcas[0]].first_port;
    let edge = g.ports[g.peer(h0_port).unwrap()].node;
    let lid15 = g.ports[g.nodes[g.hosts[rdmasim_core::ids::HostId(15)].hcas[0]].first_port].lid;
    rf.lfts.tables[edge][lid15 as usize] = NO_ROUTE;
    let edge_name = g.nodes[edge].name.clone();
    let r = run_on(&fat_tree_perftest(0, 15, "ib_write_bw", "size = 4096\niters = 10\n[qp]\ntimeout = 1\nretry_cnt = 1"), rf);
    let sent = sum(&ports_of(&r, "h0"), "PortXmitPkts");
    let relay = sum(&ports_of(&r, &edge_name), "PortRcvSwitchRelayErrors");
    assert!(sent > 0);
    assert_eq!(relay, sent, "every packet h0 sent was discarded at {edge_name}");
    assert_eq!(table(&r, "run")[0]["unroutable_packets"].as_u64().unwrap(), sent);
    assert_eq!(sum(&ports_of(&r, "h15"), "PortRcvPkts"), 0);
}

/// The k = 4 fat tree with h15's cable down, and the edge switch port that faces it.
fn fat_tree_4_with_h15_down() -> (RoutedFabric, String, u16) {
    let mut rf = fat_tree_4();
    let g = &rf.graph;
    let h15_port = g.nodes[g.hosts[rdmasim_core::ids::HostId(15)].hcas[0]].first_port;
    let link = g.ports[h15_port].link.unwrap();
    let edge_port = g.peer(h15_port).unwrap();
    let (edge_name, edge_num) = (g.nodes[g.ports[edge_port].node].name.clone(), g.ports[edge_port].num);
    rf.graph.links[link].state = LinkState::Down;
    (rf, edge_name, edge_num)
}

#[test]
fn a_down_link_carries_nothing_and_its_port_counts_the_discards() {
    // h15's cable is down: the edge switch's port toward it discards what it is given.
    let (rf, edge_name, edge_num) = fat_tree_4_with_h15_down();
    let r = run_on(&fat_tree_perftest(0, 15, "ib_write_bw", "size = 4096\niters = 10\n[qp]\ntimeout = 1\nretry_cnt = 1"), rf);
    let sent = sum(&ports_of(&r, "h0"), "PortXmitPkts");
    let toward_h15: Vec<&Value> = ports_of(&r, &edge_name).into_iter().filter(|p| p["port"] == edge_num).collect();
    assert!(sent > 0);
    assert_eq!(sum(&toward_h15, "PortXmitDiscards"), sent, "each packet for h15 discarded at {edge_name}[{edge_num}]");
    assert_eq!(sum(&toward_h15, "PortXmitPkts"), 0, "a down port transmits nothing");
    assert_eq!(sum(&ports_of(&r, "h15"), "PortRcvPkts"), 0);
    assert!(r["error_completions"].as_u64().unwrap() > 0, "the requester gave up: {}", r["stop_reason"]);
}

#[test]
fn a_generated_fabric_names_its_own_hosts_and_rejects_a_kind_beside_it() {
    let s = parse_toml(&fat_tree_perftest(0, 15, "ib_write_bw", ""), "<test>").unwrap();
    assert_eq!(s.topology.hosts, 16);
    let e = parse_toml(&fat_tree_perftest(0, 16, "ib_write_bw", ""), "<test>").unwrap_err();
    assert!(e.to_string().contains("workload.server"), "{e}");
    let with_kind = fat_tree_perftest(0, 1, "ib_write_bw", "").replace("[topology]\n", "[topology]\nkind = \"single-switch\"\n");
    let e = parse_toml(&with_kind, "<test>").unwrap_err();
    assert!(e.to_string().contains("topology.kind"), "{e}");
    let bad = fat_tree_perftest(0, 1, "ib_write_bw", "").replace("k = 4", "k = 5");
    let e = parse_toml(&bad, "<test>").unwrap_err();
    assert!(e.to_string().contains("topology.generator") && e.to_string().contains("even"), "{e}");
}

#[test]
fn faults_on_a_generated_fabric_name_links_by_node_names() {
    // Every packet h0 sends is lost on its cable to its edge switch (named by both ends, with
    // the '-' inside the switch's name), counted at the switch's receiving port.
    let rf = fat_tree_4();
    let g = &rf.graph;
    let h0_port = g.nodes[g.hosts[rdmasim_core::ids::HostId(0)].hcas[0]].first_port;
    let edge = g.nodes[g.ports[g.peer(h0_port).unwrap()].node].name.clone();
    let fault = format!("[[faults]]\nlink = \"h0->{edge}\"\ndrop_nth = [1, 2, 3]");
    let r = run(&fat_tree_perftest(0, 15, "ib_write_bw", &format!("size = 4096\niters = 100\n{fault}")));
    assert_eq!(sum(&ports_of(&r, &edge), "PortRcvErrors"), 3);
    assert!(r["finished"].as_bool().unwrap(), "{}", r["stop_reason"]);
    let e = parse_toml(&fat_tree_perftest(0, 15, "ib_write_bw", "[[faults]]\nlink = \"h0-nosuch\"\nloss_rate = 0.1"), "<test>").unwrap_err();
    assert!(e.to_string().contains("faults[0].link") && e.to_string().contains("nosuch"), "{e}");
}

#[test]
fn perftest_runs_across_a_fabric_imported_from_ibnetdiscover_and_opensms_lfts() {
    // The fixtures are the real tools' output over ibsim (tests/data/fabric/README.md): 2 spine
    // and 2 leaf switches, node3's second port on a 4x SDR link, OpenSM's minhop LFTs.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fabric");
    let scenario = |lfts: &str| {
        format!(
            "[hardware]\nprofile = \"cx3-fdr\"\n[topology]\nfile = \"{dir}/ibnetdiscover.txt\"\n{lfts}\n\
             [workload]\nkind = \"perftest\"\ntest = \"ib_write_bw\"\nsize = 65536\niters = 200\nclient = 2\nserver = 0\n"
        )
    };
    let s = parse_toml(&scenario(&format!("lfts = \"{dir}/opensm-lfts.dump\"")), "<test>").unwrap();
    let g = &s.topology.routed.as_ref().unwrap().graph;
    let names: Vec<&str> = g.hosts.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["node3", "node2", "node1"], "hosts in the order the file lists them");
    // Degraded = below what both ends support, and ibnetdiscover shows only active speeds: a
    // port's support is read from its node's fastest link. node3's SDR port sits beside a QDR
    // one, so that link shows; node2's single-port HCA-2 on 1x shows no other width.
    let degraded: Vec<String> = g.links.iter_enumerated().filter(|(l, _)| g.is_degraded(*l)).map(|(_, l)| g.port_name(l.ends[0]) + " " + &g.port_name(l.ends[1])).collect();
    assert_eq!(degraded.len(), 1, "{degraded:?}");
    assert!(degraded[0].contains("node3 HCA-1"), "{degraded:?}");
    for lfts in [format!("lfts = \"{dir}/opensm-lfts.dump\""), format!("lfts = \"{dir}/dump_lfts.txt\""), String::new()] {
        let r = run(&scenario(&lfts));
        assert!(r["finished"].as_bool().unwrap(), "{lfts}: {}", r["stop_reason"]);
        // node1 -> leaf1 -> spine -> leaf2 -> node3 on 4x QDR (32 Gb/s data): four links.
        let bw = f(&table(&r, "perftest")[0], "bw_avg_Gbps");
        assert!((29.0..32.0).contains(&bw), "{lfts}: {bw} Gb/s on 4x QDR");
        assert_eq!(table(&r, "run")[0]["unroutable_packets"].as_u64().unwrap(), 0);
    }
    let e = parse_toml(&scenario(&format!("lfts = \"{dir}/nosuch.dump\"")), "<test>").unwrap_err();
    assert!(e.to_string().contains("topology.lfts") && e.to_string().contains("nosuch"), "{e}");
}

#[test]
fn perftest_runs_on_the_rail_it_names_and_a_missing_rail_is_refused() {
    // Two rails of the k = 4 fat tree: every host has an HCA on each; rail 1 carries it all.
    let scenario = |rail: u16| {
        format!(
            "[hardware]\nprofile = \"cx4-edr\"\n[topology]\ngenerator = {{ kind = \"rails\", rails = 2, of = {{ kind = \"fat-tree-k\", k = 4 }} }}\n\
             [workload]\nkind = \"perftest\"\ntest = \"ib_write_bw\"\nsize = 4096\niters = 500\nclient = 0\nserver = 15\nrail = {rail}\n"
        )
    };
    let r = run(&scenario(1));
    let on = |host: &str, dev: &str| -> u64 {
        table(&r, "ports").iter().filter(|p| p["node"] == host && p["device"] == dev).map(|p| p["PortXmitPkts"].as_u64().unwrap()).sum()
    };
    let (rail0, rail1) = (on("h0", "mlx4_0"), on("h0", "mlx4_1"));
    assert_eq!((rail0, rail1), (0, 500), "h0's packets by rail");
    assert!(on("h15", "mlx4_1") > 0 && on("h15", "mlx4_0") == 0, "the ACKs come back on rail 1");
    // The HCA tables name each HCA by its host and device, not by its index.
    let hca = |host: &str, dev: &str| table(&r, "hca_counters").iter().any(|c| c["node"] == host && c["device"] == dev);
    assert!(hca("h15", "mlx4_1") && hca("h0", "mlx4_0") && !hca("h31", "mlx4_1"));
    let e = parse_toml(&scenario(2), "<test>").unwrap_err();
    assert!(e.to_string().contains("workload.rail") && e.to_string().contains("2 rails"), "{e}");
}

/// Found in review: a switch output toward an HCA over a down link must not decide departures
/// as packets are queued (a discarded packet's credits come back on its arrival event): an
/// incast onto the down link ran the output out of credits (a debug assertion; wrapped credits
/// in release).
#[test]
fn an_incast_onto_a_down_link_is_discarded_packet_by_packet() {
    let (rf, edge_name, edge_num) = fat_tree_4_with_h15_down();
    let flows: String = [14, 0, 4]
        .iter()
        .map(|c| format!("[[workload.flow]]\nverb = \"write\"\nsize = 65536\ncount = 20\ndepth = 4\nclient = {c}\nserver = 15\n"))
        .collect();
    let toml = format!(
        "[hardware]\nprofile = \"cx4-edr\"\n[topology]\ngenerator = {{ kind = \"fat-tree-k\", k = 4, speed = {{ gen = \"edr\", width = 4 }} }}\n\
         [qp]\nretry_cnt = 1\ntimeout = 8\n[workload]\nkind = \"flows\"\n{flows}"
    );
    let r = run_on(&toml, rf);
    let toward_h15: Vec<&Value> = ports_of(&r, &edge_name).into_iter().filter(|p| p["port"] == edge_num).collect();
    assert!(sum(&toward_h15, "PortXmitDiscards") > 100, "the incast was discarded at {edge_name}[{edge_num}]");
    assert_eq!(sum(&toward_h15, "PortXmitPkts"), 0);
    assert!(r["error_completions"].as_u64().unwrap() > 0, "{}", r["stop_reason"]);
}

/// Found in review: a host whose HCA has no cable (a node down in an ibnetdiscover dump) is
/// refused by every workload that names it, not only by perftest, flows and MPI.
#[test]
fn a_host_without_a_cabled_port_is_refused_by_name() {
    let mut rf = fat_tree_4();
    let speed = rdmasim_core::fabric::rate::LinkSpeed { gen: rdmasim_core::fabric::rate::LinkGen::Qdr, width: 4 };
    let lone = rf.graph.add_host("lone");
    rf.graph.add_hca(lone, "lone HCA-1", 0xdead_0000, 1, speed).unwrap();
    let kinds = [
        "kind = \"odp-reads\"\nclient = 16\nserver = 0\n",
        "kind = \"srq-episode\"\nmethod = \"srq-limit\"\nclient = 0\nserver = 16\n",
        "kind = \"flows\"\n[[workload.flow]]\nverb = \"write\"\nsize = 4096\ncount = 1\nclient = 0\nserver = 1\n[workload.kv]\nrequests = 10\nclient = 16\nserver = 0\n",
    ];
    for w in kinds {
        // The workload checks against a 17-host switch, then runs on the fabric with "lone".
        let mut s = parse_toml(&format!("[hardware]\nprofile = \"cx4-edr\"\n[topology]\nkind = \"single-switch\"\nhosts = 17\n[workload]\n{w}"), "<test>").unwrap();
        s.topology.kind = rdmasim_core::scenario::TopologyKind::Graph;
        s.topology.routed = Some(std::sync::Arc::new(rf.clone()));
        let e = Simulation::from_scenario(s, "<test>").err().expect("refused").to_string();
        assert!(e.contains("no cabled HCA port"), "{w}: {e}");
    }
}
