//! The TSUBAME2.0 study's benchmarks as generated MPI programs (`workload.program`,
//! seeds/004 §2): random-pair MPI_Sendrecv reported as the slowest pair's injection bandwidth,
//! and MVAPICH2's pairwise-exchange MPI_Alltoall, on node subsets. Single switches and two-rail
//! k = 4 fat trees (16 hosts), cx3-fdr (4x FDR host links, 54.5 Gb/s of data = 6.82 GB/s).
mod common;
use common::{f, results, table};
use rdmasim_core::api::Simulation;
use rdmasim_core::engine::SimRng;
use rdmasim_core::traffic::patterns::{PatternKind, PatternScratch};
use rdmasim_core::fabric::graph::RoutedFabric;
use rdmasim_core::ids::HostId;
use rdmasim_core::prepare::parse_toml;
use rdmasim_core::traffic::nodes::NodeSubset;
use serde_json::Value;
use std::collections::BTreeSet;

const MIB: u64 = 1 << 20;
/// 4x FDR's data rate, 14.0625 Gbaud × 4 lanes × 64/66, in bytes per ns (GB/s).
const FDR_GBPS: f64 = 14.0625 * 4.0 * 64.0 / 66.0 / 8.0;

fn single_switch(hosts: u32, workload: &str) -> String {
    format!("[hardware]\nprofile = \"cx3-fdr\"\n[topology]\nkind = \"single-switch\"\nhosts = {hosts}\n[workload]\nkind = \"mpi\"\n{workload}\n")
}

fn two_rails(workload: &str) -> String {
    format!(
        "[hardware]\nprofile = \"cx3-fdr\"\n[topology]\ngenerator = {{ kind = \"rails\", rails = 2, of = {{ kind = \"fat-tree-k\", k = 4 }} }}\n\
         [workload]\nkind = \"mpi\"\nnum_hcas = 2\n{workload}\n"
    )
}

fn random_pair(bytes: u64, seed: u64, extra: &str) -> String {
    format!("program = {{ kind = \"random-pair-sendrecv\", bytes = {bytes}, seed = {seed}{extra} }}")
}

fn run_edited(toml: &str, edit: impl FnOnce(&mut RoutedFabric)) -> Value {
    let mut s = parse_toml(toml, "<test>").unwrap_or_else(|e| panic!("scenario error: {e}"));
    if let Some(rf) = s.topology.routed.as_deref() {
        let mut fabric = rf.clone();
        edit(&mut fabric);
        s.topology.routed = Some(std::sync::Arc::new(fabric));
    }
    let mut sim = Simulation::from_scenario(s, "<test>").expect("builds");
    sim.run();
    let r = results(&sim);
    assert_eq!(r["stop_reason"], "completed", "{}", r["stop_reason"]);
    r
}

fn run(toml: &str) -> Value {
    run_edited(toml, |_| {})
}

fn trial(r: &Value, t: usize) -> &Value {
    &table(r, "mpi_trials")[t]
}

fn pairs(r: &Value) -> Vec<(u64, u64)> {
    table(r, "mpi_pairs").iter().map(|p| (p["rank_a"].as_u64().unwrap(), p["rank_b"].as_u64().unwrap())).collect()
}

#[test]
fn the_pairing_is_the_ebb_random_pair_pattern_for_the_same_seed_and_node_count() {
    for (n, seed) in [(16u32, 1u64), (13, 7)] {
        let kind = PatternKind::RandomPair { hosts: n as usize };
        let mut s = PatternScratch::default();
        s.write(kind, n as usize, 0, &mut SimRng::new(seed, kind.stream(0)));
        let expected: Vec<(u64, u64)> = s.flows.iter().step_by(2).map(|&(a, b)| (a as u64, b as u64)).collect();
        let r = run(&two_rails(&format!("nodes = {n}\n{}", random_pair(MIB, seed, ""))));
        assert_eq!(pairs(&r), expected, "{n} nodes, seed {seed}");
        assert_eq!(trial(&r, 0)["pairs"], n / 2, "an odd count leaves one rank idle");
    }
}

