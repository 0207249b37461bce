//! OS noise (host/noise.rs): the scheduler tick holds a busy-polling thread's core for a detour,
//! so the few messages whose post or completion meets a tick take a detour longer — the tail —
//! while the median does not move; without the tick the tail equals the median.
mod common;
use common::*;
use serde_json::Value;

/// A lone busy-polling 10 B inline WRITE mouse on cx3-fdr (20 k messages, ~25 ms).
fn lone_mouse(overrides: &str, seed: u64) -> Value {
    run(&format!(
        "seed = {seed}\n[hardware]\nprofile = \"cx3-fdr\"\n[hardware.overrides]\n{overrides}\n[workload]\nkind = \"flows\"\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 10\ninline = true\ncount = 20000\npolling = \"busy\"\n"
    ))
}

fn row(r: &Value) -> Value {
    table(r, "flows")[0].clone()
}

/// 1 kHz so that 25 ticks meet the 20 k messages; a fixed 2 us detour to pin the figures.
const TICKING: &str = "os_tick_hz = 1000.0\nos_tick_detour_min_ns = 2000.0\nos_tick_detour_max_ns = 2000.0";

#[test]
fn ticks_make_the_tail_a_detour_longer_and_leave_the_median() {
    let quiet = row(&lone_mouse("", 1));
    let noisy = row(&lone_mouse(TICKING, 1));
    let (m0, t0) = (f(&quiet, "lat_median_us"), f(&quiet, "lat_p99_99_us"));
    // No noise source: every message takes the same time.
    assert!((t0 - m0).abs() < 0.005, "no tick: median {m0}, 99.99th {t0}");
    let (m, p99, t, max) = (f(&noisy, "lat_median_us"), f(&noisy, "lat_p99_us"), f(&noisy, "lat_p99_99_us"), f(&noisy, "lat_max_us"));
    assert!((m - m0).abs() < 0.005, "median moved: {m0} -> {m}");
    // ~0.2% of the messages meet a tick: the 99th percentile is still the median.
    assert!((p99 - m).abs() < 0.005, "99th {p99} vs median {m}");
    // A message that meets a tick finishes when the detour ends: between one detour and one
    // detour plus a message time after its post, so its tail sits about a detour above the median.
    assert!(t > m + 0.7 * 2.0 && t <= m + 2.0 + 0.05, "99.99th {t} vs median {m} + 2 us detour");
    assert!(max <= m + 2.0 + 0.05, "max {max}");
}

#[test]
fn tick_phase_and_lengths_follow_the_seed() {
    let noisy = "os_tick_hz = 1000.0";
    let a = lone_mouse(noisy, 1);
    assert_eq!(a, lone_mouse(noisy, 1), "same seed, same run");
    let b = lone_mouse(noisy, 2);
    assert_ne!(f(&row(&a), "lat_p99_99_us"), f(&row(&b), "lat_p99_99_us"), "another seed moves the ticks");
}

#[test]
fn tick_settings_are_checked() {
    let err = rdmasim_core::sim::Simulation::from_toml(
        "[hardware]\nprofile = \"cx3-fdr\"\n[hardware.overrides]\nos_tick_hz = 1000000.0\n[workload]\nkind = \"flows\"\n\
         [[workload.flow]]\nverb = \"write\"\nsize = 10\ncount = 10\n",
        "t.toml",
    )
    .err()
    .expect("a tick shorter than its detour is an error");
    assert!(err.to_string().contains("hardware.overrides.os_tick_hz"), "{err}");
}

/// Interrupt entry/exit (`os_tick_entry_exit_ns`): every detour grows by the same amount, so the
/// messages that meet a tick finish that much later — the 99.99th rises by it, the median stays —
/// and 0 gives back exactly the handler-only run.
#[test]
fn entry_exit_raises_the_tail_by_its_amount_and_zero_restores_it() {
    let handler_only = row(&lone_mouse(TICKING, 1));
    let zero = row(&lone_mouse(&format!("{TICKING}\nos_tick_entry_exit_ns = 0.0"), 1));
    assert_eq!(handler_only, zero, "entry/exit 0 is the handler-only tick");
    let gross = lone_mouse(&format!("{TICKING}\nos_tick_entry_exit_ns = 898.0"), 1);
    assert_eq!(gross, lone_mouse(&format!("{TICKING}\nos_tick_entry_exit_ns = 898.0"), 1), "same seed, same run");
    let gross = row(&gross);
    let (m0, t0) = (f(&handler_only, "lat_median_us"), f(&handler_only, "lat_p99_99_us"));
    let (m, t) = (f(&gross, "lat_median_us"), f(&gross, "lat_p99_99_us"));
    assert!((m - m0).abs() < 0.005, "median moved: {m0} -> {m}");
    // The same ticks hit (same phase); each one ends 0.898 us later. The tail message's rank may
    // land on a neighbour, so allow a spread of a few tens of ns around the 0.898 us step.
    assert!((t - t0 - 0.898).abs() < 0.06, "99.99th {t0} -> {t}: expected +0.898 us");
}
