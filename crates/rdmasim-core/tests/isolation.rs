//! Performance isolation between flows sharing a NIC and a link (seeds/002): each unfairness is
//! pinned to a named mechanism, and turning that mechanism off restores fairness.
mod common;
use common::*;
use serde_json::Value;

/// A flows scenario on `profile` with hardware overrides and `[[workload.flow]]` tables.
fn flows(profile: &str, overrides: &str, body: &str) -> String {
    format!("[hardware]\nprofile = \"{profile}\"\n[hardware.overrides]\n{overrides}\n[workload]\nkind = \"flows\"\n{body}\n")
}

fn flow(verb: &str, size: u64, amount: &str, polling: &str, extra: &str) -> String {
    format!("[[workload.flow]]\nverb = \"{verb}\"\nsize = {size}\n{amount}\npolling = \"{polling}\"\n{extra}\n")
}

fn rows(r: &Value) -> Vec<Value> {
    table(r, "flows").clone()
}

/// Bandwidth of flow 1 over flow 0 while both ran.
fn bw_ratio(r: &Value) -> f64 {
    let t = rows(r);
    f(&t[1], "bw_Gbps") / f(&t[0], "bw_Gbps")
}

const MB: u64 = 1 << 20;
const SLEEPY: &str = "cpu_idle = \"haswell\"";
const AWAKE: &str = "cpu_idle = \"none\"";

fn elephants(overrides: &str, polling: &str) -> Value {
    let body = flow("write", MB, "count = 30", polling, "") + &flow("write", 16 * MB, "background = true", polling, "");
    run(&flows("cx3-fdr", overrides, &body))
}

#[test]
fn larger_messages_win_when_event_threads_sleep_and_fairness_returns_without_idle_states() {
    // Mechanism: a flow waiting by event sleeps between its messages; its core enters an idle
    // state whose exit latency (intel_idle Haswell C3: 33 us at ~300 us predicted idle) delays
    // every next post, and the other flow takes the link meanwhile.
    let unfair = bw_ratio(&elephants(SLEEPY, "event"));
    assert!((1.12..1.5).contains(&unfair), "1 MB vs 16 MB, cores sleeping: ratio {unfair}");
    let fair = bw_ratio(&elephants(AWAKE, "event"));
    assert!((0.99..1.05).contains(&fair), "no idle states: ratio {fair}");
    let busy = bw_ratio(&elephants(SLEEPY, "busy"));
    assert!((0.99..1.02).contains(&busy), "busy polling never sleeps: ratio {busy}");
}

#[test]
fn link_is_shared_and_filled_by_two_elephants() {
    let r = elephants(AWAKE, "event");
    let total: f64 = rows(&r).iter().map(|x| f(x, "bw_Gbps")).sum();
    // FDR 4x: 54.5 Gb/s of data; 4 KiB payloads carry 30 B of headers each.
    assert!((50.0..54.55).contains(&total), "total {total} Gb/s");
}

fn mouse(extra: &str) -> String {
    flow("write", 10, "count = 3000", "busy", &format!("inline = true\n{extra}"))
}

fn median(r: &Value, i: usize) -> f64 {
    f(&rows(r)[i], "lat_median_us")
}

#[test]
fn mouse_waits_behind_elephant_chunks_and_packet_arbitration_restores_isolation() {
    let elephant = flow("write", MB, "background = true", "event", "");
    let alone = median(&run(&flows("cx3-fdr", "arbitration = \"chunk-round-robin\"", &mouse(""))), 0);
    let chunk = median(&run(&flows("cx3-fdr", "arbitration = \"chunk-round-robin\"", &(mouse("") + &elephant))), 0);
    let packet = median(&run(&flows("cx3-fdr", "arbitration = \"packet-round-robin\"", &(mouse("") + &elephant))), 0);
    // FDR: a 4 KiB packet takes 0.6 us on the wire, a 16 KiB chunk 2.4 us.
    assert!(chunk > alone + 1.0, "chunk arbitration: {alone} -> {chunk} us");
    assert!(packet < alone + 0.65, "packet arbitration: {alone} -> {packet} us");
}

