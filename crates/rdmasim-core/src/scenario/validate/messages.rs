//! What a key accepts and what was wrong with it, in words: the expected-value table (also
//! the source of `docs/scenario.md`'s wording), serde messages rewritten, "did you mean" hints
//! and numbers written as a user would write them.
use crate::profile::{self, host as host_profile};

/// What a key accepts, in words, for messages and for `docs/scenario.md`. Array elements are
/// written `faults[].link`.
pub fn expected_for(key: &str) -> Option<String> {
    let norm = normalize_key(key);
    let s: &str = match norm.as_str() {
        "name" => "a string",
        "seed" => "an integer 0..=9223372036854775807",
        "hardware" => "a table with `profile = \"<name>\"` and optional [hardware.overrides]",
        "hardware.profile" => return Some(format!("a profile name: {}", quoted_list(&profile::names()))),
        "hardware.host" | "hardware.hosts[].host" => return Some(format!("a host name: {}", quoted_list(&host_profile::names()))),
        "hardware.overrides" => "a table of hardware profile parameters",
        "hardware.overrides.link_gen" => "one of \"sdr\", \"ddr\", \"qdr\", \"fdr10\", \"fdr\", \"edr\", \"hdr\"",
        "hardware.overrides.link_width" => "a lane count: 1, 4 or 12",
        "qp.sl" | "workload.flow[].sl" => "a service level, an integer 0..=15",
        "hardware.overrides.mtu" | "qp.mtu" => "an MTU in bytes: 256, 512, 1024, 2048 or 4096",
        "hardware.overrides.vl_buffer_bytes" => "an integer number of bytes, at least one full packet",
        "hardware.overrides.ack_req_every" => "an integer >= 1 (packets)",
        "hardware.overrides.max_inflight_packets" => "an integer 1..=8388608 (2^23 packets)",
        "hardware.overrides.arbitration" => {
            "one of \"packet-round-robin\", \"message-round-robin\", \"chunk-round-robin\", \"quantum-round-robin\""
        }
        "hardware.overrides.wqe_fetch_on_schedule" | "hardware.overrides.rx_dma_drain" => "true or false",
        "hardware.overrides.pcie_gen" => "a PCIe generation: 3, 4 or 5",
        "hardware.overrides.pcie_lanes" => "a PCIe lane count: 1, 2, 4, 8, 16 or 32",
        "hardware.overrides.pcie_mps" => "a PCIe Maximum Payload Size in bytes: 128, 256, 512, 1024, 2048 or 4096",
        "hardware.overrides.cpu_idle" => "\"none\", \"haswell\", \"haswell-pkg\" or \"sandybridge\"",
        "hardware.overrides.arbitration_chunk_bytes" => "an integer >= 1 (bytes)",
        "hardware.overrides.tx_staging_bytes" => "an integer 0..=16777216 (bytes)",
        "hardware.overrides.retransmit_floor_ms" => "a finite number of milliseconds >= 0",
        "hardware.overrides.adaptive_retrans_base_us" => "a finite number of microseconds >= 0 (0 disables)",
        "hardware.overrides.cable_ns_per_m" => "a finite number of nanoseconds per metre >= 0",
        "hardware.overrides.os_tick_hz" => "a finite tick rate in Hz >= 0 (0 = no tick noise), e.g. 100, 250 or 1000",
        k if k.starts_with("hardware.overrides.") && k.ends_with("_ns") => "a finite number of nanoseconds >= 0",
        "topology" => "a table",
        "topology.kind" => "\"back-to-back\" or \"single-switch\"",
        "topology.hosts" => "an integer: exactly 2 for back-to-back, 2..=254 for single-switch (a switch has at most 254 ports)",
        "topology.cable_m" => "a number of metres in (0, 10000]",
        "qp" => "a table",
        "qp.timeout" => "an integer 0..=31 (ACK timeout 4.096 us x 2^timeout; 0 = infinite)",
        "qp.retry_cnt" => "an integer 0..=7",
        "qp.rnr_retry" => "an integer 0..=7 (7 = retry forever)",
        "qp.min_rnr_timer" => "an integer 0..=31 (IBTA RNR NAK timer code)",
        "qp.max_rd_atomic" => "an integer 1..=16",
        "workload" => "a table with `kind = \"perftest\"` and `test = \"ib_write_bw\"` (or another perftest)",
        "workload.kind" => "\"perftest\", \"srq-episode\", \"flows\", \"mpi\" or \"odp-reads\"",
        "workload.test" => {
            "one of \"ib_write_bw\", \"ib_write_lat\", \"ib_read_bw\", \"ib_read_lat\", \"ib_send_bw\", \"ib_send_lat\""
        }
        "workload.size" => "a message size in bytes, 1..=2147483648",
        "workload.all_sizes" | "workload.events" | "output.capture" => "true or false",
        "workload.iters" => "an integer 1..=1000000000",
        "workload.inline_size" => "an integer 0..=1024 (bytes; 0 for ib_read_*)",
        "workload.tx_depth" => "an integer 1..=32768",
        "workload.rx_depth" => "an integer 0..=32768",
        "workload.cq_mod" => "an integer 1..=1024",
        "workload.qps" => "an integer 1..=4096",
        "workload.client" | "workload.server" => "a host index below topology.hosts",
        "faults" => "an array of tables, written [[faults]]",
        "faults[]" => "a table with `link` and any of `loss_rate`, `ber`, `drop_nth`",
        "faults[].link" => "a link selector: \"*\", \"hN-hM\", \"hN->hM\", \"hN-sw0\" or \"sw0->hN\"",
        "faults[].loss_rate" => "a probability in [0, 1)",
        "faults[].ber" => "a bit error rate in [0, 0.001]",
        "faults[].drop_nth" => "an array of packet numbers >= 1",
        "faults[].drop_nth[]" => "a packet number >= 1",
        "output" => "a table",
        "output.capture_hosts" => "an array of host indices below topology.hosts",
        "output.capture_hosts[]" => "a host index below topology.hosts",
        "output.capture_qps" => "an array of QP numbers",
        "output.capture_qps[]" => "a QP number",
        "output.capture_max_packets" => "an integer >= 1",
        "output.capture_max_bytes" => "an integer 24..=4294967296 (bytes)",
        "limits" => "a table",
        "limits.max_sim_time_ms" => "a finite number of milliseconds > 0",
        "limits.max_events" => "an integer >= 1",
        _ => return None,
    };
    Some(s.to_string())
}

