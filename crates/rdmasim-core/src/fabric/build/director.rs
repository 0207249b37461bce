//! A director switch (a chassis such as Voltaire's Grid Director 4700, 324 or 648 ports) as
//! what is inside it: a 2-level Clos of 36-port switch chips. Each leaf chip gives half its
//! ports to the outside and half to the spine chips; each spine chip has one link to every
//! leaf. The chassis is then usable as the core of a fat tree (fabric/build/tsubame2.rs), and
//! routing sees its inside, as OpenSM does (each chip is a switch with its own LID and LFT).
//!
//! ASSUMPTION (layout): 324 external ports = 18 leaf chips x 18, 648 = 36 x 18; the spine
//! layer is radix/2 = 18 chips with one link to each leaf, which gives the chassis full
//! bisection (324 or 648 internal links). The real line cards and fabric boards may pair
//! chips differently; the path lengths (3 chips across the chassis) and the bisection match.
use super::back_to_back::default_cable_m;
use super::common::{add_rail_hca, add_switch, cable, check_length, qdr_4x, require, RailTopology};
use crate::fabric::graph::{FabricGraph, GraphError, LinkProps};
use crate::fabric::rate::LinkSpeed;
use crate::ids::{HostId, NodeId};
use serde::{Deserialize, Serialize};

/// A chassis's chips in a graph.
#[derive(Clone, Debug)]
pub struct DirectorChips {
    pub leaves: Vec<NodeId>,
    pub spines: Vec<NodeId>,
    /// External ports per leaf chip (ports 1..=this of each leaf).
    pub external_per_leaf: u16,
}

impl DirectorChips {
    /// The chip and port behind the chassis's external port `i` (0-based, leaf by leaf).
    pub fn external_port(&self, i: usize) -> Option<(NodeId, u16)> {
        let per = usize::from(self.external_per_leaf);
        let leaf = *self.leaves.get(i / per)?;
        Some((leaf, (i % per) as u16 + 1))
    }
    pub fn external_ports(&self) -> usize {
        self.leaves.len() * usize::from(self.external_per_leaf)
    }
}

/// Checks a chassis's size: `ports` a multiple of half the chip radix, and at most as many
/// leaves as a spine chip has ports.
pub fn check_director(ports: usize, chip_radix: u16) -> Result<(), GraphError> {
    require(chip_radix >= 2 && chip_radix.is_multiple_of(2), "chip_radix", chip_radix, "an even number >= 2")?;
    let half = usize::from(chip_radix / 2);
    require(ports >= half && ports.is_multiple_of(half), "ports", ports, format_args!("a multiple of {half} (half a {chip_radix}-port chip faces out)"))?;
    let leaves = ports / half;
    require(leaves <= usize::from(chip_radix), "ports", ports, format_args!("at most {} ({chip_radix} leaves of {half}: a spine chip links to every leaf)", usize::from(chip_radix) * half))
}

/// Adds a chassis of `ports` external ports named `name` (chips `"{name}-leaf3"`,
/// `"{name}-spine7"`), its internal links `internal_m` long.
pub fn add_director(g: &mut FabricGraph, name: &str, ports: usize, chip_radix: u16, speed: LinkSpeed, internal_m: f64) -> Result<DirectorChips, GraphError> {
    check_director(ports, chip_radix)?;
    check_length("internal_m", internal_m)?;
    let half = chip_radix / 2;
    let num_leaves = ports / usize::from(half);
    let leaves = (0..num_leaves).map(|l| add_switch(g, format!("{name}-leaf{l}"), chip_radix, speed)).collect::<Result<Vec<_>, _>>()?;
    let spines = (0..half).map(|s| add_switch(g, format!("{name}-spine{s}"), chip_radix, speed)).collect::<Result<Vec<_>, _>>()?;
    let props = LinkProps::new(speed, internal_m);
    for (l, &leaf) in leaves.iter().enumerate() {
        for (s, &spine) in spines.iter().enumerate() {
            cable(g, leaf, half + s as u16 + 1, spine, l as u16 + 1, props)?;
        }
    }
    Ok(DirectorChips { leaves, spines, external_per_leaf: half })
}

/// One director with a host on every external port.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Director {
    /// External ports (Grid Director 4700: 324; the 648-port chassis: 648).
    #[serde(default = "default_ports")]
    pub ports: u16,
    /// Ports of the switch chips inside (36: Mellanox InfiniScale IV, as in the 4700).
    #[serde(default = "default_chip_radix")]
    pub chip_radix: u16,
    #[serde(default = "qdr_4x")]
    pub speed: LinkSpeed,
    /// Host cables, metres.
    #[serde(default = "default_cable_m")]
    pub cable_m: f64,
    /// Chip-to-chip links inside the chassis, metres (ASSUMPTION: 0.5 m of backplane trace).
    #[serde(default = "default_internal_m")]
    pub internal_m: f64,
}

fn default_ports() -> u16 {
    324
}
pub(crate) fn default_chip_radix() -> u16 {
    36
}
pub(crate) fn default_internal_m() -> f64 {
    0.5
}

impl Default for Director {
    fn default() -> Self {
        Director { ports: default_ports(), chip_radix: default_chip_radix(), speed: qdr_4x(), cable_m: default_cable_m(), internal_m: default_internal_m() }
    }
}

impl RailTopology for Director {
    fn num_hosts(&self) -> Result<usize, GraphError> {
        check_director(self.ports.into(), self.chip_radix)?;
        Ok(self.ports.into())
    }
    fn attach(&self, g: &mut FabricGraph, hosts: &[HostId], rail: u16) -> Result<(), GraphError> {
        check_length("cable_m", self.cable_m)?;
        let chips = add_director(g, &format!("r{rail}-dir0"), self.ports.into(), self.chip_radix, self.speed, self.internal_m)?;
        require(hosts.len() <= chips.external_ports(), "hosts", hosts.len(), format_args!("at most {} external ports", chips.external_ports()))?;
        let props = LinkProps::new(self.speed, self.cable_m);
        for (i, &h) in hosts.iter().enumerate() {
            let ca = add_rail_hca(g, h, rail, 1, self.speed)?;
            let (leaf, port) = chips.external_port(i).ok_or_else(|| GraphError(format!("director has no external port {i}")))?;
            cable(g, ca, 1, leaf, port, props)?;
        }
        Ok(())
    }
}