#[test]
fn a_byte_quantum_sends_a_pipelined_mouses_waiting_requests_in_one_turn() {
    // A mouse keeping 4 requests in flight (as HERD's client does) beside an elephant. With a
    // chunk per work request each of its requests waits for an elephant chunk of its own; with
    // a byte quantum per turn (deficit round robin, mlx5's DWRR scheduling element) the requests
    // ready at its turn all leave in it, so a request waits about one chunk.
    let elephant = flow("write", MB, "background = true", "event", "");
    let piped = mouse("depth = 4");
    let lat = |arbitration: &str| {
        let o = format!("arbitration = \"{arbitration}\"");
        (median(&run(&flows("cx3-fdr", &o, &piped)), 0), median(&run(&flows("cx3-fdr", &o, &(piped.clone() + &elephant))), 0))
    };
    let (alone, per_request) = lat("chunk-round-robin");
    let (alone_q, per_turn) = lat("quantum-round-robin");
    assert_eq!(alone, alone_q, "alone, nothing to arbitrate");
    // FDR: a 16 KiB chunk takes 2.4 us.
    assert!(per_request > alone + 3.0 * 2.4, "a chunk per request: {alone} -> {per_request} us");
    assert!(per_turn < alone + 1.5 * 2.4, "a quantum per turn: {alone} -> {per_turn} us");
    // Packet arbitration bounds each request's wait to one 4 KiB packet (0.6 us).
    let packet = median(&run(&flows("cx3-fdr", "arbitration = \"packet-round-robin\"", &(piped + &elephant))), 0);
    assert!(packet < alone + 4.0 * 0.65, "packet arbitration: {alone} -> {packet} us");
}

#[test]
fn a_transmit_staging_buffer_adds_its_drain_time_to_every_request_and_none_without_it() {
    // An opt-in sensitivity (hca/tx_staging.rs): the send engine picks packets up to
    // `tx_staging_bytes` ahead of the port. Another QP's packet queues behind the staged bytes
    // whatever the phase of its post, so a one-deep mouse and a four-deep one each wait about
    // the buffer's drain time: the waits add up instead of multiplying with the depth.
    let elephant = flow("write", MB, "background = true", "event", "");
    let lat = |staging: u32, body: &str| {
        let o = format!("arbitration = \"packet-round-robin\"\ntx_staging_bytes = {staging}");
        let r = run(&flows("cx3-fdr", &o, body));
        let resent: f64 = table(&r, "hca_counters").iter().map(|c| f(c, "retransmitted_packets")).sum();
        assert_eq!(resent, 0.0, "staging {staging}: nothing lost, nothing sent twice");
        r
    };
    let (one, four) = (mouse(""), mouse("depth = 4"));
    // FDR 4x: 16 KiB drain in 2.4 us.
    let drain = 16384.0 * 8.0 / 54.3e3;
    // Without a buffer each of the deep mouse's requests may wait for a 4 KiB packet (0.6 us).
    for (body, unbuffered) in [(&one, 0.65), (&four, 4.0 * 0.65)] {
        let alone = median(&lat(0, body), 0);
        assert_eq!(alone, median(&lat(16384, body), 0), "alone, the buffer never holds another QP's bytes");
        let off = median(&lat(0, &(body.to_string() + &elephant)), 0) - alone;
        let on = median(&lat(16384, &(body.to_string() + &elephant)), 0) - alone;
        assert!(off < unbuffered, "packet arbitration without a buffer: +{off} us");
        assert!((0.8 * drain..1.3 * drain).contains(&on), "a 16 KiB buffer: +{on} us, drain {drain} us");
    }
    // Credits are taken as packets leave the buffer, so one larger than the link's credit
    // window still drains at line rate and keeps the elephant's bandwidth.
    let bw = |staging: u32| f(&rows(&lat(staging, &(one.clone() + &elephant)))[1], "bw_Gbps");
    let (base, deep) = (bw(0), bw(256 * 1024));
    assert!(deep > 0.98 * base, "elephant {base} -> {deep} Gb/s with a 256 KiB buffer");
}