#[test]
fn on_a_single_switch_every_pair_gets_the_link_rate() {
    // 4 pairs of 1 MiB each way through a crossbar: nothing shared, so every pair takes what one
    // pair alone takes (159.06 us), and that is 96.7% of the 4x FDR data rate: ~0.7% of the
    // 4 KiB packets is headers, ~2.5% is the RTS/CTS handshake and the first packet's and last
    // ACK's latency, paid once per message. The band below leaves 5% for those.
    let one = run(&single_switch(2, &random_pair(MIB, 1, "")));
    let eight = run(&single_switch(8, &random_pair(MIB, 1, "")));
    let (t1, t8) = (f(trial(&one, 0), "time_us"), f(trial(&eight, 0), "time_us"));
    assert!((t8 / t1 - 1.0).abs() < 1e-3, "8 hosts {t8} us vs one pair {t1} us");
    for p in table(&eight, "mpi_pairs") {
        assert!((f(p, "time_us") / t1 - 1.0).abs() < 1e-3, "{p}");
    }
    let bw = f(trial(&eight, 0), "injection_GBps");
    assert!(bw <= FDR_GBPS && bw > 0.95 * FDR_GBPS, "injection {bw} GB/s vs link {FDR_GBPS}");
    assert_eq!(table(&eight, "mpi")[0]["delivered_bytes"], 8 * MIB);
}

/// Sets the cable of `host`'s HCA on `rail` to one lane (1x: a quarter of the rate).
fn one_lane(rf: &mut RoutedFabric, host: u32, rail: usize) {
    let g = &rf.graph;
    let port = g.nodes[g.hosts[HostId(host)].hcas[rail]].first_port;
    let link = g.ports[port].link.expect("the HCA is cabled");
    rf.graph.links[link].speed.width = 1;
}

#[test]
fn a_degraded_link_makes_the_slowest_pair_slower() {
    // 4 MiB striped over both rails (2 MiB per rail). With h0's rail-0 cable trained to 1x its
    // stripe takes 4x as long, so its pair takes ~2x as long as any other (the other rail's
    // half is done long before); the other pairs do not cross that cable.
    let toml = two_rails(&random_pair(4 * MIB, 3, ""));
    let healthy = run(&toml);
    let degraded = run_edited(&toml, |rf| one_lane(rf, 0, 0));
    let (th, td) = (f(trial(&healthy, 0), "time_us"), f(trial(&degraded, 0), "time_us"));
    assert!(td > 1.8 * th, "slowest pair {td} us degraded vs {th} us healthy");
    let bw = |r: &Value| f(trial(r, 0), "injection_GBps");
    assert!(bw(&degraded) < 0.6 * bw(&healthy));
    // The pair with h0 is the slowest; every other stays as fast as on the healthy fabric.
    for p in table(&degraded, "mpi_pairs") {
        let with_h0 = p["host_a"] == 0 || p["host_b"] == 0;
        assert_eq!(f(p, "time_us") == td, with_h0, "{p}");
    }
}

#[test]
fn a_pairwise_alltoall_matches_every_message_and_takes_n_minus_1_exchanges() {
    // 8 ranks (power of two: XOR pairs) and 6 (shift pairs), 1 MiB per pair on a crossbar: each
    // step is one 1 MiB exchange with no contention, so n - 1 of them take (n - 1) x one
    // exchange (159.06 us, the single-pair round above) within the 1% steps add (eager
    // bookkeeping between steps).
    let pair = f(trial(&run(&single_switch(2, &random_pair(MIB, 1, ""))), 0), "time_us");
    for n in [8u32, 6] {
        let r = run(&single_switch(n, "program = { kind = \"alltoall\", bytes = 1048576, algorithm = \"pairwise\" }"));
        let m = &table(&r, "mpi")[0];
        assert_eq!((m["finished_ranks"].as_u64(), m["unreceived_messages"].as_u64(), m["errors"].as_u64()), (Some(n as u64), Some(0), Some(0)));
        let t = f(trial(&r, 0), "time_us");
        let expected = (n - 1) as f64 * pair;
        assert!((t / expected - 1.0).abs() < 0.01, "{n} ranks: {t} us vs {expected} us");
        // Every send has its receive: rendezvous messages = n (n - 1) payloads.
        assert_eq!(m["rendezvous_messages"].as_u64(), Some((n * (n - 1)) as u64));
    }
}

