//! Reading and checking a PM scenario (`engine = "pm"`, scenario/pm.rs): the same parse errors
//! as a fabric scenario's (key path, line, what was expected), then the values the types alone
//! do not bound, against the switch and NIC the scenario names. What needs the built network
//! (the ports of a switch, the hosts a workload names) is checked where ether/run.rs builds it
//! (ether/world.rs) and starts the workload (ether/workload.rs).
use super::parse_errors::ScenarioKind;
use super::spans::SpanIndex;
use crate::ether::framing::{max_payload, PmHeader};
use crate::ether::host_cost::{RxPath, Stack};
use crate::ether::link::FlowControl;
use crate::ether::nic::e1000;
use crate::ether::switch_profiles;
use crate::ether::trunk::LaneChoice;
use crate::scenario::pm::{Cabling, PmAlltoall, PmMpi, PmScenario, PmTopology, PmWorkload};
use crate::scenario::ScenarioError;

/// A switch buffer's bounds, KiB: room for one jumbo frame, and 1 GiB.
const MIN_BUFFER_KIB: u32 = 10;
const MAX_BUFFER_KIB: u32 = 1 << 20;

/// A cabling other than `rows` places a hyper-crossbar's rows (ether/cabling.rs); under
/// `lane-per-switch` a lane's switch reaches only the peers' same lane, so PM must keep lanes.
fn check_cabling(s: &PmScenario) -> Result<(), (String, String)> {
    if s.ethernet.cabling == Cabling::Rows {
        return Ok(());
    }
    if !matches!(s.ethernet.topology, PmTopology::Hyperx { .. }) {
        return Err(("ethernet.cabling".into(), format!("\"{}\": expected \"rows\" (the default) for a single-switch topology; the other families place a hyper-crossbar's rows", s.ethernet.cabling.name())));
    }
    if s.ethernet.cabling == Cabling::LanePerSwitch && s.pm.lanes != LaneChoice::Same {
        return Err(("pm.lanes".into(), "\"random\" with cabling = \"lane-per-switch\": lane k's switch reaches only the peers' lane k; expected lanes = \"same\"".into()));
    }
    Ok(())
}

/// The largest PM window: a receive array of 4 B slots per channel.
const MAX_WINDOW: u32 = 1 << 16;

/// Parses a PM scenario and checks its values; a relative trace path is resolved beside the
/// scenario file.
pub fn parse_pm(text: &str, source: &str) -> Result<PmScenario, ScenarioError> {
    let mut s: PmScenario = super::read(ScenarioKind::Pm, text, source)?;
    check(&s).map_err(|e| super::error_at(source, SpanIndex::build(text).as_ref(), e))?;
    if let PmWorkload::Mpi(PmMpi { trace: Some(t), .. }) = &mut s.workload {
        *t = crate::scenario::paths::resolve_beside(t, source);
    }
    Ok(s)
}

