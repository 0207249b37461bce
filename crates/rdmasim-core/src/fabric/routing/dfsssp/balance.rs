//! Spreading the layers over the virtual lanes allowed, as OpenSM does when fewer layers were
//! needed than lanes exist: each spare lane goes to the layer with the most paths per lane
//! (the first of equals), and layer `l` then owns the lanes from the sum of the lanes of the
//! layers below it. Paths of one layer may use any lane of its group: they share an acyclic
//! dependency graph, and so does any part of them.
use super::layers::Layers;

/// Lanes per layer (`split[l]` lanes from `first[l]` on; 0 for the layers not needed).
pub struct LaneGroups {
    pub split: Vec<u8>,
    pub first: Vec<u8>,
}

pub fn lane_groups(layers: &Layers) -> LaneGroups {
    let available = usize::from(layers.available);
    let needed = usize::from(layers.needed).min(available);
    let mut split = vec![0u8; available];
    split[..needed].fill(1);
    for _ in needed..available {
        let mut most = 0.0;
        let mut pick = 0;
        for (l, (&paths, &lanes)) in layers.paths.iter().zip(&split).take(needed).enumerate() {
            let per_lane = paths as f64 / f64::from(lanes);
            if most < per_lane {
                (most, pick) = (per_lane, l);
            }
        }
        split[pick] += 1;
    }
    let first = split.iter().scan(0u8, |sum, &s| {
        let start = *sum;
        *sum += s;
        Some(start)
    });
    LaneGroups { first: first.collect(), split }
}

impl LaneGroups {
    /// The SL of one path of layer `layer`. OpenSM draws it at random in the layer's group
    /// each time a path record is asked for; ours is fixed, `(slid + dlid) mod lanes` into the
    /// group (ASSUMPTION: a deterministic stand-in that spreads the pairs as evenly).
    pub fn sl(&self, layer: u8, slid: u16, dlid: u16) -> u8 {
        let l = usize::from(layer);
        let lanes = u32::from(self.split[l].max(1));
        self.first[l] + ((u32::from(slid) + u32::from(dlid)) % lanes) as u8
    }
}
