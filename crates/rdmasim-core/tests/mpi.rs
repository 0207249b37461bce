//! The MPI layer over the verbs model, driven by small hand-written traces: eager and
//! rendezvous delivery, collectives, SRQ overflow under both flow-control methods, and trace
//! errors that name file and line.
mod common;
use common::mpi_trace::{rec, trace_dir};
use common::{f, run, table};
use serde_json::Value;
use std::path::Path;

fn scenario(dir: &Path, hosts: usize, extra: &str) -> String {
    format!(
        "[hardware]\nprofile = \"cx3-fdr\"\n[topology]\nkind = \"single-switch\"\nhosts = {hosts}\n[workload]\nkind = \"mpi\"\ntrace = \"{}\"\n{extra}\n",
        dir.display()
    )
}

fn mpi_row(r: &Value) -> &Value {
    &table(r, "mpi")[0]
}

fn srq_sum(r: &Value, key: &str) -> u64 {
    table(r, "srqs").iter().map(|s| s[key].as_u64().unwrap()).sum()
}

#[test]
fn eager_and_rendezvous_messages_are_delivered() {
    let dir = trace_dir("p2p", &[
        vec![rec("isend", 0, "peer=1 bytes=1000 tag=5 req=1"), rec("isend", 0, "peer=1 bytes=100000 tag=6 req=2"), rec("waitall", 0, "reqs=1,2")],
        vec![rec("irecv", 0, "peer=0 bytes=100000 tag=6 req=1"), rec("recv", 2000, "peer=-1 bytes=1000 tag=-1")],
    ]);
    let r = run(&scenario(&dir, 2, ""));
    assert_eq!(r["stop_reason"], "completed");
    let m = mpi_row(&r);
    assert_eq!(m["delivered_messages"], 2);
    assert_eq!(m["delivered_bytes"], 101_000);
    assert_eq!(m["recorded_sends"], 2);
    assert_eq!((m["eager_messages"].as_u64(), m["rendezvous_messages"].as_u64()), (Some(1), Some(1)), "{m}");
    // 100 kB at ~6.8 GB/s takes ~15 us; the run cannot be shorter, nor much longer.
    let t = f(m, "run_time_us");
    assert!(t > 15.0 && t < 40.0, "run time {t} us");
}

#[test]
fn collectives_replay_to_completion() {
    let ops = |_r: usize| {
        vec![
            rec("barrier", 1000, "comm=world"),
            rec("bcast", 0, "root=2 bytes=4096 comm=world"),
            rec("bcast", 0, "root=1 bytes=65536 comm=world"),
            rec("reduce", 500, "root=0 bytes=8 comm=world"),
            rec("allreduce", 0, "bytes=8 comm=world"),
            rec("alltoall", 0, "bytes=64 comm=world"),
        ]
    };
    let dir = trace_dir("coll", &(0..5).map(ops).collect::<Vec<_>>());
    let r = run(&scenario(&dir, 3, "ranks_per_host = 2"));
    assert_eq!(r["stop_reason"], "completed");
    let m = mpi_row(&r);
    assert_eq!(m["finished_ranks"], 5);
    assert_eq!(m["delivered_messages"], 0, "collective traffic is not user traffic");
    assert!(m["rendezvous_messages"].as_u64().unwrap() > 0, "the 64 kB bcast goes by rendezvous");
    // Alltoall alone is 5 x 4 messages; all collectives together need far more than that.
    assert!(m["eager_messages"].as_u64().unwrap() > 20);
}

