//! Multi-rail MPI (`workload.num_hcas`, MVAPICH2's MV2_NUM_HCAS): large rendezvous payloads
//! striped evenly over the rails, everything else on one rail, a slow rail bounding a striped
//! message, and mixed programs matched in full. Two-rail fat trees (k = 4 per rail), cx3-fdr.
mod common;
use common::mpi_trace::{rec, trace_dir};
use common::{f, results, table};
use rdmasim_core::api::Simulation;
use rdmasim_core::fabric::graph::{LinkState, RoutedFabric};
use rdmasim_core::ids::HostId;
use rdmasim_core::prepare::parse_toml;
use serde_json::Value;
use std::path::Path;

/// A scenario replaying `dir` on two rails of a k = 4 fat tree (16 hosts per rail).
fn two_rails(dir: &Path, workload: &str, topology: &str) -> String {
    format!(
        "[hardware]\nprofile = \"cx3-fdr\"\n[topology]\ngenerator = {{ kind = \"rails\", rails = 2, of = {{ kind = \"fat-tree-k\", k = 4 }} }}\n{topology}\n\
         [workload]\nkind = \"mpi\"\ntrace = \"{}\"\n{workload}\n",
        dir.display()
    )
}

/// Runs `toml` after `edit` changed its generated fabric (a link down, a slow link).
fn run_edited(toml: &str, edit: impl FnOnce(&mut RoutedFabric)) -> Value {
    let mut s = parse_toml(toml, "<test>").expect("valid scenario");
    let mut fabric = s.topology.routed.as_deref().expect("a generated fabric").clone();
    edit(&mut fabric);
    s.topology.routed = Some(std::sync::Arc::new(fabric));
    let mut sim = Simulation::from_scenario(s, "<test>").expect("builds");
    sim.run();
    results(&sim)
}

fn run(toml: &str) -> Value {
    run_edited(toml, |_| {})
}

/// Packets `host`'s HCA `dev` (mlx4_0 = rail 0, mlx4_1 = rail 1) sent.
fn sent(r: &Value, host: &str, dev: &str) -> u64 {
    table(r, "ports").iter().filter(|p| p["node"] == host && p["device"] == dev).map(|p| p["PortXmitPkts"].as_u64().unwrap()).sum()
}

fn mpi(r: &Value) -> &Value {
    &table(r, "mpi")[0]
}

/// Rank 0 on h0 sends one `bytes` message to rank 1 on h1.
fn one_message(bytes: u64) -> std::path::PathBuf {
    trace_dir(&format!("one-{bytes}"), &[
        vec![rec("send", 0, &format!("peer=1 bytes={bytes} tag=1"))],
        vec![rec("recv", 0, &format!("peer=0 bytes={bytes} tag=1"))],
    ])
}

/// Sets the cable of `host`'s HCA on `rail` with `f` (its speed or state).
fn host_cable(rf: &mut RoutedFabric, host: u32, rail: usize, f: impl FnOnce(&mut rdmasim_core::fabric::graph::Link)) {
    let g = &rf.graph;
    let port = g.nodes[g.hosts[HostId(host)].hcas[rail]].first_port;
    let link = g.ports[port].link.expect("the HCA is cabled");
    f(&mut rf.graph.links[link]);
}

const BIG: u64 = 4_000_000;

#[test]
fn a_large_message_on_two_rails_takes_half_the_time() {
    // 4 MB from h0 to h1 (one edge switch apart on each rail). One rail: D ~ 1000 us of
    // serialisation on the generators' 4x QDR links (32 Gb/s of data, 4 KiB packets) plus F, the
    // RTS/CTS handshake, the hops and the last ACK, a few us paid once whatever the rails. Two
    // rails each carry 2 MB: ratio = (F + D/2) / (F + D), 0.502 for the F ~ 4.4 us measured
    // (1010.6 us vs 507.5 us). The bounds leave ~5% for F and the per-packet timing.
    let dir = one_message(BIG);
    let one = run(&two_rails(&dir, "", ""));
    let two = run(&two_rails(&dir, "num_hcas = 2", ""));
    for r in [&one, &two] {
        assert_eq!(r["stop_reason"], "completed");
        assert_eq!(mpi(r)["delivered_bytes"], BIG);
    }
    let (t1, t2) = (f(mpi(&one), "run_time_us"), f(mpi(&two), "run_time_us"));
    let ratio = t2 / t1;
    assert!(ratio > 0.48 && ratio < 0.53, "two rails {t2:.1} us / one rail {t1:.1} us = {ratio:.3}");
    assert_eq!(mpi(&two)["striped_messages"], 1);
    assert_eq!(mpi(&two)["num_hcas"], 2);
    // The payload is split evenly: each rail carries half the data packets.
    let (r0, r1) = (sent(&two, "h0", "mlx4_0"), sent(&two, "h0", "mlx4_1"));
    assert!(r0.abs_diff(r1) <= 2, "h0 sent {r0} packets on rail 0 and {r1} on rail 1");
    assert_eq!(sent(&one, "h0", "mlx4_1"), 0, "one rail: rail 1 idle");
}

