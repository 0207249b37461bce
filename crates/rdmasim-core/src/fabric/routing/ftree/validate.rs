//! The checks after which OpenSM's ftree gives up and lets minhop route, each failing with
//! what OpenSM logs (error code and text, the same switch GUIDs, LIDs and indexes).
use super::model::{tuple_str, Fabric, FtSwitch, GroupId};

/// Lowest and highest tree rank (levels of switches) ftree routes: a one-level tree has only
/// trivial paths, and a tuple has 8 bytes.
const MIN_TREE_RANK: u32 = 2;
const MAX_TREE_RANK: u32 = 8;
pub const NOT_FAT_TREE: &str = "Fabric topology is not a fat-tree";

/// The leaf rank: the highest rank without given roots; with them, the rank of the switch of
/// the first compute node (OpenSM's CA order). Then the tree's rank must be 2..=8.
pub fn leaf_rank(f: &mut Fabric, roots_given: bool) -> Result<(), String> {
    f.leaf_rank = if roots_given {
        let first = f.cas.iter().find_map(|&ca| f.ca_ports[ca].first()).map(|p| p.switch);
        first.map_or(0, |s| f.sw[s].rank)
    } else {
        f.max_rank
    };
    let tree_rank = f.leaf_rank.saturating_add(1);
    if !(MIN_TREE_RANK..=MAX_TREE_RANK).contains(&tree_rank) {
        return Err(format!("Fabric rank is {tree_rank} (should be between {MIN_TREE_RANK} and {MAX_TREE_RANK})"));
    }
    Ok(())
}

/// Marks the switches cabled to compute nodes as leaves; each must be at the leaf rank.
pub fn mark_leaves(f: &mut Fabric) -> Result<(), String> {
    for &ca in &f.cas {
        for p in &f.ca_ports[ca] {
            let sw = &mut f.sw[p.switch];
            if sw.is_leaf {
                continue;
            }
            sw.is_leaf = true;
            if sw.rank != f.leaf_rank {
                return Err(format!(
                    "ERR AB26: CN port {:#x} is connected to switch {:#x} with rank {}, while FatTree leaf rank is {}; {NOT_FAT_TREE}",
                    p.port_guid, sw.guid, sw.rank, f.leaf_rank
                ));
            }
        }
    }
    Ok(())
}

/// A pure fat tree (checked only without given roots): every switch of a rank has as many
/// up groups and as many ports in each as the first switch of that rank in OpenSM's order,
/// and, above the leaves, as many down groups and as many ports in its first one.
pub fn check_pure(f: &Fabric) -> Result<(), String> {
    let tree_rank = f.leaf_rank + 1;
    let mut reference: Vec<Option<&FtSwitch>> = vec![None; tree_rank as usize];
    let size = |g: GroupId| f.groups[g].ports.len();
    for &s in &f.switches {
        let sw = &f.sw[s];
        let Some(slot) = reference.get_mut(sw.rank as usize) else { continue };
        let Some(r) = *slot else {
            *slot = Some(sw);
            continue;
        };
        let above_leaves = sw.rank != tree_rank - 1;
        let pair = |what: &str, unit: &str, a: usize, b: usize| {
            Err(format!(
                "{what} on switches: GUID {:#018x}, LID {}, Index {} - {a} {unit}, GUID {:#018x}, LID {}, Index {} - {b} {unit}; ERR AB0D: Fabric topology hasn't been identified as FatTree; {NOT_FAT_TREE}",
                r.guid,
                r.lid,
                tuple_str(&r.tuple),
                sw.guid,
                sw.lid,
                tuple_str(&sw.tuple),
            ))
        };
        if r.up.len() != sw.up.len() {
            return pair("ERR AB09: Different number of upward port groups", "groups", r.up.len(), sw.up.len());
        }
        if above_leaves && r.down.len() != sw.down.len() {
            return pair("ERR AB0A: Different number of downward port groups", "port groups", r.down.len(), sw.down.len());
        }
        if let Some(&first) = r.up.first() {
            if let Some(&g) = sw.up.iter().find(|&&g| size(g) != size(first)) {
                return pair("ERR AB0B: Different number of ports in an upward port group", "ports", size(first), size(g));
            }
        }
        // OpenSM compares the first down group of each, once per down group.
        if let (Some(&a), Some(&b), true) = (r.down.first(), sw.down.first(), above_leaves) {
            if size(a) != size(b) {
                return pair("ERR AB0C: Different number of ports in an downward port group", "ports", size(a), size(b));
            }
        }
    }
    Ok(())
}
