//! Events that would find nothing to do are not scheduled (speed, not behaviour: results are
//! the same). A TxDone is only scheduled when its HCA has more to send or gets more before the
//! packet's end (`Channel::idle_tx_done`), and an app is told of a WRITE landing in its memory
//! only if it polls that memory (`Qp::watch_writes`).
mod common;
use common::*;

#[test]
fn a_lone_busy_polled_mouse_costs_five_events_per_message() {
    // Per message: the doorbell's engine kick, the request's and the ACK's receive, the CQE
    // becoming visible, and the poll that finds it. Before, it was 10: every TxDone was
    // scheduled (the request's and the ACK's), each then kicked the idle engine again when it
    // freed, and the flows app was told of each WRITE it never reads.
    let n = 20_000u64;
    let r = run(&format!(
        "[hardware]\nprofile = \"cx3-fdr\"\n[topology]\nkind = \"single-switch\"\nhosts = 2\n[workload]\nkind = \"flows\"\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 10\ncount = {n}\npolling = \"busy\"\ninline = true\n"
    ));
    assert_eq!(table(&r, "flows")[0]["completed_total"].as_u64(), Some(n));
    let per_message = f(&r, "events") / n as f64;
    assert!((4.99..5.01).contains(&per_message), "{per_message} events per message");
}
