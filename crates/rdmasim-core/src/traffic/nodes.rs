//! The nodes an MPI job runs on: all of the fabric's hosts, or a subset with some nodes missing
//! as on a production system (the TSUBAME2.0 study ran on 1300 of its 1408 nodes: seeds/004
//! table 1, §3.1 "nodes that went down were taken out of the node list"). Ranks go onto the kept
//! nodes in node order, so a missing node shifts every later rank by one host, as a batch
//! system's node list does.
use crate::engine::SimRng;
use crate::ids::HostId;

/// Stream of the missing-node draw (its own, so it never shifts the pairing's draws).
const STREAM_MISSING: u64 = 0x4d49_5353 << 32;

/// Which nodes are down. `missing` names them; without it, `nodes` of the fabric's hosts are kept
/// and the others drawn at random from `seed`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeSubset {
    pub nodes: Option<u32>,
    pub missing: Option<Vec<u32>>,
    pub seed: u64,
}

impl NodeSubset {
    /// True when every host is kept in order (the trace path's mapping, host r / ranks_per_host).
    pub fn is_all(&self) -> bool {
        self.nodes.is_none() && self.missing.as_ref().is_none_or(|m| m.is_empty())
    }

    /// The kept hosts in node order, out of `hosts`; an error names the key and why.
    pub fn select(&self, hosts: u32) -> Result<Vec<HostId>, (&'static str, String)> {
        let mut down = vec![false; hosts as usize];
        if let Some(list) = &self.missing {
            for &h in list {
                let Some(d) = down.get_mut(h as usize) else {
                    return Err(("workload.missing", format!("missing host {h} is not on the fabric; expected host numbers below {hosts}")));
                };
                if std::mem::replace(d, true) {
                    return Err(("workload.missing", format!("missing host {h} is listed twice; expected each host once")));
                }
            }
        }
        let up = hosts - down.iter().filter(|&&d| d).count() as u32;
        let keep = self.nodes.unwrap_or(up);
        if keep == 0 || keep > up {
            let why = if self.missing.is_some() { format!("{hosts} hosts with {} missing leave {up}", hosts - up) } else { format!("the fabric has {hosts} hosts") };
            return Err(("workload.nodes", format!("nodes = {keep} but {why}; expected 1..={up}")));
        }
        if self.missing.is_none() && keep < up {
            // A uniform draw of the hosts that are down: the last (hosts - keep) of a shuffle.
            let mut order: Vec<u32> = Vec::with_capacity(hosts as usize);
            crate::traffic::patterns::shuffle_into(&mut order, hosts as usize, &mut SimRng::new(self.seed, STREAM_MISSING));
            for &h in &order[keep as usize..] {
                down[h as usize] = true;
            }
        }
        // With a list, `nodes` below what is up keeps the first of the rest in node order.
        Ok((0..hosts).filter(|&h| !down[h as usize]).take(keep as usize).map(HostId).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drawn_subset_keeps_nodes_hosts_in_order_and_is_seeded() {
        let s = NodeSubset { nodes: Some(13), missing: None, seed: 5 };
        let a = s.select(16).unwrap();
        assert_eq!(a.len(), 13);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(a, s.select(16).unwrap());
        assert_ne!(a, NodeSubset { seed: 6, ..s.clone() }.select(16).unwrap(), "another seed, other nodes down");
    }

    #[test]
    fn a_listed_subset_skips_exactly_those_hosts() {
        let s = NodeSubset { nodes: None, missing: Some(vec![3, 0]), seed: 0 };
        assert_eq!(s.select(6).unwrap(), [1, 2, 4, 5].map(HostId));
        assert_eq!(NodeSubset { nodes: Some(2), ..s.clone() }.select(6).unwrap(), [1, 2].map(HostId));
        assert_eq!(NodeSubset { nodes: Some(5), ..s.clone() }.select(6).unwrap_err().0, "workload.nodes");
        assert_eq!(NodeSubset { missing: Some(vec![6]), ..s }.select(6).unwrap_err().0, "workload.missing");
        assert!(NodeSubset::default().is_all());
    }
}