/// Ranks 1..=8 each send 8 one-packet messages to rank 0, which computes 200 us before it
/// receives them: far more arrivals than the 16 buffers of its SRQ.
fn incast(method: &str) -> Value {
    let mut recv = Vec::new();
    for s in 1..=8 {
        for k in 0..8 {
            recv.push(rec("irecv", if recv.is_empty() { 200_000 } else { 0 }, &format!("peer={s} bytes=1024 tag={k} req={}", recv.len() + 1)));
        }
    }
    let n = recv.len();
    recv.push(rec("waitall", 0, &format!("reqs={}", (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(","))));
    let mut ranks = vec![recv];
    for _ in 1..=8 {
        let mut v: Vec<String> = (0..8).map(|k| rec("isend", 0, &format!("peer=0 bytes=1024 tag={k} req={}", k + 1))).collect();
        v.push(rec("waitall", 0, "reqs=1,2,3,4,5,6,7,8"));
        ranks.push(v);
    }
    let dir = trace_dir(&format!("incast-{method}"), &ranks);
    run_incast(&dir, method)
}

fn run_incast(dir: &Path, method: &str) -> Value {
    run(&scenario(dir, 9, &format!("flow_control = \"{method}\"\nsrq_buffers = 16")))
}

#[test]
fn srq_overflow_costs_rnr_timeouts_conventionally_and_a_resume_with_stop_resume() {
    let conv = incast("srq-limit");
    let prop = incast("stop-resume");
    for r in [&conv, &prop] {
        assert_eq!(r["stop_reason"], "completed");
        assert_eq!(mpi_row(r)["delivered_messages"], 64);
    }
    // Conventional: the pool runs dry, senders get RNR NAKs and wait the 640 us RNR timer.
    assert!(srq_sum(&conv, "overflows") > 0);
    assert!(srq_sum(&conv, "limit_events") >= 1);
    let rnr: u64 = table(&conv, "hca_counters").iter().map(|c| c["rnr_nak_retry_err"].as_u64().unwrap()).sum();
    assert!(rnr > 0);
    let t_conv = f(mpi_row(&conv), "run_time_us");
    assert!(t_conv > 640.0, "conventional run {t_conv} us");
    // Stop/resume: stop requests instead, resumes sent only to the stopped senders (<= 8 per
    // episode), no RNR NAK; done shortly after rank 0 starts receiving at 200 us.
    assert!(srq_sum(&prop, "stop_requests") > 0);
    // Every stopped sender is resumed exactly once, and nobody else: a QP is stopped at most
    // once per episode (its later packets are dropped as out of sequence).
    let resumes = srq_sum(&prop, "resume_requests");
    assert!(resumes > 0);
    assert_eq!(resumes, srq_sum(&prop, "stop_requests"));
    let rnr: u64 = table(&prop, "hca_counters").iter().map(|c| c["rnr_nak_retry_err"].as_u64().unwrap()).sum();
    assert_eq!(rnr, 0);
    let t_prop = f(mpi_row(&prop), "run_time_us");
    assert!(t_prop > 200.0 && t_prop < 300.0, "stop/resume run {t_prop} us");
}

#[test]
fn bad_traces_name_file_and_line() {
    let dir = trace_dir("bad", &[vec![rec("isend", 0, "peer=1 bytes=8 tag=0 req=1"), rec("wait", 0, "req=1")], vec![rec("recv", 0, "peer=0 bytes=8 tag=0")]]);
    // Truncate rank 1: cut its last line (finalize) in the middle.
    let p = dir.join("rank.1.trace");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, &text[..text.len() - 12]).unwrap();
    let e = rdmasim_core::api::Simulation::from_toml(&scenario(&dir, 2, ""), "s.toml").err().expect("a truncated trace is an error");
    let msg = e.to_string();
    assert!(msg.contains("rank.1.trace:4:"), "{msg}");
    assert!(msg.contains("workload.trace"), "{msg}");
    // A negative or infinite factor on the compute gaps (the PM engine checks it alike,
    // tests/pm_mpi.rs).
    for scale in ["-1.0", "inf"] {
        let msg = rdmasim_core::api::Simulation::from_toml(&scenario(&dir, 2, &format!("compute_scale = {scale}")), "s.toml").err().unwrap().to_string();
        assert!(msg.contains("workload.compute_scale") && msg.contains("expected a finite number >= 0"), "{msg}");
    }
    // A rank that sends to a rank the run does not have.
    let dir = trace_dir("bad2", &[vec![rec("send", 0, "peer=7 bytes=8 tag=0")], vec![]]);
    let msg = rdmasim_core::api::Simulation::from_toml(&scenario(&dir, 2, ""), "s.toml").err().unwrap().to_string();
    assert!(msg.contains("rank.0.trace:3: `peer=7` is not a rank of a 2-rank run"), "{msg}");
    // Collectives that disagree on the root (eager or rendezvous: a small bcast used to replay
    // to completion with each rank acting as root), on the call, or in number: an erroneous
    // program, rejected when read, naming both ranks' lines.
    let bcast = |root: u32, bytes: u32| rec("bcast", 0, &format!("root={root} bytes={bytes} comm=world"));
    for bytes in [8, 100_000] {
        let dir = trace_dir("root", &[vec![bcast(0, bytes)], vec![bcast(1, bytes)]]);
        let msg = rdmasim_core::api::Simulation::from_toml(&scenario(&dir, 2, ""), "s.toml").err().expect("roots disagree").to_string();
        assert!(msg.contains("rank.1.trace:3: collective #1 is `bcast root=1`, but ") && msg.contains("rank.0.trace:3 has `bcast root=0`: every rank must call"), "{msg}");
    }
    let dir = trace_dir("call", &[vec![rec("barrier", 0, "comm=world"), bcast(0, 8)], vec![rec("barrier", 0, "comm=world"), rec("allreduce", 0, "bytes=8 comm=world")]]);
    let msg = rdmasim_core::api::Simulation::from_toml(&scenario(&dir, 2, ""), "s.toml").err().unwrap().to_string();
    assert!(msg.contains("rank.1.trace:4: collective #2 is `allreduce`, but ") && msg.contains("rank.0.trace:4 has `bcast root=0`"), "{msg}");
    let dir = trace_dir("count", &[vec![rec("barrier", 0, "comm=world")], vec![]]);
    let msg = rdmasim_core::api::Simulation::from_toml(&scenario(&dir, 2, ""), "s.toml").err().unwrap().to_string();
    assert!(msg.contains("rank.1.trace: has 0 collectives; ") && msg.contains("rank.0.trace:3 has a collective #1: `barrier`"), "{msg}");
    // The same collectives on every rank replay (sizes may differ: v-variants record averages).
    let dir = trace_dir("same", &[vec![bcast(1, 8), rec("allreduce", 0, "bytes=8 comm=world")], vec![bcast(1, 8), rec("allreduce", 0, "bytes=16 comm=world")]]);
    assert_eq!(run(&scenario(&dir, 2, ""))["stop_reason"], "completed");
    // Not enough hosts for the ranks.
    let dir = trace_dir("hosts", &[vec![], vec![], vec![]]);
    let msg = rdmasim_core::api::Simulation::from_toml(&scenario(&dir, 2, ""), "s.toml").err().unwrap().to_string();
    assert!(msg.contains("needs 3 hosts"), "{msg}");
}

