//! Indexing: every switch gets a tuple, by a BFS from the first leaf switch in OpenSM's
//! order. The leaf gets (leaf rank, 0, …, 0); a switch reached from a neighbour gets the
//! neighbour's tuple with the rank byte moved by one and the byte of the level crossed set to
//! the lowest value no switch has yet. Neighbours are taken in port-group order (port order
//! until the switch is indexed), and once a switch's neighbours are indexed its down and up
//! groups are sorted by their neighbour's tuple: the order routing starts from and breaks
//! every tie by.
use super::model::{Direction, Fabric, Tuple, NO_TUPLE};
use crate::ids::NodeId;
use std::collections::{HashSet, VecDeque};

/// Indexes the switches, sorts their groups, and lists the leaf switches in tuple order.
/// Err: OpenSM's words when there are fewer than two leaves with compute nodes.
pub fn index(f: &mut Fabric) -> Result<(), String> {
    let mut taken: HashSet<Tuple> = HashSet::new();
    if let Some(first) = f.switches.iter().copied().find(|&s| f.sw[s].is_leaf) {
        let mut t = NO_TUPLE;
        t[0] = f.sw[first].rank as u8;
        for b in t.iter_mut().take(f.leaf_rank as usize + 1).skip(1) {
            *b = 0;
        }
        assign(f, &mut taken, first, t);
        bfs(f, &mut taken, first);
    }
    for id in f.groups.keys().collect::<Vec<_>>() {
        f.groups[id].remote_tuple = f.remote_switch(id).map_or(NO_TUPLE, |s| f.sw[s].tuple);
    }
    leaf_array(f)
}

fn assign(f: &mut Fabric, taken: &mut HashSet<Tuple>, s: NodeId, t: Tuple) {
    f.sw[s].tuple = t;
    taken.insert(t);
}

/// The first free tuple next to `from`, one rank down (toward the leaves) or up.
fn next_tuple(taken: &HashSet<Tuple>, from: &Tuple, dir: Direction) -> Tuple {
    let mut t = *from;
    let var = if dir == Direction::Down {
        t[0] = t[0].wrapping_add(1);
        usize::from(from[0]) + 1
    } else {
        t[0] = t[0].wrapping_sub(1);
        usize::from(from[0])
    };
    for i in 0..0xFF {
        t[var.min(7)] = i;
        if !taken.contains(&t) {
            return t;
        }
    }
    // More than 255 neighbours one way: OpenSM leaves the switch unindexed.
    NO_TUPLE
}

fn bfs(f: &mut Fabric, taken: &mut HashSet<Tuple>, first: NodeId) {
    let mut queue = VecDeque::from([first]);
    while let Some(s) = queue.pop_front() {
        let rank = f.sw[s].rank;
        let mut dirs = Vec::with_capacity(2);
        if rank < f.leaf_rank {
            dirs.push(Direction::Down);
        }
        if rank != 0 {
            dirs.push(Direction::Up);
        }
        for dir in dirs {
            for i in 0..f.sw[s].groups(dir).len() {
                let Some(remote) = f.remote_switch(f.sw[s].groups(dir)[i]) else { continue };
                if f.sw[remote].tuple[0] != 0xFF {
                    continue;
                }
                let t = next_tuple(taken, &f.sw[s].tuple, dir);
                assign(f, taken, remote, t);
                queue.push_back(remote);
            }
            let mut groups = std::mem::take(f.sw[s].groups_mut(dir));
            groups.sort_by_key(|&g| f.remote_switch(g).map_or(NO_TUPLE, |r| f.sw[r].tuple));
            *f.sw[s].groups_mut(dir) = groups;
        }
    }
}

/// The switches of leaf rank in tuple order, from the first to the last cabled to compute
/// nodes, and the most compute nodes any of them has.
fn leaf_array(f: &mut Fabric) -> Result<(), String> {
    let mut at_leaf_rank: Vec<NodeId> = f.switches.iter().copied().filter(|&s| f.sw[s].rank == f.leaf_rank).collect();
    at_leaf_rank.sort_by_key(|&s| f.sw[s].tuple);
    let first = at_leaf_rank.iter().position(|&s| f.sw[s].is_leaf);
    let last = at_leaf_rank.iter().rposition(|&s| f.sw[s].is_leaf);
    let (Some(first), Some(last)) = (first, last) else { return Err(NO_LEAVES.into()) };
    if first >= last {
        return Err(NO_LEAVES.into());
    }
    f.leaves = at_leaf_rank[first..=last].to_vec();
    f.max_cn_per_leaf = f.leaves.iter().map(|&s| f.sw[s].down.iter().filter(|&&g| f.remote_switch(g).is_none()).count()).max().unwrap_or(0);
    Ok(())
}

const NO_LEAVES: &str = "Failed to find leaf switches - topology is not fat-tree; Fabric topology is not a fat-tree";
