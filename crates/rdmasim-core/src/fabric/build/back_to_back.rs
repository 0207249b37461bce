//! Two hosts, HCA port to HCA port: the engine's `back-to-back` topology as a graph. Host i's
//! HCA port gets LID i + 1, as the engine assumes.
use super::common::{add_rail_hca, cable, check_length, qdr_4x, require, RailTopology};
use crate::fabric::graph::{FabricGraph, GraphError, LinkProps};
use crate::fabric::rate::LinkSpeed;
use crate::ids::HostId;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackToBack {
    #[serde(default = "qdr_4x")]
    pub speed: LinkSpeed,
    /// Cable length, metres (default 2 m, the engine's default).
    #[serde(default = "default_cable_m")]
    pub cable_m: f64,
}

pub(crate) fn default_cable_m() -> f64 {
    2.0
}

impl Default for BackToBack {
    fn default() -> Self {
        BackToBack { speed: qdr_4x(), cable_m: default_cable_m() }
    }
}

impl RailTopology for BackToBack {
    fn num_hosts(&self) -> Result<usize, GraphError> {
        Ok(2)
    }
    fn attach(&self, g: &mut FabricGraph, hosts: &[HostId], rail: u16) -> Result<(), GraphError> {
        require(hosts.len() == 2, "hosts", hosts.len(), "exactly 2 for back-to-back")?;
        check_length("cable_m", self.cable_m)?;
        let a = add_rail_hca(g, hosts[0], rail, 1, self.speed)?;
        let b = add_rail_hca(g, hosts[1], rail, 1, self.speed)?;
        cable(g, a, 1, b, 1, LinkProps::new(self.speed, self.cable_m))?;
        Ok(())
    }
}

/// Two hosts cabled HCA to HCA.
pub fn back_to_back(speed: LinkSpeed, cable_m: f64) -> Result<FabricGraph, GraphError> {
    super::rails::single_rail(&BackToBack { speed, cable_m })
}
