//! What a topology file says, before it is a graph: nodes, and for each cabled port what it
//! says it is cabled to. Every topology format fills a [`Discovered`] and [`Discovered::build`]
//! makes the [`FabricGraph`], checking what the formats share: both ends of a cable name each
//! other, a port is listed once, GUIDs and LIDs are unique. An error names the line of each
//! side, since either may be the wrong one.
use super::notes::Notes;
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
    /// LinkSpeedExtEnabled: 1 = FDR, 2 = EDR, 4 = HDR, 8 = NDR, 32 = XDR.
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
        let gen = if ext & 32 != 0 {
            LinkGen::Xdr
        } else if ext & 8 != 0 {
            LinkGen::Ndr
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

/// What a port's line says of its peer node besides its key: enough to keep a peer that the
/// file does not list (a dump cut short, a filtered `-p` listing) as a node of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerHint {
    pub kind: NodeType,
    pub guid: u64,
    pub name: String,
    /// The peer's LID as the line gives it (a switch's, or the CA port's), 0 if none.
    pub lid: u16,
    /// The peer port's GUID (a CA's), when the line gives it.
    pub port_guid: Option<u64>,
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
    /// From a real tool's output (not an ibsim net, which must be whole): the peer as the
    /// line describes it. With it, a peer the file does not list, or one whose own line for
    /// this cable is missing, is a warning instead of an error.
    pub peer_hint: Option<PeerHint>,
}

/// A cable's two sides: (first side's cable index, second side's if the file lists it, speed,
/// up).
type Pair = (usize, Option<usize>, LinkSpeed, bool);

/// Notes [`Discovered::build`] may add.
pub const UNLISTED_PEER: &str = "nodes the file does not list, kept from their peers' port lines";
pub const ONE_SIDED: &str = "links listed from one end only (the other end's port line is missing)";
pub const LOOPBACK: &str = "loopback cables (two ports of one node cabled together), left out of the fabric";
pub const ENDS_DISAGREE: &str = "links whose two ends report different widths or speeds (the narrower and slower taken)";
pub const DEFAULT_DESCRIPTION: &str = "HCAs with a default node description (no hostname), one host each, named by GUID";

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

/// The host an HCA belongs to, where its description says so: "hostname HCA-1" (OFED's
/// default before rdma-core), "hostname mlx4_0" (the kernel's `hostname device`), or a bare
/// hostname. A description that names no host (the firmware's "MT25408 ConnectX Mellanox
/// Technologies", "Mellanox Technologies Aggregation Node", an empty one) gives `None`: nothing
/// says which HCAs share a machine, so each is a host of its own.
pub fn host_name(description: &str) -> Option<&str> {
    let mut words = description.split_whitespace();
    let first = words.next()?;
    let second = words.next();
    if is_default_description(description) || is_device(first) {
        return None;
    }
    match second {
        None => Some(first),
        Some(dev) if is_device(dev) => Some(first),
        Some(_) => None,
    }
}

/// Whether a node description is an HCA's: a device after the hostname, or a vendor's
/// default HCA description (for peers only their name says anything of).
pub fn looks_like_hca(description: &str) -> bool {
    let mut words = description.split_whitespace();
    let (first, second) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    is_device(first) || is_device(second) || (is_default_description(description) && !description.contains("Infiniscale") && !description.contains("SwitchX") && !description.contains("Quantum"))
}

/// Node descriptions the firmware or driver sets when nobody set a hostname.
fn is_default_description(d: &str) -> bool {
    let first = d.split_whitespace().next().unwrap_or("");
    // "MT25408", "MT4099", "MT4115": Mellanox's part numbers lead their default descriptions.
    let part_number = first.len() > 2 && first.starts_with("MT") && first[2..].chars().all(|c| c.is_ascii_digit());
    part_number || d.contains("Mellanox Technologies") || d.contains("ConnectX") || d.contains("Aggregation Node") || matches!(first, "localhost" | "(null)" | "(none)")
}

