//! The random-pair round as flows (`[workload] pattern`, scenario/flow_pattern.rs) on the
//! flow-level engine against the same round as an MPI program on the packet engine: same pairs,
//! same slowest pair within the handshake the flows leave out. Two-rail k = 4 fat trees, cx3-fdr.
mod common;
use common::{f, run, table};
use serde_json::Value;
use std::collections::BTreeMap;

const TOPOLOGY: &str = "[hardware]\nprofile = \"cx3-fdr\"\n[topology]\ngenerator = { kind = \"rails\", rails = 2, of = { kind = \"fat-tree-k\", k = 4 } }\n";

fn flows(seed: u64, bytes: u64, nodes: &str) -> Value {
    run(&format!(
        "engine = \"flow\"\n{TOPOLOGY}[workload]\nkind = \"flows\"\nuntil = \"all\"\npattern = {{ kind = \"random-pair\", bytes = {bytes}, seed = {seed}, rails = 2{nodes} }}\n"
    ))
}

fn mpi(seed: u64, bytes: u64, nodes: &str) -> Value {
    run(&format!(
        "{TOPOLOGY}[workload]\nkind = \"mpi\"\nnum_hcas = 2\nprogram = {{ kind = \"random-pair-sendrecv\", bytes = {bytes}, seed = {seed} }}\n{}\n",
        nodes.replace(", ", "\n")
    ))
}

/// Each pair's (rank a, rank b) and time: its flows' latest finish (they all start at 0).
fn flow_pairs(r: &Value) -> BTreeMap<(u64, u64), f64> {
    let mut pairs = BTreeMap::new();
    for fl in table(r, "flows") {
        let name = fl["flow"].as_str().or(fl["name"].as_str()).unwrap_or_else(|| panic!("no name in {fl}"));
        let ranks = name.split('.').nth(1).unwrap();
        let (a, b) = ranks.split_once('>').unwrap();
        let (a, b): (u64, u64) = (a.parse().unwrap(), b.parse().unwrap());
        let t = pairs.entry((a.min(b), a.max(b))).or_insert(0.0f64);
        *t = t.max(f(fl, "finish_us"));
    }
    pairs
}

#[test]
fn the_flow_round_pairs_the_same_ranks_and_finds_the_same_slowest_pair() {
    // Seeds 3 and 5 (16 and 13 nodes): slowest pair 1058.91 us on the flow engine, 1062.66 and
    // 1061.23 us as MPI. Seed 4 pairs the same ranks but its slowest pair differs: 1058.91 us as
    // flows on either engine, 1589.77 us as MPI (pair 8-11, a third of the rate; 3172 vs 2114 us
    // on one rail); the MPI exchange runs both directions over one RC connection per rail where
    // the flows have a QP each way; the ports' bytes and hosts 8 and 11's HCA counters are the
    // same in both (same paths), so it is timing under the switches' arbitration. Not explained
    // yet: only the pairing is checked there.
    let bytes = 4u64 << 20;
    for (seed, nodes, agree) in [(3, "", true), (4, "", false), (5, ", nodes = 13, missing_seed = 2", true)] {
        let (fr, mr) = (flows(seed, bytes, nodes), mpi(seed, bytes, nodes));
        let fp = flow_pairs(&fr);
        let mp: BTreeMap<(u64, u64), f64> = table(&mr, "mpi_pairs")
            .iter()
            .map(|p| {
                let (a, b) = (p["rank_a"].as_u64().unwrap(), p["rank_b"].as_u64().unwrap());
                ((a.min(b), a.max(b)), f(p, "time_us"))
            })
            .collect();
        assert_eq!(fp.keys().collect::<Vec<_>>(), mp.keys().collect::<Vec<_>>(), "seed {seed}: same pairs");
        let slowest = |m: &BTreeMap<(u64, u64), f64>| m.values().cloned().fold(0.0, f64::max);
        let (tf, tm) = (slowest(&fp), slowest(&mp));
        // The MPI exchange adds the RTS/CTS handshake and MPI's software, a few us on ~1 ms.
        assert!(!agree || (tf <= tm && tm / tf < 1.01), "seed {seed}: flows {tf} us, MPI {tm} us");
        assert!(tf <= tm, "seed {seed}: flows {tf} us, MPI {tm} us");
    }
}
