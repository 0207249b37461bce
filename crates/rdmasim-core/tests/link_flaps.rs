//! Link events in time (fabric/link_events.rs): a cable that retrains or flaps at a rate per
//! second stops for the retraining (or down) time; what is on its wire then is lost and the RC
//! transport resends it. Two flows on a k = 4 fat tree of 4x QDR: h0 -> h15 crosses h0's edge
//! uplink, whose cable has the events; h4 -> h8 shares no link with it and must not notice.
mod common;
use common::qdr_fat_tree::*;
use common::*;
use rdmasim_core::prepare::parse_toml;
use serde_json::Value;

/// Messages per flow and their size: 8 × 16 MiB, about 34 ms of a QDR link per flow.
const COUNT: u64 = 8;
const SIZE: u64 = 16 << 20;

/// h0 -> h15 (flow 0, across the uplink) and h4 -> h8 (flow 1, pods 1 and 2 only), one
/// message at a time each.
fn two_flows() -> String {
    let flow = |client: u32, server: u32| {
        format!("[[workload.flow]]\nverb = \"write\"\nsize = {SIZE}\ncount = {COUNT}\ndepth = 1\nclient = {client}\nserver = {server}\n")
    };
    format!(
        "kind = \"flows\"\nuntil = \"all\"\n{}{}",
        flow(0, 15),
        flow(4, 8)
    )
}

/// The scenario with seed `seed` and `[[faults]]` `keys` on h0's uplink (both directions).
fn with_events(seed: u64, keys: &str) -> String {
    let (a, pa, b, pb) = uplink_of_h0(&fabric_of(&qdr_fat_tree(&two_flows(), "")));
    let fault = if keys.is_empty() {
        String::new()
    } else {
        format!("[[faults]]\nlink = \"{a}[{pa}]-{b}[{pb}]\"\n{keys}")
    };
    format!("seed = {seed}\n{}", qdr_fat_tree(&two_flows(), &fault))
}

fn flow(r: &Value, i: usize) -> &Value {
    let row = &table(r, "flows")[i];
    assert_eq!(
        row["completed_total"], COUNT,
        "flow {i}: {}",
        r["stop_reason"]
    );
    row
}

/// (events counted at the cable's two ports, packets lost on its wire, discarded at its
/// sending ports) of counter `events`.
fn cable_counts(r: &Value, events: &str) -> (u64, u64, u64, u64) {
    let (a, pa, b, pb) = uplink_of_h0(&fabric_of(&qdr_fat_tree(&two_flows(), "")));
    let (x, y) = (port_row(r, &a, pa), port_row(r, &b, pb));
    let n = |p: &Value, k: &str| p[k].as_u64().unwrap();
    let lost = n(x, "PortRcvErrors") + n(y, "PortRcvErrors");
    let discarded = n(x, "PortXmitDiscards") + n(y, "PortXmitDiscards");
    assert_eq!(
        total(r, "PortRcvErrors"),
        lost,
        "only the cable's ports lose packets"
    );
    (n(x, events), n(y, events), lost, discarded)
}

/// Flow 1 does not cross the cable: its every figure is what it was without the events.
fn assert_unaffected(base: &Value, r: &Value) {
    for key in [
        "finish_us",
        "lat_median_us",
        "lat_max_us",
        "bytes_in_window",
    ] {
        assert_eq!(
            flow(base, 1)[key],
            flow(r, 1)[key],
            "flow 1's {key} changed"
        );
    }
}

#[test]
fn a_retrain_stalls_exactly_the_flows_crossing_the_link_for_its_time_and_its_lost_packets_are_resent(
) {
    let retrain_us = 1000.0;
    let mut events = 0;
    for seed in 1..=4 {
        let base = run(&with_events(seed, ""));
        let r = run(&with_events(
            seed,
            &format!("retrains_per_s = 100\nretrain_us = {retrain_us}"),
        ));
        let (ea, eb, lost, discarded) = cable_counts(&r, "LinkErrorRecoveryCounter");
        let delay = f(flow(&r, 0), "finish_us") - f(flow(&base, 0), "finish_us");
        let resent = counter(&r, 0, "retransmitted_packets");
        println!("seed {seed}: {ea} retrains of {retrain_us} us: flow 0 finishes {delay:.1} us later; {lost} packets lost, {resent} resent");
        // Both ends count every retrain; none is a flap.
        assert_eq!(ea, eb);
        assert_eq!(total(&r, "LinkDownedCounter"), 0);
        events += ea;
        // (a) The crossing flow stops for each retrain's time, plus its recovery: the packets
        // the retrain caught on the wire are lost, the held ones behind them arrive out of
        // sequence, and go-back-N resends from the first lost (a round trip and a switch
        // buffer's worth, µs at QDR).
        let n = ea as f64;
        assert!(
            delay >= n * retrain_us * 0.98 && delay <= n * (retrain_us + 50.0),
            "seed {seed}: {delay:.1} us for {ea} retrains of {retrain_us} us"
        );
        // (b) What was on the wire is lost and resent; a retrain discards nothing (the ports
        // hold their queues), and every byte arrives.
        assert!(
            lost >= ea,
            "seed {seed}: a loaded link has a packet on the wire when it retrains"
        );
        assert_eq!(discarded, 0);
        assert!(resent >= lost);
        assert_eq!(
            flow(&r, 0)["bytes_in_window"],
            flow(&base, 0)["bytes_in_window"]
        );
        // (c) The flow that does not cross the cable is untouched.
        assert_unaffected(&base, &r);
    }
    // 100 retrains/s over four runs of about 34 ms: 13.4 expected (Poisson, sd 3.7).
    assert!((5..=25).contains(&events), "{events} retrains in four runs");
}

