//! iblinkinfo's output as a topology: every port of every node with its link's trained width
//! and speed, its state, the peer's LID and port, and ("Could be") what both ends support.
//!
//! Nodes are keyed by GUID: a switch by its header's GUID (the default layout) or by the GUID
//! its `-l` lines share; a CA by its port GUID less its port number (as for `ibnetdiscover
//! -p`). `-l` prints no node type: a GUID on two or more lines is a switch (a switch's ports
//! share its port GUID), one on a single line a CA — an assumption, stated. A peer is named
//! by LID (a switch's, or the CA port's), which the file's own lines resolve; a peer the file
//! does not list (a slice of a larger output) is kept from the line that names it, a CA when
//! its name carries a device or a vendor's default description, else a switch; its GUID, when
//! the line does not give one, is 0xffff000000000000 plus its LID (noted). A "Could be" hint
//! raises what both ends of the link support to it, so the link is degraded in the summary.
use super::discovered::{looks_like_hca, Cable, Discovered, NodeRec, NodeType, PeerHint, SpeedClaim};
use super::iblinkinfo::LinkInfoPort;
use super::notes::Notes;
use super::{ImportOptions, IoError};
use crate::fabric::graph::{FabricGraph, NO_LID};
use crate::fabric::rate::{LinkGen, LinkSpeed};
use std::collections::HashMap;

pub const UNKNOWN_GUID: &str = "peers not listed and with no GUID on the line (GUID taken as 0xffff000000000000 + LID)";
pub const NO_PEER_LID: &str = "links to a peer with LID 0 (unassigned) left out";

/// Where GUIDs of peers that only their LID names start (no vendor's OUI is 0xffff00).
const UNKNOWN_GUID_BASE: u64 = 0xffff_0000_0000_0000;

/// The fabric iblinkinfo's port lines describe.
pub fn fabric(ports: &[LinkInfoPort], source: &str, opts: &ImportOptions, notes: &mut Notes) -> Result<FabricGraph, IoError> {
    let err = |line: usize, m: String| IoError::at(source, line, m);
    let mut lines_per_guid: HashMap<u64, usize> = HashMap::new();
    for p in ports {
        if let Some(g) = p.guid {
            *lines_per_guid.entry(g).or_default() += 1;
        }
    }
    let mut d = Discovered::new(source, LinkSpeed { gen: LinkGen::Sdr, width: 4 });
    let mut node_of: Vec<usize> = Vec::with_capacity(ports.len());
    let mut guid_of: Vec<u64> = Vec::with_capacity(ports.len());
    for p in ports {
        let Some(guid) = p.guid else {
            return Err(err(p.line, "a port line with no GUID: expected the CA port's GUID at its head (or -l's)".into()));
        };
        let is_switch = p.switch_header || (p.line_layout && lines_per_guid[&guid] > 1);
        let (kind, node_guid) = if is_switch { (NodeType::Switch, guid) } else { (NodeType::Ca, guid.wrapping_sub(u64::from(p.port))) };
        let key = format!("{}-{node_guid:016x}", if is_switch { "S" } else { "H" });
        let n = match d.keys.get(&key) {
            Some(&n) => n,
            None => {
                d.keys.insert(key, d.nodes.len());
                d.nodes.push(NodeRec::new(kind, p.node_name.clone(), node_guid, p.port, p.line));
                d.nodes.len() - 1
            }
        };
        let rec = &mut d.nodes[n];
        rec.num_ports = rec.num_ports.max(p.port);
        match kind {
            NodeType::Switch => rec.lid = p.lid,
            NodeType::Ca => {
                if p.lid != NO_LID {
                    rec.port_lids.insert(p.port, (p.lid, p.line));
                }
                rec.port_guids.insert(p.port, guid);
            }
        }
        node_of.push(n);
        guid_of.push(node_guid);
    }
    // Peers are named by LID: a switch's, or one of a CA's ports'.
    for (i, n) in d.nodes.iter().enumerate() {
        let lids = std::iter::once(n.lid).filter(|_| n.kind == NodeType::Switch).chain(n.port_lids.values().map(|v| v.0));
        for lid in lids.filter(|&l| l != NO_LID) {
            d.keys.insert(format!("L-{lid}"), i);
        }
    }
    for (p, &node) in ports.iter().zip(&node_of) {
        let Some(peer) = &p.peer else { continue };
        if peer.lid == NO_LID {
            notes.add(source, NO_PEER_LID, Some(p.line));
            continue;
        }
        let up = p.state != "Down";
        let speed = match p.active {
            Some(s) => s,
            None => opts.default_speed,
        };
        let kind = if looks_like_hca(&peer.name) { NodeType::Ca } else { NodeType::Switch };
        let guid = match (peer.guid, kind) {
            (Some(g), NodeType::Ca) => g.wrapping_sub(u64::from(peer.port)),
            (Some(g), NodeType::Switch) => g,
            (None, _) => UNKNOWN_GUID_BASE | u64::from(peer.lid),
        };
        if peer.guid.is_none() && !d.keys.contains_key(&format!("L-{}", peer.lid)) {
            notes.add(source, UNKNOWN_GUID, Some(p.line));
        }
        let hint = PeerHint { kind, guid, name: peer.name.clone(), lid: peer.lid, port_guid: peer.guid.filter(|_| kind == NodeType::Ca) };
        d.cables.push(Cable { node, port: p.port, peer_key: format!("L-{}", peer.lid), peer_port: peer.port, speed: SpeedClaim::Active(speed), up, line: p.line, peer_hint: Some(hint) });
    }
    let mut g = d.build(notes)?;
    let by_guid: HashMap<u64, crate::ids::NodeId> = g.nodes.iter_enumerated().map(|(id, n)| (n.guid, id)).collect();
    for (p, node_guid) in ports.iter().zip(guid_of) {
        let (Some(active), true) = (p.active, p.could_be.width.is_some() || p.could_be.gen.is_some()) else { continue };
        let could = LinkSpeed { width: p.could_be.width.unwrap_or(active.width), gen: p.could_be.gen.unwrap_or(active.gen) };
        let Some(&id) = by_guid.get(&node_guid) else { continue };
        let Ok(port) = g.port_of(id, p.port) else { continue };
        let Some(link) = g.ports[port].link else { continue };
        for end in g.links[link].ends {
            let s = &mut g.ports[end].supported;
            s.width = s.width.max(could.width);
            if could.gen.rank() > s.gen.rank() {
                s.gen = could.gen;
            }
        }
    }
    Ok(g)
}
