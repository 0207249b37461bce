//! Extended generalized fat trees, XGFT(h; m1..mh; w1..wh) (Öhring, Ibel, Das, Kumar 1995):
//! hosts are level 0; a node of level i has m_i children and w_{i+1} parents. They cover the
//! k-ary n-trees (m_i = k, w_1 = 1, w_i = k), oversubscribed trees (w_{i+1} < m_i), and the
//! 3-level fat tree htsim's `FatTree` builds ([`FatTree::k`]).
//!
//! Labels: a level-l node is the digit string (a_h..a_{l+1}, b_l..b_1), a_j < m_j, b_j < w_j.
//! A level-(l-1) node and a level-l node are cabled when their labels agree on every position
//! but l (the child's a_l, the parent's b_l). Nodes of a level are numbered by their label read
//! as a mixed-radix number, a_h most significant, so the hosts under one edge switch are
//! consecutive. Switch ports: children first (port a_l + 1), then parents (m_l + b_{l+1} + 1).
use super::back_to_back::default_cable_m;
use super::common::{add_rail_hca, add_switch, cable, check_length, port_count, qdr_4x, require, RailTopology};
use crate::fabric::graph::{FabricGraph, GraphError, LinkProps};
use crate::fabric::rate::LinkSpeed;
use crate::ids::{HostId, NodeId};
use serde::{Deserialize, Serialize};

/// Largest node count per level accepted, so a typo cannot ask for 10^12 switches.
const MAX_LEVEL_NODES: usize = 1 << 20;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Xgft {
    /// Children per node, level 1 (edge) first.
    pub m: Vec<u16>,
    /// Parents per node, level 0 (hosts: ports per HCA) first.
    pub w: Vec<u16>,
    /// Ports of every switch; default: the ports each level uses (m_l + w_{l+1}).
    #[serde(default)]
    pub radix: Option<u16>,
    #[serde(default = "qdr_4x")]
    pub speed: LinkSpeed,
    #[serde(default = "default_cable_m")]
    pub cable_m: f64,
}

/// A k-ary n-tree: k^n hosts, n levels of k^(n-1) switches of 2k ports (k at the top).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KAryNTree {
    pub k: u16,
    pub n: u16,
    #[serde(default = "qdr_4x")]
    pub speed: LinkSpeed,
    #[serde(default = "default_cable_m")]
    pub cable_m: f64,
}

/// The 3-level fat tree of k-port switches as htsim's `FatTree` builds it: k pods of k/2 edge
/// and k/2 aggregation switches, (k/2)^2 cores, k^3/4 hosts. It is XGFT(3; k/2, k/2, k; 1, k/2, k/2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTree {
    pub k: u16,
    #[serde(default = "qdr_4x")]
    pub speed: LinkSpeed,
    #[serde(default = "default_cable_m")]
    pub cable_m: f64,
}

impl KAryNTree {
    pub fn to_xgft(&self) -> Result<Xgft, GraphError> {
        require(self.k >= 1, "k", self.k, "at least 1")?;
        require(self.n >= 1, "n", self.n, "at least 1 level")?;
        let n = usize::from(self.n);
        let w = (0..n).map(|l| if l == 0 { 1 } else { self.k }).collect();
        Ok(Xgft { m: vec![self.k; n], w, radix: None, speed: self.speed, cable_m: self.cable_m })
    }
}

impl FatTree {
    pub fn to_xgft(&self) -> Result<Xgft, GraphError> {
        require(self.k >= 2 && self.k.is_multiple_of(2), "k", self.k, "an even number >= 2")?;
        let half = self.k / 2;
        Ok(Xgft { m: vec![half, half, self.k], w: vec![1, half, half], radix: None, speed: self.speed, cable_m: self.cable_m })
    }
}

impl Xgft {
    fn height(&self) -> usize {
        self.m.len()
    }

    /// The radix of label position `pos` (1-based) in a level-`level` label.
    fn digit_radix(&self, level: usize, pos: usize) -> usize {
        usize::from(if pos > level { self.m[pos - 1] } else { self.w[pos - 1] })
    }

    /// Nodes at `level` (0 = hosts): the product of its label's digit radices.
    pub fn level_size(&self, level: usize) -> usize {
        (1..=self.height()).map(|pos| self.digit_radix(level, pos)).product()
    }

    /// Ports a switch of `level` uses: m_l children and w_{l+1} parents.
    fn used_ports(&self, level: usize) -> usize {
        let up = if level < self.height() { usize::from(self.w[level]) } else { 0 };
        usize::from(self.m[level - 1]) + up
    }

    fn decode(&self, level: usize, mut index: usize, digits: &mut [usize]) {
        for (i, d) in digits.iter_mut().enumerate() {
            let r = self.digit_radix(level, i + 1);
            *d = index % r;
            index /= r;
        }
    }

    fn encode(&self, level: usize, digits: &[usize]) -> usize {
        digits.iter().enumerate().rev().fold(0, |acc, (i, &d)| acc * self.digit_radix(level, i + 1) + d)
    }

