//! Semantic checks that types alone cannot express: ranges, combinations, and references from
//! one section to another (hosts of the topology, the port's MTU). Each section's check returns
//! the key and message of the first problem it finds; [`check_scenario`] adds the source and
//! the line.
pub(super) use super::problem::{problem, Problem};
use super::links::parse_link_selector;
use super::messages::{did_you_mean, expected_for, fmt_f, quoted_list};
use super::spans::SpanIndex;
use super::workload_checks::check_workload;
use super::{min_vl_buffer_bytes, CREDIT_BYTES, MAX_BER, MAX_CABLE_M, MAX_INFLIGHT_PACKETS, MAX_ODP_FAULT_WORKERS, MAX_PACKET_HEADER_BYTES, MAX_SINGLE_SWITCH_HOSTS, VALID_LINK_WIDTHS, VALID_MTUS};
use crate::profile::host as host_profile;
use crate::profile::{self, HwProfile, LinkParams, ProfileOverrides, SwitchParams};
use crate::hca::rx_dma::{VALID_MPS, VALID_PCIE_LANES};
use crate::scenario::{HardwareSection, LimitsSection, QpSection, Scenario, ScenarioError, TopologyKind, TopologySection};

/// Largest transmit staging buffer: 16 MiB, far beyond any NIC's on-chip memory.
const MAX_TX_STAGING_BYTES: u32 = 16 << 20;

/// Runs every section's check; the first problem becomes a [`ScenarioError`] of `source`, with
/// the line of its key when the scenario came from text.
pub(super) fn check_scenario(s: &Scenario, source: &str, spans: Option<&SpanIndex>) -> Result<(), ScenarioError> {
    check_sections(s).map_err(|e| super::error_at(source, spans, e))
}

fn check_sections(s: &Scenario) -> Result<(), Problem> {
    let hw = check_hardware(&s.hardware)?;
    check_topology(&s.topology)?;
    check_host_hardware(s)?;
    check_qp(&s.qp, &hw.link, &s.hardware.overrides)?;
    check_workload(s, &hw)?;
    check_faults(s)?;
    check_output(s)?;
    check_limits(&s.limits)?;
    super::engine_checks::check_engine(s)
}

/// The floating-point (time-like) profile parameters an override may set; all must be finite
/// and >= 0.
fn override_times(o: &ProfileOverrides) -> [(&'static str, Option<f64>); 30] {
    [
        ("cable_ns_per_m", o.cable_ns_per_m),
        ("post_send_cpu_ns", o.post_send_cpu_ns),
        ("doorbell_ns", o.doorbell_ns),
        ("wqe_fetch_ns", o.wqe_fetch_ns),
        ("dma_read_ns", o.dma_read_ns),
        ("dma_write_ns", o.dma_write_ns),
        ("tx_pipeline_ns", o.tx_pipeline_ns),
        ("rx_pipeline_ns", o.rx_pipeline_ns),
        ("tx_packet_ns", o.tx_packet_ns),
        ("recv_wqe_fetch_ns", o.recv_wqe_fetch_ns),
        ("poll_cq_ns", o.poll_cq_ns),
        ("interrupt_ns", o.interrupt_ns),
        ("wakeup_ns", o.wakeup_ns),
        ("event_cpu_ns", o.event_cpu_ns),
        ("srq_event_interrupt_ns", o.srq_event_interrupt_ns),
        ("srq_arm_ns", o.srq_arm_ns),
        ("srq_recv_wqe_ns", o.srq_recv_wqe_ns),
        ("srq_poll_detect_ns", o.srq_poll_detect_ns),
        ("retransmit_floor_ms", o.retransmit_floor_ms),
        ("adaptive_retrans_base_us", o.adaptive_retrans_base_us),
        ("switch_latency_ns", o.switch_latency_ns),
        ("odp_fault_us", o.odp_fault_us),
        ("odp_requester_retry_us", o.odp_requester_retry_us),
        ("odp_invalidate_us", o.odp_invalidate_us),
        ("mr_register_us", o.mr_register_us),
        ("mr_pin_page_us", o.mr_pin_page_us),
        ("os_tick_hz", o.os_tick_hz),
        ("os_tick_detour_min_ns", o.os_tick_detour_min_ns),
        ("os_tick_detour_max_ns", o.os_tick_detour_max_ns),
        ("os_tick_entry_exit_ns", o.os_tick_entry_exit_ns),
    ]
}

/// Names of the floating-point override parameters checked by [`super::check`] (for tests that keep
/// this list in step with the profile).
pub fn checked_time_parameters() -> Vec<&'static str> {
    override_times(&ProfileOverrides::default()).iter().map(|(n, _)| *n).collect()
}

