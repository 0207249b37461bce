//! A flow's latency is each message's own post to its own polled completion, also when its
//! QPs complete out of posting order.
mod common;
use common::{f, run, table};

/// Three 10 B WRITEs on two QPs, two outstanding: message 0 (QP 0) and 1 (QP 1) are posted
/// one after the other from t = 0, message 2 (QP 0) when message 0 completes. Message 1's packet is lost, so QP 1 completes
/// last, after a retransmission: the latencies are one round trip (messages 0 and 2) and the
/// whole run (message 1). Matching completions to post times in completion order gave
/// 2 round trips for message 2 and the run less a round trip for message 1.
#[test]
fn latency_follows_each_message_when_qps_complete_out_of_order() {
    let r = run("[hardware]\nprofile = \"cx3-fdr\"\n[hardware.overrides]\nretransmit_floor_ms = 0.0\n[qp]\ntimeout = 1\n\
         [workload]\nkind = \"flows\"\n[[workload.flow]]\nverb = \"write\"\nsize = 10\ncount = 3\nqps = 2\ndepth = 2\n\
         [[faults]]\nlink = \"h0->h1\"\ndrop_nth = [2]\n");
    let row = &table(&r, "flows")[0];
    assert_eq!(row["lat_count"], 3);
    let (min, median, max, window) = (f(row, "lat_min_us"), f(row, "lat_median_us"), f(row, "lat_max_us"), f(row, "window_us"));
    assert!((0.5..2.0).contains(&min), "one round trip: {min} us");
    assert_eq!(median, min, "messages 0 and 2 take one round trip each");
    assert!(max > 4.0 * min, "message 1 waits for its retransmission: {max} us");
    // Message 1's post begins when message 0's ibv_post_send is done (tens of ns after 0).
    assert!((0.0..0.2).contains(&(window - max)), "message 1, posted right after message 0, completes last: {max} vs window {window} us");
}
