//! Pins the RC transport's recovery paths: loss, RNR, the retransmission-timeout floor, retry
//! exhaustion.
mod common;
use rdmasim_core::run::Engine as _;
use rdmasim_core::ids::{AppId, HcaId};
use common::*;
use rdmasim_core::sim::Simulation;
use rdmasim_core::engine::Time;
use rdmasim_core::wire::in_flight::PktKind;

fn sim(toml: &str) -> Simulation {
    let mut s = Simulation::from_toml(toml, "<test>").unwrap_or_else(|e| panic!("{e}"));
    s.run();
    s
}

#[test]
fn lossy_link_delivers_every_byte_and_counts_retransmissions() {
    let toml = perftest(
        "cx4-edr",
        "ib_write_bw",
        "size = 65536\niters = 2000",
        "[[faults]]\nlink = \"h0-h1\"\nloss_rate = 1e-3\n[qp]\ntimeout = 14",
    );
    let r = run(&toml);
    assert_eq!(r["stop_reason"], "completed");
    let row = &table(&r, "perftest")[0];
    assert_eq!(row["errors"], 0);
    // Every byte arrived, in order, exactly once at the responder's QP.
    let qps = table(&r, "qps");
    let server_qp = qps.iter().find(|q| q["node"] == "h1").unwrap();
    assert_eq!(server_qp["rx_bytes"].as_u64().unwrap(), 2000 * 65536);
    assert_eq!(server_qp["rx_msgs"].as_u64().unwrap(), 2000);
    // ~2000 × 16 packets × 1e-3 ≈ 32 losses: the responder saw gaps, NAKed, the requester resent.
    let lost = port(&r, 1, "PortRcvErrors");
    assert!(lost > 10, "expected losses, got {lost}");
    assert!(counter(&r, 1, "out_of_sequence") > 0);
    assert!(counter(&r, 0, "packet_seq_err") > 0);
    assert!(counter(&r, 0, "retransmitted_packets") >= lost);
}

#[test]
fn rnr_wait_follows_the_ibta_timer_table() {
    // rx_depth 1: the second SEND finds no receive WQE and draws an RNR NAK; min_rnr_timer 14
    // is 1.28 ms in the IBTA table, so the requester resends 1.28 ms after the NAK.
    for (code, delay_us) in [(14u8, 1280.0), (1, 10.0), (18, 5120.0)] {
        let toml = perftest(
            "cx4-edr",
            "ib_send_bw",
            "size = 1024\niters = 4\nrx_depth = 1\ntx_depth = 4",
            &format!("[qp]\nmin_rnr_timer = {code}\n[output]\ncapture = true"),
        );
        let s = sim(&toml);
        let r = packet_results(&s);
        assert_eq!(r["stop_reason"], "completed", "{r}");
        assert!(counter(&r, 0, "rnr_nak_retry_err") >= 1);
        assert!(counter(&r, 1, "out_of_buffer") >= 1);
        let recs = &s.world.capture.as_ref().unwrap().records;
        let (t_nak, nak) = recs.iter().find(|(_, p)| matches!(p.kind, PktKind::RnrNak { .. })).copied().unwrap();
        assert_eq!(nak.kind, PktKind::RnrNak { timer: code });
        let (t_resend, _) = recs.iter().find(|(t, p)| *t > t_nak && p.psn == nak.psn && p.kind.is_request()).copied().unwrap();
        let waited = (t_resend - t_nak).as_us_f64();
        // The NAK's flight and receive pipeline add well under a microsecond.
        assert!(waited >= delay_us && waited < delay_us + 1.0, "code {code}: waited {waited} us, table says {delay_us}");
    }
}

