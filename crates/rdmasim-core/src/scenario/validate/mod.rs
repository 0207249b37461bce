//! Parsing and semantic validation of scenarios.
//!
//! Every failure is a [`ScenarioError`] naming the source, the dotted key path
//! (`qp.timeout`, `faults[1].loss_rate`, `workload.size`), the 1-based line when the scenario
//! came from text, and a message saying what was found and what was expected. Nothing here
//! panics on any input.
//!
//! Parsing goes through `serde_path_to_error` over the `toml` deserializer, which gives the key
//! path and span of most errors; `parse_errors` rewrites the raw serde messages (with
//! `messages`) and patches its blind spots. Line numbers of semantic errors (`checks`,
//! `workload_checks`) come from a span index of the document (`spans`).
mod checks;
mod links;
mod messages;
mod parse_errors;
mod spans;
mod workload_checks;

pub use checks::{check_limits, checked_time_parameters};
pub use links::{parse_link_selector, topology_links, Endpoint};
pub use messages::{expected_for, explain};
pub use parse_errors::{parse_error, ScenarioKind};
pub use spans::SpanIndex;

use super::{Scenario, ScenarioError};

// ------------------------------------------------------------------------------------------
// Limits of the format (referenced by docs/scenario.md)
// ------------------------------------------------------------------------------------------

/// Path MTUs an InfiniBand port can run (IBTA Vol. 1, 7.7.1: 256..4096 in powers of two).
pub const VALID_MTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];
/// Link widths the model supports (1x, 4x, 12x).
pub const VALID_LINK_WIDTHS: [u8; 3] = [1, 4, 12];
/// Most hosts a single-switch topology may have.
/// A switch has at most 254 ports (InfiniBand port numbers are 8-bit, 255 is "no route"): more
/// hosts need a fat tree.
pub const MAX_SINGLE_SWITCH_HOSTS: u32 = 254;
/// Longest cable, metres.
pub const MAX_CABLE_M: f64 = 10_000.0;
/// Largest perftest message, bytes (2 GiB).
pub const MAX_SIZE: u64 = 1 << 31;
/// Most perftest iterations accepted.
pub const MAX_ITERS: u64 = 1_000_000_000;
/// Most QPs in one perftest run.
pub const MAX_QPS: u32 = 4096;
/// Largest inline size accepted, bytes.
pub const MAX_INLINE: u32 = 1024;
/// IBTA PSN space: at most 2^23 unacknowledged packets.
pub const MAX_INFLIGHT_PACKETS: u32 = 1 << 23;
/// Packets one QP may send in a run: PSNs are u32 in the model, and half the space keeps
/// PSN comparisons across a go-back from wrapping.
pub const MAX_PSNS_PER_QP: u64 = 1 << 31;
/// Largest perftest `tx_depth`: an assumption of the order of real devices' max_qp_wr.
pub const MAX_TX_DEPTH: u32 = 32768;
/// perftest's MAX_CQ_MOD (src/perftest_parameters.h).
pub const MAX_CQ_MOD: u32 = 1024;
/// Most ODP fault workers: mlx5's fault workqueue runs 32 (hca/profile.rs); a bound far above
/// it keeps the per-fault scan over workers small.
pub const MAX_ODP_FAULT_WORKERS: u32 = 1024;
/// Highest bit error rate accepted (beyond it a link does not train).
pub const MAX_BER: f64 = 1e-3;
/// Headers of the largest packet: LRH 8 + GRH 40 + BTH 12 + RETH 16 + ImmDt 4 + ICRC 4 +
/// VCRC 2 (IBTA Vol. 1, ch. 5 and 9). An RDMA WRITE Only with Immediate over a global route
/// carries all of them.
pub const MAX_PACKET_HEADER_BYTES: u32 = 8 + 40 + 12 + 16 + 4 + 4 + 2;
/// Link-level flow-control credit size, bytes (IBTA Vol. 1, 7.9.4).
pub const CREDIT_BYTES: u32 = 64;

/// The receive buffer a VL needs to accept one full packet at this path MTU.
pub fn min_vl_buffer_bytes(mtu: u32) -> u32 {
    let bytes = mtu + MAX_PACKET_HEADER_BYTES;
    bytes.div_ceil(CREDIT_BYTES) * CREDIT_BYTES
}

/// Parses a TOML scenario, rejecting unknown keys and wrong types, then checks values.
pub fn parse_toml(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    let text = match crate::scenario::host_names::resolve(text, source) {
        Ok(t) => t,
        Err((key, message)) => return Err(ScenarioError { source: source.to_string(), line: SpanIndex::build(text).as_ref().and_then(|sp| sp.line(&key)), key, message }),
    };
    let text = text.as_ref();
    let de = toml::Deserializer::new(text);
    let result: Result<Scenario, _> = serde_path_to_error::deserialize(de);
    let mut scenario = match result {
        Ok(s) => s,
        Err(e) => {
            let path = e.path().to_string();
            let inner = e.into_inner();
            return Err(parse_errors::parse_error(ScenarioKind::Verbs, text, source, &path, inner.message(), inner.span()));
        }
    };
    let spans = SpanIndex::build(text);
    if let Err((key, message)) = crate::scenario::resolve_topology(&mut scenario, source) {
        return Err(ScenarioError { source: source.to_string(), line: spans.as_ref().and_then(|sp| sp.line(&key)), key, message });
    }
    if let crate::scenario::WorkloadSection::Flows(f) = &mut scenario.workload {
        // The flows a pattern stands for, once the fabric's host count is known.
        if let Err((key, message)) = crate::scenario::flow_pattern::expand(f, scenario.topology.hosts) {
            return Err(ScenarioError { source: source.to_string(), line: spans.as_ref().and_then(|sp| sp.line(&key)), key, message });
        }
    }
    checks::check_scenario(&scenario, source, spans.as_ref())?;
    Ok(scenario)
}

/// Semantic checks that types alone cannot express. Errors carry no line (there is no text);
/// [`parse_toml`] runs the same checks with line numbers.
pub fn check(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    checks::check_scenario(s, source, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vl_buffer_minimum_is_one_credit_rounded_packet() {
        assert_eq!(MAX_PACKET_HEADER_BYTES, 86);
        assert_eq!(min_vl_buffer_bytes(4096), 4224);
        assert_eq!(min_vl_buffer_bytes(256), 384);
    }
}
