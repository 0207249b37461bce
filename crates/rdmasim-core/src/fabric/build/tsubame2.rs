//! A TSUBAME2.0-like fabric: 1408 hosts on two independent rails, each rail a 2-level fat tree
//! of 36-port edge switches under director core switches, all 4x QDR.
//!
//! What the study says (seeds/004, Table 1 and §1; targets.md §E): 1408 compute nodes, dual-rail
//! 4x QDR (40 Gb/s x 2), two independent 2-level fat trees alike but for the I/O nodes, 14 or
//! 16 nodes per edge switch, and at least as many edge-to-core links as edge-to-node links
//! (full bisection). It names no switch model.
//!
//! From the public record, not the seed (ASSUMPTION where marked): the edge switches are
//! Voltaire Grid Director 4036 (36 ports) and the cores Grid Director 4700 (324 ports). The
//! record gives 12 Grid Director 4700 for the whole machine, which we read as 6 per rail
//! (ASSUMPTION): 12 per rail would be 3888 core ports for 1408 nodes, while 6 x 324 = 1944
//! ports already take 88 edges x 18 uplinks = 1584 links. I/O nodes are left out.
use super::back_to_back::default_cable_m;
use super::common::{add_rail_hca, add_switch, cable, check_length, port_count, qdr_4x, require, RailTopology};
use super::director::{add_director, check_director, default_chip_radix, default_internal_m};
use crate::fabric::graph::{FabricGraph, GraphError, LinkProps};
use crate::fabric::rate::LinkSpeed;
use crate::ids::HostId;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tsubame2 {
    /// Compute nodes. Source: seeds/004 Table 1 (1408, of which 1300 were used).
    #[serde(default = "default_hosts")]
    pub hosts: usize,
    /// Independent rails. Source: seeds/004 ("Dual Rail InfiniBand 4x QDR").
    #[serde(default = "default_rails")]
    pub rails: u16,
    /// Hosts per edge switch; the last edge takes the remainder. Source: seeds/004 Table 1
    /// says 14 or 16; 16 is used everywhere (ASSUMPTION: which racks had 14 is not given).
    #[serde(default = "default_hosts_per_edge")]
    pub hosts_per_edge: usize,
    /// Edge switch ports. ASSUMPTION (public record): Grid Director 4036, 36 ports.
    #[serde(default = "default_edge_radix")]
    pub edge_radix: u16,
    /// Director core switches per rail. ASSUMPTION: 12 Grid Director 4700 in all, 6 per rail.
    #[serde(default = "default_cores_per_rail")]
    pub cores_per_rail: usize,
    /// Links from each edge to each core. ASSUMPTION: 3, so 18 uplinks per edge >= 16 hosts
    /// (the study's full-bisection rule) and 16 + 18 = 34 of 36 ports used.
    #[serde(default = "default_links_per_core")]
    pub links_per_core: usize,
    /// External ports of a core director. ASSUMPTION (public record): 324 (Grid Director 4700).
    #[serde(default = "default_director_ports")]
    pub director_ports: u16,
    /// Chips inside the director: 36-port (InfiniScale IV, as the 4036 and 4700 use).
    #[serde(default = "default_chip_radix")]
    pub chip_radix: u16,
    /// Source: seeds/004 Table 1, 4x QDR.
    #[serde(default = "qdr_4x")]
    pub speed: LinkSpeed,
    /// Host-to-edge cables, metres. ASSUMPTION: 2 m copper within a rack.
    #[serde(default = "default_cable_m")]
    pub host_cable_m: f64,
    /// Edge-to-core cables, metres. ASSUMPTION: 20 m optical across the machine room (the
    /// cores stand in one room, half the racks in the next: mynavi's 2010 floor plan).
    #[serde(default = "default_core_cable_m")]
    pub core_cable_m: f64,
    /// Chip-to-chip links inside a director, metres. ASSUMPTION: 0.5 m.
    #[serde(default = "default_internal_m")]
    pub internal_m: f64,
}

fn default_hosts() -> usize {
    1408
}
fn default_rails() -> u16 {
    2
}
fn default_hosts_per_edge() -> usize {
    16
}
fn default_edge_radix() -> u16 {
    36
}
fn default_cores_per_rail() -> usize {
    6
}
fn default_links_per_core() -> usize {
    3
}
fn default_director_ports() -> u16 {
    324
}
fn default_core_cable_m() -> f64 {
    20.0
}

