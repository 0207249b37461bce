//! Links below what both ends support, and links that are down: from the topology's link
//! speeds, or from what iblinkinfo saw (which replaces them, after checking that it saw the
//! same cabling). What a port supports comes from the topology (a generator's design, or an
//! importer's best link per node, which cannot know more than its one link for a one-port
//! HCA), and, when asked, from iblinkinfo's "Could be": the hardware's PortInfo, right on real
//! ports, but fixed by ibsim at 1x..12x and SDR..QDR.
use super::suspect::Evidence;
use super::thresholds::{Severity, Thresholds};
use crate::fabric::graph::{FabricGraph, LinkState};
use crate::fabric::io::iblinkinfo::LinkInfoPort;
use crate::fabric::io::port_match::{At, PortIndex};
use crate::fabric::io::IoError;
use crate::fabric::io::iblinkinfo::CouldBe;
use crate::fabric::rate::LinkSpeed;
use crate::ids::{LinkId, PortId};
use std::collections::BTreeMap;

/// A port iblinkinfo shows down although the topology cables it.
pub struct DownPort {
    pub port: PortId,
    pub state: String,
    pub phys_state: String,
}

fn port_of(ix: &PortIndex, guid: Option<u64>, lid: u16, num: u16, at: At) -> Result<PortId, IoError> {
    match guid {
        Some(guid) => ix.by_guid(guid, num, at),
        None => ix.by_lid(lid, num, at),
    }
}

/// Raises what both ends of `link` support to iblinkinfo's "Could be".
fn support_at_least(g: &mut FabricGraph, link: LinkId, could_be: CouldBe) {
    for p in g.links[link].ends {
        let s = &mut g.ports[p].supported;
        s.width = s.width.max(could_be.width.unwrap_or(0));
        if let Some(gen) = could_be.gen.filter(|c| c.rank() > s.gen.rank()) {
            s.gen = gen;
        }
    }
}

/// `graph` with each link's width and speed as iblinkinfo saw them (and, if `trust_could_be`,
/// its ends supporting what iblinkinfo says they could be), and the cabled ports it saw down.
/// Errors name the line where iblinkinfo and the topology disagree.
pub fn observe(graph: &FabricGraph, ports: &[LinkInfoPort], source: &str, trust_could_be: bool) -> Result<(FabricGraph, Vec<DownPort>), IoError> {
    let ix = PortIndex::new(graph);
    let mut g = graph.clone();
    let mut down = Vec::new();
    let mut seen: BTreeMap<LinkId, (LinkSpeed, usize)> = BTreeMap::new();
    for lp in ports {
        let at = At { source, line: lp.line };
        let p = port_of(&ix, lp.guid, lp.lid, lp.port, at)?;
        let link = graph.ports[p].link;
        let (Some(active), Some(peer)) = (lp.active, &lp.peer) else {
            if link.is_some() && lp.state == "Down" {
                down.push(DownPort { port: p, state: lp.state.clone(), phys_state: lp.phys_state.clone() });
            }
            continue;
        };
        let Some(link) = link else {
            return Err(IoError::at(source, lp.line, format!("{} is cabled to {:?}[{}] here, and to nothing in the topology", graph.port_name(p), peer.name, peer.port)));
        };
        let expected_peer = graph.links[link].other(p);
        let peer_port = port_of(&ix, peer.guid, peer.lid, peer.port, at)?;
        if peer_port != expected_peer {
            return Err(IoError::at(source, lp.line, format!("{} is cabled to {} here, and to {} in the topology", graph.port_name(p), graph.port_name(peer_port), graph.port_name(expected_peer))));
        }
        if let Some((speed, line)) = seen.insert(link, (active, lp.line)) {
            if speed != active {
                return Err(IoError::at(source, lp.line, format!("{} runs {} here and {} at line {line}: expected both ends to agree", graph.port_name(p), active.label(), speed.label())));
            }
        }
        g.links[link].speed = active;
        g.links[link].state = LinkState::Up;
        if trust_could_be {
            support_at_least(&mut g, link, lp.could_be);
        }
    }
    for d in &down {
        if let Some(l) = g.ports[d.port].link {
            g.links[l].state = LinkState::Down;
        }
    }
    Ok((g, down))
}

/// Evidence against every link of `observed` that is up and degraded.
pub fn degraded_links(observed: &FabricGraph, t: &Thresholds) -> Vec<(LinkId, Evidence)> {
    observed
        .links
        .iter_enumerated()
        .filter(|(l, link)| link.state == LinkState::Up && observed.is_degraded(*l))
        .map(|(l, link)| {
            let want = observed.supported_speed(l);
            let (active_gbps, expected_gbps) = (link.speed.data_bps_f64() / 1e9, want.data_bps_f64() / 1e9);
            let severity = if active_gbps <= t.degraded_high_share * expected_gbps { Severity::High } else { Severity::Medium };
            (l, Evidence::Degraded { active: link.speed.label(), expected: want.label(), active_gbps, expected_gbps, severity })
        })
        .collect()
}

/// Evidence against every cabled link iblinkinfo saw down (high: all its traffic goes
/// elsewhere).
pub fn down_links(observed: &FabricGraph, down: &[DownPort]) -> Vec<(LinkId, Evidence)> {
    down.iter()
        .filter_map(|d| {
            let l = observed.ports[d.port].link?;
            Some((l, Evidence::Down { port: observed.port_name(d.port), state: d.state.clone(), phys_state: d.phys_state.clone(), severity: Severity::High }))
        })
        .collect()
}