/// Largest value of a time-like override, in its own unit (by the name's suffix): 1000 s of
/// simulated time (a 10 km cable at `cable_ns_per_m`). Larger ones would saturate the clock
/// (u64 picoseconds, ~1.8e7 s) after a few thousand uses and the run would report nonsense.
fn override_time_max(name: &str) -> Option<(f64, &'static str)> {
    const SECONDS: f64 = 1000.0;
    if name == "cable_ns_per_m" {
        Some((SECONDS * 1e9 / MAX_CABLE_M, "ns per metre (1000 s over a 10 km cable)"))
    } else if name.ends_with("_ns") {
        Some((SECONDS * 1e9, "ns (1000 s)"))
    } else if name.ends_with("_us") {
        Some((SECONDS * 1e6, "us (1000 s)"))
    } else if name.ends_with("_ms") {
        Some((SECONDS * 1e3, "ms (1000 s)"))
    } else {
        None // os_tick_hz: bounded by its own checks below
    }
}

/// `[[hardware.hosts]]`: each entry's profile and overrides as `[hardware]`'s are checked
/// (errors name the entry's keys), hosts that exist, each host in one entry at most, and no
/// switch parameter (it belongs to the switches, not to a host).
fn check_host_hardware(s: &Scenario) -> Result<(), Problem> {
    let mut seen = std::collections::HashMap::new();
    for (i, e) in s.hardware.hosts.iter().enumerate() {
        let at = |k: &str| format!("hardware.hosts[{i}].{k}");
        if let Err((key, message)) = check_hardware(&e.as_section(&s.hardware)) {
            let key = key.strip_prefix("hardware.").map_or(key.clone(), &at);
            return problem(&key, message);
        }
        if let Some(p) = e.overrides.names().into_iter().find(|p| SwitchParams::NAMES.contains(p)) {
            return problem(&at(&format!("overrides.{p}")), format!("{p} is a switch's parameter, not a host's; expected it in [hardware.overrides]"));
        }
        // Of the link part, a host's cable takes only the width and speed (it trains to the
        // slower end); buffers, the MTU and the propagation delay stay the run's.
        if let Some(p) = e.overrides.names().into_iter().find(|p| matches!(*p, "vl_buffer_bytes" | "mtu" | "cable_ns_per_m")) {
            return problem(&at(&format!("overrides.{p}")), format!("{p} is the same on every port of the run; expected it in [hardware.overrides] (a host's entry sets its NIC and CPU parameters and its link's width and speed)"));
        }
        if e.hosts.is_empty() {
            return problem(&at("hosts"), "no hosts; expected a list of host indices".into());
        }
        for (j, &h) in e.hosts.iter().enumerate() {
            if h >= s.topology.hosts {
                return problem(&format!("hardware.hosts[{i}].hosts[{j}]"), format!("host {h} does not exist; expected a host index 0..={}", s.topology.hosts - 1));
            }
            if let Some(prev) = seen.insert(h, i) {
                return problem(&format!("hardware.hosts[{i}].hosts[{j}]"), format!("host {h} is already in hardware.hosts[{prev}]; expected each host in one entry"));
            }
        }
    }
    Ok(())
}

