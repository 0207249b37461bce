//! A k = 4 fat tree of 4x QDR links, as TSUBAME2.0's, for the tests of faulty links
//! (bad_links.rs, link_flaps.rs): its scenario, fabric and the uplink h0's traffic crosses.
use rdmasim_core::fabric::analysis::paths::trace_route;
use rdmasim_core::fabric::graph::RoutedFabric;
use rdmasim_core::ids::HostId;
use rdmasim_core::prepare::parse_toml;
use serde_json::Value;

/// A k = 4 fat tree of 4x QDR links (16 hosts, 20 switches), as TSUBAME2.0's, on ConnectX-3
/// HCAs without the vendor's retransmission floor, with `rest` appended after `[workload]`.
pub fn qdr_fat_tree(workload: &str, rest: &str) -> String {
    format!(
        "[hardware]\nprofile = \"cx3-fdr\"\n[hardware.overrides]\nretransmit_floor_ms = 0.0\n\
         [topology]\ngenerator = {{ kind = \"fat-tree-k\", k = 4, speed = {{ gen = \"qdr\", width = 4 }} }}\n\
         [qp]\ntimeout = 10\n[workload]\n{workload}\n{rest}\n"
    )
}

/// One flow of `count` WRITEs of `size` from h0 to h15 (other pods: six links), one at a time.
pub fn h0_to_h15(size: u64, count: u64) -> String {
    format!("kind = \"flows\"\nuntil = \"all\"\n[[workload.flow]]\nverb = \"write\"\nsize = {size}\ncount = {count}\ndepth = 1\nclient = 0\nserver = 15\n")
}

/// The fabric a scenario builds.
pub fn fabric_of(toml: &str) -> RoutedFabric {
    let s = parse_toml(toml, "<test>").expect("valid scenario");
    RoutedFabric::clone(s.topology.routed.as_ref().expect("a generated fabric"))
}

/// A switch-to-switch hop of h0's route to h15, as (sending port, receiving port) named
/// `node[port]`: the edge switch's uplink.
pub fn uplink_of_h0(rf: &RoutedFabric) -> (String, u16, String, u16) {
    let g = &rf.graph;
    let port = |h: u32| g.nodes[g.hosts[HostId(h)].hcas[0]].first_port;
    let hops = trace_route(rf, port(0), g.ports[port(15)].lid).expect("routed");
    let hop = hops
        .iter()
        .find(|h| {
            g.nodes[g.ports[h.from].node].is_switch() && g.nodes[g.ports[h.to].node].is_switch()
        })
        .expect("a switch hop");
    let end =
        |p: rdmasim_core::ids::PortId| (g.nodes[g.ports[p].node].name.clone(), g.ports[p].num);
    let ((a, pa), (b, pb)) = (end(hop.from), end(hop.to));
    (a, pa, b, pb)
}

/// The `ports` row of `node[num]`.
pub fn port_row<'a>(r: &'a Value, node: &str, num: u16) -> &'a Value {
    super::table(r, "ports")
        .iter()
        .find(|p| p["node"] == node && p["port"] == num)
        .unwrap_or_else(|| panic!("no port {node}[{num}]"))
}

/// `key` summed over every port.
pub fn total(r: &Value, key: &str) -> u64 {
    super::table(r, "ports")
        .iter()
        .map(|p| p[key].as_u64().unwrap())
        .sum()
}
