//! Link events in time on the TSUBAME2.0 rounds (flow/link_outages.rs, apps/rounds.rs): the
//! erroring links retrain or flap at a rate per second; a trial is slower exactly when an
//! outage meets a flow that crosses the link, and more often the higher the rate.
use rdmasim_core::apps::rounds::run_json;
use serde_json::Value;

/// A quarter of TSUBAME2.0 with six erroring links that corrupt nothing (`errors_per_s` 0), so
/// only their events slow a trial; `events` is the request's `link_events`.
fn request(disable: bool, events: &str) -> Value {
    let req = format!(
        r#"{{"generator": {{"kind": "tsubame2", "hosts": 352}}, "route": "minhop",
            "bad_links": {{"seed": 1, "degraded": 1, "erroring": 6, "errors_per_s": 0, "disable": {disable}}}, {events}
            "cases": [{{"kind": "alltoall", "nodes": 200, "up": 330, "missing_seed": 1, "bytes": 1048576, "trials": 8}},
                      {{"kind": "random-pair", "nodes": 300, "up": 330, "missing_seed": 1, "seed": 1, "bytes": 536870912, "trials": 8}}]}}"#
    );
    serde_json::from_str(&run_json(&req).unwrap()).unwrap()
}

fn trials(case: &Value) -> Vec<(f64, u64)> {
    let t = case["trial_s"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap());
    t.zip(case["stalls"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap())).collect()
}

#[test]
fn without_events_the_trials_are_the_fluid_time_and_a_zero_rate_changes_nothing() {
    let none = request(false, "");
    assert_eq!(none, request(false, r#""link_events": {"flaps_per_s": 0, "retrains_per_s": 0},"#));
    for c in none["cases"].as_array().unwrap() {
        assert_eq!(c["exposed_flows"], 0, "no errors, no events: nothing exposed");
        assert!(trials(c).iter().all(|&(t, n)| n == 0 && t == c["fluid_s"].as_f64().unwrap()));
    }
}

#[test]
fn flaps_slow_the_trials_that_meet_them_and_more_of_them_as_the_rate_rises() {
    let events = |rate: f64| format!(r#""link_events": {{"flaps_per_s": {rate}, "flap_down_s": 1.0}},"#);
    let mut slow_before = [0usize; 2];
    for rate in [0.05, 0.5, 5.0] {
        let r = request(false, &events(rate));
        let again = request(false, &events(rate));
        assert_eq!(r, again, "same request, same answer");
        let mut slow = [0usize; 2];
        for (i, c) in r["cases"].as_array().unwrap().iter().enumerate() {
            let fluid = c["fluid_s"].as_f64().unwrap();
            assert!(c["exposed_flows"].as_u64().unwrap() > 0, "flows cross the erroring links: {c}");
            for (t, n) in trials(c) {
                // A trial is slower exactly when a flow met an outage; a 1 s flap outlasts any
                // flow here, so the flow it meets waits at least one 4.29 s ACK timeout.
                if n > 0 {
                    assert!(t > fluid && t >= 4.29, "{t} s with {n} hits, fluid {fluid} s");
                    slow[i] += 1;
                } else {
                    assert_eq!(t, fluid);
                }
            }
        }
        println!("{rate} flaps/s per erroring cable: slow trials Alltoall {} / 8, random pair {} / 8", slow[0], slow[1]);
        assert!(slow[0] >= slow_before[0] && slow[1] >= slow_before[1], "{slow:?} after {slow_before:?}");
        slow_before = slow;
    }
    assert!(slow_before[0] > 0 && slow_before[1] > 0, "at 5 flaps/s per cable trials meet them");
    // Disabled links carry nothing, so their events touch no flow.
    let off = request(true, &events(5.0));
    assert!(off["cases"].as_array().unwrap().iter().all(|c| trials(c).iter().all(|&(_, n)| n == 0)));
}

#[test]
fn a_bad_plan_names_the_field() {
    let req = r#"{"generator": {"kind": "tsubame2", "hosts": 64}, "route": "minhop", "link_events": {"flaps_per_s": 1}, "cases": []}"#;
    let e = run_json(req).unwrap_err().to_string();
    assert!(e.contains("link_events.flap_down_s"), "{e}");
}

#[test]
fn a_swept_plan_gives_the_trials_the_same_plan_gives_alone() {
    let plans = [r#"{"flaps_per_s": 0.5, "flap_down_s": 1.0}"#, r#"{"retrains_per_s": 20, "retrain_s": 0.002}"#, "{}"];
    let swept = request(false, &format!(r#""link_event_sweep": [{}],"#, plans.join(", ")));
    for (i, plan) in plans.iter().enumerate() {
        let alone = request(false, &format!(r#""link_events": {plan},"#));
        for (c, a) in swept["cases"].as_array().unwrap().iter().zip(alone["cases"].as_array().unwrap()) {
            assert_eq!(c["sweep"][i]["trial_s"], a["trial_s"], "plan {plan}");
            assert_eq!(c["sweep"][i]["stalls"], a["stalls"], "plan {plan}");
        }
    }
}

#[test]
fn without_tail_loss_a_plan_keeps_only_its_events_stalls() {
    // Erroring links at 300/s corrupt tails; a plan with tail_loss off and no events has none.
    let req = |plans: &str| {
        let r = format!(
            r#"{{"generator": {{"kind": "tsubame2", "hosts": 352}}, "route": "minhop",
                "bad_links": {{"seed": 1, "degraded": 1, "erroring": 6, "errors_per_s": 3000}}, "link_event_sweep": [{plans}],
                "cases": [{{"kind": "alltoall", "nodes": 200, "up": 330, "missing_seed": 1, "bytes": 1048576, "trials": 8}}]}}"#
        );
        serde_json::from_str::<Value>(&run_json(&r).unwrap()).unwrap()
    };
    let r = req(r#"{"tail_loss": false}, {}"#);
    let case = &r["cases"][0];
    let stalls = |i: usize| case["sweep"][i]["stalls"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum::<u64>();
    assert_eq!(stalls(0), 0);
    assert!(stalls(1) > 0, "3000 errors/s stall some tails");
    assert_eq!(case["sweep"][1]["trial_s"], case["trial_s"], "the default plan is the case's own trials");
}