#[test]
fn sender_side_splitting_protects_the_mouse() {
    let chunky = "arbitration = \"chunk-round-robin\"";
    let elephant = |extra: &str| flow("write", MB, "background = true", "event", extra);
    let plain = run(&flows("cx3-fdr", chunky, &(mouse("") + &elephant(""))));
    let split = run(&flows("cx3-fdr", chunky, &(mouse("") + &elephant("split_bytes = 4096\nsplit_window = 32"))));
    let (a, b) = (median(&plain, 0), median(&split, 0));
    assert!(b < a - 1.0, "splitting the elephant into 4 KiB WRs: mouse median {a} -> {b} us");
    // The elephant keeps most of the link.
    assert!(f(&rows(&split)[1], "bw_Gbps") > 45.0);
}

#[test]
fn each_flow_has_its_own_core() {
    // Two busy-polling mice from the same host do not queue on one CPU: each keeps its rate.
    let one = run(&flows("cx3-fdr", "", &mouse("")));
    let two = run(&flows("cx3-fdr", "", &(mouse("") + &mouse(""))));
    let rate = |r: &Value, i| f(&rows(r)[i], "msg_rate_Mps");
    assert!(rate(&two, 0) > 0.97 * rate(&one, 0) && rate(&two, 1) > 0.97 * rate(&one, 0));
    assert_eq!(f(&rows(&two)[0], "cpu_utilization"), 1.0);
    assert_eq!(f(&table(&two, "host_cpu")[0], "cpu_utilization"), 2.0, "two spinning cores");
}

#[test]
fn measurement_window_opens_when_the_last_flow_starts() {
    let body = flow("write", MB, "count = 10", "busy", "start_us = 500") + &flow("write", MB, "background = true", "busy", "");
    let r = run(&flows("cx3-fdr", "", &body));
    let t = rows(&r);
    assert!((f(&t[0], "window_start_us") - 500.0).abs() < 1e-6);
    // Both flows active throughout the window: an even split, not the early flow's solo rate.
    assert!((0.97..1.03).contains(&bw_ratio(&r)), "{}", bw_ratio(&r));
    // A flow that starts after the other has finished: no window, nothing measured.
    let late = flow("write", MB, "count = 2", "busy", "") + &flow("write", MB, "background = true", "busy", "start_us = 100000");
    let r = run(&flows("cx3-fdr", "", &late));
    assert_eq!(f(&rows(&r)[0], "window_us"), 0.0);
    assert_eq!(f(&rows(&r)[0], "bw_Gbps"), 0.0);
}

#[test]
fn event_polling_cpu_falls_with_message_size() {
    let cpu = |size: u64, count: u64| {
        let r = run(&flows("cx3-fdr", "", &flow("write", size, &format!("count = {count}"), "event", "")));
        f(&rows(&r)[0], "cpu_utilization")
    };
    let (small, large) = (cpu(64, 2000), cpu(4 * MB, 10));
    assert!(small > 0.3 && large < 0.01, "event CPU: 64 B {small}, 4 MiB {large}");
}

#[test]
fn a_deep_event_polled_queue_never_uses_more_than_its_core() {
    // 1000 WRITEs of 10 B kept outstanding: the sending thread posts without a pause, taking
    // its completion events between posts, so it uses its whole core and no more. (Counting
    // queued work and event spans when they are posted, an event-polled SEND flow of depth
    // 1000 read 100.1 % and 100.3 % of a core: CpuThread::busy_at reads CPU time as spent only
    // up to the time of reading.)
    let r = run(&flows("cx3-fdr", "", &flow("write", 10, "count = 20000", "event", "depth = 1000")));
    let cpu = f(&rows(&r)[0], "cpu_utilization");
    assert!((0.95..=1.0).contains(&cpu), "flow: {cpu}");
    let sender = f(&table(&r, "host_cpu")[0], "cpu_utilization");
    assert!((0.95..=1.0).contains(&sender), "h0: {sender}");
}