    fn check(&self) -> Result<(), GraphError> {
        require(!self.m.is_empty(), "m", "[]", "at least one level")?;
        require(self.m.len() == self.w.len(), "w", format_args!("{:?}", self.w), format_args!("{} entries, one per level like m", self.m.len()))?;
        require(self.m.iter().all(|&x| x >= 1), "m", format_args!("{:?}", self.m), "every entry >= 1")?;
        require(self.w.iter().all(|&x| x >= 1), "w", format_args!("{:?}", self.w), "every entry >= 1")?;
        check_length("cable_m", self.cable_m)?;
        for level in 0..=self.height() {
            // Checked, so a huge tree is an error and not an overflow.
            let mut n: usize = 1;
            for pos in 1..=self.height() {
                n = n
                    .checked_mul(self.digit_radix(level, pos)).filter(|&n| n <= MAX_LEVEL_NODES).ok_or_else(|| {
                    GraphError(format!("m = {:?}, w = {:?}: level {level} would have more than {MAX_LEVEL_NODES} nodes", self.m, self.w))
                })?;
            }
        }
        port_count("w[0] (ports per HCA)", self.w[0].into())?;
        for level in 1..=self.height() {
            let used = self.used_ports(level);
            port_count(&format!("m[{}] + w[{}] (ports of a level-{level} switch)", level - 1, level), used)?;
            if let Some(r) = self.radix {
                require(usize::from(r) >= used, "radix", r, format_args!("at least {used}, the ports a level-{level} switch uses"))?;
            }
        }
        Ok(())
    }
}

impl RailTopology for Xgft {
    fn num_hosts(&self) -> Result<usize, GraphError> {
        self.check()?;
        Ok(self.level_size(0))
    }

    fn attach(&self, g: &mut FabricGraph, hosts: &[HostId], rail: u16) -> Result<(), GraphError> {
        self.check()?;
        let h = self.height();
        require(hosts.len() == self.level_size(0), "hosts", hosts.len(), format_args!("{} (the tree's leaves)", self.level_size(0)))?;
        let props = LinkProps::new(self.speed, self.cable_m);
        // levels[l][i]: node i of level l (level 0: the hosts' HCAs for this rail).
        let mut levels: Vec<Vec<NodeId>> = Vec::with_capacity(h + 1);
        let hcas = hosts.iter().map(|&host| add_rail_hca(g, host, rail, self.w[0], self.speed)).collect::<Result<Vec<_>, _>>()?;
        levels.push(hcas);
        for level in 1..=h {
            let radix = match self.radix {
                Some(r) => r,
                None => port_count("radix", self.used_ports(level))?,
            };
            let nodes = (0..self.level_size(level)).map(|i| add_switch(g, format!("r{rail}-L{level}-s{i}"), radix, self.speed)).collect::<Result<Vec<_>, _>>()?;
            levels.push(nodes);
        }
        let mut digits = vec![0usize; h];
        for level in 1..=h {
            let child_down_ports = if level == 1 { 0 } else { usize::from(self.m[level - 2]) };
            for child in 0..self.level_size(level - 1) {
                self.decode(level - 1, child, &mut digits);
                let a = digits[level - 1];
                for b in 0..usize::from(self.w[level - 1]) {
                    digits[level - 1] = b;
                    let parent = self.encode(level, &digits);
                    let child_port = (child_down_ports + b + 1) as u16;
                    cable(g, levels[level - 1][child], child_port, levels[level][parent], a as u16 + 1, props)?;
                }
            }
        }
        Ok(())
    }
}

/// The general XGFT(h; m; w), one rail, LIDs assigned.
pub fn xgft(m: &[u16], w: &[u16], speed: LinkSpeed, cable_m: f64) -> Result<FabricGraph, GraphError> {
    super::rails::single_rail(&Xgft { m: m.to_vec(), w: w.to_vec(), radix: None, speed, cable_m })
}

/// A k-ary n-tree, one rail, LIDs assigned.
pub fn k_ary_n_tree(k: u16, n: u16, speed: LinkSpeed, cable_m: f64) -> Result<FabricGraph, GraphError> {
    super::rails::single_rail(&KAryNTree { k, n, speed, cable_m }.to_xgft()?)
}

/// htsim's 3-level `FatTree` of k-port switches (k = 16: 1024 hosts, 320 switches), LIDs assigned.
pub fn fat_tree_k(k: u16, speed: LinkSpeed, cable_m: f64) -> Result<FabricGraph, GraphError> {
    super::rails::single_rail(&FatTree { k, speed, cable_m }.to_xgft()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip_and_levels_have_the_xgft_sizes() {
        let t = FatTree { k: 8, speed: qdr_4x(), cable_m: 1.0 }.to_xgft().unwrap();
        assert_eq!((0..=3).map(|l| t.level_size(l)).collect::<Vec<_>>(), [128, 32, 32, 16]);
        let mut digits = vec![0; 3];
        for level in 0..=3 {
            for i in 0..t.level_size(level) {
                t.decode(level, i, &mut digits);
                assert_eq!(t.encode(level, &digits), i);
            }
        }
        assert_eq!([1, 2, 3].map(|l| t.used_ports(l)), [8, 8, 8]);
    }

    #[test]
    fn an_aggregation_switch_reaches_its_own_core_group() {
        // k = 4: aggregation switch j of a pod links to the cores with b_2 = j, here cores j
        // and j + k/2 (htsim numbers the group j k/2 .. j k/2 + k/2 - 1: the same graph, the
        // cores renumbered).
        let g = fat_tree_k(4, qdr_4x(), 1.0).unwrap();
        let name = |p: crate::ids::PortId| g.nodes[g.ports[g.peer(p).unwrap()].node].name.clone();
        let agg = g.nodes.iter().find(|n| n.name == "r0-L2-s1").unwrap();
        let ups: Vec<String> = (3..=4).map(|p| name(agg.port(p).unwrap())).collect();
        assert_eq!(ups, ["r0-L3-s1", "r0-L3-s3"]);
        let downs: Vec<String> = (1..=2).map(|p| name(agg.port(p).unwrap())).collect();
        assert_eq!(downs, ["r0-L1-s0", "r0-L1-s1"], "pod 0's edges");
    }
}