/// The profile named in `[hardware]` with its named host and overrides applied, once the names
/// are known and every override is in range.
fn check_hardware(h: &HardwareSection) -> Result<HwProfile, Problem> {
    let names = profile::names();
    let Some((base, _)) = profile::by_name(&h.profile) else {
        return problem(
            "hardware.profile",
            format!(
                "unknown profile \"{}\"{}; expected one of: {}",
                h.profile,
                did_you_mean(&h.profile, &names),
                quoted_list(&names)
            ),
        );
    };
    let Some(changes) = h.changes() else {
        let host = h.host.as_deref().unwrap_or_default();
        let hosts = host_profile::names();
        return problem("hardware.host", format!("unknown host \"{host}\"{}; expected one of: {}", did_you_mean(host, &hosts), quoted_list(&hosts)));
    };
    let o = &h.overrides;
    let ov = |k: &str| format!("hardware.overrides.{k}");
    if let Some(w) = o.link_width {
        if !VALID_LINK_WIDTHS.contains(&w) {
            return problem(&ov("link_width"), format!("link width {w} is not supported; expected 1, 4 or 12 lanes"));
        }
    }
    if let Some(g) = o.pcie_gen {
        if !(3..=5).contains(&g) {
            return problem(&ov("pcie_gen"), format!("pcie_gen = {g} is not modelled; expected 3, 4 or 5 (128b/130b encoding)"));
        }
    }
    if let Some(l) = o.pcie_lanes {
        if !VALID_PCIE_LANES.contains(&l) {
            return problem(&ov("pcie_lanes"), format!("pcie_lanes = {l} is not a PCIe link width; expected 1, 2, 4, 8, 16 or 32"));
        }
    }
    if let Some(m) = o.pcie_mps {
        if !VALID_MPS.contains(&m) {
            return problem(&ov("pcie_mps"), format!("pcie_mps = {m} is not a PCIe Maximum Payload Size; expected 128, 256, 512, 1024, 2048 or 4096"));
        }
    }
    if let Some(m) = o.mtu {
        if !VALID_MTUS.contains(&m) {
            return problem(&ov("mtu"), format!("MTU {m} is not an InfiniBand MTU; expected 256, 512, 1024, 2048 or 4096"));
        }
    }
    if let Some(m) = o.perftest_mtu {
        if m != 0 && !VALID_MTUS.contains(&m) {
            return problem(&ov("perftest_mtu"), format!("perftest_mtu = {m} is not an InfiniBand MTU; expected 0 (the active MTU), 256, 512, 1024, 2048 or 4096"));
        }
    }
    for (name, v) in override_times(o) {
        if let Some(v) = v {
            if !v.is_finite() || v < 0.0 {
                return problem(&ov(name), format!("{name} = {} is invalid; expected {}", fmt_f(v), expected_for(&ov(name)).unwrap_or_default()));
            }
            if let Some((max, unit)) = override_time_max(name).filter(|(max, _)| v > *max) {
                return problem(&ov(name), format!("{name} = {v:?} is too large; expected at most {max:e} {unit}"));
            }
        }
    }
    if o.ack_req_every == Some(0) {
        return problem(&ov("ack_req_every"), "ack_req_every = 0 is invalid; expected an integer >= 1 (packets between ACK requests)".into());
    }
    if let Some(n) = o.max_inflight_packets {
        if n == 0 || n > MAX_INFLIGHT_PACKETS {
            return problem(
                &ov("max_inflight_packets"),
                format!("max_inflight_packets = {n} is out of range; expected 1..={MAX_INFLIGHT_PACKETS} (half the 24-bit PSN space)"),
            );
        }
    }
    if let Some(n) = o.odp_fault_workers {
        if n > MAX_ODP_FAULT_WORKERS {
            return problem(&ov("odp_fault_workers"), format!("odp_fault_workers = {n} is out of range; expected 0 (unlimited) or 1..={MAX_ODP_FAULT_WORKERS} (mlx5 runs 32)"));
        }
    }
    if let Some(b) = o.tx_staging_bytes.filter(|&b| b > MAX_TX_STAGING_BYTES) {
        return problem(&ov("tx_staging_bytes"), format!("tx_staging_bytes = {b} is out of range; expected 0..={MAX_TX_STAGING_BYTES} (bytes)"));
    }
    if o.arbitration_chunk_bytes == Some(0) {
        return problem(&ov("arbitration_chunk_bytes"), "arbitration_chunk_bytes = 0 is invalid; expected an integer >= 1 (bytes)".into());
    }
    let mut hw: HwProfile = base;
    hw.apply(&changes);
    let host = &hw.host;
    if host.os_tick_detour_max_ns < host.os_tick_detour_min_ns {
        let k = if o.os_tick_detour_max_ns.is_some() { "os_tick_detour_max_ns" } else { "os_tick_detour_min_ns" };
        return problem(
            &ov(k),
            format!("os_tick_detour_max_ns ({}) is below os_tick_detour_min_ns ({}); expected min <= max", fmt_f(host.os_tick_detour_max_ns), fmt_f(host.os_tick_detour_min_ns)),
        );
    }
    // Linux's CONFIG_HZ is 100..=1000; below 1 Hz one tick would outlast most runs.
    if host.os_tick_hz > 0.0 && host.os_tick_hz < 1.0 {
        return problem(&ov("os_tick_hz"), format!("os_tick_hz = {:?} is too low; expected 0 (no tick) or a rate >= 1 Hz, e.g. 100, 250 or 1000", host.os_tick_hz));
    }
    // A tick that lasts a whole period would never let the core run (and never end a span).
    if host.os_tick_hz > 0.0 && host.os_tick_detour_max_ns + host.os_tick_entry_exit_ns >= 1e9 / host.os_tick_hz {
        let k = if o.os_tick_hz.is_some() { "os_tick_hz" } else if o.os_tick_entry_exit_ns.is_some() { "os_tick_entry_exit_ns" } else { "os_tick_detour_max_ns" };
        return problem(
            &ov(k),
            format!(
                "os_tick_hz = {} gives a {} ns tick period, not longer than os_tick_detour_max_ns + os_tick_entry_exit_ns = {}; expected detours shorter than the period",
                fmt_f(host.os_tick_hz),
                fmt_f(1e9 / host.os_tick_hz),
                fmt_f(host.os_tick_detour_max_ns + host.os_tick_entry_exit_ns)
            ),
        );
    }
    Ok(hw)
}

