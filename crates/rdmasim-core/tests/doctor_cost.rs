//! `rdmasim doctor`'s cost side: on the fixtures (tests/data/doctor/README.md), every planted
//! link is found, no healthy one, and the suspects rank by what disabling each gains on the
//! workload, re-routed by OpenSM's minhop.
use rdmasim_core::apps::doctor::cost::CostOptions;
use rdmasim_core::apps::doctor::request::{run, DoctorOutcome, DoctorRequest};
use rdmasim_core::apps::doctor::workload::Workload;
use rdmasim_core::apps::doctor::{cost::cost, cost_table, diagnose, Observations, Thresholds};
use std::path::{Path, PathBuf};

#[path = "common/mpi_trace.rs"]
mod mpi_trace;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/doctor").join(name)
}

/// The fabric as designed: the generator's 4-ary 2-tree at 4x QDR.
fn design() -> serde_json::Value {
    serde_json::json!({"kind": "k-ary-n-tree", "k": 4, "n": 2, "speed": {"gen": "qdr", "width": 4}})
}

fn doctor(cost: CostOptions) -> DoctorOutcome {
    let req = DoctorRequest {
        topology: None,
        design: Some(design()),
        linkinfo: Some(data("iblinkinfo.txt")),
        counters: vec![data("perfquery-before.txt"), data("perfquery-after.txt")],
        interval_s: Some(600.0),
        trust_could_be: false,
        no_cost: false,
        cost,
    };
    run(&req).unwrap()
}

fn label(a: &str, b: &str) -> String {
    format!("{a} <-> {b}")
}

/// The planted links by the doctor's label (switch end first).
const D1: (&str, &str) = ("\"r0-L1-s1\"[6]", "\"r0-L2-s1\"[2]");
const D2: (&str, &str) = ("\"r0-L1-s2\"[3]", "\"h10 mlx4_0\"[1]");
const D3: (&str, &str) = ("\"r0-L1-s3\"[8]", "\"r0-L2-s3\"[4]");
const E1: (&str, &str) = ("\"r0-L1-s0\"[5]", "\"r0-L2-s0\"[1]");
const E2: (&str, &str) = ("\"r0-L1-s1\"[2]", "\"h5 mlx4_0\"[1]");
const E3: (&str, &str) = ("\"r0-L1-s3\"[5]", "\"r0-L2-s0\"[4]");

#[test]
fn every_planted_link_is_costed_and_they_rank_by_what_disabling_them_gains() {
    let out = doctor(CostOptions::default());
    let c = out.cost.as_ref().unwrap();
    let table = cost_table::table(out.diagnosis.as_ref().unwrap(), c);
    let ranked: Vec<&str> = c.suspects.iter().map(|s| s.label.as_str()).collect();
    let planted: Vec<String> = [D1, E1, E3, D3, D2, E2].iter().map(|(a, b)| label(a, b)).collect();
    // Every planted link and no other, by gain: the 1x link gains the most by going (its
    // 8 Gb/s is the slowest pair's bottleneck); the bad lane's 0.06 % loss is nothing, but with
    // the 1x link still up minhop's new routes happen to spare the 1x link (re-evaluated in the
    // plan, it gains nothing); the flapping link and the DDR link carry more than they cost;
    // h10's and h5's only links cut a host off.
    assert_eq!(ranked, planted, "{table}");
    let by = |l: (&str, &str)| c.suspects.iter().find(|s| s.label == label(l.0, l.1)).unwrap();
    assert!(by(D1).gain_gbps > 0.0 && by(D3).gain_gbps < 0.0, "the 1x link costs more than the DDR link:\n{table}");
    for cut in [D2, E2] {
        assert_eq!((by(cut).disabled_gbps, by(cut).cut_off.len()), (0.0, 1), "{table}");
    }
    // Every pattern pairs all 16 hosts, h10 among them, and h10's link runs 4X SDR: 8 Gb/s is
    // the most any pattern's slowest pair gets, and what it gets once the 1x link is gone.
    assert!(c.kept.iter().all(|&g| g <= 8.0 + 1e-9), "{:?}", c.kept);
    assert_eq!(c.plan.iter().map(|p| p.label.as_str()).collect::<Vec<_>>(), [label(D1.0, D1.1)], "{table}");
    assert!((c.after_plan_gbps - 8.0).abs() < 1e-9 && c.after_plan.iter().all(|&g| (g - 8.0).abs() < 1e-9), "{table}");
    // The flapping link: 8 events in 600 s of 4.3 s each.
    let flap: Vec<f64> = by(E3).useful_share.iter().map(|d| d.share).collect();
    assert!((flap[0] - (1.0 - 8.0 / 600.0 * 4.294967296)).abs() < 1e-9 && flap[0] == flap[1], "{flap:?}");
    // The bad lane counts at the spine's port: what the leaf sends it pays.
    let lane: Vec<(&str, f64)> = by(E1).useful_share.iter().map(|d| (d.from.as_str(), d.share)).collect();
    assert!(lane.iter().all(|&(from, share)| (from == E1.0) == (share < 1.0)), "{lane:?}");
    assert!(table.contains("errors cost 0.06% of its rate from \"r0-L1-s0\"[5]"), "{table}");
    assert!(table.contains("disable first: \"r0-L1-s1\"[6] <-> \"r0-L2-s1\"[2] (+1.40 -> 8.00 Gb/s)"), "{table}");
    // Deterministic: the same request, the same answer.
    assert_eq!(serde_json::to_string(&doctor(CostOptions::default())).unwrap(), serde_json::to_string(&out).unwrap());
}

