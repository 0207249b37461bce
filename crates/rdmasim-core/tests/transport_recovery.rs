//! Recovery rules of the RC requester and responder checked against Linux soft-RoCE (rxe_comp.c,
//! rxe_resp.c) and the IBTA rules it cites: what resets the retry counter, which PSN an ACK
//! carries, where a NAK beyond an incomplete READ restarts, how duplicates are answered, and
//! what an RNR-NAKed WRITE with immediate counts.
mod common;
use rdmasim_core::run::Engine as _;
use rdmasim_core::ids::{AppId, HcaId};
use common::*;
use rdmasim_core::sim::Simulation;
use rdmasim_core::engine::Time;
use rdmasim_core::wire::in_flight::PktKind;
use rdmasim_core::hca::qp::{QpAttr, WorkRequest, WrOp};
use rdmasim_core::hca::qp::QpRef;

fn attr() -> QpAttr {
    QpAttr { timeout: 14, retry_cnt: 7, rnr_retry: 7, min_rnr_timer: 12, max_rd_atomic: 16, mtu: 4096, sl: 0 }
}

fn wr(id: u64, op: WrOp, len: u32) -> WorkRequest {
    WorkRequest { wr_id: id, op, len, inline: false, signaled: true, remote_va: 0 }
}

fn run_until(s: &mut Simulation, us: u64) {
    while s.world.now() < Time::us(us) {
        assert!(!s.step(1), "the run ended before {us} us");
    }
}

/// The packets of one QP pair in the capture, in wire order: (kind, psn, sender lid).
fn packets_of(s: &Simulation, qp: QpRef) -> Vec<(PktKind, u32, u16)> {
    let cap = s.world.capture.as_ref().expect("capture on");
    cap.records.iter().filter(|(_, p)| p.src_qp == qp.qpn || p.dst_qp == qp.qpn).map(|(_, p)| (p.kind, p.psn, p.slid)).collect()
}

/// A world whose only workload is one flow starting at 5 ms, so that QPs connected through the
/// API run alone until then (its QPs are connected first).
fn idle(rest: &str) -> Simulation {
    let toml = format!(
        "[hardware]\nprofile = \"cx4-edr\"\n[workload]\nkind = \"flows\"\n[[workload.flow]]\nverb = \"write\"\nsize = 2\ncount = 1\nstart_us = 5000\n[output]\ncapture = true\ncapture_max_packets = 100000\n{rest}\n"
    );
    Simulation::from_toml(&toml, "<test>").unwrap()
}

/// rxe `check_ack`: every ACK that shows progress resets the retry counter
/// (`reset_retry_counters`), so a message that loses more packets than `retry_cnt` over its
/// length still completes, each loss repaired by a NAK. 4 MiB messages at 1 % loss lose ~10
/// packets each, more than retry_cnt = 7.
#[test]
fn retries_reset_on_every_ack_that_advances_not_only_on_completion() {
    let toml = perftest(
        "cx4-edr",
        "ib_write_bw",
        "size = 4194304\niters = 5",
        "[hardware.overrides]\nretransmit_floor_ms = 0.0\n[qp]\nretry_cnt = 7\n[[faults]]\nlink = \"h0->h1\"\nloss_rate = 0.01",
    );
    let r = run(&toml);
    let row = &table(&r, "perftest")[0];
    assert_eq!(row["errors"].as_u64(), Some(0), "first error {}", row["first_error"]);
    assert_eq!(counter(&r, 0, "req_transport_retries_exceeded"), 0);
    // More sequence-error NAKs than one message's retry budget, all recovered.
    assert!(counter(&r, 0, "packet_seq_err") > 7 * 2, "packet_seq_err = {}", counter(&r, 0, "packet_seq_err"));
}