#[test]
fn a_flap_discards_what_is_sent_while_the_link_is_down_and_the_transport_resends_it() {
    let base = run(&with_events(5, ""));
    let down_ms = 2.0;
    let r = run(&with_events(
        5,
        &format!("flaps_per_s = 60\nflap_down_ms = {down_ms}"),
    ));
    let (ea, eb, lost, discarded) = cable_counts(&r, "LinkDownedCounter");
    let delay = f(flow(&r, 0), "finish_us") - f(flow(&base, 0), "finish_us");
    let resent = counter(&r, 0, "retransmitted_packets");
    println!(
        "{ea} flaps of {down_ms} ms: flow 0 finishes {delay:.1} us later; {lost} lost on the wire, {discarded} discarded, {resent} resent, {} ACK timeouts",
        counter(&r, 0, "local_ack_timeout_err")
    );
    assert_eq!(ea, eb);
    assert!(ea >= 1, "the case needs flaps");
    assert_eq!(total(&r, "LinkErrorRecoveryCounter"), 0);
    // The link carries nothing while down: the crossing flow loses at least that time.
    assert!(
        delay >= ea as f64 * down_ms * 1e3 * 0.98,
        "{delay:.1} us for {ea} flaps of {down_ms} ms"
    );
    // What the sender put on the down link is discarded at its port and resent, with what the
    // flap caught on the wire; every byte arrives.
    assert!(discarded >= 1);
    assert!(resent >= discarded);
    assert_eq!(
        flow(&r, 0)["bytes_in_window"],
        flow(&base, 0)["bytes_in_window"]
    );
    assert_unaffected(&base, &r);
}

#[test]
fn the_same_seed_gives_the_same_run_and_a_zero_rate_changes_nothing() {
    let keys = "retrains_per_s = 100\nretrain_us = 300\nflaps_per_s = 20\nflap_down_ms = 1";
    let (one, two) = (run(&with_events(7, keys)), run(&with_events(7, keys)));
    assert_eq!(one, two);
    let other = run(&with_events(8, keys));
    assert_ne!(
        one["tables"]["ports"], other["tables"]["ports"],
        "another seed draws other events"
    );
    // Rates of zero (durations given or not): the run without the keys, to the byte.
    let none = run(&with_events(7, ""));
    let zero = run(&with_events(
        7,
        "retrains_per_s = 0\nretrain_us = 300\nflaps_per_s = 0.0",
    ));
    assert_eq!(
        serde_json::to_string(&none["tables"]).unwrap(),
        serde_json::to_string(&zero["tables"]).unwrap()
    );
}

#[test]
fn bad_link_event_keys_are_refused_naming_the_key_and_what_was_expected() {
    let cases = [
        ("retrains_per_s = 10", "faults[0].retrain_us", "needs retrain_us"),
        ("flaps_per_s = 1", "faults[0].flap_down_ms", "needs flap_down_ms"),
        ("flaps_per_s = -1\nflap_down_ms = 5", "faults[0].flaps_per_s", "events per second >= 0"),
        ("retrains_per_s = 10\nretrain_us = 0", "faults[0].retrain_us", "> 0 and <= 1000000"),
        ("flaps_per_s = 1\nflap_down_ms = 2e6", "faults[0].flap_down_ms", "> 0 and <= 1000000"),
    ];
    for (keys, key, says) in cases {
        let e = parse_toml(&with_events(1, keys), "<test>").unwrap_err();
        assert_eq!(e.key, key, "{keys}: {e}");
        assert!(e.message.contains(says), "{keys}: {}", e.message);
    }
}