impl Default for Tsubame2 {
    fn default() -> Self {
        Tsubame2 {
            hosts: default_hosts(),
            rails: default_rails(),
            hosts_per_edge: default_hosts_per_edge(),
            edge_radix: default_edge_radix(),
            cores_per_rail: default_cores_per_rail(),
            links_per_core: default_links_per_core(),
            director_ports: default_director_ports(),
            chip_radix: default_chip_radix(),
            speed: qdr_4x(),
            host_cable_m: default_cable_m(),
            core_cable_m: default_core_cable_m(),
            internal_m: default_internal_m(),
        }
    }
}

impl Tsubame2 {
    pub fn edges_per_rail(&self) -> usize {
        self.hosts.div_ceil(self.hosts_per_edge.max(1))
    }

    fn check(&self) -> Result<(), GraphError> {
        require(self.hosts >= 1, "hosts", self.hosts, "at least 1")?;
        require(self.hosts_per_edge >= 1, "hosts_per_edge", self.hosts_per_edge, "at least 1")?;
        require(self.cores_per_rail >= 1, "cores_per_rail", self.cores_per_rail, "at least 1")?;
        require(self.links_per_core >= 1, "links_per_core", self.links_per_core, "at least 1")?;
        check_director(self.director_ports.into(), self.chip_radix)?;
        check_length("host_cable_m", self.host_cable_m)?;
        check_length("core_cable_m", self.core_cable_m)?;
        let edge_used = self.hosts_per_edge + self.cores_per_rail * self.links_per_core;
        require(edge_used <= usize::from(self.edge_radix), "edge_radix", self.edge_radix, format_args!("at least hosts_per_edge + cores_per_rail x links_per_core = {edge_used}"))?;
        let core_used = self.edges_per_rail() * self.links_per_core;
        require(core_used <= usize::from(self.director_ports), "director_ports", self.director_ports, format_args!("at least {} edges x {} links = {core_used}", self.edges_per_rail(), self.links_per_core))
    }
}

impl RailTopology for Tsubame2 {
    fn num_hosts(&self) -> Result<usize, GraphError> {
        self.check()?;
        Ok(self.hosts)
    }

    /// Edge e's uplink j goes to core j mod cores, landing on that director's external port
    /// e x links_per_core + j / cores: consecutive edges share a director leaf chip.
    fn attach(&self, g: &mut FabricGraph, hosts: &[HostId], rail: u16) -> Result<(), GraphError> {
        self.check()?;
        let edge_radix = port_count("edge_radix", self.edge_radix.into())?;
        let cores = (0..self.cores_per_rail)
            .map(|c| add_director(g, &format!("r{rail}-L2-core{c}"), self.director_ports.into(), self.chip_radix, self.speed, self.internal_m))
            .collect::<Result<Vec<_>, _>>()?;
        let host_props = LinkProps::new(self.speed, self.host_cable_m);
        let core_props = LinkProps::new(self.speed, self.core_cable_m);
        for (e, group) in hosts.chunks(self.hosts_per_edge).enumerate() {
            let edge = add_switch(g, format!("r{rail}-L1-s{e}"), edge_radix, self.speed)?;
            for (i, &h) in group.iter().enumerate() {
                let ca = add_rail_hca(g, h, rail, 1, self.speed)?;
                cable(g, ca, 1, edge, i as u16 + 1, host_props)?;
            }
            for j in 0..self.cores_per_rail * self.links_per_core {
                let core = &cores[j % self.cores_per_rail];
                let ext = e * self.links_per_core + j / self.cores_per_rail;
                let (leaf, port) = core.external_port(ext).ok_or_else(|| GraphError(format!("core director has no external port {ext}")))?;
                cable(g, edge, (self.hosts_per_edge + j + 1) as u16, leaf, port, core_props)?;
            }
        }
        Ok(())
    }
}

/// The TSUBAME2.0-like fabric with `t.rails` rails, LIDs assigned.
pub fn tsubame2(t: &Tsubame2) -> Result<FabricGraph, GraphError> {
    super::rails::rails(t, t.rails)
}