#[test]
fn node_subsets_skip_exactly_the_missing_hosts() {
    let used = |r: &Value| -> BTreeSet<u64> { table(r, "mpi_pairs").iter().flat_map(|p| [p["host_a"].as_u64().unwrap(), p["host_b"].as_u64().unwrap()]).collect() };
    // A list: hosts 0 and 5 are down, the 14 others run ranks 0..13 in node order.
    let r = run(&two_rails(&format!("missing = [5, 0]\n{}", random_pair(MIB, 2, ""))));
    let expected: BTreeSet<u64> = (0..16).filter(|h| *h != 0 && *h != 5).collect();
    assert_eq!(used(&r), expected);
    for p in table(&r, "mpi_pairs") {
        for side in ["a", "b"] {
            let (rank, host) = (p[format!("rank_{side}")].as_u64().unwrap(), p[format!("host_{side}")].as_u64().unwrap());
            assert_eq!(host, rank + 1 + (rank >= 4) as u64, "rank {rank} on the next host up");
        }
    }
    // A draw: 12 of 16, the same hosts as the subset's own draw for that seed.
    let r = run(&two_rails(&format!("nodes = 12\nmissing_seed = 4\n{}", random_pair(MIB, 2, ""))));
    let drawn: BTreeSet<u64> = NodeSubset { nodes: Some(12), missing: None, seed: 4 }.select(16).unwrap().iter().map(|h| h.0 as u64).collect();
    assert_eq!(drawn.len(), 12);
    assert_eq!(used(&r), drawn);
}

#[test]
fn trials_redraw_or_keep_the_pairing_and_the_same_seed_gives_the_same_result() {
    let toml = two_rails(&random_pair(MIB, 5, ", trials = 3"));
    let a = run(&toml);
    let b = run(&toml);
    assert_eq!(a["tables"]["mpi_pairs"], b["tables"]["mpi_pairs"]);
    assert_eq!(a["tables"]["mpi_trials"], b["tables"]["mpi_trials"]);
    assert_eq!(table(&a, "mpi_trials").len(), 3);
    let of_trial = |r: &Value, t: u64| -> Vec<Value> { table(r, "mpi_pairs").iter().filter(|p| p["trial"] == t).map(|p| p["rank_a"].clone()).collect() };
    assert_ne!(of_trial(&a, 0), of_trial(&a, 1), "per-trial pairing: seed + t");
    let fixed = run(&two_rails(&random_pair(MIB, 5, ", trials = 2, pairing = \"fixed\"")));
    assert_eq!(of_trial(&fixed, 0), of_trial(&fixed, 1));
    assert_eq!(of_trial(&fixed, 0), of_trial(&a, 0), "trial 0 pairs by seed either way");
}

#[test]
fn bad_programs_name_the_key() {
    let err = |w: &str| Simulation::from_toml(&single_switch(4, w), "s.toml").err().expect("refused").to_string();
    let e = err(&format!("trace = \"x\"\n{}", random_pair(MIB, 1, "")));
    assert!(e.contains("workload.program"), "{e}");
    assert!(err("srq_buffers = 16").contains("workload.trace"));
    assert!(err(&random_pair(0, 1, "")).contains("workload.program.bytes"));
    assert!(err(&random_pair(MIB, 1, ", trials = 0")).contains("workload.program.trials"));
    assert!(err("program = { kind = \"bcast\", bytes = 8 }").contains("workload.program"));
    assert!(err(&format!("nodes = 5\n{}", random_pair(MIB, 1, ""))).contains("workload.nodes"));
    assert!(err(&format!("missing = [4]\n{}", random_pair(MIB, 1, ""))).contains("workload.missing"));
}

/// osu_bw and osu_bibw over verbs (the programs MPI over PM runs too): a window of 64 messages
/// of 256 KiB streams at nearly the 4x FDR data rate one way, and at nearly twice it both ways
/// (full duplex: the two directions share no wire).
#[test]
fn osu_bw_streams_at_the_link_rate_and_bibw_at_twice_it() {
    let osu = |bi: bool| {
        let r = run(&single_switch(2, &format!("program = {{ kind = \"osu-bw\", bytes = 262144, window = 64, iterations = 2, skip = 1, bidirectional = {bi} }}")));
        assert_eq!(trial(&r, 0)["program"], if bi { "osu-bibw" } else { "osu-bw" });
        f(trial(&r, 0), "injection_GBps")
    };
    let (bw, bibw) = (osu(false), osu(true));
    assert!(bw <= FDR_GBPS && bw > 0.95 * FDR_GBPS, "osu_bw {bw} GB/s vs link {FDR_GBPS}");
    assert!(bibw <= 2.0 * FDR_GBPS && bibw > 1.9 * FDR_GBPS, "osu_bibw {bibw} GB/s vs twice the link");
}
