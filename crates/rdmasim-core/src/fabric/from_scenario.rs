//! The routed fabric a scenario's `[topology]` describes.
use crate::fabric::graph::{FabricGraph, GraphError, LinkProps, Lfts, RoutedFabric};
use crate::fabric::rate::LinkSpeed;
use crate::profile::LinkParams;
use crate::ids::HostId;
use crate::scenario::{TopologyKind, TopologySection};

/// Builds and routes the scenario's fabric. A switch port supports the width and speed of
/// `link` (the run profile's link part), host h's HCA port `host_speed(h)`'s; each cable trains
/// to what both ends support. (Generated and imported fabrics give each link its own.)
pub fn routed_fabric(t: &TopologySection, link: &LinkParams, host_speed: &dyn Fn(u32) -> LinkSpeed) -> Result<RoutedFabric, GraphError> {
    if let Some(r) = &t.routed {
        return Ok(RoutedFabric::clone(r));
    }
    let speed = link.speed();
    let mut g = FabricGraph::new();
    // GUIDs: a fixed prefix and the node's index, so that files written from a scenario are
    // stable (an assumption: any unique GUIDs would do).
    let hca_guid = |h: u32| 0x0002_c903_0000_0000 + u64::from(h) * 0x10;
    match t.kind {
        TopologyKind::BackToBack => {
            let mut ports = Vec::new();
            for h in 0..2 {
                let host = g.add_host(format!("h{h}"));
                let ca = g.add_hca(host, format!("h{h} mlx5_0"), hca_guid(h), 1, host_speed(h))?;
                ports.push(g.port_of(ca, 1)?);
            }
            let trained = host_speed(0).trained_with(host_speed(1));
            g.connect(ports[0], ports[1], LinkProps::new(trained, t.cable_m))?;
            g.assign_lids()?;
            let lfts = Lfts::empty_for(&g);
            Ok(RoutedFabric::new(g, lfts))
        }
        TopologyKind::SingleSwitch => {
            let sw = g.add_switch("sw0", 0x0002_c902_0000_0000, t.hosts as u16, speed)?;
            for h in 0..t.hosts {
                let host = g.add_host(format!("h{h}"));
                let ca = g.add_hca(host, format!("h{h} mlx5_0"), hca_guid(h), 1, host_speed(h))?;
                // Host h on switch port h + 1, with LID h + 1; the switch's LID comes last.
                let hp = g.port_of(ca, 1)?;
                let link = LinkProps::new(speed.trained_with(host_speed(h)), t.cable_m);
                g.connect(hp, g.port_of(sw, h as u16 + 1)?, link)?;
                g.ports[hp].lid = h as u16 + 1;
            }
            g.nodes[sw].lid = t.hosts as u16 + 1;
            let mut lfts = Lfts::empty_for(&g);
            for h in 0..t.hosts {
                let lid = g.ports[g.nodes[g.hosts[HostId(h)].hcas[0]].first_port].lid;
                lfts.set(sw, lid, h as u8 + 1);
            }
            lfts.set(sw, g.nodes[sw].lid, 0);
            Ok(RoutedFabric::new(g, lfts))
        }
        TopologyKind::Graph => Err(GraphError("topology.generator was not built (resolve_topology)".into())),
    }
}