/// What resets the budget inside one message is a positive ACK, and the requester asks for one
/// only every `ack_req_every` packets (and on the last); a sequence NAK's implicit ACK inside a
/// WQE does not reset it (rxe `check_psn` resets only when the NAK completes a WQE). At 5 %
/// loss a go-back-N pass rarely delivers 64 packets in a row (0.95^64 = 4 %), so 1 MiB messages
/// run out of retries; with an ACK requested on every packet the same losses are repaired.
#[test]
fn heavy_loss_exhausts_retries_when_positive_acks_are_rare() {
    let outcome = |ack_req_every: u32| {
        let toml = perftest(
            "cx4-edr",
            "ib_write_bw",
            "size = 1048576\niters = 20",
            &format!("[hardware.overrides]\nretransmit_floor_ms = 0.0\nack_req_every = {ack_req_every}\n[qp]\ntimeout = 10\n[[faults]]\nlink = \"h0-h1\"\nloss_rate = 0.05"),
        );
        let r = run(&toml);
        let row = table(&r, "perftest")[0].clone();
        (row["first_error"].as_str().unwrap_or("").to_string(), counter(&r, 0, "req_transport_retries_exceeded"), counter(&r, 0, "packet_seq_err"))
    };
    let (error, exceeded, naks) = outcome(64);
    assert_eq!((error.as_str(), exceeded), ("IBV_WC_RETRY_EXC_ERR", 1), "ack_req_every 64: {naks} NAKs");
    let (error, exceeded, naks) = outcome(1);
    assert_eq!((error.as_str(), exceeded), ("", 0), "ack_req_every 1");
    assert!(naks > 7 * 20, "every message lost more packets than retry_cnt: {naks} NAKs");
}

/// C9-105 (rxe `duplicate_request`): a duplicate SEND or WRITE packet is acknowledged again
/// whether or not it asks for an ACK. With a local ACK timeout shorter than the round trip of a
/// 2 km cable, the timer rewinds to packets the responder already has; none of the first
/// window's packets carries AckReq, so if only AckReq duplicates were answered the requester
/// would time out until RETRY_EXC_ERR on a loss-free link.
#[test]
fn every_duplicate_send_or_write_is_acknowledged_again() {
    let toml = perftest(
        "cx4-edr",
        "ib_write_bw",
        "size = 65536\niters = 20\ntx_depth = 1",
        "[hardware.overrides]\nretransmit_floor_ms = 0.0\n[topology]\ncable_m = 2000.0\n[qp]\ntimeout = 2",
    );
    let r = run(&toml);
    let row = &table(&r, "perftest")[0];
    assert_eq!(row["errors"].as_u64(), Some(0), "first error {}", row["first_error"]);
    assert!(counter(&r, 0, "local_ack_timeout_err") > 0, "the timeout must fire for the case to mean anything");
    assert!(counter(&r, 1, "duplicate_request") > 0);
}

/// rxe `send_ack(qp, syndrome, pkt->psn)`: an ACK's PSN is fixed when it is generated. An ACK
/// for a WRITE that waits behind a busy port must not cover a READ that arrives meanwhile (its
/// responses are not sent yet): the requester would take that as an implied NAK and ask for
/// the READ again.
#[test]
fn a_queued_ack_keeps_the_psn_it_was_generated_for() {
    // h1 keeps its port busy with 1 MiB WRITEs to h0 (perftest client = 1).
    let toml = perftest("cx4-edr", "ib_write_bw", "size = 1048576\niters = 20\nclient = 1\nserver = 0", "[output]\ncapture = true\ncapture_max_packets = 100000");
    let mut s = Simulation::from_toml(&toml, "<test>").unwrap();
    let (a, _) = s.world.connect_rc(HcaId(0), AppId(0), HcaId(1), AppId(0), attr());
    run_until(&mut s, 20);
    s.world.post_send(a, wr(90, WrOp::Write, 64));
    s.world.post_send(a, wr(91, WrOp::Read, 4096));
    s.run();
    let r = packet_results(&s);
    assert!(s.world.qp(a).sq.is_empty());
    let acks: Vec<u32> = packets_of(&s, a).iter().filter(|p| p.0 == PktKind::Ack).map(|p| p.1).collect();
    assert_eq!(acks, vec![0], "the WRITE's ACK names PSN 0, not the READ's");
    // ... and the MSN counting the WRITE alone (1), not the READ accepted meanwhile (2).
    let cap = &s.world.capture.as_ref().unwrap().records;
    let ack_msn: Vec<u32> = cap.iter().filter(|(_, p)| p.kind == PktKind::Ack && p.dst_qp == a.qpn).map(|(_, p)| p.msn).collect();
    assert_eq!(ack_msn, vec![1]);
    assert_eq!(counter(&r, 0, "implied_nak_seq_err"), 0);
    assert_eq!(counter(&r, 1, "duplicate_request"), 0);
}