fn check_topology(t: &TopologySection) -> Result<(), Problem> {
    match t.kind {
        TopologyKind::BackToBack if t.hosts != 2 => {
            return problem(
                "topology.hosts",
                format!("a back-to-back topology has exactly 2 hosts, found hosts = {}; use kind = \"single-switch\" for more", t.hosts),
            );
        }
        TopologyKind::SingleSwitch if !(2..=MAX_SINGLE_SWITCH_HOSTS).contains(&t.hosts) => {
            return problem(
                "topology.hosts",
                format!("a single-switch topology has 2..={MAX_SINGLE_SWITCH_HOSTS} hosts, found hosts = {}", t.hosts),
            );
        }
        _ => {}
    }
    if !t.cable_m.is_finite() || t.cable_m <= 0.0 || t.cable_m > MAX_CABLE_M {
        return problem("topology.cable_m", format!("cable_m = {} is out of range; expected a length in metres in (0, 10000]", fmt_f(t.cable_m)));
    }
    Ok(())
}

/// The path MTU the QPs will use, once the QP attributes are in range and one packet of it fits
/// the VL buffer.
fn check_qp(q: &QpSection, link: &LinkParams, o: &ProfileOverrides) -> Result<(), Problem> {
    let ov = |k: &str| format!("hardware.overrides.{k}");
    if q.timeout > 31 {
        return problem("qp.timeout", format!("timeout = {} is out of range; expected 0..=31 (4.096 us x 2^timeout, 0 = infinite)", q.timeout));
    }
    if q.sl > 15 {
        return problem("qp.sl", format!("sl = {} is out of range; expected a service level 0..=15 (LRH.SL is 4 bits)", q.sl));
    }
    if q.retry_cnt > 7 {
        return problem("qp.retry_cnt", format!("retry_cnt = {} is out of range; expected 0..=7 (a 3-bit field)", q.retry_cnt));
    }
    if q.rnr_retry > 7 {
        return problem("qp.rnr_retry", format!("rnr_retry = {} is out of range; expected 0..=7 (7 = retry forever)", q.rnr_retry));
    }
    if q.min_rnr_timer > 31 {
        return problem("qp.min_rnr_timer", format!("min_rnr_timer = {} is out of range; expected a 5-bit IBTA timer code 0..=31", q.min_rnr_timer));
    }
    if !(1..=16).contains(&q.max_rd_atomic) {
        return problem("qp.max_rd_atomic", format!("max_rd_atomic = {} is out of range; expected 1..=16", q.max_rd_atomic));
    }
    if let Some(m) = q.mtu {
        if !VALID_MTUS.contains(&m) {
            return problem("qp.mtu", format!("MTU {m} is not an InfiniBand MTU; expected 256, 512, 1024, 2048 or 4096"));
        }
        if m > link.mtu {
            return problem(
                "qp.mtu",
                format!("path MTU {m} exceeds the port's active MTU {} (hardware mtu); expected at most {}", link.mtu, link.mtu),
            );
        }
    }
    let path_mtu = q.mtu.unwrap_or(link.mtu);
    let need = min_vl_buffer_bytes(path_mtu);
    if link.vl_buffer_bytes < need {
        let key = if o.vl_buffer_bytes.is_some() {
            ov("vl_buffer_bytes")
        } else if o.mtu.is_some() {
            ov("mtu")
        } else {
            "qp.mtu".to_string()
        };
        return problem(
            &key,
            format!(
                "vl_buffer_bytes = {} cannot hold one full packet, so nothing could ever be sent: a {path_mtu} B MTU packet \
                 with up to {MAX_PACKET_HEADER_BYTES} B of headers needs {need} B of {CREDIT_BYTES}-byte credits; \
                 expected vl_buffer_bytes >= {need} (or a smaller MTU)",
                link.vl_buffer_bytes
            ),
        );
    }
    Ok(())
}

