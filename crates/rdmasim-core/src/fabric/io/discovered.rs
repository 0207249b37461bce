//! What a topology file says, before it is a graph: nodes, and for each cabled port what it
//! says it is cabled to. Every topology format fills a [`Discovered`] and [`Discovered::build`]
//! makes the [`FabricGraph`], checking what the formats share: both ends of a cable name each
//! other, a port is listed once, GUIDs and LIDs are unique. An error names the line of each
//! side, since either may be the wrong one.
use super::IoError;
use crate::fabric::graph::{FabricGraph, LinkProps, LinkState, NodeKind, MAX_PORTS, NO_LID};
use crate::fabric::rate::{LinkGen, LinkSpeed};
use crate::ids::{HostId, NodeId};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeType {
    Switch,
    Ca,
}

#[derive(Clone, Debug)]
pub struct NodeRec {
    pub kind: NodeType,
    /// Node description: the graph's node name.
    pub name: String,
    pub guid: u64,
    pub num_ports: u16,
    /// A switch's LID (port 0).
    pub lid: u16,
    /// CA port LIDs, with the line that gave each.
    pub port_lids: BTreeMap<u16, (u16, usize)>,
    /// Port GUIDs the file gives (others follow graph.rs's numbering).
    pub port_guids: BTreeMap<u16, u64>,
    /// The line that defines the node.
    pub line: usize,
}

impl NodeRec {
    pub fn new(kind: NodeType, name: String, guid: u64, num_ports: u16, line: usize) -> NodeRec {
        NodeRec { kind, name, guid, num_ports, lid: NO_LID, port_lids: BTreeMap::new(), port_guids: BTreeMap::new(), line }
    }
}

/// What a port's line says about its link's width and speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpeedClaim {
    /// The link trained to this (ibnetdiscover, subnet.lst): both ends must say the same.
    Active(LinkSpeed),
    /// The port may train to these (ibsim's enabled masks): the link takes the best both allow.
    Enabled(Enabled),
}

/// Enabled widths and speeds as PortInfo bitmasks, as ibsim keeps them per port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enabled {
    /// LinkWidthEnabled: 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x.
    pub width: u8,
    /// LinkSpeedEnabled: 1 = SDR, 2 = DDR, 4 = QDR.
    pub speed: u8,
    /// LinkSpeedExtEnabled: 1 = FDR, 2 = EDR, 4 = HDR, 8 = NDR.
    pub ext: u8,
    /// Mellanox FDR10.
    pub fdr10: bool,
}

impl Enabled {
    /// The link two ports train to: the widest and fastest both enable (ibsim's rule:
    /// extended speeds first, then FDR10, then SDR/DDR/QDR).
    pub fn common(self, other: Enabled) -> Result<LinkSpeed, String> {
        let w = self.width & other.width;
        let width = [(8u8, 12u8), (4, 8), (2, 4), (16, 2), (1, 1)].iter().find(|(bit, _)| w & bit != 0).map(|p| p.1);
        let Some(width) = width else {
            return Err(format!("no common enabled width (masks {} and {})", self.width, other.width));
        };
        let ext = self.ext & other.ext;
        let s = self.speed & other.speed;
        let gen = if ext & 8 != 0 {
            return Err("NDR is not modelled (expected at most HDR)".into());
        } else if ext & 4 != 0 {
            LinkGen::Hdr
        } else if ext & 2 != 0 {
            LinkGen::Edr
        } else if ext & 1 != 0 {
            LinkGen::Fdr
        } else if self.fdr10 && other.fdr10 {
            LinkGen::Fdr10
        } else if s & 4 != 0 {
            LinkGen::Qdr
        } else if s & 2 != 0 {
            LinkGen::Ddr
        } else if s & 1 != 0 {
            LinkGen::Sdr
        } else {
            return Err(format!("no common enabled speed (masks {} and {})", self.speed, other.speed));
        };
        Ok(LinkSpeed { gen, width })
    }
}

