//! Shared receive queues: the SRQ pool, the SRQ_LIMIT_REACHED event, RNR NAKs when empty, and
//! the proposed stop/resume flow control (seeds/001), through the srq-episode workload.
mod common;
use common::{counter, f, run, table};
use serde_json::Value;

fn episode(method: &str, extra: &str) -> Value {
    run(&format!(
        "[hardware]\nprofile = \"cx3-fdr\"\n[workload]\nkind = \"srq-episode\"\nmethod = \"{method}\"\n{extra}\n"
    ))
}

fn component(r: &Value, name: &str) -> f64 {
    let rows = table(r, "srq_episode");
    let row = rows.iter().find(|x| x["component"] == name).unwrap_or_else(|| panic!("no {name} in {rows:?}"));
    f(row, "duration_us")
}

fn total_row(r: &Value) -> &Value {
    table(r, "srq_episode").iter().find(|x| x["component"] == "total").unwrap()
}

fn srq_stat(r: &Value, key: &str) -> u64 {
    table(r, "srqs")[0][key].as_u64().unwrap_or_else(|| panic!("no {key}"))
}

#[test]
fn stop_resume_episode_is_near_the_published_4_51_us() {
    let r = episode("stop-resume", "");
    assert_eq!(r["stop_reason"], "completed");
    let total = component(&r, "total");
    let t_poll = component(&r, "t_poll");
    // seeds/001 fig. 9: 4.51 us, of which t_poll 2.18 us (B1, +-10%).
    assert!((total - 4.51).abs() <= 0.451, "episode {total} us");
    assert!((t_poll - 2.18).abs() <= 0.218, "t_poll {t_poll} us");
    // The parts: refill of 64 WQEs in one post call, then a resume request and the sender
    // HCA's retransmission (WQE and payload re-read), each a positive slice of the total.
    let parts = t_poll + component(&r, "t_refill") + component(&r, "t_resume");
    assert!((parts - total).abs() < 1e-6);
    assert!(component(&r, "t_resume") > 1.0, "a resume is a message and a retransmission");
    // One overflow, one stop request, one resume request, and no RNR NAK at all.
    assert_eq!((srq_stat(&r, "overflows"), srq_stat(&r, "stop_requests"), srq_stat(&r, "resume_requests")), (1, 1, 1));
    assert_eq!(counter(&r, 0, "rnr_nak_retry_err"), 0);
    assert_eq!(counter(&r, 1, "out_of_buffer"), 1);
}

#[test]
fn srq_limit_episode_is_near_the_published_92_8_us() {
    let r = episode("srq-limit", "");
    assert_eq!(r["stop_reason"], "completed");
    let total = component(&r, "total");
    // seeds/001 fig. 10: 92.8 us = t_int 35.0 + refill + t_setev 55.9 (B2, +-10%).
    assert!((total - 92.8).abs() <= 9.28, "episode {total} us");
    assert!((component(&r, "t_int") - 35.0).abs() <= 3.5);
    assert!((component(&r, "t_setev") - 55.9).abs() < 1e-6);
    assert_eq!(srq_stat(&r, "limit_events"), 1);
    assert_eq!(srq_stat(&r, "overflows"), 0);
    // The limit fired when the 35th SEND left 29 < 30 buffers.
    assert_eq!(srq_stat(&r, "min_posted"), 29);
    // B3: the proposed method removes ~95% of the delay.
    let prop = component(&episode("stop-resume", ""), "total");
    let reduction = 100.0 * (1.0 - prop / total);
    assert!((reduction - 95.0).abs() <= 2.0, "reduction {reduction}%");
}

#[test]
fn empty_srq_draws_rnr_naks_and_the_sender_retries_after_the_rnr_timer() {
    // 29 buffers left, a burst of 40: 11 SENDs find the pool empty before the interrupt-driven
    // refill, draw RNR NAKs and are retried after min_rnr_timer 12 (0.64 ms, IBTA table).
    let r = episode("srq-limit", "burst = 40");
    assert_eq!(r["stop_reason"], "completed");
    assert!(srq_stat(&r, "overflows") >= 1);
    assert!(counter(&r, 0, "rnr_nak_retry_err") >= 1);
    // One-shot: the 29 SENDs consumed below the limit raise one event; none is raised again
    // before the handler re-arms (and the refill keeps the pool above the limit after).
    assert_eq!(srq_stat(&r, "limit_events"), 1);
    let all = f(total_row(&r), "all_received_us");
    assert!(all > 640.0 && all < 700.0, "last SEND received at {all} us, expected just after the 640 us RNR timer");
    assert_eq!(total_row(&r)["received"], 34 + 40);
}

#[test]
fn stop_resume_burst_is_stopped_and_resumed_without_rnr_timer() {
    // A burst of 10 into an empty SRQ: one stop request (later packets of the burst are dropped
    // as out of sequence), one resume, everything retransmitted within microseconds.
    let r = episode("stop-resume", "burst = 10");
    assert_eq!(r["stop_reason"], "completed");
    assert_eq!(srq_stat(&r, "stop_requests"), 1);
    assert_eq!(srq_stat(&r, "resume_requests"), 1);
    assert_eq!(counter(&r, 0, "rnr_nak_retry_err"), 0);
    assert_eq!(total_row(&r)["received"], 64 + 10);
    let all = f(total_row(&r), "all_received_us");
    assert!(all < 10.0, "all received after {all} us");
}

#[test]
fn bad_srq_episode_fields_are_named() {
    let Err(e) = rdmasim_core::api::Simulation::from_toml(
        "[hardware]\nprofile = \"cx3-fdr\"\n[workload]\nkind = \"srq-episode\"\nmethod = \"srq-limit\"\nsrq_limit = 64\n",
        "ep.toml",
    ) else {
        panic!("srq_limit = refill is rejected");
    };
    assert!(e.to_string().contains("workload.srq_limit"), "{e}");
    let e = rdmasim_core::api::validate_toml("[hardware]\nprofile = \"cx3-fdr\"\n[workload]\nkind = \"srq-episode\"\nmethod = \"stop\"\n", "ep.toml")
        .expect_err("unknown method");
    assert!(e.to_string().contains("workload.method"), "{e}");
}

/// Stop-resume has no timer: when the resume request is lost (90 % loss towards the sender)
/// the run stalls, and the stop reason says which QP waits for what instead of only "stalled".
#[test]
fn a_lost_resume_request_is_named_as_the_stall() {
    let r = run("seed = 399\n[hardware]\nprofile = \"cx5-edr\"\n[topology]\nkind = \"single-switch\"\nhosts = 4\n\
         [workload]\nkind = \"srq-episode\"\nmethod = \"stop-resume\"\nrefill = 2\nclient = 3\n\
         [[faults]]\nlink = \"sw0->h3\"\nloss_rate = 0.9\n");
    let why = r["stop_reason"].as_str().unwrap();
    assert!(why.starts_with("no more events (workload stalled): h3 QP"), "{why}");
    assert!(why.contains("its peer's SRQ told it to stop and no resume request came"), "{why}");
}
