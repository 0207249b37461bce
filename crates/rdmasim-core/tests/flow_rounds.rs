//! The TSUBAME2.0 sweeps' rounds (apps/rounds.rs): a round's time from the link counts equals
//! the flow engine's slowest flow; bad links disabled carry no stall; same request, same
//! answer; bad requests name the field.
use rdmasim_core::fabric::build::{GeneratorSpec, Tsubame2};
use rdmasim_core::fabric::graph::NodeKind;
use rdmasim_core::fabric::routing::{route, Engine, RouteOptions};
mod common;
use common::{f, run, table};
use rdmasim_core::flow::bad_links::{plant, BadLinkPlan};
use rdmasim_core::flow::fixed::{completion_times, FixedFlow};
use rdmasim_core::flow::link_model::capacities;
use rdmasim_core::flow::round_patterns::{alltoall_step, random_pair_round};
use rdmasim_core::flow::rail_share::RailShare;
use rdmasim_core::flow::rendezvous::Handshake;
use rdmasim_core::flow::round_time::RoundLoads;
use rdmasim_core::apps::rounds::run_json;
use rdmasim_core::fabric::analysis::paths::trace_route;
use rdmasim_core::ids::{FlowId, PortId};
use serde_json::Value;

/// A quarter of TSUBAME2.0 (352 hosts, 22 edges per rail): the same switches and cabling rule.
fn small() -> Tsubame2 {
    Tsubame2 { hosts: 352, ..Tsubame2::default() }
}

#[test]
fn a_rounds_time_from_link_counts_is_the_flow_engines_slowest_flow() {
    let mut g = GeneratorSpec::Tsubame2(small()).build().unwrap();
    // Two links trained down to 10 Gb/s: capacities differ, the equality must still hold.
    let (planted, _) = plant(&mut g, &BadLinkPlan { seed: 3, degraded: 2, ..BadLinkPlan::default() });
    assert_eq!(planted.len(), 4, "two per rail");
    for p in &planted {
        // An edge switch's cable to a director: 10 Gb/s signalling, 8 Gb/s of data.
        assert!(p.name.contains("-L1-s") && p.name.contains("-L2-core"), "{}", p.name);
        let speed = g.links[p.link].speed;
        assert_eq!(speed.signalling_bps(), 10_000_000_000, "{} trained to {speed:?}", p.name);
    }
    assert_eq!(planted.iter().map(|p| p.kind.as_str()).collect::<Vec<_>>(), ["1x QDR", "4x SDR", "1x QDR", "4x SDR"]);
    let rf = route(g, &[Engine::Minhop], &RouteOptions::default()).unwrap().fabric;
    let gr = &rf.graph;
    let cap = capacities(gr);
    // Rail 0's HCA port of every host, in node order.
    let port: Vec<PortId> = gr.hosts.iter().map(|h| h.hcas.iter().copied().find(|&ca| matches!(gr.nodes[ca].kind, NodeKind::Ca { rail: 0, .. })).map(|ca| gr.nodes[ca].first_port).unwrap()).collect();
    let bytes = 1_048_576.0;
    let mut pairs = Vec::new();
    for (name, fill) in [("random pairs", 0u32), ("alltoall step 5", 5), ("alltoall step 177", 177)] {
        if fill == 0 {
            random_pair_round(352, 7, &mut pairs);
        } else {
            alltoall_step(352, fill, &mut pairs);
        }
        let flows: Vec<FixedFlow> = pairs.iter().map(|&(a, b)| FixedFlow { src: port[a as usize], dlid: gr.ports[port[b as usize]].lid, bytes }).collect();
        let engine = completion_times(&rf, &cap, &flows).iter().map(|t| t.unwrap()).fold(0.0, f64::max);
        let mut loads = RoundLoads::new(gr.ports.len());
        for f in &flows {
            let hops: Vec<PortId> = trace_route(&rf, f.src, f.dlid).unwrap().iter().map(|h| h.from).collect();
            loads.add(&hops);
        }
        let counted = loads.worst(&cap) * bytes;
        assert!((counted / engine - 1.0).abs() < 1e-9, "{name}: link counts {counted} s, flow engine {engine} s");
    }
}

