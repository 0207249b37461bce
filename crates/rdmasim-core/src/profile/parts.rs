//! Which part of the hardware each profile parameter belongs to. A named profile (cx3-fdr, …)
//! describes a whole machine generation; in a fabric the parts attach to different nodes: the
//! NIC's to each HCA, the host's to each host's CPU, the link's to each cable (where a topology
//! does not give the cable its own width and speed), the switch's to each switch. A scenario's
//! `[[hardware.hosts]]` gives some hosts another profile: their NIC and host parts, and the
//! speed their cables train to (the slower of the two ends).
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Nic,
    Link,
    Switch,
    Host,
}

const LINK: &[&str] = &["link_gen", "link_width", "mtu", "cable_ns_per_m", "vl_buffer_bytes"];
const SWITCH: &[&str] = &["switch_latency_ns"];
const HOST: &[&str] = &[
    "perftest_mtu",
    "post_send_cpu_ns",
    "poll_cq_ns",
    "interrupt_ns",
    "wakeup_ns",
    "event_cpu_ns",
    "srq_arm_ns",
    "srq_recv_wqe_ns",
    "srq_poll_detect_ns",
    "cpu_idle",
    "os_tick_hz",
    "os_tick_detour_min_ns",
    "os_tick_detour_max_ns",
    "os_tick_entry_exit_ns",
    "mr_register_us",
    "mr_pin_page_us",
];

/// The part `param` belongs to; every other parameter is the NIC's.
pub fn part_of(param: &str) -> Part {
    if LINK.contains(&param) {
        Part::Link
    } else if SWITCH.contains(&param) {
        Part::Switch
    } else if HOST.contains(&param) {
        Part::Host
    } else {
        Part::Nic
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::HwProfile;

    /// Every name in the lists is a parameter (a renamed one would silently become the NIC's).
    #[test]
    fn the_part_lists_name_real_parameters() {
        for p in LINK.iter().chain(SWITCH).chain(HOST) {
            assert!(HwProfile::PARAMETER_NAMES.contains(p), "{p} is not a profile parameter");
        }
        assert_eq!(part_of("tx_packet_ns"), Part::Nic);
        assert_eq!(part_of("poll_cq_ns"), Part::Host);
    }
}