#[test]
fn same_trace_and_seed_give_identical_results() {
    let a = incast("stop-resume");
    let dir = table(&a, "mpi")[0]["trace"].as_str().unwrap().to_string();
    let b = run_incast(Path::new(&dir), "stop-resume");
    assert_eq!(serde_json::to_string(&a["tables"]).unwrap(), serde_json::to_string(&b["tables"]).unwrap());
}

/// Traces whose calls do not pair up end the run (no hang, no panic) with a stop reason naming
/// the file and line of the call a rank is stuck in.
#[test]
fn traces_that_do_not_pair_up_stall_with_file_and_line() {
    let stalled = |name: &str, ranks: &[Vec<String>], extra: &str| -> (String, Value) {
        let dir = trace_dir(name, ranks);
        let r = run(&scenario(&dir, ranks.len(), extra));
        (r["stop_reason"].as_str().unwrap().to_string(), mpi_row(&r).clone())
    };
    // A receive nobody sends to.
    let (why, m) = stalled("norecv", &[vec![rec("recv", 0, "peer=1 bytes=8 tag=9")], vec![]], "");
    assert!(why.starts_with("no more events (workload stalled): "), "{why}");
    assert!(why.contains("rank.0.trace:3: rank 0 waits for a receive from rank 1, tag 9 (line 3)"), "{why}");
    assert_eq!(m["stall"].as_str(), Some(&why["no more events (workload stalled): ".len()..]));
    // A chain: rank 0 waits for rank 1, which waits for rank 2, which finished without
    // sending: the report points at rank 1, whose partner can never answer.
    let (why, _) = stalled("chain", &[vec![rec("recv", 0, "peer=1 bytes=8 tag=1")], vec![rec("recv", 0, "peer=2 bytes=8 tag=2"), rec("send", 0, "peer=0 bytes=8 tag=1")], vec![]], "");
    assert!(why.contains("rank.1.trace:3: rank 1 waits for a receive from rank 2, tag 2 (line 3) that no send matched; that rank has finished (1 more rank blocked)"), "{why}");
    // A rendezvous send nobody receives: the sender waits for the CTS forever.
    let (why, _) = stalled("nosend", &[vec![rec("isend", 0, "peer=1 bytes=100000 tag=2 req=5"), rec("wait", 10, "req=5")], vec![]], "");
    assert!(why.contains("rank.0.trace:4: rank 0 waits for a rendezvous send to rank 1, tag 2 (line 3)"), "{why}");
    // Head-to-head blocking sends that only worked with the traced MPI's larger eager limit:
    // the stall says so, and a larger eager threshold replays them.
    let h2h = |me: u32| vec![rec("send", 0, &format!("peer={} bytes=20000 tag=1", 1 - me)), rec("recv", 0, &format!("peer={} bytes=20000 tag=1", 1 - me))];
    let (why, _) = stalled("h2h", &[h2h(0), h2h(1)], "");
    assert!(why.contains("rank.0.trace:3: rank 0 waits for a rendezvous send to rank 1") && why.contains("raise workload.eager_threshold"), "{why}");
    let dir = trace_dir("h2h-eager", &[h2h(0), h2h(1)]);
    assert_eq!(run(&scenario(&dir, 2, "eager_threshold = 32736"))["stop_reason"], "completed");
    // An eager send nobody receives completes, and the run too; the message is reported.
    let dir = trace_dir("eager", &[vec![rec("send", 0, "peer=1 bytes=8 tag=2")], vec![]]);
    let r = run(&scenario(&dir, 2, ""));
    assert_eq!(r["stop_reason"], "completed");
    assert_eq!(mpi_row(&r)["unreceived_messages"], 1);
    // Many unmatched eager sends to a finished rank, with a 2-buffer SRQ, under both methods:
    // the pool overflows again and again, yet the run ends.
    for fc in ["srq-limit", "stop-resume"] {
        let sends: Vec<String> = (0..12).map(|k| rec("send", 0, &format!("peer=1 bytes=1000 tag={k}"))).collect();
        let dir = trace_dir("flood", &[sends, vec![]]);
        let r = run(&scenario(&dir, 2, &format!("flow_control = \"{fc}\"\nsrq_buffers = 2")));
        assert_eq!(r["stop_reason"], "completed", "{fc}");
        assert_eq!(mpi_row(&r)["unreceived_messages"], 12, "{fc}");
    }
}