fn request(disable: bool) -> String {
    format!(
        r#"{{"generator": {{"kind": "tsubame2", "hosts": 352}}, "route": "minhop",
            "bad_links": {{"seed": 1, "degraded": 1, "erroring": 6, "errors_per_s": 300, "disable": {disable}}},
            "cases": [{{"kind": "alltoall", "nodes": 200, "up": 330, "missing_seed": 1, "bytes": 1048576, "trials": 4}},
                      {{"kind": "random-pair", "nodes": 300, "up": 330, "missing_seed": 1, "seed": 1, "bytes": 536870912, "trials": 3}}]}}"#
    )
}

#[test]
fn erroring_links_expose_tails_until_they_are_disabled_and_the_answer_is_deterministic() {
    let kept: Value = serde_json::from_str(&run_json(&request(false)).unwrap()).unwrap();
    let again = run_json(&request(false)).unwrap();
    assert_eq!(serde_json::to_string(&kept).unwrap(), serde_json::to_string(&serde_json::from_str::<Value>(&again).unwrap()).unwrap());
    let off: Value = serde_json::from_str(&run_json(&request(true)).unwrap()).unwrap();
    let a2a = &kept["cases"][0];
    assert_eq!(a2a["rounds"], 199);
    assert!(a2a["exposed_flows"].as_u64().unwrap() > 0, "{a2a}");
    let stall = kept["stall_s"].as_f64().unwrap();
    assert!((stall - 4.294967).abs() < 1e-5);
    // A stalled trial is at least the stall longer than the stall-free time.
    let fluid = a2a["fluid_s"].as_f64().unwrap();
    for (t, n) in a2a["trial_s"].as_array().unwrap().iter().zip(a2a["stalls"].as_array().unwrap()) {
        let (t, n) = (t.as_f64().unwrap(), n.as_u64().unwrap());
        assert!(if n > 0 { t >= fluid + stall } else { (t - fluid).abs() < 1e-12 }, "{t} {n} {fluid}");
    }
    for c in off["cases"].as_array().unwrap() {
        assert_eq!(c["exposed_flows"], 0, "disabled links carry nothing: {c}");
        assert_eq!(c["unroutable"], 0, "routed around: {c}");
    }
    assert!(off["planted"].as_array().unwrap().iter().all(|p| p["disabled"] == true));
}