/// Drops the only packet of the second WRITE of an ib_write_lat run (packet 3 on h0->h1, after
/// WRITE 1 and the ACK of the server's reply) (nothing follows it, so only
/// the local ACK timer can recover) and returns how long the requester waited to resend.
fn timeout_wait(qp_timeout: u8, floor_override: &str) -> Time {
    let toml = perftest(
        "cx4-edr",
        "ib_write_lat",
        "iters = 3",
        &format!("[hardware.overrides]\n{floor_override}\n[qp]\ntimeout = {qp_timeout}\n[[faults]]\nlink = \"h0->h1\"\ndrop_nth = [3]\n[output]\ncapture = true"),
    );
    let s = sim(&toml);
    let r = packet_results(&s);
    assert_eq!(r["stop_reason"], "completed", "{r}");
    assert_eq!(counter(&r, 0, "local_ack_timeout_err"), 1);
    let recs: Vec<_> = s.world.capture.as_ref().unwrap().records.iter().filter(|(_, p)| p.slid == 1 && p.kind.is_request()).copied().collect();
    // Packets from h0: write #1, write #2 (dropped), write #2 again, write #3.
    assert_eq!(recs[1].1.psn, recs[2].1.psn, "the third packet from h0 is the retransmission");
    recs[2].0 - recs[1].0
}

#[test]
fn timeout_below_the_vendor_floor_waits_for_the_floor() {
    // timeout 1 asks for 8.192 µs; ConnectX firmware waits ~500 ms (seeds/000).
    assert_eq!(timeout_wait(1, ""), Time::ms(500));
    // Without the floor the IBTA value holds: 4.096 µs × 2^1.
    assert_eq!(timeout_wait(1, "retransmit_floor_ms = 0.0"), Time::ns(8_192));
    // Above the floor the QP's own timeout wins: 4.096 µs × 2^18 = 1.07 s.
    assert_eq!(timeout_wait(18, ""), Time::ns(4_096 << 18));
}

#[test]
fn retry_exhaustion_ends_in_an_error_completion() {
    let toml = perftest(
        "cx4-edr",
        "ib_write_bw",
        "size = 4096\niters = 10\ntx_depth = 1",
        "[hardware.overrides]\nretransmit_floor_ms = 0.0\n[qp]\ntimeout = 4\nretry_cnt = 2\n[[faults]]\nlink = \"h0->h1\"\ndrop_nth = [1, 2, 3, 4, 5]",
    );
    let r = run(&toml);
    let row = &table(&r, "perftest")[0];
    assert_eq!(row["first_error"], "IBV_WC_RETRY_EXC_ERR");
    // The original and 2 retries were all dropped: 2 timer expiries, then the error.
    assert_eq!(counter(&r, 0, "local_ack_timeout_err"), 2);
    assert_eq!(counter(&r, 0, "req_transport_retries_exceeded"), 1);
    let qp = table(&r, "qps").iter().find(|q| q["node"] == "h0").unwrap().clone();
    assert_eq!(qp["state"], "Error");
}

#[test]
fn rnr_retry_exhaustion_ends_in_an_rnr_error() {
    // No receive is ever posted (rx_depth 0): the first SEND draws an RNR NAK on every try, and
    // after rnr_retry = 2 retries the work request fails.
    let toml = perftest("cx4-edr", "ib_send_bw", "size = 64\niters = 4\nrx_depth = 0\ntx_depth = 4", "[qp]\nrnr_retry = 2\nmin_rnr_timer = 1");
    let r = run(&toml);
    let row = &table(&r, "perftest")[0];
    assert_eq!(row["first_error"], "IBV_WC_RNR_RETRY_EXC_ERR", "{row}");
    assert_eq!(counter(&r, 0, "rnr_nak_retry_err"), 2, "two RNR NAKs within the limit");
    assert_eq!(counter(&r, 0, "req_rnr_retries_exceeded"), 1);
    assert_eq!(counter(&r, 1, "out_of_buffer"), 3, "the original and two retries found no receive");
}

#[test]
fn infinite_rnr_retry_never_gives_up() {
    let toml = perftest("cx4-edr", "ib_send_bw", "size = 64\niters = 50\nrx_depth = 1\ntx_depth = 8", "[qp]\nrnr_retry = 7\nmin_rnr_timer = 1");
    let r = run(&toml);
    assert_eq!(r["stop_reason"], "completed");
    assert_eq!(table(&r, "perftest")[0]["errors"], 0);
    assert!(counter(&r, 0, "rnr_nak_retry_err") > 7, "more RNR NAKs than a finite rnr_retry allows");
}