/// One port's line: "port `port` of node `node` is cabled to `peer_key`[`peer_port`]".
#[derive(Clone, Debug)]
pub struct Cable {
    pub node: usize,
    pub port: u16,
    /// The peer as the format names it; resolved through [`Discovered::keys`].
    pub peer_key: String,
    pub peer_port: u16,
    pub speed: SpeedClaim,
    pub up: bool,
    pub line: usize,
}

#[derive(Clone, Debug)]
pub struct Discovered {
    pub source: String,
    pub nodes: Vec<NodeRec>,
    /// How the format's references name nodes (an ibsim id, a GUID, a description).
    pub keys: HashMap<String, usize>,
    pub cables: Vec<Cable>,
    /// The supported speed of a node with no link (nothing in the file says otherwise).
    pub default_speed: LinkSpeed,
}

/// The host an HCA belongs to, from its description: "hostname HCA-1" or "hostname mlx4_0"
/// (what the kernel and OFED set by default) belong to host "hostname".
pub fn host_name(description: &str) -> &str {
    description.split_whitespace().next().unwrap_or(description)
}

impl Discovered {
    pub fn new(source: &str, default_speed: LinkSpeed) -> Discovered {
        Discovered { source: source.to_string(), nodes: Vec::new(), keys: HashMap::new(), cables: Vec::new(), default_speed }
    }

    fn err(&self, line: usize, msg: impl Into<String>) -> IoError {
        IoError::at(&self.source, line, msg)
    }

    fn port_label(&self, node: usize, port: u16) -> String {
        format!("{:?}[{port}]", self.nodes[node].name)
    }

    /// Pairs the two sides of every cable: (first side's cable index, second side's, speed, up).
    fn pair_cables(&self) -> Result<Vec<(usize, usize, LinkSpeed, bool)>, IoError> {
        let mut by_port: HashMap<(usize, u16), usize> = HashMap::new();
        for (i, c) in self.cables.iter().enumerate() {
            let n = &self.nodes[c.node];
            if c.port == 0 || c.port > n.num_ports {
                return Err(self.err(c.line, format!("port {} of {:?}, which has ports 1..={} (expected a port of the node)", c.port, n.name, n.num_ports)));
            }
            if let Some(&prev) = by_port.get(&(c.node, c.port)) {
                return Err(self.err(c.line, format!("{} is listed twice (also at line {}; expected one line per port)", self.port_label(c.node, c.port), self.cables[prev].line)));
            }
            by_port.insert((c.node, c.port), i);
        }
        let mut pairs = Vec::new();
        let mut done = vec![false; self.cables.len()];
        for (i, c) in self.cables.iter().enumerate() {
            if done[i] {
                continue;
            }
            let here = self.port_label(c.node, c.port);
            let Some(&peer) = self.keys.get(&c.peer_key) else {
                return Err(self.err(c.line, format!("{here} is cabled to {:?}, which the file does not define (expected a node of that name)", c.peer_key)));
            };
            let peer_node = &self.nodes[peer];
            if c.peer_port == 0 || c.peer_port > peer_node.num_ports {
                return Err(self.err(c.line, format!("{here} is cabled to {:?}[{}], but that node has ports 1..={} (expected one of them)", peer_node.name, c.peer_port, peer_node.num_ports)));
            }
            let there = self.port_label(peer, c.peer_port);
            let Some(&j) = by_port.get(&(peer, c.peer_port)) else {
                return Err(self.err(c.line, format!("{here} is cabled to {there}, but {there} (node at line {}) lists no link (expected both ends to list the cable)", peer_node.line)));
            };
            let back = &self.cables[j];
            if j == i || self.keys.get(&back.peer_key) != Some(&c.node) || back.peer_port != c.port {
                return Err(self.err(c.line, format!("{here} is cabled to {there}, but line {} says {there} is cabled to {:?}[{}] (expected both ends to name each other)", back.line, back.peer_key, back.peer_port)));
            }
            let speed = match (c.speed, back.speed) {
                (SpeedClaim::Active(a), SpeedClaim::Active(b)) if a != b => {
                    return Err(self.err(c.line, format!("{here} says its link is {}, line {} says {} for {there} (expected one width and speed per link)", a.label(), back.line, b.label())))
                }
                (SpeedClaim::Active(a), _) | (_, SpeedClaim::Active(a)) => a,
                (SpeedClaim::Enabled(a), SpeedClaim::Enabled(b)) => a.common(b).map_err(|e| self.err(c.line, format!("{here} to {there} (line {}): {e}", back.line)))?,
            };
            done[i] = true;
            done[j] = true;
            pairs.push((i, j, speed, c.up && back.up));
        }
        Ok(pairs)
    }