#[test]
fn an_event_polled_receiver_that_reposts_at_the_senders_pace_runs_out_of_receives() {
    // SENDs of 10 B, 1000 outstanding: the receiver spends a poll and an ibv_post_recv per
    // message, as long as the sender's ibv_post_send and poll, and sleeps between bursts. The
    // sender's bursts arrive at line rate, faster than it re-posts, so its 512 receives run
    // out: RNR NAKs, and the sender waits out the RNR timer.
    let r = run(&flows("cx3-fdr", "", &flow("send", 10, "count = 20000", "event", "depth = 1000")));
    assert!(counter(&r, 1, "out_of_buffer") > 10, "receiver out_of_buffer {}", counter(&r, 1, "out_of_buffer"));
    let rate = f(&rows(&r)[0], "msg_rate_Mps");
    assert!(rate < 2.0, "RNR waits cut the rate to {rate} M msgs/s (10 without them)");
}

#[test]
fn key_value_requests_slow_down_beside_an_elephant() {
    let kv = "[workload.kv]\nrequests = 3000\n";
    let chunky = "arbitration = \"chunk-round-robin\"";
    let alone = run(&flows("cx4-edr", chunky, kv));
    let busy_link = run(&flows("cx4-edr", chunky, &format!("{kv}{}", flow("write", MB, "background = true", "event", ""))));
    let get = |r: &Value| f(&table(r, "kv")[0], "lat_median_us");
    assert!(get(&busy_link) > get(&alone) + 0.5, "GET median {} -> {}", get(&alone), get(&busy_link));
}

#[test]
fn flows_scenario_errors_name_the_key() {
    let bad = flows("cx3-fdr", "", &(flow("write", 10, "count = 5", "busy", "") + &flow("read", 100, "count = 5", "busy", "inline = true")));
    let e = rdmasim_core::api::Simulation::from_toml(&bad, "bad.toml").err().expect("inline READ is rejected");
    assert_eq!(e.key, "workload.flow[1].inline");
    let only_bg = flows("cx3-fdr", "", &flow("write", 10, "background = true", "busy", ""));
    let e = rdmasim_core::api::Simulation::from_toml(&only_bg, "bg.toml").err().expect("no foreground flow");
    assert_eq!(e.key, "workload.flow");
}

#[test]
fn send_and_write_imm_flows_keep_their_receives_posted() {
    // More messages than the 512 receives posted up front: the receiving threads re-post.
    for verb in ["send", "write_imm"] {
        for polling in ["busy", "event"] {
            let r = run(&flows("cx3-fdr", "", &flow(verb, 1024, "count = 1500", polling, "")));
            assert_eq!(f(&rows(&r)[0], "completed_total"), 1500.0, "{verb} {polling}");
            assert_eq!(counter(&r, 1, "out_of_buffer"), 0, "{verb} {polling}: a SEND found no receive");
        }
    }
}

#[test]
fn an_event_thread_reads_completions_only_after_the_work_it_is_doing() {
    // 600 WRITEs posted at once keep the thread in ibv_post_send for ~42 us; the first
    // completions arrive long before that. A busy thread notices them when it is done posting,
    // and an event thread is not blocked in ibv_get_cq_event until then either: the first
    // message waits for the last post either way. Each message is stamped when its own post
    // begins, so the last one posted waits only for its round trip.
    let lat = |polling: &str, key: &str| f(&rows(&run(&flows("cx4-edr", "", &flow("write", 64, "count = 600", polling, "depth = 600"))))[0], key);
    for polling in ["busy", "event"] {
        let max = lat(polling, "lat_max_us");
        assert!(max > 40.0, "{polling}: the first message was seen after {max} us, before the 600 posts were done");
    }
    let last = lat("busy", "lat_min_us");
    assert!(last < 3.0, "busy: the last message posted took {last} us, more than a round trip");
}

