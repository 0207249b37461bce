//! The root switches updn ranks from: the ones an operator gives (OpenSM's `-a` root GUID
//! file), or, without any, the ones OpenSM detects from its min-hop matrix: a switch is a
//! root when more than 90% of the HCA ports sit at one hop distance from it and no other
//! distance holds more than 5% (the spines of a fat tree; on most irregular fabrics none, and
//! OpenSM falls back to minhop).
use super::opensm_order::{end_ports_per_switch, switch_table_order};
use super::shortest::{bfs, SwitchLinks};
use crate::fabric::graph::{FabricGraph, GraphError};
use crate::ids::{NodeId, TiVec};

/// OpenSM's `IB_SUBNET_PATH_HOPS_MAX`: distances past it are not counted.
const HOPS_COUNTED: usize = 64;

/// The switches of `g` that `names` name (fabric/routing/roots.rs): names of other rails are
/// skipped; an HCA or a GUID that does not parse is an error.
pub fn given(g: &FabricGraph, names: &[String]) -> Result<Vec<NodeId>, GraphError> {
    super::roots::switches_named(g, names, "updn")
}

/// The roots OpenSM 3.3 detects, in switch-table order.
pub fn detect(g: &FabricGraph, links: &SwitchLinks) -> Vec<NodeId> {
    let hcas = end_ports_per_switch(g);
    let total: u32 = hcas.iter().sum();
    // Per switch, HCA ports by hop distance.
    let mut histogram: TiVec<NodeId, [u32; HOPS_COUNTED]> = TiVec::from(vec![[0; HOPS_COUNTED]; g.nodes.len()]);
    let mut dist = TiVec::from(vec![u32::MAX; g.nodes.len()]);
    let mut order = Vec::new();
    for (leaf, &count) in hcas.iter_enumerated() {
        if count == 0 {
            continue;
        }
        bfs(links, leaf, &mut dist, &mut order);
        for &s in &order {
            if let Some(bar) = histogram[s].get_mut(dist[s] as usize) {
                *bar += count;
            }
        }
    }
    let most = f64::from(total) * 0.9;
    let some = f64::from(total) * 0.05;
    switch_table_order(g)
        .into_iter()
        .filter(|&s| {
            let over = |t: f64| histogram[s].iter().filter(|&&n| f64::from(n) > t).count();
            over(most) == 1 && over(some) == 1
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::build::GeneratorSpec;

    fn tree() -> FabricGraph {
        serde_json::from_str::<GeneratorSpec>(r#"{"kind":"k-ary-n-tree","k":4,"n":3}"#).unwrap().build().unwrap()
    }

    #[test]
    fn the_top_of_a_fat_tree_is_detected_and_nothing_else() {
        let g = tree();
        let roots = detect(&g, &SwitchLinks::new(&g));
        // Each of the 16 top switches is 2 hops from every leaf, so from all 64 HCAs; a middle
        // switch has a quarter of them at 1 hop, a leaf its own 4 (over 5%) at 0.
        let names: Vec<&str> = roots.iter().map(|&s| g.nodes[s].name.as_str()).collect();
        assert_eq!(roots.len(), 16, "{names:?}");
        assert!(names.iter().all(|n| n.starts_with("r0-L3-")), "{names:?}");
    }

    #[test]
    fn given_roots_by_name_or_guid_unknown_ones_skipped_hcas_refused() {
        let g = tree();
        let sw: Vec<NodeId> = g.switches().collect();
        let (a, b) = (sw[0], sw[5]);
        let names = vec![g.nodes[a].name.clone(), format!("{:#x}", g.nodes[b].guid), "no-such-switch".into(), g.nodes[a].name.clone()];
        assert_eq!(given(&g, &names).unwrap(), vec![a, b]);
        let hca = g.nodes.iter().find(|n| !n.is_switch()).unwrap().name.clone();
        let e = given(&g, std::slice::from_ref(&hca)).unwrap_err();
        assert!(e.0.contains("not a switch") && e.0.contains(&hca), "{e}");
        assert!(given(&g, &["0xzz".into()]).unwrap_err().0.contains("not a GUID"));
    }
}