#[test]
fn bad_requests_name_the_field() {
    let err = |req: &str| run_json(req).unwrap_err().to_string();
    let e = err(r#"{"generator": {"kind": "tsubame2", "hosts": 64}, "route": "minhop", "cases": [{"kind": "alltoall", "nodes": 65, "bytes": 8}]}"#);
    assert!(e.contains("cases[0].up") || e.contains("cases[0].nodes"), "{e}");
    let e = err(r#"{"generator": {"kind": "tsubame2", "hosts": 64}, "route": "minhop", "cases": [{"kind": "alltoall", "nodes": 8, "bytes": 8, "colour": 1}]}"#);
    assert!(e.contains("colour"), "{e}");
    let e = err(r#"{"generator": {"kind": "tsubame2", "hosts": 64}, "route": "minhop", "cases": [{"kind": "alltoall", "nodes": 8, "bytes": 8, "striping": "fastest"}]}"#);
    assert!(e.contains("fastest") && e.contains("even") && e.contains("rate"), "{e}");
    let e = err(r#"{"generator": {"kind": "tsubame2", "hosts": 64}, "route": "fastest", "cases": []}"#);
    assert!(e.contains("route") && e.contains("fastest"), "{e}");
}

#[test]
fn a_random_pair_case_takes_the_flow_engines_time_for_the_same_round() {
    // The same 300 of 352 nodes (drawn from missing_seed 1), the same pairs (seed 1), 64 MiB
    // striped over both rails at a 2 KiB MTU: the scenario's flow engine adds only the fixed
    // latencies of one message (µs against ~70 ms) and one RETH per 4 MiB chunk here.
    let scenario = "engine = \"flow\"\n[hardware]\nprofile = \"cx3-fdr\"\n[qp]\nmtu = 2048\n[topology]\ngenerator = { kind = \"tsubame2\", hosts = 352 }\nroute = \"minhop\"\n[workload]\nkind = \"flows\"\nuntil = \"all\"\npattern = { kind = \"random-pair\", bytes = 67108864, seed = 1, nodes = 300, missing_seed = 1, rails = 2 }\n";
    let flows = run(scenario);
    let engine_s = table(&flows, "flows").iter().map(|fl| f(fl, "finish_us")).fold(0.0, f64::max) * 1e-6;
    let req = r#"{"generator": {"kind": "tsubame2", "hosts": 352}, "route": "minhop",
        "cases": [{"kind": "random-pair", "nodes": 300, "missing_seed": 1, "seed": 1, "bytes": 67108864}]}"#;
    let out: Value = serde_json::from_str(&run_json(req).unwrap()).unwrap();
    let rounds_s = out["cases"][0]["fluid_s"].as_f64().unwrap();
    assert!((rounds_s / engine_s - 1.0).abs() < 1e-3, "rounds {rounds_s} s, flow engine {engine_s} s");
}

#[test]
fn rate_striping_is_the_flow_engine_with_a_pairs_rails_leaving_together() {
    // flow/rail_share.rs: a pair split over its two rails by their rates. Three checks against
    // the flow engine (flow/fixed.rs) on a quarter-size TSUBAME2.0 with a different engine per
    // rail (as the study's hetero: the rails' hot links differ) and two degraded links:
    // 1. with one rail the event loop is the flow engine: the same round time;
    // 2. the split held at the starting rates (b / (r0 + r1), `worst`) run as two fixed flows
    //    per pair on the flow engine: measured equal on the random-pair rounds and Alltoall
    //    step 9, 5.1 % faster on step 101 (its slowest pair speeds up as neighbours leave);
    // 3. the event loop, whose split follows the rates, is faster still (measured 4-22 %) and
    //    never slower than the even split.
    let mut g = GeneratorSpec::Tsubame2(small()).build().unwrap();
    plant(&mut g, &BadLinkPlan { seed: 3, degraded: 2, ..BadLinkPlan::default() });
    let rf = route(g, &[Engine::Minhop, Engine::Updn], &RouteOptions::default()).unwrap().fabric;
    let gr = &rf.graph;
    let cap = capacities(gr);
    let port = |rail: u16| -> Vec<PortId> {
        gr.hosts.iter().map(|h| h.hcas.iter().copied().find(|&ca| matches!(gr.nodes[ca].kind, NodeKind::Ca { rail: r, .. } if r == rail)).map(|ca| gr.nodes[ca].first_port).unwrap()).collect()
    };
    let ports = [port(0), port(1)];
    let route_of = |src: PortId, dlid: u16| -> Vec<PortId> { trace_route(&rf, src, dlid).unwrap().iter().map(|h| h.from).collect() };
    let slowest = |flows: &[FixedFlow]| completion_times(&rf, &cap, flows).iter().map(|t| t.unwrap()).fold(0.0, f64::max);
    let wire = 64.0 * 1_048_576.0;
    let mut pairs = Vec::new();
    for (name, fill, tol) in [("random pairs 7", 7u32, 1e-6), ("random pairs 11", 11, 1e-6), ("alltoall step 9", 9, 1e-6), ("alltoall step 101", 101, 0.06)] {
        if name.starts_with("random") {
            random_pair_round(352, u64::from(fill), &mut pairs);
        } else {
            alltoall_step(352, fill, &mut pairs);
        }
        let ends: Vec<(PortId, u16)> = pairs.iter().flat_map(|&(a, b)| ports.iter().map(move |rail| (rail[a as usize], gr.ports[rail[b as usize]].lid))).collect();
        // 1. Rail 0 alone.
        let mut one = RailShare::new(gr.ports.len());
        for (i, &(src, dlid)) in ends.iter().step_by(2).enumerate() {
            one.add(i as u32, &route_of(src, dlid));
        }
        let loop_one = one.drained(&cap, pairs.len()) * wire;
        let engine_one = slowest(&ends.iter().step_by(2).map(|&(src, dlid)| FixedFlow { src, dlid, bytes: wire }).collect::<Vec<_>>());
        assert!((loop_one / engine_one - 1.0).abs() < 1e-9, "{name}, one rail: event loop {loop_one} s, flow engine {engine_one} s");
        // 2 and 3. Both rails.
        let mut share = RailShare::new(gr.ports.len());
        let mut loads = RoundLoads::new(gr.ports.len());
        for (f, &(src, dlid)) in ends.iter().enumerate() {
            let hops = route_of(src, dlid);
            share.add((f / 2) as u32, &hops);
            loads.add(&hops);
        }
        let drained = share.drained(&cap, pairs.len()) * wire;
        let formula = share.worst() * wire;
        // Flow 2i + r is pair i's rail r: its bytes are its rate's share of the pair's.
        let split = |f: usize| {
            let pair = f / 2;
            share.rate(FlowId::from(f)) / (share.rate(FlowId::from(2 * pair)) + share.rate(FlowId::from(2 * pair + 1)))
        };
        let engine = slowest(&ends.iter().enumerate().map(|(f, &(src, dlid))| FixedFlow { src, dlid, bytes: wire * split(f) }).collect::<Vec<_>>());
        let even = loads.worst(&cap) * wire / 2.0;
        eprintln!("{name}: one rail {loop_one:.6} s (flow engine {engine_one:.6}); two rails: starting-rate split {formula:.6} s, on the flow engine {engine:.6} s ({:+.2} %), event loop {drained:.6} s ({:+.2} %), even {even:.6} s",
            100.0 * (engine / formula - 1.0), 100.0 * (drained / formula - 1.0));
        assert!(engine <= formula * (1.0 + 1e-9) && engine / formula > 1.0 - tol, "{name}: formula {formula} s, flow engine {engine} s");
        assert!(drained <= engine * (1.0 + 1e-9) && drained / formula > 0.7, "{name}: event loop {drained} s, fixed split {engine} s");
        assert!(formula <= even * (1.0 + 1e-9), "{name}: adding the rails' rates is never slower than the even split");
    }
}

#[test]
fn rank_by_rank_on_one_switch_is_lockstep_and_on_a_fat_tree_its_own() {
    // Sixteen hosts on one edge switch per rail: every step is a permutation of whole links,
    // so the fluid loop and the step rates both take lockstep's 15 transfer times, and each
    // step adds the rendezvous on a one-switch path (2 m host cables, cx3-fdr's NIC, host and
    // switch terms): the RTS, the CTS and the WRITE's post before the data, the sender's
    // completion (the ACK back) after it.
    let req = |hosts: u32, nodes: u32, model: &str, skew: f64| {
        format!(
            r#"{{"generator": {{"kind": "tsubame2", "hosts": {hosts}}}, "route": "minhop",
                "cases": [{{"kind": "alltoall", "nodes": {nodes}, "bytes": 1048576, "seed": 2, "rank_by_rank": "{model}", "start_skew_us": {skew}}}]}}"#
        )
    };
    let case = |r: String| -> Value { serde_json::from_str::<Value>(&run_json(&r).unwrap()).unwrap()["cases"][0].clone() };
    let fluid = case(req(16, 16, "fluid", 0.0));
    let steps = case(req(16, 16, "step-rates", 0.0));
    let lockstep = fluid["fluid_s"].as_f64().unwrap();
    let (hw, _) = rdmasim_core::profile::by_name("cx3-fdr").unwrap();
    let p = Handshake::of(&hw).path(2, 4.0);
    let per_step = 2.0 * p.ctrl_s + p.head_s + p.send_tail_s.max(p.recv_tail_s);
    assert!(per_step > 4e-6 && per_step < 5e-6, "{per_step}");
    for c in [&fluid, &steps] {
        let s = c["rank_by_rank"]["s"].as_f64().unwrap();
        assert!((s - lockstep - 15.0 * per_step).abs() < 1e-9 * lockstep, "{c}");
        assert_eq!(c["rank_by_rank"]["serialised"], 0, "{c}");
    }
    // Ranks 4 µs apart at the barrier: XOR partners apart by more than the request's flight
    // send one after the other, on the fluid loop and at step rates alike.
    let apart = case(req(16, 16, "fluid", 4.0));
    assert!(apart["rank_by_rank"]["serialised"].as_u64().unwrap() > 0, "{apart}");
    assert!(apart["rank_by_rank"]["s"].as_f64().unwrap() > lockstep, "{apart}");
    // On 48 of 64 hosts (three edges of 16, cables to the directors shared), the two rank-by-
    // rank models are within 10 % of each other and of lockstep; same request, same answer.
    let a = case(req(64, 48, "fluid", 0.0));
    let b = case(req(64, 48, "step-rates", 0.0));
    assert_eq!(a, case(req(64, 48, "fluid", 0.0)));
    let (fa, fb, lock) = (a["rank_by_rank"]["s"].as_f64().unwrap(), b["rank_by_rank"]["s"].as_f64().unwrap(), a["fluid_s"].as_f64().unwrap());
    assert!(a["rank_by_rank"]["solves"].as_u64().unwrap() > 47, "{a}");
    assert!((fa / fb - 1.0).abs() < 0.1 && (fa / lock - 1.0).abs() < 0.1, "fluid {fa} step rates {fb} lockstep {lock}");
}

#[test]
fn rank_by_rank_keys_are_checked() {
    let err = |case: &str| run_json(&format!(r#"{{"generator": {{"kind": "tsubame2", "hosts": 64}}, "route": "minhop", "cases": [{case}]}}"#)).unwrap_err().to_string();
    let e = err(r#"{"kind": "random-pair", "nodes": 8, "bytes": 8, "rank_by_rank": "fluid"}"#);
    assert!(e.contains("cases[0].rank_by_rank") && e.contains("alltoall"), "{e}");
    let e = err(r#"{"kind": "alltoall", "nodes": 8, "bytes": 8, "rank_by_rank": "fluid", "striping": "rate"}"#);
    assert!(e.contains("cases[0].rank_by_rank"), "{e}");
    let e = err(r#"{"kind": "alltoall", "nodes": 8, "bytes": 8, "rank_by_rank": "step-rates", "start_skew_us": -1}"#);
    assert!(e.contains("cases[0].start_skew_us") && e.contains("expected"), "{e}");
    let e = err(r#"{"kind": "alltoall", "nodes": 8, "bytes": 8, "start_skew_us": 2}"#);
    assert!(e.contains("cases[0].start_skew_us") && e.contains("rank_by_rank"), "{e}");
    let e = err(r#"{"kind": "alltoall", "nodes": 8, "bytes": 8, "rank_by_rank": "step-rates", "hol": "credit"}"#);
    assert!(e.contains("cases[0].hol") && e.contains("fluid"), "{e}");
    let e = err(r#"{"kind": "alltoall", "nodes": 8, "bytes": 8, "hol": "credit"}"#);
    assert!(e.contains("cases[0].hol"), "{e}");
    let e = err(r#"{"kind": "alltoall", "nodes": 8, "bytes": 8, "barrier": "none"}"#);
    assert!(e.contains("cases[0].barrier") && e.contains("rank_by_rank"), "{e}");
    let e = err(r#"{"kind": "alltoall", "nodes": 8, "bytes": 8, "rank_by_rank": "fluid", "barrier": "tree"}"#);
    assert!(e.contains("barrier") && e.contains("dissemination"), "{e}");
    let e = run_json(r#"{"generator": {"kind": "tsubame2", "hosts": 64}, "route": "minhop", "hardware": "cx9", "cases": []}"#).unwrap_err().to_string();
    assert!(e.contains("hardware") && e.contains("cx3-fdr"), "{e}");
    let e = err(r#"{"kind": "alltoall", "nodes": 8, "bytes": 8, "rank_by_rank": "barrier"}"#);
    assert!(e.contains("barrier") && e.contains("fluid") && e.contains("step-rates"), "{e}");
}

#[test]
fn rank_by_rank_trials_take_the_lockstep_draws_and_wait_only_on_their_partners() {
    // Forty trials of the 200-node Alltoall, so that some stall.
    let lockstep = request(false).replacen(r#""trials": 4}"#, r#""trials": 40}"#, 1);
    let req = lockstep.replacen(r#""trials": 40}"#, r#""trials": 40, "rank_by_rank": "step-rates"}"#, 1);
    assert!(req.contains("step-rates"));
    let with: Value = serde_json::from_str(&run_json(&req).unwrap()).unwrap();
    let without: Value = serde_json::from_str(&run_json(&lockstep).unwrap()).unwrap();
    let (a2a, lock) = (&with["cases"][0], &without["cases"][0]);
    // The lockstep figures are the same draws, untouched.
    for k in ["fluid_s", "trial_s", "stalls", "exposed_flows"] {
        assert_eq!(a2a[k], lock[k], "{k}");
    }
    let stall = with["stall_s"].as_f64().unwrap();
    let s = a2a["rank_by_rank"]["s"].as_f64().unwrap();
    let trials = a2a["rank_by_rank"]["trial_s"].as_array().unwrap();
    assert_eq!(trials.len(), 40);
    let mut stalled = 0;
    for (t, n) in trials.iter().zip(a2a["stalls"].as_array().unwrap()) {
        let (t, n) = (t.as_f64().unwrap(), n.as_u64().unwrap() as f64);
        if n == 0.0 {
            assert_eq!(t, s);
        } else {
            // A stall lengthens one transfer by the stall; the ranks after it wait, the rest
            // of the run does not add it again unless another stall is on the same chain.
            stalled += 1;
            assert!(t > stall && t <= s + n * stall + 1e-9, "{t} {n} {s}");
        }
    }
    assert!(stalled > 0, "the request's erroring links stall some trial: {a2a}");
}
