//! The 3-D hyper-crossbar (HXB) of CP-PACS and PACS-CS: hosts at the points of an X x Y x Z
//! grid, one crossbar switch per row of each dimension (a switch for every (y, z) joining all
//! x, one for every (x, z) joining all y, one for every (x, y) joining all z), and each host
//! with one HCA per dimension (`hcas[0]` on its X row, `hcas[1]` Y, `hcas[2]` Z). A row's
//! switch reaches only its own row: crossing dimensions relays through a host, X then Y then Z
//! (seeds/003, "X軸→Y軸→Z軸の順に転送軸の順序を固定", "中継ノード"); see fabric/routing/dor.rs.
//!
//! `links_per_dim` > 1 trunks: each dimension's HCA gets that many ports, all cabled to its
//! row's switch (PACS-CS ran 2 GbE links per dimension, 6 in all: seeds/003 "GigaE x 6").
//! Host (x, y, z) is host x + X (y + Y z).
use super::back_to_back::default_cable_m;
use super::common::{add_hosts, add_rail_hca, add_switch, assign_lids_hosts_first, cable, check_length, port_count, qdr_4x, require};
use crate::fabric::graph::{FabricGraph, GraphError, LinkProps};
use crate::fabric::rate::LinkSpeed;
use crate::ids::HostId;
use serde::{Deserialize, Serialize};

/// Dimension names, for switch names.
const DIM_NAMES: [char; 3] = ['X', 'Y', 'Z'];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HyperX {
    /// Hosts per dimension, [X, Y, Z]. PACS-CS: [16, 16, 10] (2560 nodes).
    #[serde(default = "default_dims")]
    pub dims: [u16; 3],
    /// Links (HCA ports) per host per dimension.
    #[serde(default = "default_links_per_dim")]
    pub links_per_dim: u16,
    #[serde(default = "qdr_4x")]
    pub speed: LinkSpeed,
    #[serde(default = "default_cable_m")]
    pub cable_m: f64,
}

fn default_dims() -> [u16; 3] {
    [4, 4, 4]
}
fn default_links_per_dim() -> u16 {
    1
}

impl Default for HyperX {
    fn default() -> Self {
        HyperX { dims: default_dims(), links_per_dim: default_links_per_dim(), speed: qdr_4x(), cable_m: default_cable_m() }
    }
}

/// A host's grid coordinates.
pub fn coords(dims: [u16; 3], h: HostId) -> [u16; 3] {
    let [x, y, _] = dims.map(u32::from);
    let i = h.0;
    [(i % x) as u16, (i / x % y) as u16, (i / (x * y)) as u16]
}

/// The host at grid coordinates `c`.
pub fn host_at(dims: [u16; 3], c: [u16; 3]) -> HostId {
    let [x, y, _] = dims.map(u32::from);
    let [cx, cy, cz] = c.map(u32::from);
    HostId(cx + x * (cy + y * cz))
}

impl HyperX {
    pub fn num_hosts(&self) -> usize {
        self.dims.iter().map(|&d| usize::from(d)).product()
    }
    /// Crossbar switches: one per row of each dimension.
    pub fn num_switches(&self) -> usize {
        (0..3).map(|d| self.num_hosts() / usize::from(self.dims[d])).sum()
    }

    fn check(&self) -> Result<(), GraphError> {
        for (d, &n) in self.dims.iter().enumerate() {
            require(n >= 2, &format!("dims[{d}]"), n, "at least 2 hosts per dimension")?;
        }
        require(self.links_per_dim >= 1, "links_per_dim", self.links_per_dim, "at least 1")?;
        port_count("links_per_dim (ports per HCA)", self.links_per_dim.into())?;
        for (d, &n) in self.dims.iter().enumerate() {
            port_count(&format!("dims[{d}] x links_per_dim (ports of a {} crossbar)", DIM_NAMES[d]), usize::from(n) * usize::from(self.links_per_dim))?;
        }
        check_length("cable_m", self.cable_m)
    }
}

/// Builds the hyper-crossbar, LIDs assigned (the X HCAs' ports first, then Y, then Z, then
/// the switches).
pub fn hyperx(spec: &HyperX) -> Result<FabricGraph, GraphError> {
    spec.check()?;
    let mut g = FabricGraph::new();
    let hosts = add_hosts(&mut g, spec.num_hosts());
    let lpd = spec.links_per_dim;
    let props = LinkProps::new(spec.speed, spec.cable_m);
    for (d, dim_name) in DIM_NAMES.iter().enumerate() {
        let hcas = hosts.iter().map(|&h| add_rail_hca(&mut g, h, d as u16, lpd, spec.speed)).collect::<Result<Vec<_>, _>>()?;
        // The other two dimensions, in order, index the rows of dimension d.
        let [o1, o2] = match d {
            0 => [1, 2],
            1 => [0, 2],
            _ => [0, 1],
        };
        let radix = port_count("crossbar radix", usize::from(spec.dims[d]) * usize::from(lpd))?;
        for j in 0..spec.dims[o2] {
            for i in 0..spec.dims[o1] {
                let name = format!("hxb-{dim_name}-{}{i}-{}{j}", DIM_NAMES[o1].to_ascii_lowercase(), DIM_NAMES[o2].to_ascii_lowercase());
                let sw = add_switch(&mut g, name, radix, spec.speed)?;
                for k in 0..spec.dims[d] {
                    let mut c = [0u16; 3];
                    c[d] = k;
                    c[o1] = i;
                    c[o2] = j;
                    let ca = hcas[host_at(spec.dims, c).idx()];
                    for p in 1..=lpd {
                        cable(&mut g, ca, p, sw, k * lpd + p, props)?;
                    }
                }
            }
        }
    }
    assign_lids_hosts_first(&mut g)?;
    Ok(g)
}