#[test]
fn split_send_flows_post_a_receive_for_every_piece() {
    // One 100 KB message in 100 pieces of 1000 B with all 100 outstanding: each piece is a
    // SEND that needs a receive of its own, so 100 must be posted, not one per message.
    for verb in ["send", "write_imm"] {
        let r = run(&flows("cx4-edr", "", &flow(verb, 100_000, "count = 1", "event", "split_bytes = 1000\nsplit_window = 100")));
        assert_eq!(counter(&r, 1, "out_of_buffer"), 0, "{verb}: a piece found no receive");
        let lat = f(&rows(&r)[0], "lat_median_us");
        assert!(lat < 100.0, "{verb}: 100 KB took {lat} us (an RNR wait is >= 10 us per retry)");
    }
}

#[test]
fn key_value_mix_follows_get_fraction() {
    let r = run(&flows("cx4-edr", "", "[workload.kv]\nrequests = 2000\nget_fraction = 0.25\n"));
    let kv = table(&r, "kv");
    let (gets, puts) = (f(&kv[0], "count"), f(&kv[1], "count"));
    assert_eq!(gets + puts, 2000.0);
    assert!((400.0..600.0).contains(&gets), "{gets} GETs of 2000 at 25%");
}

#[test]
fn paced_flow_keeps_to_its_rate_and_paced_elephants_share_fairly() {
    let paced = flow("write", MB, "count = 20", "busy", "split_bytes = 65536\nsplit_window = 4\npace_gbps = 10");
    let bw = f(&rows(&run(&flows("cx3-fdr", "", &paced)))[0], "bw_Gbps");
    // The bucket lets the first 64 KiB go at once: at most 10 x (1 + 64 KiB / 20 MiB) = 10.03.
    assert!((9.0..=10.035).contains(&bw), "paced at 10 Gb/s: {bw}");
    // Both elephants paced to half the link: the event wake-up advantage of the larger is gone.
    let half = "split_bytes = 262144\nsplit_window = 2\npace_gbps = 27";
    let body = flow("write", MB, "count = 30", "event", half) + &flow("write", 16 * MB, "background = true", "event", half);
    let r = run(&flows("cx3-fdr", SLEEPY, &body));
    assert!((0.98..1.03).contains(&bw_ratio(&r)), "paced elephants: ratio {}", bw_ratio(&r));
}

#[test]
fn non_inline_mouse_fetched_on_schedule_waits_two_chunks() {
    // Mechanism: a non-inline WQE is fetched when the scheduler first serves its QP; the fetch
    // (WQE + payload DMA, 0.9 us) lets the elephant start another chunk, so a 1 KB mouse waits
    // about two chunks (FDR: 2 x 2.4 us). Fetching at the doorbell overlaps the fetch with the
    // first wait. Inline mice and lone flows are not affected.
    let kb = |fos: bool, elephant: bool| {
        let mut body = flow("write", 1000, "count = 3000", "busy", "");
        if elephant {
            body += &flow("write", MB, "background = true", "event", "");
        }
        let o = format!("arbitration = \"chunk-round-robin\"\nwqe_fetch_on_schedule = {fos}");
        median(&run(&flows("cx3-fdr", &o, &body)), 0)
    };
    let (alone, at_doorbell, on_schedule) = (kb(true, false), kb(false, true), kb(true, true));
    assert_eq!(alone, kb(false, false), "alone, the fetch happens at once either way");
    assert!(on_schedule > at_doorbell + 2.0, "1 KB mouse: fetched at the doorbell {at_doorbell} us, on schedule {on_schedule} us");
    assert!(at_doorbell < alone + 1.0, "fetching at the doorbell hides the fetch in the wait: {alone} -> {at_doorbell}");
}