fn check(s: &PmScenario) -> Result<(), (String, String)> {
    let err = |key: &str, message: String| Err((key.to_string(), message));
    let Some(profile) = switch_profiles::by_name(&s.ethernet.switch) else {
        let names: Vec<&str> = switch_profiles::builtin().iter().map(|p| p.name).collect();
        return err("ethernet.switch", format!("unknown switch profile {:?}; expected one of {}", s.ethernet.switch, names.join(", ")));
    };
    if let Some(kib) = s.ethernet.switch_buffer_kib.filter(|k| !(MIN_BUFFER_KIB..=MAX_BUFFER_KIB).contains(k)) {
        return err("ethernet.switch_buffer_kib", format!("{kib}: expected {MIN_BUFFER_KIB}..={MAX_BUFFER_KIB} KiB (at least one jumbo frame, at most 1 GiB)"));
    }
    let profile = profile.with_buffer_kib(s.ethernet.switch_buffer_kib);
    check_cabling(s)?;
    if !(s.host.copy_mb_s >= 1.0 && s.host.copy_mb_s.is_finite()) {
        return err("host.copy_mb_s", format!("{}: expected at least 1 MB/s", s.host.copy_mb_s));
    }
    if !(s.nic.onboard_bus_mb_s >= 1.0 && s.nic.onboard_bus_mb_s <= 1e6) {
        return err("nic.onboard_bus_mb_s", format!("{}: expected 1 ≤ onboard_bus_mb_s ≤ 1e6 MB/s", s.nic.onboard_bus_mb_s));
    }
    if let (Stack::Nt, Some(path @ (RxPath::Premapped | RxPath::MapUnmap))) = (s.host.stack, s.host.rx_path) {
        let name = if path == RxPath::Premapped { "premapped" } else { "map-unmap" };
        return err("host.rx_path", format!("\"{name}\": the kernel path (stack = \"nt\") copies every packet to the user (ether/kernel_path.rs); leave rx_path out or write \"copy\" (the other paths are PM/Ethernet-HXB's)"));
    }
    if !(s.host.cpu_ghz > 0.0 && s.host.cpu_ghz.is_finite()) {
        return err("host.cpu_ghz", format!("{}: expected a positive number", s.host.cpu_ghz));
    }
    if s.pm.window == 0 || s.pm.window > MAX_WINDOW || s.pm.ack_every == 0 || s.pm.ack_every > s.pm.window {
        return err("pm.window", format!("window = {}, ack_every = {}: expected 1 ≤ ack_every ≤ window ≤ {MAX_WINDOW}", s.pm.window, s.pm.ack_every));
    }
    if let Some(max) = s.pm.resend.max_window().filter(|&m| s.pm.window > m) {
        return err("pm.window", format!("{}: expected at most {max} with resend = \"selective\" (an acknowledgement reports the {} slots after its hole, ether/pm_resend.rs)", s.pm.window, max - 1));
    }
    if s.pm.nic_depth == 0 {
        return err("pm.nic_depth", "0: expected at least 1 (no packet could ever be sent)".into());
    }
    // The largest frame both the E1000 and the switch take, less the PM header.
    let max_packet = max_payload(profile.max_frame_bytes.min(e1000().max_frame_bytes)) - PmHeader::BYTES;
    if s.pm.packet_bytes == 0 || s.pm.packet_bytes > max_packet {
        return err("pm.packet_bytes", format!("{}: expected 1..={max_packet} (the largest jumbo frame of the NIC and the {} switch, {} B, less the Ethernet and PM headers)", s.pm.packet_bytes, profile.name, profile.max_frame_bytes));
    }
    if !(s.pm.rto_us >= 1.0 && s.pm.rto_us <= 1e9) {
        return err("pm.rto_us", format!("{}: expected 1 ≤ rto_us ≤ 1e9 µs", s.pm.rto_us));
    }
    if let PmWorkload::Mpi(PmMpi { packet_us: Some(us), .. }) = s.workload {
        let (lo, hi) = crate::ether::mpi::packet_cost::PACKET_US_BOUNDS;
        if !(lo..=hi).contains(&us) {
            return err("workload.packet_us", format!("{us}: expected {lo} ≤ packet_us ≤ {hi} µs (the library's own time per packet beyond MPICH's, ether/mpi/packet_cost.rs)"));
        }
    }
    if let PmWorkload::Alltoall(PmAlltoall { skew_us, .. }) = s.workload {
        if !(0.0..=1e9).contains(&skew_us) {
            return err("workload.skew_us", format!("{skew_us}: expected 0 ≤ skew_us ≤ 1e9 µs"));
        }
    }
    let fcs = std::iter::once(("ethernet.flow_control".to_string(), s.ethernet.flow_control))
        .chain(s.ethernet.links.iter().enumerate().map(|(i, l)| (format!("ethernet.links[{i}].flow_control"), l.flow_control)));
    for (key, fc) in fcs {
        if let FlowControl::Pause { xoff_bytes, xon_bytes } = fc {
            if xon_bytes > xoff_bytes || xoff_bytes >= profile.buffer_bytes {
                return err(&key, format!("xon_bytes = {xon_bytes}, xoff_bytes = {xoff_bytes}: expected xon ≤ xoff < the switch buffer ({} B)", profile.buffer_bytes));
            }
        }
    }
    super::check_limits(&s.limits)
}
