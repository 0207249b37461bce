//! Pins the On-Demand Paging fault paths and the two pitfall switches with asserted timings
//! (hca/mr.rs, hca/retx_wait.rs, docs/odp.md). Fault service 500 µs, requester re-request
//! 3.5 ms after it, RNR timer code 1 (10 µs) unless a test says otherwise, 500 ms timeout floor.
mod common;
use rdmasim_core::run::Engine as _;
use rdmasim_core::ids::HcaId;
use common::*;
use rdmasim_core::sim::Simulation;
use rdmasim_core::wire::in_flight::PktKind;

fn scenario(profile: &str, workload: &str, rest: &str) -> String {
    format!("[hardware]\nprofile = \"{profile}\"\n{rest}\n[qp]\nmin_rnr_timer = 1\n[workload]\nkind = \"odp-reads\"\n{workload}\n")
}

/// Run time (µs) of the READs, from the first post to the last completion.
fn run_time(r: &serde_json::Value) -> f64 {
    assert_eq!(r["stop_reason"], "completed", "{}", r["stop_reason"]);
    f(&table(r, "odp_reads")[0], "run_time_us")
}

fn odp(r: &serde_json::Value, host: usize, key: &str) -> u64 {
    table(r, "odp")[host][key].as_u64().unwrap()
}

#[test]
fn responder_fault_draws_an_rnr_nak_and_the_retry_lands_after_the_fault() {
    let toml = scenario("cx4-edr", "reads = 1\nclient_odp = false", "[output]\ncapture = true");
    let mut s = Simulation::from_toml(&toml, "<test>").unwrap();
    s.run();
    let recs = &s.world.capture.as_ref().unwrap().records;
    // The first answer to the READ is an RNR NAK carrying the QP's timer code.
    let first_answer = recs.iter().find(|(_, p)| p.slid == 2).unwrap();
    assert_eq!(first_answer.1.kind, PktKind::RnrNak { timer: 1 });
    // The requester retries every 10 µs; the response leaves once the 500 µs fault is done.
    let resp = recs.iter().find(|(_, p)| matches!(p.kind, PktKind::ReadResp { .. })).unwrap();
    let t = resp.0.as_us_f64();
    assert!((500.0..520.0).contains(&t), "response at {t} µs");
    let r = packet_results(&s);
    assert_eq!(odp(&r, 1, "responder_page_faults"), 1);
    assert!(odp(&r, 1, "fault_rnr_naks") >= 45, "one RNR NAK per 10 µs retry during the fault");
    assert!((500.0..520.0).contains(&run_time(&r)));
}

#[test]
fn requester_fault_drops_the_response_and_retries_after_fault_and_wait() {
    let r = run(&scenario("cx4-edr", "reads = 1\nserver_odp = false", ""));
    assert_eq!(odp(&r, 0, "requester_page_faults"), 1);
    assert_eq!(odp(&r, 0, "dropped_responses"), 1);
    // Response at ~3 µs dropped, fault 500 µs, re-request 3.5 ms later, answered in ~2 µs.
    let t = run_time(&r);
    assert!((4000.0..4010.0).contains(&t), "run time {t} µs");
    assert_eq!(counter(&r, 0, "local_ack_timeout_err"), 0);
}

#[test]
fn prefetch_avoids_both_faults() {
    let r = run(&scenario("cx4-edr", "reads = 2\ninterval_us = 1000\nprefetch = true", ""));
    assert_eq!(odp(&r, 0, "requester_page_faults") + odp(&r, 1, "responder_page_faults"), 0);
    assert_eq!(odp(&r, 0, "prefetched_pages"), 1);
    let t = run_time(&r);
    assert!((1000.0..1010.0).contains(&t), "two plain READs 1 ms apart: {t} µs");
    // Paid before the first READ: registration 10 µs + one fault service 500 µs + 0.25 µs/page.
    assert_eq!(f(&table(&r, "odp_reads")[0], "setup_us"), 510.25);
}

