//! `[workload] kind = "flows"` with `pattern = { kind = "random-pair", ... }`: the TSUBAME2.0
//! study's random-pair round (seeds/004 §2.1) written as flows, so the flow-level engine
//! (`engine = "flow"`, docs/flow.md) can run it on the whole 1408-node fabric, where the MPI
//! program (`mpi/synthetic.rs`) runs packet by packet.
//!
//! The pattern expands, when the scenario is read, into `[[workload.flow]]` entries: for every
//! pair of the same matching the MPI program and the static EBB draw (seed, node count), one
//! WRITE of `bytes / rails` each way on each rail (MVAPICH2 stripes a large rendezvous payload
//! evenly over its rails), named `pN.a>b.rK` (pair N, rank a to rank b, rail K) so a pair's flows
//! group by the name's first field. With `until = "all"` every flow's `finish_us` is in the
//! `flows` table; a pair's time is its flows' latest finish and the slowest pair's converts to
//! injection bandwidth as `bytes / time`. Ranks sit on the kept nodes in node order, as the MPI
//! program places them (`workload/mpi/nodes.rs`).
//!
//! What the flows leave out of the MPI exchange: the RTS/CTS handshake and the barrier (a few µs
//! against the ~70 ms of a 512 MiB message), and MPI's software; see docs/flow.md.
use super::flows::{FlowPattern, FlowSpec, FlowsSection};
use crate::traffic::nodes::NodeSubset;
use crate::traffic::patterns::random_pairs;
use serde_json::json;

/// Replaces `f.pattern` by the flows it stands for, on a fabric of `hosts` hosts. An error
/// names the key.
pub fn expand(f: &mut FlowsSection, hosts: u32) -> Result<(), (String, String)> {
    let Some(FlowPattern::RandomPair { bytes, seed, nodes, missing, missing_seed, rails }) = f.pattern.take() else { return Ok(()) };
    let key = |k: &str| format!("workload.pattern.{k}");
    if !f.flow.is_empty() {
        return Err(("workload.pattern".into(), "both pattern and [[workload.flow]] are given; expected one of them".into()));
    }
    if rails == 0 || rails > 10 {
        return Err((key("rails"), format!("rails = {rails} is out of range; expected 1..=10 (MVAPICH2's MAX_NUM_HCAS)")));
    }
    if bytes < rails as u64 {
        return Err((key("bytes"), format!("bytes = {bytes} leaves a rail without data; expected bytes >= rails ({rails})")));
    }
    let subset = NodeSubset { nodes, missing, seed: missing_seed };
    let kept = subset.select(hosts).map_err(|(k, m)| (k.replace("workload.", "workload.pattern."), m))?;
    for (i, (a, b)) in random_pairs(kept.len() as u32, seed).into_iter().enumerate() {
        for (from, to) in [(a, b), (b, a)] {
            for rail in 0..rails {
                // The first stripes take the remainder, as an even split rounds.
                let size = bytes / rails as u64 + u64::from((rail as u64) < bytes % rails as u64);
                let spec = json!({
                    "name": format!("p{i}.{from}>{to}.r{rail}"), "verb": "write", "size": size, "count": 1,
                    "client": kept[from as usize].0, "server": kept[to as usize].0, "rail": rail,
                });
                f.flow.push(serde_json::from_value::<FlowSpec>(spec).map_err(|e| ("workload.pattern".to_string(), e.to_string()))?);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(pattern: &str) -> FlowsSection {
        toml::from_str(&format!("pattern = {pattern}\nuntil = \"all\"")).unwrap()
    }

    #[test]
    fn a_round_is_two_writes_per_pair_and_rail_on_the_kept_nodes() {
        let mut f = section("{ kind = \"random-pair\", bytes = 1001, seed = 2, missing = [0], rails = 2 }");
        expand(&mut f, 8).unwrap();
        let pairs = random_pairs(7, 2);
        assert_eq!(f.flow.len(), pairs.len() * 4);
        assert!(f.flow.iter().all(|fl| fl.client != 0 && fl.server != 0), "host 0 is down");
        let (a, b) = pairs[0];
        assert_eq!((f.flow[0].client, f.flow[0].server, f.flow[0].size), (a + 1, b + 1, 501));
        assert_eq!((f.flow[1].rail, f.flow[1].size), (1, 500));
        assert_eq!(f.flow[0].label(0), format!("p0.{a}>{b}.r0"));
    }

    #[test]
    fn bad_patterns_name_the_key() {
        let err = |p: &str, hosts| expand(&mut section(p), hosts).unwrap_err().0;
        assert_eq!(err("{ kind = \"random-pair\", bytes = 8, rails = 0 }", 4), "workload.pattern.rails");
        assert_eq!(err("{ kind = \"random-pair\", bytes = 8, nodes = 5 }", 4), "workload.pattern.nodes");
        assert_eq!(err("{ kind = \"random-pair\", bytes = 8, missing = [9] }", 4), "workload.pattern.missing");
    }
}