#[test]
fn small_and_medium_messages_stay_on_one_rail() {
    // Eager messages and a rendezvous one below the striping threshold (default eager 12288 x
    // 2 rails = 24576 B): one rail each, with fixed-mapping (MVAPICH2's default) the rank's own
    // rail, rail 0 for the first rank of a host.
    let sizes = [8u64, 1000, 12_000, 20_000];
    let sends: Vec<String> = sizes.iter().enumerate().map(|(i, b)| rec("send", 0, &format!("peer=1 bytes={b} tag={i}"))).collect();
    let recvs: Vec<String> = sizes.iter().enumerate().map(|(i, b)| rec("recv", 0, &format!("peer=0 bytes={b} tag={i}"))).collect();
    let dir = trace_dir("small", &[sends, recvs]);
    let r = run(&two_rails(&dir, "num_hcas = 2", ""));
    assert_eq!(r["stop_reason"], "completed");
    let m = mpi(&r);
    assert_eq!((m["delivered_messages"].as_u64(), m["striped_messages"].as_u64()), (Some(4), Some(0)), "{m}");
    assert_eq!(m["rendezvous_messages"], 1);
    assert!(sent(&r, "h0", "mlx4_0") >= 4 && sent(&r, "h1", "mlx4_0") > 0, "rail 0 carried them");
    assert_eq!(sent(&r, "h0", "mlx4_1") + sent(&r, "h1", "mlx4_1"), 0, "rail 1 carried nothing");
    // Round robin spreads the same messages over both rails, and they still match in order.
    let rr = run(&two_rails(&dir, "num_hcas = 2\nrail_sharing_policy = \"round-robin\"", ""));
    assert_eq!(mpi(&rr)["delivered_messages"], 4);
    assert!(sent(&rr, "h0", "mlx4_0") > 0 && sent(&rr, "h0", "mlx4_1") > 0);
    // A lower striping threshold stripes the 20 kB message too.
    let low = run(&two_rails(&dir, "num_hcas = 2\nstriping_threshold = 16384", ""));
    assert_eq!(mpi(&low)["striped_messages"], 1);
    assert!(sent(&low, "h0", "mlx4_1") > 0);
}

#[test]
fn a_degraded_rail_bounds_the_striped_message() {
    // h0's rail-1 cable trained to 1x: that rail runs at a quarter of the rate, so its half of
    // the payload takes 4 x D/2 = 2D, twice the single 4x rail's time (measured 2016.2 us vs
    // 1010.6 us: 1.995); the even split does not favour the fast rail (MVAPICH2 weighs rails
    // only with HSAM, off by default), so the slow rail bounds the message.
    let dir = one_message(BIG);
    let one = run(&two_rails(&dir, "", ""));
    let slow = run_edited(&two_rails(&dir, "num_hcas = 2", ""), |rf| host_cable(rf, 0, 1, |l| l.speed.width = 1));
    assert_eq!(slow["stop_reason"], "completed");
    let (t1, ts) = (f(mpi(&one), "run_time_us"), f(mpi(&slow), "run_time_us"));
    let ratio = ts / t1;
    assert!(ratio > 1.9 && ratio < 2.1, "degraded two rails {ts:.1} us / one good rail {t1:.1} us = {ratio:.3}");
    // On the healthy rail alone (num_hcas = 1, rail 0) the slow cable costs nothing.
    let rail0 = run_edited(&two_rails(&dir, "", ""), |rf| host_cable(rf, 0, 1, |l| l.speed.width = 1));
    assert_eq!(f(mpi(&rail0), "run_time_us"), t1);
}

#[test]
fn a_down_rail_fails_the_striped_message() {
    // h0's rail-1 cable is down: the stripe on it is retried and fails (IBV_WC_RETRY_EXC_ERR);
    // MVAPICH2 (without APM) does not move a stripe to another rail either.
    let dir = one_message(100_000);
    let toml = two_rails(&dir, "num_hcas = 2", "").replace("[workload]", "[qp]\ntimeout = 1\nretry_cnt = 1\n[workload]");
    let r = run_edited(&toml, |rf| host_cable(rf, 0, 1, |l| l.state = LinkState::Down));
    let m = mpi(&r);
    assert!(m["errors"].as_u64().unwrap() > 0, "{m}");
    assert!(m["first_error"].as_str().unwrap().contains("RETRY_EXC"), "{m}");
}