#[test]
fn lost_read_response_is_recovered() {
    // Responses flow h1 -> h0; drop some of them.
    let toml = perftest("cx4-edr", "ib_read_bw", "size = 65536\niters = 200", "[[faults]]\nlink = \"h1->h0\"\ndrop_nth = [5, 100, 1000]");
    let r = run(&toml);
    assert_eq!(r["stop_reason"], "completed");
    assert_eq!(table(&r, "perftest")[0]["errors"], 0);
    assert!(counter(&r, 0, "implied_nak_seq_err") >= 1);
    let client = table(&r, "qps").iter().find(|q| q["node"] == "h0").unwrap().clone();
    assert_eq!(client["rx_bytes"].as_u64().unwrap(), 200 * 65536);
}

#[test]
fn an_ack_never_overtakes_read_responses() {
    // A READ then a WRITE on one QP: the WRITE's ACK must follow the READ's responses (PSN
    // order), or the requester would take it as an implied NAK and re-issue the READ.
    use rdmasim_core::hca::qp::{QpAttr, WorkRequest, WrOp};
    let mut s = Simulation::from_toml(&perftest("cx4-edr", "ib_read_bw", "size = 65536\niters = 100", ""), "<t>").unwrap();
    let attr = QpAttr { timeout: 14, retry_cnt: 7, rnr_retry: 7, min_rnr_timer: 12, max_rd_atomic: 16, mtu: 4096, sl: 0 };
    let (a, _) = s.world.connect_rc(HcaId(0), AppId(0), HcaId(1), AppId(0), attr);
    let wr = |op, len| WorkRequest { wr_id: 99, op, len, inline: false, signaled: true, remote_va: 0 };
    s.world.post_send(a, wr(WrOp::Read, 65536));
    s.world.post_send(a, wr(WrOp::Write, 4096));
    s.run();
    let r = packet_results(&s);
    assert_eq!(counter(&r, 0, "implied_nak_seq_err"), 0);
    assert_eq!(counter(&r, 1, "duplicate_request"), 0);
    assert_eq!(counter(&r, 0, "retransmitted_packets"), 0);
    assert!(s.world.qp(a).sq.is_empty(), "both work requests completed");
}

#[test]
fn a_small_mtu_runs_with_a_buffer_sized_for_it() {
    // 1024 B MTU and just over one such packet of VL buffer: the credit check must use the
    // path MTU, not 4096.
    let r = run(&perftest("cx4-edr", "ib_write_bw", "size = 8192\niters = 50", "[hardware.overrides]\nmtu = 1024\nvl_buffer_bytes = 1152"));
    assert_eq!(r["stop_reason"], "completed");
    assert!(f(&table(&r, "perftest")[0], "bw_avg_Gbps") > 1.0);
}

/// One QP: a 64 KiB READ (16 response packets), then a SEND of `send_len` bytes the server has
/// no receive for; `rest` is appended to the scenario. Returns the capture's (kind, psn) list
/// and the result.
fn read_then_send(send_len: u32, rest: &str) -> (Vec<(PktKind, u32)>, serde_json::Value) {
    use rdmasim_core::hca::qp::{WorkRequest, WrOp};
    use rdmasim_core::hca::qp::QpRef;
    use rdmasim_core::hca::QPN_BASE;
    let toml = perftest("cx4-edr", "ib_read_bw", "size = 65536\niters = 1\ntx_depth = 1", &format!("[qp]\nrnr_retry = 1\nmin_rnr_timer = 1\n[output]\ncapture = true\n{rest}"));
    let mut s = Simulation::from_toml(&toml, "<test>").unwrap();
    let client = QpRef { hca: HcaId(0), qpn: QPN_BASE };
    while s.world.qp(client).sq.is_empty() {
        assert!(!s.step(1), "the READ was never posted");
    }
    let send = WorkRequest { wr_id: 1 << 40, op: WrOp::Send, len: send_len, inline: send_len <= 64, signaled: true, remote_va: 0 };
    s.world.post_send(client, send);
    s.run();
    let recs = s.world.capture.as_ref().unwrap().records.iter().map(|(_, p)| (p.kind, p.psn)).collect();
    (recs, packet_results(&s))
}

