//! N hosts on one switch: the engine's `single-switch` topology as a graph. Host h is cabled to
//! switch port h + 1, host h's HCA port gets LID h + 1 and the switch LID hosts + 1, exactly as
//! fabric/topology.rs builds it (its results must not change when it starts from this graph).
use super::back_to_back::default_cable_m;
use super::common::{add_rail_hca, add_switch, cable, check_length, port_count, qdr_4x, require, RailTopology};
use crate::fabric::graph::{FabricGraph, GraphError, LinkProps};
use crate::fabric::rate::LinkSpeed;
use crate::ids::HostId;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SingleSwitch {
    #[serde(default = "default_hosts")]
    pub hosts: usize,
    /// Switch ports; default: as many as hosts (the ports it uses).
    #[serde(default)]
    pub radix: Option<u16>,
    #[serde(default = "qdr_4x")]
    pub speed: LinkSpeed,
    #[serde(default = "default_cable_m")]
    pub cable_m: f64,
}

fn default_hosts() -> usize {
    2
}

impl Default for SingleSwitch {
    fn default() -> Self {
        SingleSwitch { hosts: default_hosts(), radix: None, speed: qdr_4x(), cable_m: default_cable_m() }
    }
}

impl RailTopology for SingleSwitch {
    fn num_hosts(&self) -> Result<usize, GraphError> {
        require(self.hosts >= 1, "hosts", self.hosts, "at least 1")?;
        Ok(self.hosts)
    }
    fn attach(&self, g: &mut FabricGraph, hosts: &[HostId], rail: u16) -> Result<(), GraphError> {
        check_length("cable_m", self.cable_m)?;
        let used = port_count("hosts (the switch's ports)", hosts.len())?;
        let radix = self.radix.unwrap_or(used);
        require(radix >= used, "radix", radix, format_args!("at least {used} (one port per host)"))?;
        let sw = add_switch(g, format!("r{rail}-L1-s0"), port_count("radix", radix.into())?, self.speed)?;
        let props = LinkProps::new(self.speed, self.cable_m);
        for (i, &h) in hosts.iter().enumerate() {
            let ca = add_rail_hca(g, h, rail, 1, self.speed)?;
            cable(g, ca, 1, sw, i as u16 + 1, props)?;
        }
        Ok(())
    }
}

/// `hosts` hosts on one switch of `radix` ports (None: as many as hosts).
pub fn single_switch(hosts: usize, radix: Option<u16>, speed: LinkSpeed, cable_m: f64) -> Result<FabricGraph, GraphError> {
    super::rails::single_rail(&SingleSwitch { hosts, radix, speed, cable_m })
}
