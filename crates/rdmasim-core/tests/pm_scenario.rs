//! PM scenarios (`engine = "pm"`) as `rdmasim run` takes them: bad keys are named with their
//! line, the same seed gives the same result, and the capture is Ethernet that tshark reads
//! without a malformed frame.
mod common;
use common::{find_tshark, tshark};
use rdmasim_core::api::Simulation;

const EXAMPLE: &str = include_str!("../../../scenarios/pm_hxb_neighbor.toml");

fn error_of(text: &str) -> String {
    match Simulation::from_toml(text, "pm.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_pm_scenarios_are_refused_naming_the_key_and_line() {
    let e = error_of(&EXAMPLE.replace("switch = \"foundry-fwfx448\"", "switch = \"cisco\""));
    assert!(e.contains("pm.toml:10") && e.contains("ethernet.switch") && e.contains("broadcom-12port"), "{e}");
    let e = error_of(&EXAMPLE.replace("ack_every = 8", "ack_every = 8\nwindoww = 3"));
    assert!(e.contains("pm.windoww") || e.contains("windoww"), "{e}");
    let e = error_of(&EXAMPLE.replace("dims = 3", "dims = 4"));
    assert!(e.contains("workload.dims") && e.contains("expected 1..=3"), "{e}");
    let e = error_of(&EXAMPLE.replace("cpu_ghz = 3.6", "cpu_ghz = 0.0"));
    assert!(e.contains("host.cpu_ghz") && e.contains("pm.toml:15"), "{e}");
    let e = error_of(&EXAMPLE.replace("packet_bytes = 8192", "packet_bytes = 9200"));
    assert!(e.contains("pm.packet_bytes") && e.contains("9166"), "{e}");
    let e = error_of(&EXAMPLE.replace("{ kind = \"none\" }", "{ kind = \"pause\", xoff_bytes = 100, xon_bytes = 200 }"));
    assert!(e.contains("ethernet.flow_control") && e.contains("xon"), "{e}");
}

#[test]
fn the_same_pm_scenario_and_seed_give_identical_results() {
    let text = EXAMPLE.replace("kind = \"neighbor\"\ndims = 3\nmode = \"both\"\nbytes = 1048576\ncount = 4", "kind = \"alltoall\"\nbytes = 8800\nrounds = 5\ncount = 10\nskew_us = 30");
    let text = text.replace("foundry-fwfx448", "broadcom-12port").replace("dims = [2, 2, 2]", "dims = [4, 2, 2]").replace("packet_bytes = 8192", "packet_bytes = 8968");
    let run = || {
        let mut s = Simulation::from_toml(&text, "pm.toml").unwrap();
        s.run();
        (s.result_json(), s.pcap())
    };
    let (a, pa) = run();
    let (b, pb) = run();
    assert_eq!(a, b);
    assert_eq!(pa, pb);
    assert!(a.contains("\"relay_packets\""));
}

/// The example's capture: every frame decodes as Ethernet with our EtherType, none malformed.
/// Without tshark the test says so and passes, unless `CI` is set (find_tshark fails then).
#[test]
fn tshark_reads_the_pm_capture_without_a_malformed_frame() {
    let mut s = Simulation::from_toml(EXAMPLE, "pm.toml").unwrap();
    s.run();
    let pcap = s.pcap().expect("the example asks for a capture");
    let Some(bin) = find_tshark() else { return };
    let path = std::env::temp_dir().join(format!("rdmasim-pm-capture-{}.pcap", std::process::id()));
    std::fs::write(&path, &pcap).unwrap();
    let p = path.to_str().unwrap();
    let types = tshark(&bin, &["-r", p, "-T", "fields", "-e", "eth.type"]);
    let lines: Vec<&str> = types.lines().collect();
    assert_eq!(lines.len(), 2000, "capture_max_packets frames");
    assert!(lines.iter().all(|l| *l == "0x88b5"), "every frame carries the PM EtherType");
    let malformed = tshark(&bin, &["-r", p, "-Y", "_ws.malformed || _ws.expert.severity >= warning"]);
    assert_eq!(malformed.trim(), "", "tshark flags frames:\n{malformed}");
    let lens = tshark(&bin, &["-r", p, "-T", "fields", "-e", "frame.len", "-c", "1"]);
    assert_eq!(lens.trim(), "8238", "a data frame: 14 B header + 32 B PM header + 8192 B, no FCS");
    let _ = std::fs::remove_file(&path);
}
/// A bad key inside a PM workload is named by its path and line, with what its kind takes
/// (not the verbs scenario's words for `workload`).
#[test]
fn pm_workload_errors_name_the_key_inside_the_workload() {
    let mpi = include_str!("../../../scenarios/pm_mpi_osu_bibw.toml");
    for (from, to, want) in [
        ("library = \"mpich\"", "library = \"openmpi\"", ["pm.toml:15", "workload.library", "\"yampii\""]),
        ("library = \"mpich\"", "librar = \"mpich\"", ["pm.toml:15", "workload.librar", "did you mean `library`"]),
        ("bytes = 1048576", "bytes = \"big\"", ["pm.toml:16", "workload.program", "found the string \"big\""]),
        ("kind = \"mpi\"", "kind = \"mpy\"", ["pm.toml:14", "workload.kind", "did you mean `mpi`"]),
        ("kind = \"mpi\"", "kind = 3", ["pm.toml:14", "workload.kind", "\"alltoall\"; found the integer 3"]),
    ] {
        let e = error_of(&mpi.replace(from, to));
        assert!(want.iter().all(|w| e.contains(w)) && !e.contains("perftest"), "{to}: {e}");
    }
    let e = error_of(&EXAMPLE.replace("mode = \"both\"", "mode = \"all\""));
    assert!(e.contains("workload.mode") && e.contains("\"recv\""), "{e}");
    let e = error_of(&EXAMPLE.replace("count = 4", "count = -4"));
    assert!(e.contains("workload.count") && e.contains("negative"), "{e}");
}

/// Values that would hang, loop or exhaust memory are refused up front.
#[test]
fn pm_limits_are_checked_before_the_run() {
    for (from, to, key) in [
        ("window = 32", "window = 4000000000", "pm.window"),
        ("rto_us = 4800", "rto_us = 0.0001", "pm.rto_us"),
        ("packet_bytes = 8192", "packet_bytes = 8192\nnic_depth = 0", "pm.nic_depth"),
        ("count = 4", "count = 0", "workload.count"),
        ("dims = [2, 2, 2]", "dims = [2, 2, 40000]", "ethernet.topology"),
    ] {
        let e = error_of(&EXAMPLE.replace(from, to));
        assert!(e.contains(key), "{to}: {e}");
    }
    let a2a = EXAMPLE.replace("kind = \"neighbor\"\ndims = 3\nmode = \"both\"\nbytes = 1048576\ncount = 4", "kind = \"alltoall\"\nbytes = 100\nrounds = 1\nskew_us = 1e300");
    assert!(error_of(&a2a).contains("workload.skew_us"));
}

#[test]
fn a_pm_run_takes_the_limit_keys_every_engine_takes() {
    // One time limit for every engine: PM's former key is refused, naming the one that replaced it.
    let e = error_of(&format!("{EXAMPLE}\n[limits]\nmax_time_us = 5000\n"));
    assert!(e.contains("limits.max_time_us") && e.contains("limits.max_sim_time_ms") && e.contains("max_sim_time_ms = 5"), "{e}");
    let e = error_of(&format!("{EXAMPLE}\n[limits]\nmax_sim_time_ms = -1\n"));
    assert!(e.contains("limits.max_sim_time_ms") && e.contains("milliseconds > 0"), "{e}");
    // A time limit within the run stops it with the name the packet and flow engines use.
    let mut s = Simulation::from_toml(&format!("{EXAMPLE}\n[limits]\nmax_sim_time_ms = 0.05\n"), "pm.toml").unwrap();
    s.run();
    let r = s.result();
    assert_eq!((r.finished, r.stop_reason.as_str()), (false, "max_sim_time"));
    let mut s = Simulation::from_toml(&format!("{EXAMPLE}\n[limits]\nmax_events = 100\n"), "pm.toml").unwrap();
    s.run();
    assert_eq!((s.events(), s.result().stop_reason.as_str()), (100, "max_events"));
    // Without limits the example completes.
    let mut s = Simulation::from_toml(EXAMPLE, "pm.toml").unwrap();
    s.run();
    assert_eq!(s.result().stop_reason, "completed");
}

#[test]
fn one_parse_reads_the_engine_and_the_sections_it_names() {
    use rdmasim_core::prepare::parse;
    use rdmasim_core::scenario::validate::engine_of;
    use rdmasim_core::scenario::{EngineKind, ScenarioFile};
    assert_eq!(engine_of(EXAMPLE), Some(EngineKind::Pm));
    match parse(EXAMPLE, "pm.toml").unwrap() {
        ScenarioFile::Pm(s) => assert_eq!((s.engine, s.pm.window), (EngineKind::Pm, 32)),
        ScenarioFile::Fabric(_) => panic!("a PM scenario read as a fabric one"),
    }
    let fabric = include_str!("../../../scenarios/write_bw_cx4.toml");
    assert_eq!(engine_of(fabric), None);
    assert!(matches!(parse(fabric, "f.toml").unwrap(), ScenarioFile::Fabric(_)));
    // A fabric scenario that names PM's engine is told where PM's sections are.
    let e = rdmasim_core::prepare::parse_toml(&format!("engine = \"pm\"\n{fabric}"), "f.toml").unwrap_err();
    assert_eq!((e.key.as_str(), e.line), ("engine", Some(1)), "{e}");
    assert!(e.message.contains("[ethernet]"), "{e}");
}

#[test]
fn an_error_found_while_building_the_network_keeps_its_line() {
    // The workload's dimensions are checked against the built hyper-crossbar (ether/workload.rs),
    // after the text is gone; the error still names the line of `dims`.
    let line = EXAMPLE.lines().position(|l| l.trim() == "dims = 3").expect("the example has dims = 3") + 1;
    let e = error_of(&EXAMPLE.replace("dims = 3", "dims = 4"));
    assert!(e.starts_with(&format!("pm.toml:{line}: key `workload.dims`")), "{e}");
    let e = rdmasim_core::api::validate_any(&EXAMPLE.replace("dims = 3", "dims = 4"), "pm.toml").unwrap_err();
    assert_eq!(e.line, Some(line), "{e}");
}