/// `faults[3].drop_nth[0]` -> `faults[].drop_nth[]`.
fn normalize_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut in_index = false;
    for c in key.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push('[');
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

pub(super) fn quoted_list<S: AsRef<str>>(items: &[S]) -> String {
    items.iter().map(|s| format!("\"{}\"", s.as_ref())).collect::<Vec<_>>().join(", ")
}

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

pub(super) fn did_you_mean<S: AsRef<str>>(word: &str, candidates: &[S]) -> String {
    let best = candidates
        .iter()
        .map(|c| (edit_distance(&word.to_lowercase(), &c.as_ref().to_lowercase()), c.as_ref()))
        .min_by_key(|(d, _)| *d);
    match best {
        Some((d, c)) if d > 0 && d <= 2.max(word.len() / 3) => format!(" (did you mean `{c}`?)"),
        _ => String::new(),
    }
}

/// serde's "expected u8" etc. in words.
fn humanize_expected(e: &str) -> String {
    match e.trim() {
        "u8" | "u16" | "u32" | "u64" => "a non-negative integer".into(),
        "i8" | "i16" | "i32" | "i64" => "an integer".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a sequence" => "an array".into(),
        e if e.starts_with("struct ") || e == "a map" => "a table".into(),
        e => e.to_string(),
    }
}

