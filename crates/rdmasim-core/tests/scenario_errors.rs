//! Bad scenarios give errors that name the file, the key path, the line and what was expected;
//! good scenarios (everything in `scenarios/`) parse and validate cleanly; nothing panics.
//!
//! Each file in `tests/data/bad_scenarios/` says on its first line what is wrong with it, and
//! has exactly one row in `CASES` below.
use rdmasim_core::prepare::parse_toml;
use rdmasim_core::scenario::validate::{check, parse_link_selector, Endpoint};
use rdmasim_core::scenario::{Scenario, ScenarioError, TopologyKind};
use std::path::{Path, PathBuf};

const BAD_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bad_scenarios");
const GOOD_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");

/// (file, key path, line, fragments the message must contain)
const CASES: &[(&str, &str, Option<usize>, &[&str])] = &[
    ("unknown_top_level_key.toml", "sed", Some(3), &["unknown key `sed` at the top level", "did you mean `seed`?", "allowed keys: name, seed, hardware, topology, qp, workload, faults, output, limits"]),
    ("unknown_nested_key.toml", "topology.host", Some(7), &["unknown key `host` in [topology]", "did you mean `hosts`?", "allowed keys: kind, hosts, cable_m"]),
    ("perftest_key_typo.toml", "workload.iter", Some(9), &["unknown key `iter` in [workload]", "did you mean `iters`?", "allowed keys: test, size, all_sizes, iters,"]),
    ("wrong_type.toml", "topology.hosts", Some(6), &["expected an integer", "found the string \"two\""]),
    ("wrong_type_in_workload.toml", "workload.size", Some(8), &["expected a message size in bytes, 1..=2147483648", "found the string \"64k\""]),
    ("missing_workload.toml", "workload", None, &["missing required table [workload]", "kind = \"perftest\""]),
    ("missing_profile.toml", "hardware.profile", Some(2), &["missing required key `profile` in [hardware]", "\"cx3-fdr\", \"cx4-edr\", \"cx5-edr\""]),
    ("unknown_profile.toml", "hardware.profile", Some(3), &["unknown profile \"cx4-hdr\"", "did you mean `cx4-edr`?", "expected one of: \"cx3-fdr\", \"cx4-edr\", \"cx5-edr\""]),
    ("unknown_host.toml", "hardware.host", Some(4), &["unknown host \"cloudlab-r230\"", "did you mean `cloudlab-r320`?", "expected one of: \"cloudlab-r320\", \"umich-conflux\""]),
    ("bad_topology_kind.toml", "topology.kind", Some(6), &["invalid value \"fat-tree\"", "expected one of: \"back-to-back\", \"single-switch\""]),
    ("bad_perftest_test.toml", "workload.test", Some(7), &["invalid value \"ib_write_bandwidth\"", "expected one of: \"ib_write_bw\", \"ib_write_lat\", \"ib_read_bw\", \"ib_read_lat\", \"ib_send_bw\", \"ib_send_lat\""]),
    ("bad_workload_kind.toml", "workload.kind", Some(6), &["invalid value \"gpu\"", "expected one of: \"perftest\""]),
    ("missing_workload_kind.toml", "workload.kind", Some(5), &["missing required key `kind` in [workload]", "expected \"perftest\""]),
    ("bad_arbitration.toml", "hardware.overrides.arbitration", Some(6), &["invalid value \"round-robin\"", "\"packet-round-robin\", \"message-round-robin\", \"chunk-round-robin\", \"quantum-round-robin\""]),
    ("bad_link_gen.toml", "hardware.overrides.link_gen", Some(6), &["invalid value \"qdr2\"", "\"sdr\", \"ddr\", \"qdr\", \"fdr10\", \"fdr\", \"edr\", \"hdr\", \"ndr\", \"xdr\""]),
    ("timeout_out_of_range.toml", "qp.timeout", Some(6), &["timeout = 32 is out of range", "expected 0..=31"]),
    ("timeout_too_large_for_u8.toml", "qp.timeout", Some(6), &["expected an integer 0..=31", "found the integer 300 (out of range)"]),
    ("retry_cnt_8.toml", "qp.retry_cnt", Some(7), &["retry_cnt = 8 is out of range", "expected 0..=7"]),
    ("b2b_three_hosts.toml", "topology.hosts", Some(7), &["back-to-back topology has exactly 2 hosts", "found hosts = 3"]),
    ("switch_too_many_hosts.toml", "topology.hosts", Some(7), &["single-switch topology has 2..=254 hosts", "found hosts = 2000"]),
    ("fault_nonexistent_link.toml", "faults[0].link", Some(14), &["no link between h0 and h1 in a single-switch topology", "links are hN-sw0 for N in 0..=3"]),
    ("fault_bad_selector.toml", "faults[0].link", Some(10), &["invalid link selector \"h0=>h1\"", "expected \"*\", \"hN-hM\", \"hN->hM\", \"hN-sw0\" or \"sw0->hN\""]),
    ("loss_rate_too_high.toml", "faults[1].loss_rate", Some(15), &["loss_rate = 1.5 is out of range", "expected a probability in [0, 1)"]),
    ("ber_too_high.toml", "faults[0].ber", Some(11), &["ber = 0.01 is out of range", "[0, 0.001]"]),
    ("drop_nth_zero.toml", "faults[0].drop_nth[1]", Some(11), &["packet number 0 is invalid", "expected >= 1"]),
    ("events_on_write_bw.toml", "workload.events", Some(9), &["ib_write_bw cannot wait for completion events", "\"Events feature not available on WRITE verb\"", "expected events = false"]),
    ("cq_mod_on_lat.toml", "workload.cq_mod", Some(8), &["ib_write_lat has no CQ moderation", "remove cq_mod"]),
    ("cq_mod_zero.toml", "workload.cq_mod", Some(8), &["cq_mod = 0 is out of range; expected 1..=1024"]),
    ("inline_read.toml", "workload.inline_size", Some(9), &["ib_read_bw cannot use inline data", "expected inline_size = 0"]),
    ("syntax_error.toml", "workload.kind", Some(6), &["TOML syntax error", "closing quote missing"]),
    ("bad_table_header.toml", "", Some(5), &["TOML syntax error: invalid table header"]),
    ("duplicate_key.toml", "hardware.profile", Some(4), &["duplicate key `profile` in table `hardware`"]),
    ("client_equals_server.toml", "workload.server", Some(9), &["client and server are both host 1", "expected two different hosts"]),
    ("server_not_a_host.toml", "workload.server", Some(12), &["server = 4 is not a host", "expected a host index 0..=3"]),
    ("negative_override_time.toml", "hardware.overrides.doorbell_ns", Some(6), &["doorbell_ns = -5 is invalid", "expected a finite number of nanoseconds >= 0"]),
    ("nan_override_time.toml", "hardware.overrides.poll_cq_ns", Some(7), &["poll_cq_ns = NaN is invalid", "finite"]),
    ("vl_buffer_too_small.toml", "hardware.overrides.vl_buffer_bytes", Some(6), &["cannot hold one full packet", "nothing could ever be sent", "expected vl_buffer_bytes >= 4224"]),
    ("bad_qp_mtu.toml", "qp.mtu", Some(6), &["MTU 1500 is not an InfiniBand MTU", "expected 256, 512, 1024, 2048 or 4096"]),
    ("bad_pcie_lanes.toml", "hardware.overrides.pcie_lanes", Some(6), &["pcie_lanes = 3 is not a PCIe link width", "expected 1, 2, 4, 8, 16 or 32"]),
    ("bad_link_width.toml", "hardware.overrides.link_width", Some(6), &["link width 8 is not supported", "expected 1, 4 or 12"]),
    ("seed_too_large.toml", "seed", Some(2), &["integer out of range", "at most 9223372036854775807"]),
    ("negative_seed.toml", "seed", Some(2), &["expected an integer 0..=9223372036854775807", "found the integer -1"]),
    ("capture_host_out_of_range.toml", "output.capture_hosts[1]", Some(11), &["host 2 does not exist", "expected a host index 0..=1"]),
    ("capture_max_bytes_too_large.toml", "output.capture_max_bytes", Some(11), &["capture_max_bytes = 8589934592 is out of range", "expected 24..=4294967296"]),
    ("zero_iters.toml", "workload.iters", Some(8), &["iters = 0 is out of range", "expected 1..=1000000000"]),
    ("limits_not_positive.toml", "limits.max_sim_time_ms", Some(10), &["max_sim_time_ms = 0 is invalid", "> 0"]),
    ("workload_array_of_tables.toml", "workload", Some(5), &["`workload` is one table: write `[workload]` once, not `[[workload]]` (an array of tables)"]),
    ("hardware_array_of_tables.toml", "hardware", Some(2), &["`hardware` is one table: write `[hardware]` once, not `[[hardware]]`"]),
    ("empty.toml", "hardware", None, &["missing required table [hardware]", "profile = \"<name>\""]),
    ("flow_split_window_without_split.toml", "workload.flow[0].split_window", Some(12), &["split_window bounds the split pieces", "expected split_bytes too"]),
    ("flow_total_bytes_too_many_messages.toml", "workload.flow[0].total_bytes", Some(11), &["is 9000000000000000000 messages of 1 B", "expected at most 1000000000 messages"]),
    ("flow_split_too_many_pieces.toml", "workload.flow[0].split_bytes", Some(12), &["2147483648 work requests per message", "expected at most 1000000000"]),
    ("flow_start_beyond_clock.toml", "workload.flow[0].start_us", Some(12), &["start_us = 1e300 is too late", "expected microseconds in 0..=1e7 (10 s)"]),
    ("flow_start_late_beside_background.toml", "workload.flow[0].start_us", Some(12), &["start_us = 1000000000000.0 is too late", "expected microseconds in 0..=1e7 (10 s)", "simulated packet by packet"]),
    ("flow_start_negative.toml", "workload.flow[0].start_us", Some(12), &["start_us = -1.0 is invalid", "expected microseconds in 0..=1e7"]),
    ("flow_pace_too_slow.toml", "workload.flow[0].pace_gbps", Some(13), &["pace_gbps = 1e-12 is invalid", "expected a finite rate in Gb/s >= 0.001"]),
    ("override_time_too_large.toml", "hardware.overrides.interrupt_ns", Some(5), &["interrupt_ns = 1e300 is too large", "expected at most 1e12 ns (1000 s)"]),
    ("os_tick_hz_too_low.toml", "hardware.overrides.os_tick_hz", Some(5), &["os_tick_hz = 1e-300 is too low", "expected 0 (no tick) or a rate >= 1 Hz"]),
    ("flow_duplicate_name.toml", "workload.flow[1].name", Some(16), &["name = \"mouse\" is already flow 0's", "expected a name of its own"]),
    ("flow_name_is_default_label.toml", "workload.flow[0].name", Some(10), &["name = \"flow1\" is flow 1's default label", "expected another name"]),
    ("mpi_ranks_per_host_back_to_back.toml", "workload.ranks_per_host", Some(8), &["puts several ranks on one host", "the model has no HCA loopback", "kind = \"single-switch\""]),
    ("perftest_psn_space_exhausted.toml", "workload.iters", Some(12), &["is 4294967296 packets on one QP", "expected at most 2147483648", "or a [limits] that stops the run sooner"]),
    ("perftest_psn_space_at_perftest_mtu.toml", "workload.iters", Some(10), &["32 packets each (2048 B MTU) is 3200000000 packets on one QP", "expected at most 2147483648"]),
    ("odp_fault_workers_too_many.toml", "hardware.overrides.odp_fault_workers", Some(6), &["odp_fault_workers = 4294967295 is out of range", "expected 0 (unlimited) or 1..=1024"]),
    ("tx_staging_too_large.toml", "hardware.overrides.tx_staging_bytes", Some(6), &["tx_staging_bytes = 33554432 is out of range", "expected 0..=16777216 (bytes)"]),
    ("perftest_tx_depth_too_large.toml", "workload.tx_depth", Some(8), &["tx_depth = 4294967295 is out of range", "expected 1..=32768"]),
    ("perftest_rx_depth_too_large.toml", "workload.rx_depth", Some(8), &["rx_depth = 100000 is out of range", "expected 0..=32768 receives"]),
    ("srq_inline_too_large.toml", "workload.inline", Some(13), &["inline SENDs carry at most 1024 B", "packet_bytes = 65536"]),
    ("kv_server_cpu_too_large.toml", "workload.kv.server_cpu_ns", Some(10), &["server_cpu_ns = 1e300 is invalid", "expected nanoseconds in 0..=1e12"]),
];