/// rxe `check_psn` + `req_retry`: a sequence NAK for a PSN beyond a READ that is missing its
/// last response restarts at that READ's first missing response, not at the NAK's PSN.
#[test]
fn a_sequence_nak_beyond_an_incomplete_read_restarts_at_the_read() {
    // h0->h1 packets: 1 = READ request (PSN 0..15), 2 = WRITE first (16, lost), 3 = WRITE last.
    // h1->h0 packets: 1..16 = READ responses (16 = the last, lost), 17 = NAK(16).
    let mut s = idle("[[faults]]\nlink = \"h1->h0\"\ndrop_nth = [16]\n[[faults]]\nlink = \"h0->h1\"\ndrop_nth = [2]");
    let (a, _) = s.world.connect_rc(HcaId(0), AppId(0), HcaId(1), AppId(0), attr());
    s.world.post_send(a, wr(1, WrOp::Read, 65536));
    s.world.post_send(a, wr(2, WrOp::Write, 8192));
    // Keep h0's port busy when the NAK arrives: a 1 MiB WRITE on another QP, posted after this
    // QP's three request packets have left (so drop_nth counts as above).
    let (c, _) = s.world.connect_rc(HcaId(0), AppId(0), HcaId(1), AppId(0), attr());
    run_until(&mut s, 2);
    s.world.post_send(c, wr(3, WrOp::Write, 1 << 20));
    run_until(&mut s, 200);
    let r = packet_results(&s);
    assert!(s.world.qp(a).sq.is_empty());
    let requests: Vec<(PktKind, u32)> =
        packets_of(&s, a).iter().filter(|p| p.0.is_request()).map(|p| (p.0, p.1)).collect();
    let after_nak = &requests[3..];
    assert_eq!(after_nak[0], (PktKind::ReadReq, 15), "first request after the NAK: {requests:?}");
    assert_eq!(counter(&r, 0, "implied_nak_seq_err"), 1);
    assert_eq!(counter(&r, 1, "duplicate_request"), 1, "only the WRITE's second packet arrives twice");
}

/// rxe `check_resource` rejects a WRITE with immediate that finds no receive WQE before
/// `execute`: the dropped packet is neither placed nor counted, however often it is retried.
#[test]
fn an_rnr_naked_write_with_immediate_is_counted_once() {
    let mut s = idle("");
    let mut at = attr();
    at.min_rnr_timer = 1; // 0.01 ms
    let (a, b) = s.world.connect_rc(HcaId(0), AppId(0), HcaId(1), AppId(0), at);
    s.world.post_send(a, wr(1, WrOp::WriteImm, 4096));
    run_until(&mut s, 25);
    s.world.post_recv(b, 7, 4096);
    run_until(&mut s, 200);
    let r = packet_results(&s);
    assert!(s.world.qp(a).sq.is_empty());
    assert!(counter(&r, 1, "out_of_buffer") >= 2, "the case needs RNR NAKs");
    assert_eq!(s.world.qp(b).rx_bytes, 4096);
    assert_eq!(s.world.qp(b).rx_msgs, 1);
    assert_eq!(counter(&r, 1, "rx_write_requests"), 1);
}