#[test]
fn pinned_memory_pays_per_page_at_registration_and_never_faults() {
    let r = run(&scenario("cx4-edr", "reads = 8192\nclient_odp = false\nserver_odp = false", ""));
    assert_eq!(table(&r, "odp")[0]["requester_page_faults"], 0);
    // 8192 × 100 B = 200 pages: 10 µs + 200 × 0.25 µs.
    assert_eq!(f(&table(&r, "odp_reads")[0], "setup_us"), 60.0);
    assert!(run_time(&r) < 1000.0);
}

#[test]
fn damming_stalls_a_second_read_posted_during_the_wait_and_switching_it_off_removes_the_stall() {
    // Both-side ODP: the client's fault wait runs from ~505 µs to ~4505 µs.
    let w = "reads = 2\ninterval_us = 2000";
    let dammed = run_time(&run(&scenario("cx4-edr", w, "")));
    assert!((500_000.0..510_000.0).contains(&dammed), "timeout floor stall: {dammed} µs");
    let fixed = run_time(&run(&scenario("cx4-edr", w, "[hardware.overrides]\nodp_damming = false")));
    assert!((4500.0..4520.0).contains(&fixed), "no stall: {fixed} µs");
    // The newer-NIC profile has damming fixed and keeps the floor.
    assert_eq!(run_time(&run(&scenario("cx6-hdr", w, ""))).round(), fixed.round());
    // Outside the window (before the client's fault wait, after it) there is no stall.
    for iv in [300.0, 4600.0] {
        let t = run_time(&run(&scenario("cx4-edr", &format!("reads = 2\ninterval_us = {iv}"), "")));
        assert!(t < 5000.0, "interval {iv}: {t} µs");
    }
}

#[test]
fn a_third_read_draws_a_nak_and_ends_the_dam_early() {
    // Server-side ODP with a 1.28 ms RNR wait: READ 2 (posted at 0.2 ms) is lost in the wait;
    // READ 3 (at 0.4 ms) is sent during the wait too. With 4 READs 1 ms apart the fourth, sent
    // after the wait, is out of sequence at the responder: a NAK, an immediate go-back.
    let rest = "";
    let two = run(&scenario("cx4-edr", "reads = 2\ninterval_us = 200\nclient_odp = false", rest).replace("min_rnr_timer = 1", "min_rnr_timer = 14"));
    assert!(run_time(&two) > 500_000.0, "two READs: timeout");
    assert!(counter(&two, 0, "local_ack_timeout_err") >= 1);
    let three = run(&scenario("cx4-edr", "reads = 3\ninterval_us = 1000\nclient_odp = false", rest).replace("min_rnr_timer = 1", "min_rnr_timer = 14"));
    let t = run_time(&three);
    assert!(t < 3000.0, "three READs: the third draws a NAK, {t} µs");
    assert!(counter(&three, 0, "packet_seq_err") >= 1);
    assert_eq!(counter(&three, 0, "local_ack_timeout_err"), 0);
}

#[test]
fn flood_keeps_other_qps_faulting_and_switching_it_off_removes_it() {
    let w = "reads = 2048\nqps = 4\nserver_odp = false";
    let flood = run(&scenario("cx4-edr", w, ""));
    let calm = run(&scenario("cx4-edr", w, "[hardware.overrides]\nodp_flood = false"));
    let pages = 50; // 2048 × 100 B
    assert_eq!(odp(&flood, 0, "requester_page_faults"), pages);
    assert_eq!(odp(&calm, 0, "requester_page_faults"), pages);
    assert!(odp(&flood, 0, "stale_faults") > 50, "QPs kept faulting on pages another QP brought in");
    assert_eq!(odp(&calm, 0, "stale_faults"), 0);
    let (tf, tc) = (run_time(&flood), run_time(&calm));
    assert!(tf >= 500_000.0, "flood waits for the timeout floor: {tf} µs");
    assert!(tc < (50 * 4100 + 1000) as f64, "without flood: at most one fault + wait per page: {tc} µs");
    let (pf, pc) = (f(&table(&flood, "run")[0], "packet_hops"), f(&table(&calm, "run")[0], "packet_hops"));
    assert!(pf > 1.5 * pc, "packet flood: {pf} vs {pc}");
}

