//! perftest's CQ moderation (-Q): bandwidth tests signal one work request in `cq_mod`, with
//! perftest's default (100, disabled for one size above 8 KiB unless -a or -e, never above the
//! tx depth), and the client handles one completion per `cq_mod` messages.
mod common;
use common::*;

fn bw_row(test: &str, extra: &str) -> serde_json::Value {
    let r = run(&perftest("cx4-edr", test, extra, ""));
    table(&r, "perftest")[0].clone()
}

fn client_cpu_us(test: &str, extra: &str) -> f64 {
    let r = run(&perftest("cx4-edr", test, extra, ""));
    f(&table(&r, "host_cpu")[0], "cpu_busy_us")
}

#[test]
fn cq_mod_defaults_follow_perftest() {
    let q = |test: &str, extra: &str| bw_row(test, extra)["cq_mod"].as_u64().unwrap();
    assert_eq!(q("ib_write_bw", "size = 4096\niters = 500"), 100);
    assert_eq!(q("ib_write_bw", "size = 65536\niters = 200"), 1, "above 8 KiB: disabled");
    assert_eq!(q("ib_send_bw", "size = 65536\niters = 200\nevents = true"), 100, "not disabled with events");
    assert_eq!(q("ib_write_bw", "size = 4096\niters = 500\ntx_depth = 16"), 16, "never above tx_depth");
    assert_eq!(q("ib_write_bw", "size = 4096\niters = 500\ncq_mod = 7"), 7);
}

#[test]
fn every_message_completes_and_the_client_handles_one_cqe_per_cq_mod() {
    // 1000 SENDs of 4 KiB with event-driven completions: cq_mod 100 gives the client 10 CQEs to
    // handle instead of 1000, each one poll (poll_cq_ns = 30 ns on cx4-edr) less.
    let extra = "size = 4096\niters = 1000\nevents = true";
    let moderated = bw_row("ib_send_bw", extra);
    let every = bw_row("ib_send_bw", &format!("{extra}\ncq_mod = 1"));
    assert_eq!(moderated["iterations"], 1000);
    assert_eq!(moderated["errors"], 0);
    let saved = client_cpu_us("ib_send_bw", &format!("{extra}\ncq_mod = 1")) - client_cpu_us("ib_send_bw", extra);
    assert!((saved - 990.0 * 0.030).abs() < 1e-6, "client CPU saved {saved} us");
    // The wire is the bottleneck at 4 KiB: moderation does not change the bandwidth.
    assert!((f(&moderated, "bw_avg_MBps") - f(&every, "bw_avg_MBps")).abs() < 1e-6 * f(&every, "bw_avg_MBps"));
}