/// Asserts that the first NAK matching `is_nak` left after the READ's last response and that
/// the READ was requested once.
fn assert_nak_after_read_responses(recs: &[(PktKind, u32)], r: &serde_json::Value, is_nak: fn(PktKind) -> bool) {
    let last_resp = recs.iter().rposition(|(k, _)| matches!(k, PktKind::ReadResp { last: true, .. })).expect("READ response");
    let first_nak = recs.iter().position(|(k, _)| is_nak(*k)).expect("NAK");
    assert!(first_nak > last_resp, "the NAK left before the READ's last response: {recs:?}");
    assert_eq!(counter(r, 1, "rx_read_requests"), 1, "the READ was requested again");
    assert_eq!(counter(r, 1, "duplicate_request"), 0);
}

#[test]
fn rnr_nak_follows_the_responses_of_an_earlier_read() {
    // The responder's RNR NAK for the SEND carries a later PSN; sent ahead of the READ's
    // responses it would acknowledge them, and the requester would re-request the READ after
    // the RNR wait (a duplicate request at the responder). It must leave after them.
    let (recs, r) = read_then_send(64, "");
    assert_nak_after_read_responses(&recs, &r, |k| matches!(k, PktKind::RnrNak { .. }));
    assert!(counter(&r, 1, "out_of_buffer") >= 1);
}

#[test]
fn sequence_nak_follows_the_responses_of_an_earlier_read() {
    // The SEND's first packet (the 2nd packet on h0->h1, after the READ request) is lost; its
    // second packet draws a sequence-error NAK while the READ's responses are still queued.
    let (recs, r) = read_then_send(8192, "[[faults]]\nlink = \"h0->h1\"\ndrop_nth = [2]");
    assert_nak_after_read_responses(&recs, &r, |k| k == PktKind::NakSeq);
    assert!(counter(&r, 1, "out_of_sequence") >= 1);
}

/// A 1 MiB READ (256 responses) loses response 200: the rest is re-requested from there. The
/// window of 128 packets bounds requests, not a READ's responses, so the re-request is not held
/// back waiting for an ACK that never comes (it was: the run stalled at the 500 ms floor).
#[test]
fn a_read_response_lost_beyond_the_window_is_re_requested() {
    let r = run(&perftest("cx4-edr", "ib_read_bw", "size = 1048576\niters = 1", "[[faults]]\nlink = \"h1->h0\"\ndrop_nth = [200]"));
    assert_eq!(r["stop_reason"], "completed");
    assert_eq!(counter(&r, 0, "implied_nak_seq_err"), 1);
    assert!(r["sim_time_us"].as_f64().unwrap() < 200.0, "{} us", r["sim_time_us"]);
}

/// On a 1 km cable with a 256 B MTU the round trip (~10 µs) is longer than the 128-packet window
/// takes to send: the window fills and the ACKs that move snd_una (without completing the 64 KiB
/// message) must wake the QP again (they did not: the run stalled).
#[test]
fn a_partial_ack_reopens_a_full_window() {
    let r = run(&perftest("cx4-edr", "ib_write_bw", "size = 65536\niters = 1", "[topology]\ncable_m = 1000.0\n[qp]\nmtu = 256"));
    assert_eq!(r["stop_reason"], "completed");
    assert!(r["sim_time_us"].as_f64().unwrap() < 100.0, "{} us", r["sim_time_us"]);
}