#[test]
fn invalidation_makes_the_next_access_fault_again() {
    let toml = scenario("cx4-edr", "reads = 1\nclient_odp = false\nprefetch = true", "");
    let mut s = Simulation::from_toml(&toml, "<test>").unwrap();
    s.run();
    let w = &mut s.world;
    assert!(w.hcas[HcaId(1)].odp.mrs[0].present[0]);
    let cost = w.invalidate_mr(HcaId(1), 0, w.hcas[HcaId(1)].odp.mrs[0].base, 4096);
    assert_eq!(cost.as_us_f64(), 10.0);
    assert!(!w.hcas[HcaId(1)].odp.mrs[0].present[0]);
    assert_eq!(w.hcas[HcaId(1)].odp.stats.invalidated_pages, 1);
    // An unknown region or a range beyond it is refused without effect (it used to index out
    // of bounds, or overflow the range end).
    assert_eq!(w.invalidate_mr(HcaId(1), 7, 0, 4096), rdmasim_core::engine::Time::ZERO);
    assert_eq!(w.advise_mr_prefetch(HcaId(1), 7, 0, 4096), rdmasim_core::engine::Time::ZERO);
    assert_eq!(w.advise_mr_prefetch(HcaId(1), 0, u64::MAX - 10, 4096), rdmasim_core::engine::Time::ZERO);
    assert_eq!(w.invalidate_mr(HcaId(1), 0, w.hcas[HcaId(1)].odp.mrs[0].base + (1 << 40), 4096), rdmasim_core::engine::Time::ZERO);
}

#[test]
fn bad_odp_reads_input_names_the_key() {
    let e = rdmasim_core::api::validate_toml(&scenario("cx4-edr", "qps = 0", ""), "odp.toml").unwrap_err();
    assert_eq!(e.key, "workload.qps", "{e}");
    let e = rdmasim_core::api::validate_toml(&scenario("cx4-edr", "intervl_us = 5", ""), "odp.toml").unwrap_err();
    assert_eq!((e.key.as_str(), e.line), ("workload.intervl_us", Some(8)), "{e}");
    let e = rdmasim_core::api::validate_toml(&scenario("cx4-edr", "odp = \"lazy\"", ""), "odp.toml").unwrap_err();
    assert_eq!(e.key, "workload.odp", "{e}");
}

#[test]
fn odp_runs_are_deterministic() {
    let toml = scenario("cx4-edr", "reads = 1024\nqps = 4\nserver_odp = false", "");
    let (a, b) = (run(&toml), run(&toml));
    assert_eq!(a, b);
}

#[test]
fn the_damming_window_moves_with_the_fault_and_wait_parameters() {
    // Derivation (docs/odp.md): window ≈ [F + RTT, 2F + W + RTT] with RNR code 1. F = 300 µs,
    // W = 2000 µs: [~303, ~2603] µs.
    let o = "[hardware.overrides]\nodp_fault_us = 300.0\nodp_requester_retry_us = 2000.0";
    let t = |iv: f64| run_time(&run(&scenario("cx4-edr", &format!("reads = 2\ninterval_us = {iv}"), o)));
    for iv in [250.0, 2650.0] {
        assert!(t(iv) < 3000.0, "outside at {iv}: {} µs", t(iv));
    }
    for iv in [320.0, 1000.0, 2550.0] {
        assert!(t(iv) > 500_000.0, "inside at {iv}: {} µs", t(iv));
    }
}

