//! Service levels and virtual lanes: each VL has its own buffer and credits at every port, and
//! a switch output serves the VLs that have a packet ready, round robin.
mod common;
use common::*;

/// A 64 B mouse (h1 -> h2) beside a 1 MiB elephant (h0 -> h2) through one cx4-edr switch: both
/// meet at the switch's output to h2. `mouse_sl` is the mouse's service level (the elephant's is 0).
fn mouse_beside_elephant(mouse_sl: u8) -> serde_json::Value {
    run(&format!(
        "[hardware]\nprofile = \"cx4-edr\"\n[topology]\nkind = \"single-switch\"\nhosts = 3\n\
         [workload]\nkind = \"flows\"\n\
         [[workload.flow]]\nname = \"mouse\"\nverb = \"write\"\nsize = 64\ninline = true\ncount = 20000\nclient = 1\nserver = 2\nsl = {mouse_sl}\n\
         [[workload.flow]]\nname = \"elephant\"\nverb = \"write\"\nsize = 1048576\nbackground = true\ndepth = 8\nclient = 0\nserver = 2\n"
    ))
}

fn mouse_median(r: &serde_json::Value) -> f64 {
    f(&table(r, "flows")[0], "lat_median_us")
}

#[test]
fn a_mouse_on_its_own_vl_passes_the_elephants_queue_at_the_switch() {
    let same = mouse_beside_elephant(0);
    let own = mouse_beside_elephant(1);
    let (t_same, t_own) = (mouse_median(&same), mouse_median(&own));
    // On VL 0 the mouse queues behind the elephant packets already in the switch's buffer for
    // that output; on VL 1 it waits for at most the packet on the wire (4 KiB at 100 Gb/s:
    // 0.33 us).
    println!("mouse median: {t_own} us on VL 1, {t_same} us on VL 0");
    assert!(t_own + 0.3 < t_same, "mouse median {t_own} us on its own VL, {t_same} us on the elephant's");
    let elephant_bw = |r: &serde_json::Value| f(&table(r, "flows")[1], "bw_Gbps");
    assert!(elephant_bw(&own) > 90.0, "the elephant keeps the link: {} Gb/s", elephant_bw(&own));
    // Both runs finish; nothing lost.
    for r in [&same, &own] {
        assert!(r["finished"].as_bool().unwrap(), "{}", r["stop_reason"]);
        assert_eq!(table(r, "run")[0]["unroutable_packets"].as_u64().unwrap(), 0);
    }
}

#[test]
fn a_service_level_out_of_range_is_named() {
    let e = rdmasim_core::api::Simulation::from_toml(
        "[hardware]\nprofile = \"cx4-edr\"\n[qp]\nsl = 16\n[workload]\nkind = \"perftest\"\ntest = \"ib_write_bw\"\n",
        "<test>",
    )
    .err()
    .expect("sl = 16 is refused");
    assert!(e.to_string().contains("qp.sl") && e.to_string().contains("0..=15"), "{e}");
}