fn check_faults(s: &Scenario) -> Result<(), Problem> {
    let t = &s.topology;
    for (i, f) in s.faults.iter().enumerate() {
        let k = |name: &str| format!("faults[{i}].{name}");
        let picked = match &t.routed {
            Some(r) => crate::fabric::select::select_links(&f.link, &r.graph).map(|_| ()),
            None => parse_link_selector(&f.link, t.kind, t.hosts).map(|_| ()),
        };
        if let Err(e) = picked {
            return problem(&k("link"), e);
        }
        if !f.loss_rate.is_finite() || !(0.0..1.0).contains(&f.loss_rate) {
            return problem(&k("loss_rate"), format!("loss_rate = {} is out of range; expected a probability in [0, 1)", fmt_f(f.loss_rate)));
        }
        if !f.ber.is_finite() || !(0.0..=MAX_BER).contains(&f.ber) {
            return problem(&k("ber"), format!("ber = {} is out of range; expected a bit error rate in [0, 0.001]", fmt_f(f.ber)));
        }
        if !f.symbol_errors_per_s.is_finite() || f.symbol_errors_per_s < 0.0 {
            return problem(&k("symbol_errors_per_s"), format!("symbol_errors_per_s = {} is out of range; expected a finite number of errors per second >= 0", fmt_f(f.symbol_errors_per_s)));
        }
        if f.symbol_errors_per_s > 0.0 && f.ber > 0.0 {
            return problem(&k("symbol_errors_per_s"), "ber and symbol_errors_per_s both say how often bits go wrong; expected one of them".into());
        }
        check_link_events(f, &k)?;
        if let Some(j) = f.drop_nth.iter().position(|&n| n == 0) {
            return problem(&format!("faults[{i}].drop_nth[{j}]"), "packet number 0 is invalid; drop_nth counts packets from 1, expected >= 1".into());
        }
    }
    Ok(())
}

/// Longest retrain (`retrain_us`, 1 s) and flap (`flap_down_ms`, 1000 s) accepted: a
/// retrain is µs to ms of physical-layer recovery, a flap up to a subnet manager's sweeps
/// (docs/sources/issue34.md §9); anything longer is a link that is down (`[topology] disable`).
const MAX_RETRAIN_US: f64 = 1e6;
const MAX_FLAP_DOWN_MS: f64 = 1e6;

