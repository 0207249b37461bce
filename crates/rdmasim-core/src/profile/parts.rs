//! Which part of the hardware a profile parameter belongs to. A named profile (cx3-fdr, …)
//! describes a whole machine generation; in a fabric the parts attach to different nodes: the
//! NIC's to each HCA, the host's to each host's CPU, the link's to each cable (where a topology
//! does not give the cable its own width and speed), the switch's to each switch. A scenario's
//! `[[hardware.hosts]]` gives some hosts another profile: their NIC and host parts, and the
//! speed their cables train to (the slower of the two ends).
//!
//! A parameter's part is the type it is declared in (profile/params.rs: `NicParams`, …), so
//! code that serves one node takes that part alone.
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Nic,
    Link,
    Switch,
    Host,
}

/// A part's parameter struct knows which part it is.
pub trait ProfilePart {
    const PART: Part;

    /// [`Self::PART`], for a value whose type a macro does not name.
    fn part(&self) -> Part {
        Self::PART
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{HostParams, HwProfile, LinkParams, NicParams, SwitchParams};

    /// Every parameter is in exactly one part, and the parts hold nothing else.
    #[test]
    fn the_parts_divide_the_parameters() {
        let mut all: Vec<&str> = [NicParams::NAMES, LinkParams::NAMES, SwitchParams::NAMES, HostParams::NAMES].concat();
        all.sort_unstable();
        let mut names = HwProfile::PARAMETER_NAMES.to_vec();
        names.sort_unstable();
        assert_eq!(all, names);
    }

    #[test]
    fn a_row_names_the_part_of_its_type() {
        let (p, s) = crate::profile::by_name("cx4-edr").unwrap();
        let part = |name: &str| p.table(&s, &[]).into_iter().find(|r| r.parameter == name).unwrap().part;
        assert_eq!(part("tx_packet_ns"), Part::Nic);
        assert_eq!(part("poll_cq_ns"), Part::Host);
        assert_eq!(part("mtu"), Part::Link);
        assert_eq!(part("switch_latency_ns"), Part::Switch);
    }
}