fn bad_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(BAD_DIR)
        .expect("tests/data/bad_scenarios exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

fn good_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(GOOD_DIR)
        .expect("scenarios/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

fn parse_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).unwrap();
    parse_toml(&text, &path.display().to_string())
}

fn error_of(file: &str) -> ScenarioError {
    let path = Path::new(BAD_DIR).join(file);
    match parse_file(&path) {
        Ok(_) => panic!("{file} parsed without error"),
        Err(e) => e,
    }
}

#[test]
fn each_bad_scenario_names_file_key_line_and_expectation() {
    let mut failures = Vec::new();
    for &(file, key, line, fragments) in CASES {
        let e = error_of(file);
        let shown = e.to_string();
        let mut problems = Vec::new();
        if !e.source.ends_with(file) {
            problems.push(format!("source {:?} does not name the file", e.source));
        }
        if !shown.contains(file) {
            problems.push("the displayed error does not name the file".to_string());
        }
        if e.key != key {
            problems.push(format!("key {:?}, expected {key:?}", e.key));
        }
        if e.line != line {
            problems.push(format!("line {:?}, expected {line:?}", e.line));
        }
        for f in fragments {
            if !e.message.contains(f) {
                problems.push(format!("message lacks {f:?}"));
            }
        }
        if !problems.is_empty() {
            failures.push(format!("{file}: {}\n    got: {shown}", problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn every_bad_scenario_file_is_described_and_covered() {
    let files = bad_files();
    assert!(files.len() >= 14, "only {} bad scenarios", files.len());
    for p in &files {
        let name = p.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(p).unwrap();
        let first = text.lines().next().unwrap_or("");
        assert!(first.starts_with("# ") && first.len() > 10, "{name}: first line must be a comment saying what is wrong");
        assert!(CASES.iter().any(|c| c.0 == name), "{name} has no row in CASES");
    }
    for c in CASES {
        assert!(files.iter().any(|p| p.file_name().unwrap() == c.0), "CASES names missing file {}", c.0);
    }
}

#[test]
fn error_display_is_file_line_key_message() {
    let e = error_of("retry_cnt_8.toml");
    let shown = e.to_string();
    let expected_prefix = format!("{}:7: key `qp.retry_cnt`: retry_cnt = 8", e.source);
    assert!(shown.starts_with(&expected_prefix), "{shown}");
    // Without a line (a missing table), the line part is left out.
    let e = error_of("missing_workload.toml");
    assert_eq!(e.to_string(), format!("{}: key `workload`: {}", e.source, e.message));
}

#[test]
fn example_scenarios_parse_and_validate() {
    let files = good_files();
    let names: Vec<_> = files.iter().map(|p| p.file_name().unwrap().to_str().unwrap().to_string()).collect();
    for want in ["write_bw_cx4.toml", "read_lat_cx3.toml", "send_lat_switch.toml", "lossy_write_capture.toml"] {
        assert!(names.iter().any(|n| n == want), "scenarios/{want} is missing");
    }
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap();
        if rdmasim_core::scenario::validate::engine_of(&text) == Some(rdmasim_core::scenario::EngineKind::Pm) {
            // A PM scenario (engine = "pm") has its own sections (docs/pm.md).
            rdmasim_core::api::validate_any(&text, &p.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
            continue;
        }
        let s = parse_file(p).unwrap_or_else(|e| panic!("{e}"));
        check(&s, &p.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn example_scenarios_say_what_they_set() {
    let s = parse_file(&Path::new(GOOD_DIR).join("lossy_write_capture.toml")).unwrap();
    assert_eq!(s.faults.len(), 1);
    assert_eq!(s.faults[0].loss_rate, 1e-3);
    assert_eq!(parse_link_selector(&s.faults[0].link, s.topology.kind, s.topology.hosts).unwrap(), vec![(Endpoint::Host(0), Endpoint::Host(1))]);
    assert!(s.output.capture);
    assert_eq!(s.output.capture_max_packets, Some(20000));
    let s = parse_file(&Path::new(GOOD_DIR).join("send_lat_switch.toml")).unwrap();
    assert_eq!(s.topology.kind, TopologyKind::SingleSwitch);
    assert_eq!(s.topology.hosts, 4);
}

#[test]
fn check_without_text_reports_key_but_no_line() {
    let mut s = parse_file(&Path::new(GOOD_DIR).join("write_bw_cx4.toml")).unwrap();
    s.qp.rnr_retry = 9;
    let e = check(&s, "<python>").unwrap_err();
    assert_eq!((e.source.as_str(), e.key.as_str(), e.line), ("<python>", "qp.rnr_retry", None));
    assert!(e.message.contains("expected 0..=7"), "{e}");
}

#[test]
fn link_selectors_resolve_to_existing_directed_links() {
    use Endpoint::*;
    let sw = TopologyKind::SingleSwitch;
    assert_eq!(
        parse_link_selector("*", TopologyKind::BackToBack, 2).unwrap(),
        vec![(Host(0), Host(1)), (Host(1), Host(0))]
    );
    assert_eq!(parse_link_selector("h1-sw0", sw, 3).unwrap(), vec![(Host(1), Switch(0)), (Switch(0), Host(1))]);
    assert_eq!(parse_link_selector("sw0->h2", sw, 3).unwrap(), vec![(Switch(0), Host(2))]);
    assert_eq!(parse_link_selector("*", sw, 3).unwrap().len(), 6);
    assert!(parse_link_selector("h0-h1", sw, 3).is_err());
    assert!(parse_link_selector("sw0->h3", sw, 3).is_err());
}

/// Every prefix and every one-line deletion of every example is either accepted or rejected
/// with an error naming the source; none panics.
#[test]
fn mangled_scenarios_never_panic() {
    for p in good_files() {
        let text = std::fs::read_to_string(&p).unwrap();
        let mut variants: Vec<String> = Vec::new();
        for (i, _) in text.char_indices().step_by(7) {
            variants.push(text[..i].to_string());
        }
        let lines: Vec<&str> = text.lines().collect();
        for skip in 0..lines.len() {
            let v: Vec<&str> = lines.iter().enumerate().filter(|(i, _)| *i != skip).map(|(_, l)| *l).collect();
            variants.push(v.join("\n"));
            // The same line doubled, and its value replaced by garbage.
            let mut d: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            d.insert(skip, lines[skip].to_string());
            variants.push(d.join("\n"));
            let mut g: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            if let Some((k, _)) = lines[skip].split_once('=') {
                g[skip] = format!("{k}= [{{}}]");
                variants.push(g.join("\n"));
                g[skip] = format!("{k}= -1e400");
                variants.push(g.join("\n"));
            }
        }
        for v in variants {
            if let Err(e) = parse_toml(&v, "mangled.toml") {
                assert_eq!(e.source, "mangled.toml");
                assert!(!e.message.is_empty());
                if let Some(l) = e.line {
                    assert!(l >= 1 && l <= v.lines().count().max(1) + 1, "line {l} out of the text: {e}");
                }
            }
        }
    }
}

/// The PSN-space bound is lifted when a limit stops the run first: 2 GiB READs at MTU 256 for
/// 5000 iterations are fine for 1 ms of simulated time.
#[test]
fn a_run_limited_in_time_may_name_more_packets_than_the_psn_space() {
    let base = std::fs::read_to_string(Path::new(BAD_DIR).join("perftest_psn_space_exhausted.toml")).unwrap();
    assert!(parse_toml(&base, "psn.toml").is_err());
    assert!(parse_toml(&format!("{base}\n[limits]\nmax_sim_time_ms = 1.0\n"), "psn.toml").is_ok());
    assert!(parse_toml(&format!("{base}\n[limits]\nmax_events = 1000000\n"), "psn.toml").is_ok());
}
