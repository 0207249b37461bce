//! Pins the fabric: link rates, credit-based flow control, switch forwarding, determinism.
mod common;
use common::*;
use rdmasim_core::api::Simulation;

#[test]
fn write_bw_reaches_the_link_data_rate_less_headers() {
    // A 64 KiB WRITE is 64 KiB / MTU packets, each with 26 B of LRH/BTH/ICRC/VCRC, and one
    // RETH. perftest runs ConnectX-3 at 2048 B on a 4096 B port (its set_mtu), others at 4096.
    for (profile, data_gbps, mtu) in [("cx3-fdr", 14.0625 * 4.0 * 64.0 / 66.0, 2048.0), ("cx4-edr", 100.0, 4096.0), ("cx5-edr", 100.0, 4096.0)] {
        let efficiency = 65536.0 / (65536.0 + 65536.0 / mtu * 26.0 + 16.0);
        let r = run(&perftest(profile, "ib_write_bw", "size = 65536\niters = 2000", ""));
        let bw = f(&table(&r, "perftest")[0], "bw_avg_Gbps");
        let peak = f(&table(&r, "perftest")[0], "bw_peak_Gbps");
        let bound = data_gbps * efficiency;
        assert!(bw <= bound * 1.0001, "{profile}: {bw} exceeds the bound {bound}");
        assert!(peak >= bw && peak <= bound * 1.0001, "{profile}: peak {peak} outside [{bw}, {bound}]");
        assert!(bw >= 0.95 * bound, "{profile}: {bw} below 95% of {bound}");
    }
    // An explicit path MTU wins over perftest's choice.
    let r = run(&perftest("cx3-fdr", "ib_write_bw", "size = 65536\niters = 2000", "[qp]\nmtu = 4096"));
    let bound_4096 = 14.0625 * 4.0 * 64.0 / 66.0 * 65536.0 / (65536.0 + 16.0 * 26.0 + 16.0);
    let bw = f(&table(&r, "perftest")[0], "bw_avg_Gbps");
    assert!(bw > 53.85 * 1.005 && bw <= bound_4096 * 1.0001, "cx3-fdr at MTU 4096: {bw}");
}

#[test]
fn latency_orders_write_send_read() {
    for profile in ["cx3-fdr", "cx4-edr", "cx5-edr"] {
        let lat = |t| f(&table(&run(&perftest(profile, t, "", "")), "perftest")[0], "t_typical_us");
        let (w, s, r) = (lat("ib_write_lat"), lat("ib_send_lat"), lat("ib_read_lat"));
        assert!(w <= s && s < r, "{profile}: write {w} send {s} read {r}");
        // Published ConnectX small-message latencies are ~0.6-1.0 µs (write) and ~1.5-2 µs (read).
        assert!((0.5..1.2).contains(&w), "{profile}: write latency {w}");
        assert!((1.2..2.5).contains(&r), "{profile}: read latency {r}");
    }
}

/// PortXmitWait counts time with data to send and no credits, not time the HCA's QPs spend
/// waiting for their WQEs. Two QPs share a port whose receiver drains at PCIe 3.0 x1 speed
/// (credits are short); each WQE is fetched when its QP is first served. A slower fetch leaves
/// the QPs without a packet for longer, during which the receiver drains: the wait must not
/// grow with it. Counting from the moment credits ran short whatever the QPs had ready, it did
/// (21.71 M ticks at fetch 0, 21.77 M at 50 µs; now 21.69 M and 16.70 M).
#[test]
fn port_xmit_wait_leaves_out_time_no_qp_had_a_packet() {
    let xmit_wait = |fetch_ns: u32| {
        let r = run(&perftest(
            "cx4-edr",
            "ib_write_bw",
            "size = 65536\niters = 50\nqps = 2\ntx_depth = 1",
            &format!("[hardware.overrides]\nrx_dma_drain = true\npcie_lanes = 1\nwqe_fetch_on_schedule = true\nwqe_fetch_ns = {fetch_ns}"),
        ));
        (port(&r, 0, "PortXmitWait"), f(&table(&r, "perftest")[0], "bw_avg_Gbps"))
    };
    let (base, base_bw) = xmit_wait(0);
    let (slow, slow_bw) = xmit_wait(50_000);
    assert!(base > 0 && slow_bw < base_bw, "the receiver limits both runs and the fetch slows the second: {base_bw} vs {slow_bw} Gb/s");
    assert!(slow < base, "PortXmitWait {slow} ticks with 50 us fetches, {base} without");
}