#[test]
fn an_alltoall_runs_its_phases_and_updn_routes_too() {
    let out = doctor(CostOptions { workload: Workload::Alltoall, ..CostOptions::default() });
    let c = out.cost.unwrap();
    assert_eq!((c.patterns, c.flows_per_pattern), (15, 16), "the 15 shifts of 16 hosts");
    assert_eq!(c.suspects.len(), 6);
    let updn = doctor(CostOptions { engine: rdmasim_core::fabric::routing::Engine::Updn, ..CostOptions::default() });
    assert_eq!(updn.cost.unwrap().routed_by, "updn");
}

/// A 128-host fat tree (k = 8) with 5 links trained down, 20 patterns: the size.
#[test]
fn a_128_host_fabric_with_5_suspects_is_costed() {
    use rdmasim_core::fabric::build::{FatTree, GeneratorSpec};
    use rdmasim_core::fabric::generate::generate;
    use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
    let mut g = generate(&GeneratorSpec::FatTreeK(FatTree { k: 8, speed: LinkSpeed { gen: LinkGen::Qdr, width: 4 }, cable_m: 2.0 })).unwrap().graph;
    assert_eq!(g.hosts.len(), 128);
    let between_switches: Vec<_> = g.links.iter_enumerated().filter(|(_, l)| l.ends.iter().all(|&p| g.nodes[g.ports[p].node].is_switch())).map(|(l, _)| l).collect();
    for (i, &l) in between_switches.iter().step_by(37).take(5).enumerate() {
        g.links[l].speed = LinkSpeed { gen: if i % 2 == 0 { LinkGen::Sdr } else { LinkGen::Ddr }, width: 4 };
    }
    let obs = Observations { graph: &g, links: None, before: None, after: None, trust_could_be: false };
    let report = diagnose(&obs, &Thresholds::default()).unwrap();
    assert_eq!(report.suspects.len(), 5);
    let started = std::time::Instant::now();
    let c = cost(&g, &report, &CostOptions::default()).unwrap();
    assert_eq!((c.patterns, c.flows_per_pattern, c.suspects.len()), (20, 128, 5));
    // A full-bisection tree has every uplink's traffic somewhere else to go: minhop routes
    // around each slow link, which was on some pattern's slowest path, so each gains, and the
    // plan disables all five, one after another.
    println!("{}\n{:?}", cost_table::table(&report, &c), started.elapsed());
    assert!(c.suspects.iter().all(|s| s.gain_gbps > 0.0));
    assert_eq!(c.plan.len(), 5);
    assert!(c.after_plan_gbps > c.plan[0].gbps && c.plan[0].gbps > c.kept_gbps);
}

/// One snapshot: counts since the last clear say nothing of how often, so errors cost nothing;
/// the suspects are still costed as links.
#[test]
fn with_one_snapshot_errors_cost_nothing() {
    let req = DoctorRequest {
        topology: None,
        design: Some(design()),
        linkinfo: Some(data("iblinkinfo.txt")),
        counters: vec![data("ibqueryerrors-after.txt")],
        interval_s: None,
        trust_could_be: false,
        no_cost: false,
        cost: CostOptions::default(),
    };
    let out = run(&req).unwrap();
    let c = out.cost.unwrap();
    assert!(c.suspects.iter().all(|s| s.useful_share.iter().all(|d| d.share == 1.0)));
    assert_eq!(c.suspects.len(), out.diagnosis.as_ref().unwrap().suspects.len());
}