#[test]
fn mixed_sizes_over_two_rails_all_match() {
    // Four ranks, two per host on h0 and h1 (fixed-mapping puts each host's second rank on
    // rail 1), every rank sends every other rank messages of five sizes, eager to striped; the
    // study's `hetero` routing (ftree on rail 0, dfsssp on rail 1) is the one topology line.
    let sizes = [64u64, 5000, 20_000, 100_000, 1_000_000];
    let ranks: Vec<Vec<String>> = (0..4u32)
        .map(|me| {
            let mut ops = Vec::new();
            let mut req = 0;
            for peer in (0..4u32).filter(|&p| p != me) {
                for (i, b) in sizes.iter().enumerate() {
                    req += 1;
                    ops.push(rec("irecv", 0, &format!("peer={peer} bytes={b} tag={i} req={req}")));
                    req += 1;
                    ops.push(rec("isend", 0, &format!("peer={peer} bytes={b} tag={i} req={req}")));
                }
            }
            ops.push(rec("waitall", 0, &format!("reqs={}", (1..=req).map(|q| q.to_string()).collect::<Vec<_>>().join(","))));
            ops
        })
        .collect();
    let dir = trace_dir("mixed", &ranks);
    for policy in ["fixed-mapping", "round-robin", "use-first"] {
        let r = run(&two_rails(&dir, &format!("num_hcas = 2\nranks_per_host = 2\nrail_sharing_policy = \"{policy}\""), "route = \"ftree,dfsssp\""));
        assert_eq!(r["stop_reason"], "completed", "{policy}");
        let m = mpi(&r);
        assert_eq!(m["finished_ranks"], 4, "{policy}: {m}");
        assert_eq!(m["delivered_messages"], 4 * 3 * 5, "{policy}: {m}");
        assert_eq!(m["delivered_bytes"].as_u64(), Some(4 * 3 * sizes.iter().sum::<u64>()), "{policy}");
        assert_eq!((m["unreceived_messages"].as_u64(), m["errors"].as_u64()), (Some(0), Some(0)), "{policy}");
        assert_eq!(m["striped_messages"], 4 * 3 * 2, "{policy}: the 100 kB and 1 MB messages");
        assert!(sent(&r, "h0", "mlx4_1") > 0 && sent(&r, "h1", "mlx4_1") > 0, "{policy}: rail 1 used");
    }
}

#[test]
fn rails_a_host_lacks_and_bad_thresholds_are_refused_by_key() {
    let dir = one_message(1000);
    let err = |toml: &str| Simulation::from_toml(toml, "<test>").err().expect("refused").to_string();
    let e = err(&two_rails(&dir, "num_hcas = 3", ""));
    assert!(e.contains("workload.num_hcas") && e.contains("has 2 rails") && e.contains("expected num_hcas <= 2"), "{e}");
    let e = err(&two_rails(&dir, "rail = 1\nnum_hcas = 2", ""));
    assert!(e.contains("workload.num_hcas") && e.contains("rails 1..=2"), "{e}");
    let e = err(&two_rails(&dir, "num_hcas = 0", ""));
    assert!(e.contains("workload.num_hcas") && e.contains("1..=10"), "{e}");
    let e = err(&two_rails(&dir, "num_hcas = 2\nstriping_threshold = 0", ""));
    assert!(e.contains("workload.striping_threshold") && e.contains(">= 1"), "{e}");
    let e = err(&two_rails(&dir, "rail_sharing_policy = \"scatter\"", ""));
    assert!(e.contains("rail_sharing_policy") && e.contains("round-robin"), "{e}");
}

#[test]
fn messages_on_different_rails_match_in_the_order_they_were_sent() {
    // Round robin puts rank 0's first message (12 000 B, eager) on rail 1, whose h0 cable is at
    // 1x (~11 us), and its second (8 B) on rail 0 (~1 us): the second lands first.
    // Rank 1 waits for its first receive, computes 100 us, then waits for the second. Matched
    // in send order, the first receive takes the slow message: the run ends after the slow
    // message plus 100 us. Had the 8 B message overtaken it, the first wait would end at ~1 us
    // and the run ~10 us sooner.
    let dir = trace_dir("order", &[
        vec![rec("isend", 0, "peer=1 bytes=12000 tag=1 req=1"), rec("isend", 0, "peer=1 bytes=8 tag=1 req=2"), rec("waitall", 0, "reqs=1,2")],
        vec![
            rec("irecv", 0, "peer=0 bytes=12000 tag=1 req=1"),
            rec("irecv", 0, "peer=0 bytes=8 tag=1 req=2"),
            rec("wait", 0, "req=1"),
            rec("wait", 100_000, "req=2"),
        ],
    ]);
    let toml = two_rails(&dir, "num_hcas = 2\nrail_sharing_policy = \"round-robin\"", "");
    let slow = run_edited(&toml, |rf| host_cable(rf, 0, 1, |l| l.speed.width = 1));
    assert_eq!(mpi(&slow)["delivered_messages"], 2);
    assert!(sent(&slow, "h0", "mlx4_1") > 0 && sent(&slow, "h0", "mlx4_0") > 0, "one message on each rail");
    let t = f(mpi(&slow), "run_time_us");
    // Overtaken, the first wait would end when the 8 B message lands (~1 us) and the run at
    // 101.2 us (measured with the sequence numbers switched off); matched in order it waits
    // for the slow message: 111.25 us.
    assert!(t > 108.0, "run time {t:.2} us: the first receive matched the first message sent");
}