/// Four senders pace 4 KiB WRITEs at 30 Gb/s each into one EDR host through a switch (120 Gb/s
/// offered to a 100 Gb/s link), each posting its next WR while its last packet is still
/// leaving. A posted WQE has no packet at the port until it has reached the NIC (doorbell,
/// 300 ns fetch, payload read): while the QP was listed as due from the post on, the port
/// counted that time as waiting for credits whenever credits were short, 352 416 ticks on h1
/// (113 µs of a 340 µs run); now it counts 19 024 ticks (6 µs), the time a packet was ready.
#[test]
fn port_xmit_wait_leaves_out_a_posted_wqe_on_its_way_to_the_nic() {
    let flow = |c: u32| {
        format!("{{ verb = \"write\", size = 262144, count = 4, polling = \"busy\", client = {c}, server = 0, split_bytes = 4096, split_window = 8, pace_gbps = 30 }}")
    };
    let flows: Vec<String> = (1..=4).map(flow).collect();
    let r = run(&format!(
        "[hardware]\nprofile = \"cx4-edr\"\n[hardware.overrides]\nwqe_fetch_ns = 300\nwqe_fetch_on_schedule = false\n\
         [topology]\nkind = \"single-switch\"\nhosts = 5\n[workload]\nkind = \"flows\"\nflow = [{}]\n",
        flows.join(", ")
    ));
    let bw: f64 = table(&r, "flows").iter().map(|x| f(x, "bw_Gbps")).sum();
    assert!((97.0..99.5).contains(&bw), "the receiver's link is full: {bw} Gb/s");
    let h1 = table(&r, "ports").iter().find(|p| p["node"] == "h1").expect("h1's port");
    let wait = h1["PortXmitWait"].as_u64().unwrap();
    assert!((1..60_000).contains(&wait), "PortXmitWait {wait} ticks on h1");
}

#[test]
fn credits_throttle_a_long_link_without_loss() {
    // One packet of receive buffer per VL and 100 m of cable: the sender waits a credit round
    // trip (2 × 500 ns) per 4 KiB packet, so bandwidth collapses, yet nothing is lost.
    let r = run(&perftest(
        "cx4-edr",
        "ib_write_bw",
        "size = 65536\niters = 200",
        "[topology]\ncable_m = 100.0\n[hardware.overrides]\nvl_buffer_bytes = 4224",
    ));
    let bw = f(&table(&r, "perftest")[0], "bw_avg_Gbps");
    // Per packet: 330 ns on the wire + 1000 ns waiting for its credit.
    let expected = 100.0 * 4096.0 / 4122.0 * 330.0 / 1330.0;
    assert!((bw - expected).abs() / expected < 0.05, "bw {bw}, expected ~{expected}");
    assert!(port(&r, 0, "PortXmitWait") > 0);
    assert_eq!(port(&r, 1, "PortRcvErrors"), 0);
    assert_eq!(counter(&r, 0, "retransmitted_packets"), 0);
}

#[test]
fn switch_forwards_by_lid_and_adds_its_latency() {
    let direct = run(&perftest("cx4-edr", "ib_write_lat", "", ""));
    let switched = run(&perftest("cx4-edr", "ib_write_lat", "client = 0\nserver = 3", "[topology]\nkind = \"single-switch\"\nhosts = 4"));
    let d = f(&table(&direct, "perftest")[0], "t_typical_us");
    let s = f(&table(&switched, "perftest")[0], "t_typical_us");
    // One extra hop: switch latency (90 ns) + one more cable (10 ns) + the cut-through header time.
    let extra_ns = (s - d) * 1e3;
    assert!((95.0..110.0).contains(&extra_ns), "switch added {extra_ns} ns");
    // Traffic crossed the switch ports of h0 and h3 only.
    let ports = table(&switched, "ports");
    let sw_rcv = |n: u64| ports.iter().find(|p| p["node"] == "sw0" && p["port"] == n).unwrap()["PortRcvPkts"].as_u64().unwrap();
    assert!(sw_rcv(1) > 0 && sw_rcv(4) > 0);
    assert_eq!(sw_rcv(2) + sw_rcv(3), 0);
}

#[test]
fn same_scenario_and_seed_give_identical_results() {
    let text = perftest("cx4-edr", "ib_write_bw", "size = 8192\niters = 3000", "[[faults]]\nlink = \"*\"\nloss_rate = 2e-3\n[output]\ncapture = true");
    let go = |seed: u64| {
        let mut s = Simulation::from_toml(&format!("seed = {seed}\n{text}"), "<t>").unwrap();
        s.run();
        (s.result_json(), s.pcap().unwrap())
    };
    let (a, pa) = go(5);
    let (b, pb) = go(5);
    assert_eq!(a, b);
    assert_eq!(pa, pb);
    let (c, _) = go(6);
    assert_ne!(a, c, "a different seed loses different packets");
}

#[test]
fn peak_bandwidth_stays_under_the_link_with_many_qps() {
    let r = run(&perftest("cx4-edr", "ib_send_bw", "size = 4096
qps = 4
iters = 2000", ""));
    let row = &table(&r, "perftest")[0];
    let bound = 100.0 * 4096.0 / (4096.0 + 26.0);
    assert!(f(row, "bw_peak_Gbps") <= bound * 1.0001, "{row}");
    assert!(f(row, "bw_avg_Gbps") > 0.9 * bound, "{row}");
}