/// serde's "string \"x\"", "integer `3`" in words.
fn humanize_found(f: &str) -> String {
    let f = f.trim();
    let strip = |s: &str| s.trim_matches('`').to_string();
    if let Some(v) = f.strip_prefix("integer ") {
        format!("the integer {}", strip(v))
    } else if let Some(v) = f.strip_prefix("floating point ") {
        format!("the number {}", strip(v))
    } else if let Some(v) = f.strip_prefix("boolean ") {
        format!("the boolean {}", strip(v))
    } else if let Some(v) = f.strip_prefix("string ") {
        format!("the string {v}")
    } else if f == "map" {
        "a table".into()
    } else if f == "sequence" {
        "an array".into()
    } else {
        f.to_string()
    }
}

/// Rewrites a serde/toml message for `key` into "what was found, what was expected";
/// `accepts` says in words what the key accepts (`expected_for`), if known.
pub fn explain(raw: &str, key: &str, accepts: Option<String>) -> String {
    let raw = raw.trim();
    if let Some(rest) = raw.strip_prefix("unknown field `") {
        let (field, tail) = rest.split_once('`').unwrap_or((rest, ""));
        let allowed = backquoted(tail);
        let parent = key.strip_suffix(field).map(|p| p.trim_end_matches('.')).unwrap_or(key);
        let list = if allowed.is_empty() {
            "it takes no keys".to_string()
        } else {
            format!("allowed keys: {}", allowed.join(", "))
        };
        return format!("unknown key `{field}` {}{}; {list}", table_name(parent), did_you_mean(field, &allowed));
    }
    if let Some(rest) = raw.strip_prefix("unknown variant `") {
        let (value, tail) = rest.split_once('`').unwrap_or((rest, ""));
        let allowed = backquoted(tail);
        return format!(
            "invalid value \"{value}\"{}; expected one of: {}",
            did_you_mean(value, &allowed),
            quoted_list(&allowed)
        );
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = raw.strip_prefix(prefix) {
            if let Some((found, expected)) = rest.rsplit_once(", expected ") {
                let expected = accepts.unwrap_or_else(|| humanize_expected(expected));
                let mut found = humanize_found(found);
                if prefix == "invalid value: " && found.starts_with("the integer -") {
                    found.push_str(" (negative values are not allowed here)");
                } else if prefix == "invalid value: " && found.starts_with("the integer ") {
                    found.push_str(" (out of range)");
                }
                return format!("expected {expected}; found {found}");
            }
        }
    }
    if let Some(rest) = raw.strip_prefix("invalid length ") {
        return format!("invalid length {rest}");
    }
    raw.replace('\n', "; ")
}

/// The back-quoted items of serde's "expected one of `a`, `b`" / "expected `a` or `b`" lists.
fn backquoted(s: &str) -> Vec<String> {
    s.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// Where a key sits, for messages: "at the top level", "in [qp]", "in [[faults]] entry faults[1]".
pub(super) fn table_name(path: &str) -> String {
    if path.is_empty() {
        "at the top level".into()
    } else if let Some((array, _)) = path.rsplit_once('[').filter(|_| path.ends_with(']')) {
        format!("in [[{array}]] entry {path}")
    } else {
        format!("in [{path}]")
    }
}

/// A number as the user would write it: plain, or in exponent form when very large or small
/// (1e300, not 301 digits).
pub(super) fn fmt_f(x: f64) -> String {
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e15).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_messages_are_short() {
        assert_eq!(fmt_f(1e300), "1e300");
        assert_eq!(fmt_f(2.5e-9), "2.5e-9");
        assert_eq!(fmt_f(250.0), "250");
        assert_eq!(fmt_f(0.5), "0.5");
        assert_eq!(fmt_f(0.0), "0");
    }

    #[test]
    fn edit_distance_hints() {
        assert_eq!(edit_distance("timout", "timeout"), 1);
        assert_eq!(did_you_mean("timout", &["timeout", "retry_cnt"]), " (did you mean `timeout`?)");
        assert_eq!(did_you_mean("zzzzzz", &["timeout"]), "");
    }
}