/// A trace with more ranks than the topology has hosts: the error names `topology.hosts` (the
/// key to change) and the scenario file once.
#[test]
fn too_few_hosts_for_the_trace_names_topology_hosts() {
    let dir = trace_dir("few_hosts", &[vec![], vec![], vec![]]);
    let e = match rdmasim_core::api::Simulation::from_toml(&scenario(&dir, 2, ""), "run.toml") {
        Ok(_) => panic!("3 ranks on 2 hosts were accepted"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("key `topology.hosts`") && e.contains("the trace has 3 ranks, 1 per host needs 3 hosts"), "{e}");
    assert_eq!(e.matches("run.toml").count(), 1, "{e}");
}

#[test]
fn mpi_replays_on_the_rail_it_names() {
    // Two ranks on a dual-rail fat tree (k = 4 per rail), rank 0 on h0 and rank 1 on h1: with
    // rail = 1 every byte crosses the second rail's HCAs; rail = 2 does not exist.
    let dir = trace_dir("rail", &[
        vec![rec("send", 0, "peer=1 bytes=100000 tag=1")],
        vec![rec("recv", 0, "peer=0 bytes=100000 tag=1")],
    ]);
    let text = |rail: u16| {
        format!(
            "[hardware]\nprofile = \"cx3-fdr\"\n[topology]\ngenerator = {{ kind = \"rails\", rails = 2, of = {{ kind = \"fat-tree-k\", k = 4 }} }}\n\
             [workload]\nkind = \"mpi\"\ntrace = \"{}\"\nrail = {rail}\n",
            dir.display()
        )
    };
    let r = run(&text(1));
    assert_eq!(r["stop_reason"], "completed");
    let words = |host: &str, dev: &str| -> u64 {
        table(&r, "ports").iter().filter(|p| p["node"] == host && p["device"] == dev).map(|p| p["PortXmitData"].as_u64().unwrap()).sum()
    };
    assert!(words("h0", "mlx4_1") * 4 > 100_000, "rail 1 carried the message: {} words", words("h0", "mlx4_1"));
    assert_eq!(words("h0", "mlx4_0") + words("h1", "mlx4_0"), 0, "rail 0 carried nothing");
    let e = rdmasim_core::api::Simulation::from_toml(&text(2), "<test>").err().expect("rail 2 is refused").to_string();
    assert!(e.contains("workload.rail"), "{e}");
}

/// MPI connects its QPs during the run: the send engine must still check the credits of the
/// VL they use. On a 10 km cable the credits run out long before the first return, and a rank
/// sending 1 MB waits for them (PortXmitWait) instead of overdrawing the buffer.
#[test]
fn qps_connected_during_the_run_wait_for_credits_on_their_vl() {
    let dir = trace_dir("credits", &[
        vec![rec("send", 0, "peer=1 bytes=1000000 tag=1")],
        vec![rec("recv", 0, "peer=0 bytes=1000000 tag=1")],
    ]);
    let r = run(&scenario(&dir, 2, "").replace("hosts = 2\n", "hosts = 2\ncable_m = 10000.0\n"));
    assert_eq!(r["stop_reason"], "completed");
    let wait: u64 = table(&r, "ports").iter().filter(|p| p["node"] == "h0").map(|p| p["PortXmitWait"].as_u64().unwrap()).sum();
    assert!(wait > 0, "h0 waited for credits on the 10 km cable");
}