/// rxe `check_psn`/`complete_ack` take an ACK whatever the requester's send position: an ACK
/// that arrives after a spurious local ACK timeout rewound the send cursor (timeout below the
/// round trip of a 2 km cable) acknowledges what it covers, and the requester resumes after it
/// instead of resending packets the responder already has.
#[test]
fn a_late_ack_after_a_timer_rewind_is_honoured() {
    let mut s = idle("[topology]\ncable_m = 2000.0\n[hardware.overrides]\nretransmit_floor_ms = 0.0");
    let mut at = attr();
    at.timeout = 2; // 16.4 us, below the ~20 us round trip
    let (a, _) = s.world.connect_rc(HcaId(0), AppId(0), HcaId(1), AppId(0), at);
    s.world.post_send(a, wr(1, WrOp::Write, 1 << 20));
    run_until(&mut s, 4000);
    let r = packet_results(&s);
    assert!(s.world.qp(a).sq.is_empty());
    assert!(counter(&r, 0, "local_ack_timeout_err") > 10, "the case needs spurious timeouts");
    // Capture times are departures. An ACK is at the requester 10 us later (2 km at 5 ns/m)
    // plus its receive pipeline; a request departing 1 us after that was chosen after it.
    let arrival = 11_000.0;
    let cap = &s.world.capture.as_ref().unwrap().records;
    let acked_by = |t: f64| cap.iter().filter(|(ta, p)| p.kind == PktKind::Ack && ta.as_ns_f64() + arrival < t).map(|(_, p)| p.psn as i64).max().unwrap_or(-1);
    let resent_acked: Vec<(f64, u32)> = cap
        .iter()
        .filter(|(t, p)| p.kind.is_request() && (p.psn as i64) <= acked_by(t.as_ns_f64()))
        .map(|(t, p)| (t.as_ns_f64() / 1000.0, p.psn))
        .collect();
    assert!(resent_acked.is_empty(), "packets resent after their ACK arrived (us, psn): {resent_acked:?}");
}

/// C9-148 / rxe: a READ's responses carry the MSN that counts that READ, even when later READs
/// were already accepted (pipelined) before its responses leave.
#[test]
fn read_responses_carry_their_own_reads_msn() {
    let mut s = idle("");
    let (a, _) = s.world.connect_rc(HcaId(0), AppId(0), HcaId(1), AppId(0), attr());
    for id in 0..3 {
        s.world.post_send(a, wr(id, WrOp::Read, 8192)); // two response packets each
    }
    run_until(&mut s, 100);
    assert!(s.world.qp(a).sq.is_empty());
    let cap = &s.world.capture.as_ref().unwrap().records;
    let msns: Vec<(u32, u32)> = cap.iter().filter(|(_, p)| matches!(p.kind, PktKind::ReadResp { .. }) && p.dst_qp == a.qpn).map(|(_, p)| (p.psn, p.msn)).collect();
    assert_eq!(msns, vec![(0, 1), (1, 1), (2, 2), (3, 2), (4, 3), (5, 3)]);
}

/// rxe `get_req`: a READ being answered is answered to its end; a duplicate READ is replayed
/// after it, in arrival order. A READ whose last response is lost, followed by a 1 MiB READ:
/// go-back-N re-requests both, and the replay of the first must not wait behind a restarted
/// second stream (restarting it, as tried in 82a0dd4, left recovery to the 500 ms timer).
#[test]
fn a_lost_read_response_before_a_large_read_recovers_without_the_timer() {
    // h1->h0 packet 2 is the first READ's second (last) response.
    let mut s = idle("[[faults]]\nlink = \"h1->h0\"\ndrop_nth = [2]");
    let (a, _) = s.world.connect_rc(HcaId(0), AppId(0), HcaId(1), AppId(0), attr());
    s.world.post_send(a, wr(1, WrOp::Read, 8192));
    s.world.post_send(a, wr(2, WrOp::Read, 1 << 20));
    let mut done_at = None;
    while s.world.now() < Time::us(4900) && done_at.is_none() {
        assert!(!s.step(1));
        if s.world.qp(a).sq.is_empty() {
            done_at = Some(s.world.now());
        }
    }
    let r = packet_results(&s);
    let done = done_at.expect("both READs done by 4.9 ms");
    assert!(done < Time::us(250), "done at {done:?}");
    assert_eq!(counter(&r, 0, "local_ack_timeout_err"), 0);
    assert_eq!(counter(&r, 0, "implied_nak_seq_err"), 1);
}