    fn check_unique_guids_and_lids(&self) -> Result<(), IoError> {
        let mut guids: HashMap<u64, usize> = HashMap::new();
        let mut lids: HashMap<u16, (String, usize)> = HashMap::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if let Some(&prev) = guids.get(&n.guid) {
                let p = &self.nodes[prev];
                return Err(self.err(n.line, format!("{:?} has GUID {:#018x}, as {:?} at line {} does (expected unique node GUIDs)", n.name, n.guid, p.name, p.line)));
            }
            guids.insert(n.guid, i);
            let mut owned: Vec<(u16, String, usize)> = Vec::new();
            if n.kind == NodeType::Switch && n.lid != NO_LID {
                owned.push((n.lid, format!("{:?}", n.name), n.line));
            }
            for (&port, &(lid, line)) in &n.port_lids {
                if lid != NO_LID {
                    owned.push((lid, self.port_label(i, port), line));
                }
            }
            for (lid, who, line) in owned {
                if let Some((prev, prev_line)) = lids.get(&lid) {
                    return Err(self.err(line, format!("LID {lid} is assigned twice: to {prev} (line {prev_line}) and to {who} (expected unique LIDs)")));
                }
                lids.insert(lid, (who, line));
            }
        }
        Ok(())
    }

    /// The graph the file describes. Node order is file order; a host's HCAs are in rail order
    /// by description; a node supports the widest and fastest of its links (so a narrower link
    /// beside wider ones is degraded).
    pub fn build(self) -> Result<FabricGraph, IoError> {
        for n in &self.nodes {
            if n.num_ports == 0 || n.num_ports > MAX_PORTS {
                return Err(self.err(n.line, format!("{:?} has {} ports (expected 1..={MAX_PORTS})", n.name, n.num_ports)));
            }
        }
        self.check_unique_guids_and_lids()?;
        let pairs = self.pair_cables()?;
        let mut supported: Vec<Option<LinkSpeed>> = vec![None; self.nodes.len()];
        for &(i, j, speed, _) in &pairs {
            for node in [self.cables[i].node, self.cables[j].node] {
                let s = supported[node].get_or_insert(speed);
                s.width = s.width.max(speed.width);
                if speed.gen.rank() > s.gen.rank() {
                    s.gen = speed.gen;
                }
            }
        }
        let mut g = FabricGraph::new();
        let mut hosts: HashMap<String, HostId> = HashMap::new();
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut ids: Vec<NodeId> = Vec::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            // Real fabrics repeat descriptions (unnamed switches); the graph needs unique names.
            let name = if names.contains_key(&n.name) { format!("{} {:#018x}", n.name, n.guid) } else { n.name.clone() };
            names.insert(name.clone(), i);
            let sup = supported[i].unwrap_or(self.default_speed);
            let made = match n.kind {
                NodeType::Switch => g.add_switch(name.clone(), n.guid, n.num_ports, sup),
                NodeType::Ca => {
                    let hn = host_name(&n.name).to_string();
                    let h = *hosts.entry(hn.clone()).or_insert_with(|| g.add_host(hn));
                    g.add_hca(h, name.clone(), n.guid, n.num_ports, sup)
                }
            };
            let id = made.map_err(|e| self.err(n.line, e.0))?;
            g.nodes[id].lid = if n.kind == NodeType::Switch { n.lid } else { NO_LID };
            for (&port, &(lid, _)) in &n.port_lids {
                if let (NodeType::Ca, Some(p)) = (n.kind, g.nodes[id].port(port)) {
                    g.ports[p].lid = lid;
                }
            }
            for (&port, &guid) in &n.port_guids {
                if let Some(p) = g.nodes[id].port(port) {
                    g.ports[p].guid = guid;
                }
            }
            ids.push(id);
        }
        for &(i, j, speed, up) in &pairs {
            let (a, b) = (&self.cables[i], &self.cables[j]);
            let pa = g.port_of(ids[a.node], a.port).map_err(|e| self.err(a.line, e.0))?;
            let pb = g.port_of(ids[b.node], b.port).map_err(|e| self.err(b.line, e.0))?;
            let mut props = LinkProps::new(speed, 0.0);
            props.state = if up { LinkState::Up } else { LinkState::Down };
            g.connect(pa, pb, props).map_err(|e| self.err(a.line, e.0))?;
        }
        order_rails_by_description(&mut g);
        g.check().map_err(|e| IoError::whole(&self.source, e.0))?;
        Ok(g)
    }
}

