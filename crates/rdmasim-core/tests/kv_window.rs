//! HERD's client window (`[workload.kv] window`, efficient/HERD main.c `run_client`): the client
//! keeps `window` requests in flight and each request's latency runs from its own post to the
//! poll of its own response.
mod common;
use common::*;
use serde_json::Value;

const MB: u64 = 1 << 20;

/// A GET-only key-value run on cx4-edr; `extra_kv` goes under `[workload.kv]`, `background`
/// adds an event-polled 1 MB WRITE elephant from the client's host.
fn kv(arbitration: &str, extra_kv: &str, background: bool) -> String {
    let elephant = if background {
        format!("[[workload.flow]]\nverb = \"write\"\nsize = {MB}\nbackground = true\npolling = \"event\"\n")
    } else {
        String::new()
    };
    format!(
        "[hardware]\nprofile = \"cx4-edr\"\n[hardware.overrides]\narbitration = \"{arbitration}\"\n\
         [workload]\nkind = \"flows\"\n[workload.kv]\nrequests = 3000\nget_fraction = 1.0\n{extra_kv}\n{elephant}"
    )
}

fn get_row(r: &Value) -> &Value {
    &table(r, "kv")[0]
}

#[test]
fn window_one_is_todays_client() {
    let default = run(&kv("chunk-round-robin", "", true));
    let one = run(&kv("chunk-round-robin", "window = 1", true));
    assert_eq!(table(&default, "kv"), table(&one, "kv"));
    assert_eq!(f(get_row(&one), "window"), 1.0);
}

#[test]
fn window_keeps_that_many_requests_in_flight() {
    // Little's law: mean latency = requests in flight / completion rate. A client that kept
    // fewer than `window` in flight would show a mean latency `window` times too short.
    for window in [1u32, 4, 32] {
        let r = run(&kv("chunk-round-robin", &format!("window = {window}"), false));
        let (avg, mops) = (f(get_row(&r), "lat_avg_us"), f(get_row(&r), "mops_total"));
        let little = window as f64 / mops;
        assert!((avg / little - 1.0).abs() < 0.03, "window {window}: mean {avg:.3} us, window / rate {little:.3} us");
    }
    // And the window pipelines: 4 in flight complete faster than one at a time.
    let rate = |w: u32| f(get_row(&run(&kv("chunk-round-robin", &format!("window = {w}"), false))), "mops_total");
    assert!(rate(4) > 2.0 * rate(1), "rate with window 4 {} vs 1 {}", rate(4), rate(1));
}

#[test]
fn each_request_in_the_window_waits_for_its_own_arbitration_turn() {
    // Beside an elephant each request is a WR of its own, so under chunk round robin each one
    // waits for one elephant chunk (16 KiB, ~1.35 us at EDR): with the window full the client
    // completes about one request per chunk, and a request's latency is ~window chunks.
    let slowdown = |arb: &str, w: u32| {
        let k = format!("window = {w}");
        let alone = f(get_row(&run(&kv(arb, &k, false))), "lat_median_us");
        let beside = f(get_row(&run(&kv(arb, &k, true))), "lat_median_us");
        (beside / alone, beside)
    };
    let chunk_us = 16384.0 * 8.0 / 100e3;
    let (one, _) = slowdown("chunk-round-robin", 1);
    let (four, median4) = slowdown("chunk-round-robin", 4);
    assert!(four > 1.5 * one, "median slow-down beside a 1 MB elephant: window 4 {four:.2}x, window 1 {one:.2}x");
    assert!(median4 > 3.0 * chunk_us, "window 4 median beside the elephant {median4:.2} us, chunk {chunk_us:.2} us");
    // Packet round robin: a request waits at most one elephant packet, and the window adds
    // little; the growth with the window comes from the chunk quantum.
    let (four_pkt, _) = slowdown("packet-round-robin", 4);
    assert!(four_pkt < 0.6 * four, "window 4: packet RR {four_pkt:.2}x, chunk RR {four:.2}x");
}

#[test]
fn bad_window_names_its_key() {
    for bad in ["window = 0", "window = 1025"] {
        let e = rdmasim_core::api::Simulation::from_toml(&kv("chunk-round-robin", bad, false), "kv.toml").err().expect("rejected");
        assert_eq!(e.key, "workload.kv.window", "{bad}");
        assert!(e.message.contains("1..=1024"), "{}", e.message);
    }
}
