//! The test bed's cabling (`[ethernet] cabling`, ether/cabling.rs): the hyper-crossbar's rows as
//! port groups of shared physical switches, whose one buffer all their outputs draw on.
mod common;
use common::pm::{f, pm_run, pm_summary, pm_tables};

fn toml(cabling: &str, kib: u32, extra: &str) -> String {
    format!("engine = \"pm\"\n[ethernet]\ncabling = \"{cabling}\"\nswitch_buffer_kib = {kib}\ntopology = {{ kind = \"hyperx\", dims = [2, 2, 2], links_per_dim = 2 }}\n{extra}[workload]\nkind = \"neighbor\"\ndims = 3\nmode = \"both\"\nbytes = 1048576\ncount = 4\n")
}

/// The 3-D neighbour exchange, both ways, on the 2×2×2 crossbar with 2 links a dimension (48
/// cables), every switch of `kib` KiB: (data packets lost %, the most any switch held, switches).
fn exchange(cabling: &str, kib: u32) -> (f64, f64, usize) {
    let r = pm_run(&toml(cabling, kib, ""));
    let tables = pm_tables(&r);
    let peak = tables["eth_switches"]
        .iter()
        .map(|s| f(s, "peak_held_bytes"))
        .fold(0.0, f64::max);
    (
        f(&pm_summary(&r), "loss_pct"),
        peak,
        tables["eth_switches"].len(),
    )
}

/// Each output of the exchange has one input at its own rate, so no output queues more than the
/// frame on its wire and the one behind it: a row's own switch of 256 KiB never fills (about
/// 50 KB at most for its 4 ports). The same traffic with the rows' lanes sharing two switches
/// (24 busy outputs each) or all on one (48) fills the pool, and frames are lost: only sharing
/// changed.
#[test]
fn rows_sharing_a_switch_s_buffer_lose_what_separate_switches_carry() {
    let (rows, rows_peak, n) = exchange("rows", 256);
    assert_eq!((rows, n), (0.0, 12), "a switch a row: no loss");
    assert!(
        rows_peak < 64.0 * 1024.0,
        "a row's switch held {rows_peak} B"
    );
    let (lanes, lanes_peak, n) = exchange("lane-per-switch", 256);
    assert_eq!(n, 2);
    assert!(
        lanes > 0.0 && lanes_peak > 200.0 * 1024.0,
        "two lanes' switches: {lanes} % lost, {lanes_peak} B held"
    );
    let (packed, _, n) = exchange("packed", 256);
    assert_eq!(n, 1);
    assert!(
        packed > lanes,
        "one switch for all 48 cables loses more than two: {packed} against {lanes}"
    );
    // With room for every output's two frames (48 × 2 × 8262 B), even one switch loses nothing.
    assert_eq!(exchange("packed", 1024).0, 0.0);
}

#[test]
fn bad_cabling_keys_are_refused_naming_the_key() {
    let err = |t: &str| {
        rdmasim_core::api::Simulation::from_toml(t, "pm.toml")
            .err()
            .expect("refused")
            .to_string()
    };
    let e = err(&toml("by-rack", 512, ""));
    assert!(
        e.contains("ethernet.cabling") && e.contains("lane-per-switch"),
        "{e}"
    );
    let e = err(&toml("packed", 4, ""));
    assert!(
        e.contains("ethernet.switch_buffer_kib") && e.contains("10..=1048576"),
        "{e}"
    );
    let e = err(&toml("lane-per-switch", 512, "[pm]\nlanes = \"random\"\n"));
    assert!(
        e.contains("pm.lanes") && e.contains("lane-per-switch"),
        "{e}"
    );
    let single = "engine = \"pm\"\n[ethernet]\ncabling = \"packed\"\ntopology = { kind = \"single-switch\", hosts = 2, links = 2 }\n[workload]\nkind = \"bandwidth\"\nbytes = 1024\ncount = 1\n";
    let e = err(single);
    assert!(
        e.contains("ethernet.cabling") && e.contains("single-switch"),
        "{e}"
    );
}