/// Puts each host's HCAs in description order ("HCA-1" before "HCA-2", "mlx5_0" before
/// "mlx5_1"), whatever order the file lists them in.
fn order_rails_by_description(g: &mut FabricGraph) {
    for h in 0..g.hosts.len() {
        let h = HostId::from(h);
        let mut hcas = std::mem::take(&mut g.hosts[h].hcas);
        hcas.sort_by(|a, b| natural_cmp(&g.nodes[*a].name, &g.nodes[*b].name));
        for (rail, &ca) in hcas.iter().enumerate() {
            g.nodes[ca].kind = NodeKind::Ca { host: h, rail: rail as u16 };
        }
        g.hosts[h].hcas = hcas;
    }
}

/// Orders names with their digit runs as numbers, so "HCA-2" comes before "HCA-10".
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn runs(s: &str) -> Vec<(bool, &str)> {
        let mut v = Vec::new();
        let mut start = 0;
        for (i, c) in s.char_indices() {
            if i > start && c.is_ascii_digit() != s[start..].starts_with(|d: char| d.is_ascii_digit()) {
                v.push((s[start..].starts_with(|d: char| d.is_ascii_digit()), &s[start..i]));
                start = i;
            }
        }
        v.push((s[start..].starts_with(|d: char| d.is_ascii_digit()), &s[start..]));
        v
    }
    for (x, y) in runs(a).into_iter().zip(runs(b)) {
        let ord = match (x, y) {
            ((true, x), (true, y)) => {
                let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                x.len().cmp(&y.len()).then_with(|| x.cmp(y))
            }
            ((_, x), (_, y)) => x.cmp(y),
        };
        if ord.is_ne() {
            return ord;
        }
    }
    a.cmp(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rails_order_by_number_not_by_text() {
        assert!(natural_cmp("h HCA-2", "h HCA-10").is_lt());
        assert!(natural_cmp("h mlx5_0", "h mlx5_1").is_lt());
        assert!(natural_cmp("h", "h").is_eq());
        assert_eq!(host_name("node7 HCA-1"), "node7");
        assert_eq!(host_name("lonely"), "lonely");
    }

    #[test]
    fn a_link_takes_the_best_both_ends_enable() {
        let qdr4 = Enabled { width: 3, speed: 7, ext: 0, fdr10: false };
        let sdr1 = Enabled { width: 1, speed: 1, ext: 0, fdr10: false };
        assert_eq!(qdr4.common(qdr4), Ok(LinkSpeed { gen: LinkGen::Qdr, width: 4 }));
        assert_eq!(qdr4.common(sdr1), Ok(LinkSpeed { gen: LinkGen::Sdr, width: 1 }));
        assert!(Enabled { width: 16, ..qdr4 }.common(sdr1).is_err());
    }
}
