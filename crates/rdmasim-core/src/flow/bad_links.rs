//! Bad links planted in a fabric, as the TSUBAME2.0 study found them (seeds/004 §3.2): switch-
//! to-switch links trained down to 1x QDR or 4x SDR (10 Gb/s signalling, 8 Gb/s of data), and
//! links that corrupt packets at hundreds per second. A degraded link is just a link of another
//! speed (DESIGN.md); an erroring one keeps its rate and costs stalls ([`super::tail_loss`]).
//! Disabling a bad link takes it down before routing, as the study's operators did, so the
//! routing engine routes around it (OpenSM re-sweeps after a port is disabled).
//!
//! ASSUMPTION (placement and count: the seed gives neither): the bad links are cables between
//! an edge switch (one with HCAs) and the switch above it, the kind the study names ("ケーブル
//! 異常やスイッチポート異常", inter-switch links); each rail gets `degraded` of them trained
//! down (alternately 1x QDR and 4x SDR) and `erroring` corrupting, drawn uniformly from `seed`.
use crate::engine::SimRng;
use crate::traffic::patterns::shuffle_into;
use crate::fabric::graph::{FabricGraph, LinkState, NodeKind};
use crate::fabric::rate::{LinkGen, LinkSpeed};
use crate::ids::{LinkId, NodeId, PortId, TiVec};
use serde::{Deserialize, Serialize};

/// Stream of the placement draw.
const STREAM_PLANT: u64 = 0x4241_444c << 32;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BadLinkPlan {
    pub seed: u64,
    /// Links per rail trained down to 10 Gb/s.
    pub degraded: usize,
    /// Links per rail that corrupt packets.
    pub erroring: usize,
    /// Corrupted packets per second in each direction of an erroring link. ASSUMPTION: 300,
    /// the seed's "on the order of hundreds per second" (§3.2).
    pub errors_per_s: f64,
    /// Take the bad links down before routing (the study's fix).
    pub disable: bool,
}

impl Default for BadLinkPlan {
    fn default() -> BadLinkPlan {
        BadLinkPlan { seed: 0, degraded: 0, erroring: 0, errors_per_s: 300.0, disable: false }
    }
}

/// One planted link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Planted {
    #[serde(skip)]
    pub link: LinkId,
    /// `"edge"[port] <-> "upper"[port]`.
    pub name: String,
    pub rail: u16,
    /// "1x QDR", "4x SDR" or "erroring".
    pub kind: String,
    pub errors_per_s: f64,
    pub disabled: bool,
}

/// The rail of a switch that has an HCA on one of its ports (an edge switch), else None.
fn edge_rail(g: &FabricGraph, sw: NodeId) -> Option<u16> {
    g.nodes[sw].ports().filter_map(|p| g.peer(p)).find_map(|q| match g.nodes[g.ports[q].node].kind {
        NodeKind::Ca { rail, .. } => Some(rail),
        NodeKind::Switch => None,
    })
}

/// Plants `plan` in `g` (speeds lowered, or links down when `plan.disable`) and returns the
/// planted links and the corruption rate of every directed link (by sending port).
pub fn plant(g: &mut FabricGraph, plan: &BadLinkPlan) -> (Vec<Planted>, TiVec<PortId, f64>) {
    // Candidates per rail, in link order: up links between an edge switch and another switch.
    let mut by_rail: Vec<Vec<(LinkId, PortId)>> = Vec::new();
    for (l, link) in g.links.iter_enumerated() {
        let [a, b] = link.ends;
        let (na, nb) = (g.ports[a].node, g.ports[b].node);
        if link.state != LinkState::Up || !g.nodes[na].is_switch() || !g.nodes[nb].is_switch() {
            continue;
        }
        let (edge_end, rail) = match (edge_rail(g, na), edge_rail(g, nb)) {
            (Some(r), None) => (a, r),
            (None, Some(r)) => (b, r),
            _ => continue,
        };
        let r = usize::from(rail);
        if by_rail.len() <= r {
            by_rail.resize(r + 1, Vec::new());
        }
        by_rail[r].push((l, edge_end));
    }
    let mut errors: TiVec<PortId, f64> = vec![0.0; g.ports.len()].into();
    let mut planted = Vec::new();
    let mut order = Vec::new();
    for (rail, cands) in by_rail.iter().enumerate() {
        let mut rng = SimRng::new(plan.seed, STREAM_PLANT + rail as u64);
        if cands.len() >= 2 {
            shuffle_into(&mut order, cands.len(), &mut rng);
        } else {
            order = (0..cands.len() as u32).collect();
        }
        let take = (plan.degraded + plan.erroring).min(cands.len());
        for (i, &c) in order[..take].iter().enumerate() {
            let (l, edge_end) = cands[c as usize];
            let other = g.links[l].other(edge_end);
            let name = format!("{} <-> {}", g.port_name(edge_end), g.port_name(other));
            let (kind, rate) = if i < plan.degraded {
                let speed = if i % 2 == 0 { LinkSpeed { gen: LinkGen::Qdr, width: 1 } } else { LinkSpeed { gen: LinkGen::Sdr, width: 4 } };
                g.links[l].speed = speed;
                (if i % 2 == 0 { "1x QDR" } else { "4x SDR" }, 0.0)
            } else {
                ("erroring", plan.errors_per_s)
            };
            if plan.disable {
                g.links[l].state = LinkState::Down;
            } else {
                for p in g.links[l].ends {
                    errors[p] = rate;
                }
            }
            planted.push(Planted { link: l, name, rail: rail as u16, kind: kind.into(), errors_per_s: rate, disabled: plan.disable });
        }
    }
    (planted, errors)
}
