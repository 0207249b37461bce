//! Hosts of other generations in one fabric: `[[hardware.hosts]]` gives some hosts another
//! profile (their NIC and CPU parameters) and their cables train to the slower end.
mod common;
use common::*;

fn write_bw(rest: &str) -> serde_json::Value {
    run(&perftest("cx4-edr", "ib_write_bw", "size = 65536\niters = 2000", rest))
}

#[test]
fn a_cable_to_an_older_host_trains_to_its_speed() {
    // cx4-edr on h0, cx3-fdr on h1: the cable runs at 4x FDR; perftest's 64 KiB WRITEs get
    // FDR's data rate less headers (MTU 4096), not EDR's.
    let r = write_bw("[[hardware.hosts]]\nhosts = [1]\nprofile = \"cx3-fdr\"");
    let bw = f(&table(&r, "perftest")[0], "bw_avg_Gbps");
    let fdr = 14.0625 * 4.0 * 64.0 / 66.0 * 65536.0 / (65536.0 + 16.0 * 26.0 + 16.0);
    assert!(bw <= fdr * 1.0001 && bw > 0.95 * fdr, "{bw} Gb/s, FDR bound {fdr}");
    let edr = f(&table(&write_bw(""), "perftest")[0], "bw_avg_Gbps");
    assert!(edr > 1.5 * bw, "all EDR: {edr} Gb/s");
}

#[test]
fn a_hosts_own_cpu_parameters_apply_to_it_alone() {
    // h0's ibv_post_send costs 5 us more on its profile: its verbs CPU grows by about
    // 5 us per post, h1's (which posts nothing in ib_write_bw) does not.
    let cpu = |r: &serde_json::Value, h: usize| f(&table(r, "host_cpu")[h], "cpu_verbs_us");
    let base = run(&perftest("cx4-edr", "ib_write_bw", "size = 4096\niters = 100", ""));
    let slow = run(&perftest("cx4-edr", "ib_write_bw", "size = 4096\niters = 100", "[[hardware.hosts]]\nhosts = [0]\noverrides = { post_send_cpu_ns = 5070.0 }"));
    let posts = 100.0;
    let extra = cpu(&slow, 0) - cpu(&base, 0);
    assert!((extra - posts * 5.0).abs() < 0.5, "h0 spent {extra} us more on {posts} posts");
    assert_eq!(cpu(&slow, 1), cpu(&base, 1));
}

#[test]
fn host_hardware_errors_name_the_entry() {
    let err = |rest: &str| {
        rdmasim_core::api::Simulation::from_toml(&perftest("cx4-edr", "ib_write_bw", "", rest), "<test>").err().expect("refused").to_string()
    };
    let e = err("[[hardware.hosts]]\nhosts = [1]\noverrides = { switch_latency_ns = 50.0 }");
    assert!(e.contains("hardware.hosts[0].overrides.switch_latency_ns") && e.contains("switch"), "{e}");
    let e = err("[[hardware.hosts]]\nhosts = [1]\n[[hardware.hosts]]\nhosts = [1]\nprofile = \"cx3-fdr\"");
    assert!(e.contains("hardware.hosts[1].hosts[0]") && e.contains("already in hardware.hosts[0]"), "{e}");
    let e = err("[[hardware.hosts]]\nhosts = [2]");
    assert!(e.contains("hardware.hosts[0].hosts[0]") && e.contains("does not exist"), "{e}");
    let e = err("[[hardware.hosts]]\nhosts = [1]\nprofile = \"cx9\"");
    assert!(e.contains("hardware.hosts[0].profile") && e.contains("cx9"), "{e}");
    let e = err("[[hardware.hosts]]\nhosts = [1]\noverrides = { vl_buffer_bytes = 65536 }");
    assert!(e.contains("hardware.hosts[0].overrides.vl_buffer_bytes") && e.contains("every port"), "{e}");
    let e = err("[topology]\ngenerator = { kind = \"fat-tree-k\", k = 4 }\ncable_m = 500.0");
    assert!(e.contains("topology.cable_m"), "{e}");
    let e = err("[[hardware.hosts]]\nhosts = [1]\noverrides = { tx_packet_ns = -1.0 }");
    assert!(e.contains("hardware.hosts[0].overrides.tx_packet_ns"), "{e}");
}