/// A fault's link events: rates >= 0, and a duration within range for each rate given.
fn check_link_events(f: &crate::scenario::FaultSection, k: &dyn Fn(&str) -> String) -> Result<(), Problem> {
    let kinds = [
        ("retrains_per_s", f.retrains_per_s, "retrain_us", f.retrain_us, MAX_RETRAIN_US, "µs"),
        ("flaps_per_s", f.flaps_per_s, "flap_down_ms", f.flap_down_ms, MAX_FLAP_DOWN_MS, "ms"),
    ];
    for (rate_key, rate, time_key, time, max, unit) in kinds {
        if !rate.is_finite() || rate < 0.0 {
            return problem(&k(rate_key), format!("{rate_key} = {} is out of range; expected a finite number of events per second >= 0", fmt_f(rate)));
        }
        match time {
            Some(t) if !t.is_finite() || t <= 0.0 || t > max => {
                return problem(&k(time_key), format!("{time_key} = {} is out of range; expected a time in {unit} > 0 and <= {}", fmt_f(t), fmt_f(max)));
            }
            None if rate > 0.0 => {
                return problem(&k(time_key), format!("{rate_key} = {} needs {time_key}, how long each event keeps the link out ({unit}); it is not published, so give the value you sweep", fmt_f(rate)));
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_output(s: &Scenario) -> Result<(), Problem> {
    let t = &s.topology;
    let out = &s.output;
    if let Some(j) = out.capture_hosts.iter().position(|&h| h >= t.hosts) {
        return problem(
            &format!("output.capture_hosts[{j}]"),
            format!("host {} does not exist; expected a host index 0..={}", out.capture_hosts[j], t.hosts - 1),
        );
    }
    if out.capture_max_packets == Some(0) {
        return problem("output.capture_max_packets", "capture_max_packets = 0 is invalid; expected an integer >= 1".into());
    }
    if let Some(b) = out.capture_max_bytes {
        use crate::report::capture::MAX_MAX_BYTES;
        use crate::wire::PCAP_FILE_HEADER_BYTES as HEADER;
        if !(HEADER..=MAX_MAX_BYTES).contains(&b) {
            return problem(
                "output.capture_max_bytes",
                format!(
                    "capture_max_bytes = {b} is out of range; expected {HEADER}..={MAX_MAX_BYTES} (the {HEADER}-byte pcap header up to 4 GiB: \
                     Python's Result.pcap holds the whole file in memory; narrow a larger capture with capture_hosts or capture_qps)"
                ),
            );
        }
    }
    Ok(())
}

/// The limits of any engine's run (PM's too: `ether/run.rs`).
pub fn check_limits(l: &LimitsSection) -> Result<(), Problem> {
    if let Some(us) = l.max_time_us {
        return problem(
            "limits.max_time_us",
            format!("max_time_us is no longer read: every engine's time limit is limits.max_sim_time_ms, in milliseconds (here max_sim_time_ms = {})", fmt_f(us / 1e3)),
        );
    }
    if let Some(ms) = l.max_sim_time_ms {
        if !ms.is_finite() || ms <= 0.0 {
            return problem("limits.max_sim_time_ms", format!("max_sim_time_ms = {} is invalid; expected a finite number of milliseconds > 0", fmt_f(ms)));
        }
    }
    if l.max_events == Some(0) {
        return problem("limits.max_events", "max_events = 0 is invalid; expected an integer >= 1".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_float_profile_parameter_is_range_checked() {
        // Keeps `override_times` in step with profile/params.rs: every f64 parameter must be listed.
        let (p, _) = profile::by_name("cx4-edr").unwrap();
        let v = serde_json::to_value(&p).unwrap();
        let checked = checked_time_parameters();
        for name in HwProfile::PARAMETER_NAMES {
            if v[*name].as_number().is_some_and(|n| n.is_f64()) {
                assert!(checked.contains(name), "{name} is a float profile parameter but check() does not range-check it");
            }
        }
    }
}
