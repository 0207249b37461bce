//! Named hosts (`[hardware] host`, profile/host.rs): a test bed's host part laid over the NIC
//! profile with the overrides on top, for the whole run or for the hosts of a
//! `[[hardware.hosts]]` entry; an unknown name is an error naming the key and the choices.
use rdmasim_core::profile::{by_name, HwProfile};
use rdmasim_core::host::cstate::CpuIdle;
use rdmasim_core::prepare::parse_toml;
use rdmasim_core::scenario::{Scenario, ScenarioError};

/// A cx3-fdr perftest scenario: `host` is the `[hardware]` key's line (or none), `rest` comes
/// after the workload (`[hardware.overrides]`, `[[hardware.hosts]]`).
fn scenario(host: &str, rest: &str) -> Result<Scenario, ScenarioError> {
    let text = format!("[hardware]\nprofile = \"cx3-fdr\"\n{host}\n[workload]\nkind = \"perftest\"\ntest = \"ib_write_bw\"\n{rest}\n");
    parse_toml(&text, "<test>")
}

fn resolved(host: &str, rest: &str) -> (HwProfile, Vec<&'static str>) {
    let s = scenario(host, rest).unwrap_or_else(|e| panic!("{e}"));
    s.hardware.resolved_profile().expect("known names")
}

#[test]
fn a_named_host_sets_exactly_its_values() {
    let (hw, set) = resolved("host = \"cloudlab-r320\"", "");
    assert_eq!(set, ["cpu_idle", "os_tick_hz", "os_tick_entry_exit_ns"]);
    let (mut want, _) = by_name("cx3-fdr").unwrap();
    want.host.cpu_idle = CpuIdle::Sandybridge;
    want.host.os_tick_hz = 250.0;
    want.host.os_tick_entry_exit_ns = 898.0;
    assert_eq!(hw, want);
    // The isolation study once gave the same values as overrides: the run is the same profile,
    // with the same parameters reported as set.
    let old = resolved("", "[hardware.overrides]\ncpu_idle = \"sandybridge\"\nos_tick_hz = 250.0\nos_tick_entry_exit_ns = 898.0");
    assert_eq!((hw, set), old);
}

#[test]
fn overrides_go_on_top_of_the_named_host() {
    let (hw, _) = resolved("host = \"umich-conflux\"", "[hardware.overrides]\ncpu_idle = \"none\"");
    assert_eq!((hw.host.cpu_idle, hw.host.os_tick_hz), (CpuIdle::None, 250.0));
}

#[test]
fn an_entry_of_hardware_hosts_may_name_a_host() {
    let s = scenario("", "[[hardware.hosts]]\nhosts = [1]\nhost = \"umich-conflux\"").unwrap_or_else(|e| panic!("{e}"));
    let (run, _) = s.hardware.resolved_profile().unwrap();
    let (profiles, of_host) = s.hardware.host_profiles(&run, 2).unwrap();
    assert_eq!(of_host, [0, 1]);
    assert_eq!((profiles[0].host.cpu_idle, profiles[1].host.cpu_idle), (CpuIdle::None, CpuIdle::HaswellPkg));
    assert_eq!(profiles[1].name, "cx3-fdr");
}

#[test]
fn an_unknown_host_is_named_with_the_choices() {
    let err = |host: &str, rest: &str| scenario(host, rest).expect_err("refused");
    let e = err("host = \"cloudlab-r230\"", "");
    assert_eq!(e.key, "hardware.host");
    assert!(e.message.contains("unknown host \"cloudlab-r230\" (did you mean `cloudlab-r320`?)"), "{e}");
    assert!(e.message.contains("expected one of: \"cloudlab-r320\", \"umich-conflux\""), "{e}");
    let e = err("", "[[hardware.hosts]]\nhosts = [1]\nhost = \"conflux\"");
    assert_eq!(e.key, "hardware.hosts[0].host");
    assert!(e.message.contains("unknown host \"conflux\"") && e.message.contains("\"umich-conflux\""), "{e}");
    let e = err("host = 320", "");
    assert_eq!(e.key, "hardware.host");
    assert!(e.message.contains("a host name: \"cloudlab-r320\", \"umich-conflux\""), "{e}");
}
