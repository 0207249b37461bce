//! How the hyper-crossbar's logical switches sit on physical switches: `[ethernet] cabling`.
//!
//! The hyper-crossbar has one logical crossbar per row of each dimension (fabric/build/hyperx.rs).
//! On PACS-CS each row may be a switch of its own; on seeds/003's 8-node test bed it cannot be:
//! 8 nodes × 9 NICs = 72 cables ("8ノードでケーブル72本") on "Foundry FWFx 448" switches of 48
//! ports, so the rows were port groups (VLANs) of at least two physical switches, and the rows on
//! one switch share its packet buffer (docs/sources/issue34.md §5, arithmetic). What is known: the cable
//! count, the switch model's 48 ports, and SCore's trunking rule that NICs of the same unit number
//! share one Ethernet network (SCore 5.2.0, "Network trunking"). What is not published: how many
//! switches the test bed had and which cables went to which. So the layout is an unknown input
//! with these families (each an ASSUMPTION; a study runs them all and reports the range):
//!
//! - `rows` (the default): every logical crossbar is a switch with its own buffer; nothing is
//!   shared (PACS-CS-like; docs/sources/issue34.md §5's packing (a)). Not possible on the test bed's
//!   switches, kept as the model's unshared reference.
//! - `lane-per-switch`: lane k of every dimension on switch k (SCore's unit k network), the
//!   lanes of one dimension split over two switches.
//! - `dim-per-switch`: each dimension's rows, both lanes, on a switch of their own.
//! - `packed`: the rows filled into switches in dimension order, as many as fit.
//!
//! In every family a logical row's cables of one group (a lane under `lane-per-switch`, all
//! lanes otherwise) stay on one physical switch (a row split over two switches would need an
//! inter-switch link, which the test bed's description does not mention), and a family's
//! switches are filled in order up to the profile's ports, opening another when full.
use crate::fabric::graph::{FabricGraph, NodeKind};
use crate::ids::{NodeId, PortId};
pub use crate::scenario::pm::Cabling;
use std::collections::HashMap;

/// One group of cables that must share a physical switch: a logical row (and a lane).
struct Group {
    /// Groups with different keys never share a switch: the lane under `lane-per-switch`, the
    /// dimension under `dim-per-switch`, 0 under `packed`.
    key: u8,
    ports: Vec<PortId>,
}

/// Each HCA node's dimension: its index among its host's HCAs (fabric/build/hyperx.rs).
fn hca_dims(g: &FabricGraph) -> HashMap<NodeId, u8> {
    g.hosts
        .iter()
        .flat_map(|h| h.hcas.iter().enumerate().map(|(d, &ca)| (ca, d as u8)))
        .collect()
}

/// The physical switches of `family` on graph `g`, each as the graph switch ports it holds, at
/// most `ports_per_switch` cabled ports each. Under `rows` each graph switch is one, as built.
pub fn physical_switches(
    g: &FabricGraph,
    family: Cabling,
    ports_per_switch: usize,
) -> Result<Vec<Vec<PortId>>, String> {
    let rows = g.nodes.iter().filter(|n| n.kind == NodeKind::Switch);
    if family == Cabling::Rows {
        return Ok(rows.map(|n| n.ports().collect()).collect());
    }
    let dims = hca_dims(g);
    let mut groups: Vec<Group> = Vec::new();
    for node in rows {
        // (dimension, lane) of each cabled port: the HCA at its other end and its port number.
        let mut by_lane: Vec<(u8, u8, PortId)> = Vec::new();
        for p in node.ports() {
            let Some(l) = g.ports[p].link else { continue };
            let peer = &g.ports[g.links[l].other(p)];
            let dim = *dims.get(&peer.node).ok_or_else(|| format!("switch {} is cabled to another switch: cabling = \"{}\" expects a hyper-crossbar", node.name, family.name()))?;
            by_lane.push((dim, (peer.num - 1) as u8, p));
        }
        let dim = by_lane.first().map_or(0, |t| t.0);
        match family {
            Cabling::LanePerSwitch => {
                let lanes = by_lane.iter().map(|t| t.1).max().map_or(0, |m| m + 1);
                for lane in 0..lanes {
                    groups.push(Group {
                        key: lane,
                        ports: by_lane
                            .iter()
                            .filter(|t| t.1 == lane)
                            .map(|t| t.2)
                            .collect(),
                    });
                }
            }
            Cabling::DimPerSwitch => groups.push(Group {
                key: dim,
                ports: by_lane.iter().map(|t| t.2).collect(),
            }),
            _ => groups.push(Group {
                key: 0,
                ports: by_lane.iter().map(|t| t.2).collect(),
            }),
        }
    }
    // By key; groups of one key stay in build order (X rows, then Y, then Z): the sort is stable.
    groups.sort_by_key(|gr| gr.key);
    let mut out: Vec<Vec<PortId>> = Vec::new();
    let mut last_key = None;
    for gr in groups {
        if gr.ports.len() > ports_per_switch {
            return Err(format!(
                "a row needs {} ports on one switch, which has {ports_per_switch}",
                gr.ports.len()
            ));
        }
        let fits = out
            .last()
            .is_some_and(|s| s.len() + gr.ports.len() <= ports_per_switch);
        if last_key != Some(gr.key) || !fits {
            out.push(Vec::new());
        }
        last_key = Some(gr.key);
        out.last_mut().expect("pushed above").extend(gr.ports);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ether::world::build_graph;
    use crate::scenario::pm::PmTopology;

    /// The 2×2×2 hyper-crossbar with two lanes a dimension.
    fn crossbar() -> FabricGraph {
        build_graph(&PmTopology::Hyperx { dims: [2, 2, 2], links_per_dim: 2 }, 2.0).unwrap().0
    }

    fn sizes(family: Cabling, ports: usize) -> Vec<usize> {
        let g = crossbar();
        physical_switches(&g, family, ports)
            .unwrap()
            .iter()
            .map(Vec::len)
            .collect()
    }

    /// The 2×2×2 crossbar with 2 lanes: 12 rows of 4 ports, 48 cables.
    #[test]
    fn each_family_puts_the_48_cables_on_its_switches() {
        assert_eq!(sizes(Cabling::Rows, 48), vec![4; 12]);
        assert_eq!(sizes(Cabling::LanePerSwitch, 48), vec![24, 24]);
        assert_eq!(sizes(Cabling::DimPerSwitch, 48), vec![16, 16, 16]);
        assert_eq!(sizes(Cabling::Packed, 48), vec![48]);
        // Smaller switches open another when full, a row never split.
        assert_eq!(sizes(Cabling::Packed, 24), vec![24, 24]);
        assert_eq!(sizes(Cabling::Packed, 10), vec![8; 6]);
    }

    #[test]
    fn lane_per_switch_keeps_each_lane_on_its_own_switch() {
        let g = crossbar();
        for sw in physical_switches(&g, Cabling::LanePerSwitch, 48).unwrap() {
            let lanes: std::collections::BTreeSet<u16> = sw
                .iter()
                .map(|&p| g.ports[g.links[g.ports[p].link.unwrap()].other(p)].num)
                .collect();
            assert_eq!(lanes.len(), 1, "one lane a switch: {lanes:?}");
        }
    }
}
