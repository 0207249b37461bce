//! Virtual layers as OpenSM's dfsssp assigns them (Domke, Hoefler, Nagel, IPDPS 2011): every
//! path starts on layer 0, in the order OpenSM pairs them (each destination in routing order,
//! then each source in the same order); layer by layer, each cycle of the layer's dependency
//! graph is cut at its weakest dependency and the paths that made it move to the next layer.
//! The last layer allowed must come out acyclic, else dfsssp fails (and OpenSM falls back).
use super::cdg::Cdg;
use super::channels::Channels;
use crate::fabric::graph::{FabricGraph, GraphError, Lfts};
use crate::fabric::routing::engine::PathSls;
use crate::fabric::routing::sssp::network::Network;

/// The layer of every (source, destination) pair, before balancing.
pub struct Layers {
    /// Layer per (source LID, destination LID).
    pub of_pair: PathSls,
    /// Layers the paths needed (OpenSM's "Virtual Lanes needed"); above `available` when they
    /// did not fit, in which case it is `available + 1` (OpenSM stops counting there).
    pub needed: u8,
    pub available: u8,
    /// Pairs on each layer (`available` entries).
    pub paths: Vec<u64>,
}

pub fn assign(g: &FabricGraph, net: &Network, lfts: &Lfts, available: u8) -> Result<Layers, GraphError> {
    let channels = Channels::new(g);
    let mut of_pair = PathSls::new(g.max_lid());
    let mut target_of_lid = vec![u32::MAX; of_pair.stride];
    for (i, t) in net.targets.iter().enumerate() {
        target_of_lid[usize::from(t.lid)] = i as u32;
    }
    let mut path = Vec::new();
    let path_of = |pair: u32, path: &mut Vec<u32>| -> Result<(), GraphError> {
        let (slid, dlid) = ((pair >> 16) as usize, (pair & 0xFFFF) as u16);
        let src = &net.targets[target_of_lid[slid] as usize];
        channels.path(g, net, lfts, src, dlid, path)
    };
    let mut layers = vec![Cdg::new(&channels)];
    for dst in &net.targets {
        for src in &net.targets {
            if src.lid != dst.lid {
                let pair = (u32::from(src.lid) << 16) | u32::from(dst.lid);
                path_of(pair, &mut path)?;
                layers[0].add_path(&channels, pair, &path);
            }
        }
    }
    let mut needed = 1;
    for layer in 0..available.saturating_sub(1) {
        let l = usize::from(layer);
        layers.push(Cdg::new(&channels));
        let (this, next) = layers.split_at_mut(l + 1);
        let (this, next) = (&mut this[l], &mut next[0]);
        let mut start = this.root();
        while let Some(s) = start {
            let cycle = this.find_cycle(&channels, s);
            if let Some(at) = cycle {
                needed = layer + 2;
                let cut = this.cut_cycle(&channels, at)?;
                for &pair in &cut.pairs {
                    let (slid, dlid) = ((pair >> 16) as u16, (pair & 0xFFFF) as u16);
                    if of_pair.get(slid, dlid) != layer {
                        continue;
                    }
                    path_of(pair, &mut path)?;
                    this.remove_path(&channels, &path);
                    next.add_path(&channels, pair, &path);
                    of_pair.set(slid, dlid, layer + 1);
                }
            }
            start = cycle;
        }
        // This layer is final; its graph is not needed any more.
        layers[l] = Cdg::default();
    }
    let last = layers.last_mut().filter(|_| available > 0);
    if let Some(last) = last {
        if let Some(root) = last.root() {
            if last.find_cycle(&channels, root).is_some() {
                needed = available + 1;
            }
        }
    }
    let mut paths = vec![0u64; usize::from(available)];
    for dst in &net.targets {
        for src in &net.targets {
            if src.lid != dst.lid {
                if let Some(n) = paths.get_mut(usize::from(of_pair.get(src.lid, dst.lid))) {
                    *n += 1;
                }
            }
        }
    }
    Ok(Layers { of_pair, needed, available, paths })
}