/// A window (16 packets) smaller than the AckReq interval (64): the packet that fills the window
/// asks for an ACK, so the transfer is not paced by the local ACK timeout (> 2 s for 1 MiB).
#[test]
fn the_packet_that_fills_the_window_requests_an_ack() {
    let r = run(&perftest("cx4-edr", "ib_send_bw", "size = 1048576\niters = 1", "[hardware.overrides]\nmax_inflight_packets = 16"));
    assert_eq!(r["stop_reason"], "completed");
    assert_eq!(counter(&r, 0, "local_ack_timeout_err"), 0);
    assert!(r["sim_time_us"].as_f64().unwrap() < 1000.0, "{} us", r["sim_time_us"]);
}

/// A work request posted to a QP already in the error state is flushed at once
/// (IBV_WC_WR_FLUSH_ERR) instead of waiting forever in the send queue. READ 1 fails on the
/// responder's ODP fault with rnr_retry = 0; READ 2, posted 3 ms later, is flushed.
#[test]
fn a_work_request_posted_to_a_qp_in_error_is_flushed() {
    let r = run("[hardware]\nprofile = \"cx4-edr\"\n[qp]\nrnr_retry = 0\n[workload]\nkind = \"odp-reads\"\nreads = 2\ninterval_us = 3000.0\n");
    assert_eq!(r["stop_reason"], "completed");
    assert_eq!(counter(&r, 0, "req_cqe_error"), 1);
    assert_eq!(counter(&r, 0, "req_cqe_flush_error"), 1);
    assert_eq!(table(&r, "odp_reads")[0]["errors"], 2);
}

/// A receive buffer of 384 B per VL holds one 256 B-MTU packet: validation accepts it for
/// qp.mtu = 256, and the send engine asks for room for the packets its QPs actually send (it
/// asked for a 4096 B port-MTU packet and never sent anything).
#[test]
fn a_buffer_sized_for_the_path_mtu_is_enough_to_send() {
    let r = run(&perftest("cx4-edr", "ib_write_bw", "size = 2\niters = 2", "[hardware.overrides]\nvl_buffer_bytes = 384\n[qp]\nmtu = 256"));
    assert_eq!(r["stop_reason"], "completed");
    assert_eq!(table(&r, "perftest")[0]["errors"], 0);
}

/// ib_read_bw over links losing 5 % of packets: a sequence-error NAK queued behind READ
/// responses can arrive after the requester has moved past its PSN. It is stale and ignored;
/// acting on it rewound below the oldest unacknowledged WQE (debug: subtraction overflow in the
/// READ's offset; release: a wrapped READ length). Every byte still arrives once.
#[test]
fn a_stale_sequence_nak_does_not_rewind_below_the_acknowledged_point() {
    let r = run(&perftest("cx4-edr", "ib_read_bw", "", "[[faults]]\nlink = \"*\"\nloss_rate = 0.05"));
    assert_eq!(r["stop_reason"], "completed");
    assert_eq!(table(&r, "perftest")[0]["errors"], 0);
    let client = table(&r, "qps").iter().find(|q| q["node"] == "h0").unwrap().clone();
    assert_eq!(client["rx_bytes"].as_u64().unwrap(), 1000 * 65536);
}

/// 16 QPs of 4097 B READs with client-side ODP faults and 30 % loss: an RNR-NAK wait from PSN 7
/// (inside a READ) is merged with a fault wait from PSN 8 after that READ completed; the merged
/// wait must resume at the first unacknowledged PSN, not at 7 (debug: subtraction overflow).
#[test]
fn a_merged_retransmission_wait_resumes_at_the_first_unacknowledged_psn() {
    let r = run("[hardware]\nprofile = \"cx5-edr\"\n[workload]\nkind = \"odp-reads\"\nreads = 128\nsize = 4097\nqps = 16\nclient = 1\nserver = 0\n\
         [[faults]]\nlink = \"*\"\nloss_rate = 0.3\ndrop_nth = [3, 128]\n");
    assert_eq!(r["stop_reason"], "completed");
    // Every READ ends (30 % loss exhausts the retries of a few: error completions, not a hang).
    let row = &table(&r, "odp_reads")[0];
    assert_eq!(row["completed"], 128, "{row}");
    assert!(row["errors"].as_u64().unwrap() < 16, "{row}");
}