#[test]
fn reads_spanning_pages_complete_with_both_side_odp() {
    // Regression: READ 1 (5000 B, server pages 0-1) is served while READ 2 (pages 1-2) draws an
    // RNR NAK. The NAK used to overtake READ 1's responses, acknowledge READ 1's missing
    // responses and leave the requester's cursor behind its acknowledged point: no packet ever
    // left again. Now the NAK follows the responses and every page faults in turn.
    let toml = scenario("cx4-edr", "reads = 2\nsize = 5000", "[output]\ncapture = true");
    let mut s = Simulation::from_toml(&toml, "<test>").unwrap();
    s.run();
    let recs = &s.world.capture.as_ref().unwrap().records;
    let last_resp_of_read1 = recs.iter().position(|(_, p)| p.kind == PktKind::ReadResp { first: false, last: true } && p.psn == 1).unwrap();
    let nak_for_read2 = recs.iter().position(|(_, p)| matches!(p.kind, PktKind::RnrNak { .. }) && p.psn == 2).unwrap();
    assert!(nak_for_read2 > last_resp_of_read1, "the RNR NAK for READ 2 left before READ 1's responses");
    let r = packet_results(&s);
    // Client pages 0, 1, 2 fault one after the other (fault 0.5 ms + re-request 3.5 ms each),
    // after the server's 0.5 ms fault: ~12.5 ms.
    assert_eq!(odp(&r, 0, "requester_page_faults"), 3);
    let t = run_time(&r);
    assert!((12_000.0..13_000.0).contains(&t), "run time {t} µs");
    assert_eq!(counter(&r, 0, "local_ack_timeout_err"), 0);
}

#[test]
fn a_fault_the_qp_gave_up_on_still_maps_its_page() {
    // Client-side ODP, flood off, no timeout floor, qp.timeout 7 (524 µs): the local ACK timer
    // fires around the end of the fault the first response started. When it fires just
    // before, the QP re-requests and abandons that fault; the driver still maps the page.
    // Regression: the abandoned fault left the page "faulting" forever, and the re-requested
    // response then joined a fault that had ended (an event in the past).
    for tenth in 0..40 {
        let fault = 520.0 + tenth as f64 * 0.2;
        let o = format!("[hardware.overrides]\nretransmit_floor_ms = 0.0\nodp_flood = false\nodp_fault_us = {fault}");
        let toml = scenario("cx4-edr", "reads = 1\nserver_odp = false", &o).replace("[qp]\n", "[qp]\ntimeout = 7\n");
        let r = run(&toml);
        let t = run_time(&r);
        assert!(t < 4_600.0, "fault {fault} µs: run time {t} µs");
        assert_eq!(odp(&r, 0, "requester_page_faults"), 1);
    }
}

#[test]
fn a_buffer_beyond_a_gibibyte_is_rejected_not_allocated() {
    // 10^6 READs of 1 GiB would be a 2.6e11-entry page table (the process aborted on it).
    let e = rdmasim_core::api::validate_toml(&scenario("cx4-edr", "reads = 1000000\nsize = 1073741824", ""), "odp.toml").unwrap_err();
    assert_eq!(e.key, "workload.reads", "{e}");
    assert!(e.message.contains("1 GiB"), "{e}");
    assert!(rdmasim_core::api::validate_toml(&scenario("cx4-edr", "reads = 1024\nsize = 1048576", ""), "odp.toml").is_ok());
}

#[test]
fn a_run_stopped_early_still_reports_its_counters() {
    // Client-side flood stopped at 100 ms: the READs are not all done, yet the row carries the
    // packets and faults so far (it used to carry none: they were taken at the last completion).
    let toml = scenario("cx4-edr", "reads = 2048\nqps = 4\nserver_odp = false", "[limits]\nmax_sim_time_ms = 100.0");
    let r = run(&toml);
    assert_ne!(r["stop_reason"], "completed");
    let row = &table(&r, "odp_reads")[0];
    assert!(row["run_time_us"].is_null());
    assert!(f(row, "packets") > 1000.0, "{row}");
    assert_eq!(f(row, "client_page_faults") as u64, odp(&r, 0, "requester_page_faults"));
}
