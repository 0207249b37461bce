//! PME-NT's per-packet work in the engine (ether/kernel_path.rs): interrupt, copy and protocol,
//! each where the CPU spends it.
mod common;
use common::pm::{pm_run, pm_tables};
use rdmasim_core::engine::Time;
use rdmasim_core::ether::host_cost::HostCostConfig;

/// One message of `bytes` in packets of as many bytes (a host's per-packet costs are those of
/// its `packet_bytes`, host_cost.rs).
fn nt(bytes: u32, host: &str) -> String {
    format!("engine = \"pm\"\n[ethernet]\ntopology = {{ kind = \"single-switch\", hosts = 2, links = 1 }}\n[host]\nstack = \"nt\"\n{host}\n[pm]\npacket_bytes = {bytes}\n[workload]\nkind = \"bandwidth\"\nbytes = {bytes}\ncount = 1\n")
}

/// One packet of 1230 B (1 µs of copy at 1230 MB/s): the receiver's CPU spends exactly the
/// interrupt (5 µs), the copy (1 µs) and the protocol work (15.7 − 5 − 8192/1230 µs); the
/// sender the copy and the protocol work (the run ends at the delivery, before the
/// acknowledgement is back).
#[test]
fn one_kernel_path_packet_costs_its_three_terms() {
    let r = pm_run(&nt(1230, ""));
    let cpu = &pm_tables(&r)["host_cpu"];
    let busy = |h: usize| Time::from_ns_f64(cpu[h]["cpu_busy_us"].as_f64().unwrap() * 1e3);
    let terms = HostCostConfig::default().nt_terms(1230);
    assert_eq!(busy(1), Time(5_000_000 + 1_000_000 + 4_039_837));
    assert_eq!(busy(1), terms.interrupt + terms.copy + terms.protocol);
    assert_eq!(busy(0), Time(1_000_000 + 4_039_837));
    // Twice the copy rate takes half a microsecond off each side, the copy's share.
    let r = pm_run(&nt(1230, "copy_mb_s = 2460.0"));
    let cpu = &pm_tables(&r)["host_cpu"];
    assert_eq!(Time::from_ns_f64(cpu[1]["cpu_busy_us"].as_f64().unwrap() * 1e3), Time(5_000_000 + 500_000 + 4_039_837));
}

/// The kernel path copies every packet: a receive path of PM-HXB's is refused naming the key;
/// `copy`, or nothing, is the same run.
#[test]
fn the_kernel_path_takes_no_zero_copy_receive_path() {
    let e = rdmasim_core::api::Simulation::from_toml(&nt(1230, "rx_path = \"premapped\""), "pm.toml").err().expect("refused").to_string();
    assert!(e.contains("host.rx_path") && e.contains("kernel path"), "{e}");
    let a = pm_tables(&pm_run(&nt(8192, "rx_path = \"copy\"")))["pm_summary"].clone();
    let b = pm_tables(&pm_run(&nt(8192, "")))["pm_summary"].clone();
    assert_eq!(a, b);
}