/// A device name as the kernel or OFED appends it to the hostname.
fn is_device(w: &str) -> bool {
    let digits_after = |prefix: &str| w.strip_prefix(prefix).is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit() || c == '_'));
    // rdma-core's stable names: "ibp<bus>s<slot>f<function>" (InfiniBand), "rocep...".
    let stable = |prefix: &str| w.strip_prefix(prefix).is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()) && r.chars().all(|c| c.is_ascii_alphanumeric()));
    ["HCA-", "mlx4_", "mlx5_", "mthca", "qib", "hfi1_", "ipath", "ehca", "irdma", "bnxt_re", "rxe", "siw", "efa_"].iter().any(|p| digits_after(p)) || stable("ibp") || stable("rocep")
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

    /// Adds the peers that real tools' lines name but the file does not list, as nodes of
    /// their own (their ports up to the highest one named), so their links are kept.
    fn add_unlisted_peers(&mut self, notes: &mut Notes) {
        for i in 0..self.cables.len() {
            let c = &self.cables[i];
            let Some(hint) = c.peer_hint.clone() else { continue };
            let peer_port = c.peer_port;
            let line = c.line;
            let n = match self.keys.get(&c.peer_key) {
                Some(&n) if self.nodes[n].line != 0 => continue,
                Some(&n) => n,
                None => {
                    notes.add(&self.source, UNLISTED_PEER, Some(line));
                    let mut rec = NodeRec::new(hint.kind, hint.name.clone(), hint.guid, peer_port, 0);
                    if hint.kind == NodeType::Switch {
                        rec.lid = hint.lid;
                    }
                    self.keys.insert(self.cables[i].peer_key.clone(), self.nodes.len());
                    self.nodes.push(rec);
                    self.nodes.len() - 1
                }
            };
            let rec = &mut self.nodes[n];
            rec.num_ports = rec.num_ports.max(peer_port);
            if hint.kind == NodeType::Ca {
                if hint.lid != NO_LID {
                    rec.port_lids.entry(peer_port).or_insert((hint.lid, line));
                }
                if let Some(g) = hint.port_guid {
                    rec.port_guids.entry(peer_port).or_insert(g);
                }
            }
        }
    }

    /// Pairs the two sides of every cable: (first side's cable index, second side's if the
    /// file lists it, speed, up). Loopback cables are left out, and noted.
    fn pair_cables(&self, notes: &mut Notes) -> Result<Vec<Pair>, IoError> {
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
            if peer == c.node {
                // Both of its lines name each other; the cable carries nothing routing uses.
                if let Some(&j) = by_port.get(&(peer, c.peer_port)) {
                    done[j] = true;
                }
                done[i] = true;
                notes.add(&self.source, LOOPBACK, Some(c.line));
                continue;
            }
            let Some(&j) = by_port.get(&(peer, c.peer_port)) else {
                if c.peer_hint.is_none() {
                    return Err(self.err(c.line, format!("{here} is cabled to {there}, but {there} (node at line {}) lists no link (expected both ends to list the cable)", peer_node.line)));
                }
                if peer_node.line != 0 {
                    notes.add(&self.source, ONE_SIDED, Some(c.line));
                }
                let speed = match c.speed {
                    SpeedClaim::Active(a) => a,
                    SpeedClaim::Enabled(e) => e.common(e).map_err(|m| self.err(c.line, format!("{here}: {m}")))?,
                };
                done[i] = true;
                pairs.push((i, None, speed, c.up));
                continue;
            };
            let back = &self.cables[j];
            if j == i || self.keys.get(&back.peer_key) != Some(&c.node) || back.peer_port != c.port {
                return Err(self.err(c.line, format!("{here} is cabled to {there}, but line {} says {there} is cabled to {:?}[{}] (expected both ends to name each other)", back.line, back.peer_key, back.peer_port)));
            }
            let speed = match (c.speed, back.speed) {
                // Real tools print each end's PortInfo as they read it, and a link retraining
                // during discovery shows two answers (ibnetdiscover's man page has one): the
                // lower is what it carries.
                (SpeedClaim::Active(a), SpeedClaim::Active(b)) if a != b && c.peer_hint.is_some() => {
                    notes.add(&self.source, ENDS_DISAGREE, Some(c.line));
                    a.trained_with(b)
                }
                (SpeedClaim::Active(a), SpeedClaim::Active(b)) if a != b => {
                    return Err(self.err(c.line, format!("{here} says its link is {}, line {} says {} for {there} (expected one width and speed per link)", a.label(), back.line, b.label())))
                }
                (SpeedClaim::Active(a), _) | (_, SpeedClaim::Active(a)) => a,
                (SpeedClaim::Enabled(a), SpeedClaim::Enabled(b)) => a.common(b).map_err(|e| self.err(c.line, format!("{here} to {there} (line {}): {e}", back.line)))?,
            };
            done[i] = true;
            done[j] = true;
            pairs.push((i, Some(j), speed, c.up && back.up));
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

    /// The graph the file describes. Node order is file order (peers the file does not list
    /// after); a host's HCAs are in rail order by description; a node supports the widest and
    /// fastest of its links (so a narrower link beside wider ones is degraded). HCAs are
    /// grouped into hosts only where their descriptions name the host ([`host_name`]); what
    /// was assumed or set aside is added to `notes`.
    pub fn build(mut self, notes: &mut Notes) -> Result<FabricGraph, IoError> {
        self.add_unlisted_peers(notes);
        for n in &self.nodes {
            if n.num_ports == 0 || n.num_ports > MAX_PORTS {
                return Err(self.err(n.line, format!("{:?} has {} ports (expected 1..={MAX_PORTS})", n.name, n.num_ports)));
            }
        }
        self.check_unique_guids_and_lids()?;
        let pairs = self.pair_cables(notes)?;
        let mut supported: Vec<Option<LinkSpeed>> = vec![None; self.nodes.len()];
        for &(i, j, speed, _) in &pairs {
            let peer = match j {
                Some(j) => self.cables[j].node,
                None => self.keys[&self.cables[i].peer_key],
            };
            for node in [self.cables[i].node, peer] {
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
            // Real fabrics repeat descriptions (unnamed switches, default HCA names); the
            // graph needs unique names, so a repeated one gets its GUID.
            let name = if names.contains_key(&n.name) || n.name.is_empty() { format!("{} {:#018x}", n.name, n.guid).trim_start().to_string() } else { n.name.clone() };
            names.insert(name.clone(), i);
            let sup = supported[i].unwrap_or(self.default_speed);
            let made = match n.kind {
                NodeType::Switch => g.add_switch(name.clone(), n.guid, n.num_ports, sup),
                NodeType::Ca => {
                    let host = match host_name(&n.name) {
                        Some(h) => h.to_string(),
                        None => {
                            notes.add(&self.source, DEFAULT_DESCRIPTION, (n.line != 0).then_some(n.line));
                            format!("{:#018x}", n.guid) // Node::guid_name
                        }
                    };
                    let h = *hosts.entry(host.clone()).or_insert_with(|| g.add_host(host));
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
            let a = &self.cables[i];
            let (b_node, b_port) = match j {
                Some(j) => (self.cables[j].node, self.cables[j].port),
                None => (self.keys[&a.peer_key], a.peer_port),
            };
            let pa = g.port_of(ids[a.node], a.port).map_err(|e| self.err(a.line, e.0))?;
            let pb = g.port_of(ids[b_node], b_port).map_err(|e| self.err(a.line, e.0))?;
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
        assert_eq!(host_name("node7 HCA-1"), Some("node7"));
        assert_eq!(host_name("is-north-7-compute-12 mlx5_0"), Some("is-north-7-compute-12"));
        assert_eq!(host_name("lonely"), Some("lonely"));
        assert_eq!(host_name("SAT111092710037 ibp213s0f0"), Some("SAT111092710037"));
        for default in ["MT25408 ConnectX Mellanox Technologies", "Mellanox Technologies Aggregation Node", "", "MT4129 ConnectX7   Mellanox Technologies", "HCA-1", "Sun DCS 36 QDR switch localhost"] {
            assert_eq!(host_name(default), None, "{default:?}");
        }
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