/// A replayed MPI trace costs each suspect on the packet engine: 8 ranks on h0..h7 (leaves s0
/// and s1), each exchanging 2 MB with the rank 4 on, on the other leaf, so every exchange
/// crosses the spines.
#[test]
fn a_replayed_mpi_trace_costs_the_suspects_on_the_packet_engine() {
    const BYTES: u64 = 2_000_000;
    let ranks: Vec<Vec<String>> = (0..8u32)
        .map(|r| vec![mpi_trace::rec("sendrecv", 0, &format!("peer={} bytes={BYTES} tag=1 src={} rbytes={BYTES} rtag=1", (r + 4) % 8, (r + 4) % 8))])
        .collect();
    let dir = mpi_trace::trace_dir("doctor-shift4", &ranks);
    let out = doctor(CostOptions { workload: Workload::MpiTrace, trace: Some(dir.clone()), ..CostOptions::default() });
    let c = out.cost.as_ref().unwrap();
    let table = cost_table::table(out.diagnosis.as_ref().unwrap(), c);
    println!("{table}");
    assert_eq!((c.patterns, c.flows_per_pattern, c.suspects.len()), (1, 8, 6), "{table}");
    let by = |l: (&str, &str)| c.suspects.iter().find(|s| s.label == label(l.0, l.1)).unwrap();
    // h5's only link: rank 5 cannot send, RC gives up, the trace does not run (0).
    assert_eq!((by(E2).disabled_gbps, by(E2).cut_off.len(), by(E2).unroutable_flows), (0.0, 1, 1), "{table}");
    // h10 runs no rank: its link does not matter to this trace.
    assert_eq!(by(D2).disabled_gbps, c.kept_gbps, "{table}");
    // The 1x link (8 Gb/s of data) carries an exchange that would otherwise share a 4x link
    // (32 Gb/s) with one other: disabling it, minhop moves its routes and the trace runs about
    // twice as fast. It is the first (largest) step of the plan.
    let speedup = by(D1).disabled_gbps / c.kept_gbps;
    assert!((1.5..4.0).contains(&speedup), "{speedup}\n{table}");
    assert_eq!(c.plan.first().map(|p| p.label.clone()), Some(label(D1.0, D1.1)), "{table}");
    // The figure is the trace's bytes (8 ranks × 2 MB) over its replay time.
    assert!(c.after_plan_gbps > c.kept_gbps, "{table}");
    assert!(table.contains("workload mpi-trace") && table.contains("8 ranks replayed on the packet engine"), "{table}");
    // A trace is only for mpi-trace, and mpi-trace needs one.
    let req = |cost| DoctorRequest { topology: None, design: Some(design()), linkinfo: Some(data("iblinkinfo.txt")), counters: vec![], interval_s: None, trust_could_be: false, no_cost: false, cost };
    let e = run(&req(CostOptions { workload: Workload::MpiTrace, ..CostOptions::default() })).unwrap_err().to_string();
    assert!(e.contains("expected the trace directory"), "{e}");
    let e = run(&req(CostOptions { trace: Some(dir), ..CostOptions::default() })).unwrap_err().to_string();
    assert!(e.contains("trace is for workload mpi-trace"), "{e}");
}

/// On a two-rail fabric the trace's ranks drive both rails (MV2_NUM_HCAS = 2), and a rail's
/// degraded uplink is costed like any other.
#[test]
fn a_replayed_mpi_trace_runs_over_both_rails_of_a_two_rail_fabric() {
    use rdmasim_core::fabric::build::{FatTree, GeneratorSpec, Rails};
    use rdmasim_core::fabric::generate::generate;
    use rdmasim_core::fabric::rate::{LinkGen, LinkSpeed};
    let qdr = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
    let of = GeneratorSpec::FatTreeK(FatTree { k: 4, speed: qdr, cable_m: 2.0 });
    let mut g = generate(&GeneratorSpec::Rails(Rails { rails: 2, of: Box::new(of) })).unwrap().graph;
    // One uplink of rail 0 trained to 1x.
    let uplink = g.links.iter_enumerated().find(|(_, l)| l.ends.iter().all(|&p| g.nodes[g.ports[p].node].is_switch())).map(|(l, _)| l).unwrap();
    g.links[uplink].speed = LinkSpeed { gen: LinkGen::Qdr, width: 1 };
    let obs = Observations { graph: &g, links: None, before: None, after: None, trust_could_be: false };
    let report = diagnose(&obs, &Thresholds::default()).unwrap();
    assert_eq!(report.suspects.len(), 1);
    const BYTES: u64 = 4_000_000;
    let ranks: Vec<Vec<String>> = (0..16u32)
        .map(|r| vec![mpi_trace::rec("sendrecv", 0, &format!("peer={} bytes={BYTES} tag=1 src={} rbytes={BYTES} rtag=1", r ^ 8, r ^ 8))])
        .collect();
    let dir = mpi_trace::trace_dir("doctor-two-rails", &ranks);
    let c = cost(&g, &report, &CostOptions { workload: Workload::MpiTrace, trace: Some(dir), ..CostOptions::default() }).unwrap();
    let table = cost_table::table(&report, &c);
    // 16 ranks exchange 4 MB with the rank 8 away (64 MB in all). The pair whose rail-0 path
    // crosses the 1x link (8 Gb/s of data) sends half its message there, striped: about 2 ms,
    // so 64 MB / 2 ms = 256 Gb/s at most; on one rail it would take 4 ms (128 Gb/s).
    println!("{table}");
    assert!(c.kept_gbps > 192.0 && c.kept_gbps < 256.0, "both rails carry the exchange:\n{table}");
    assert!(c.suspects[0].disabled_gbps > 0.0, "{table}");
}
