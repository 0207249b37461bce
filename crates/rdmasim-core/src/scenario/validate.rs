//! Parsing and semantic validation of scenarios.
//!
//! Every failure is a [`ScenarioError`] naming the source, the dotted key path
//! (`qp.timeout`, `faults[1].loss_rate`, `workload.size`), the 1-based line when the scenario
//! came from text, and a message saying what was found and what was expected. Nothing here
//! panics on any input.
//!
//! Parsing goes through `serde_path_to_error` over the `toml` deserializer, which gives the key
//! path and span of most errors; the raw serde messages are then rewritten (see [`explain`])
//! and two blind spots are patched: errors inside `[workload]` (an internally tagged enum,
//! which serde buffers, losing the inner path and span) are re-located by deserializing the
//! workload table on its own, and TOML syntax errors get the key written on the offending line.
//! Line numbers of semantic errors come from a span index of the document ([`SpanIndex`]).
use super::{PerftestSection, PerftestTest, Scenario, ScenarioError, TopologyKind, WorkloadSection};
use crate::hca::profile::{self, HwProfile, ProfileOverrides};
use crate::hca::rx_dma::{VALID_MPS, VALID_PCIE_LANES};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

// ------------------------------------------------------------------------------------------
// Limits of the format (referenced by docs/scenario.md)
// ------------------------------------------------------------------------------------------

/// Path MTUs an InfiniBand port can run (IBTA Vol. 1, 7.7.1: 256..4096 in powers of two).
pub const VALID_MTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];
/// Link widths the model supports (1x, 4x, 12x).
pub const VALID_LINK_WIDTHS: [u8; 3] = [1, 4, 12];
/// Most hosts a single-switch topology may have.
pub const MAX_SINGLE_SWITCH_HOSTS: u32 = 1024;
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

// ------------------------------------------------------------------------------------------
// Parsing
// ------------------------------------------------------------------------------------------

/// Parses a TOML scenario, rejecting unknown keys and wrong types, then checks values.
pub fn parse_toml(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::new(text);
    let result: Result<Scenario, _> = serde_path_to_error::deserialize(de);
    let scenario = match result {
        Ok(s) => s,
        Err(e) => {
            let path = e.path().to_string();
            let inner = e.into_inner();
            return Err(parse_error(text, source, &path, inner.message(), inner.span()));
        }
    };
    let spans = SpanIndex::build(text);
    check_impl(&scenario, source, spans.as_ref())?;
    Ok(scenario)
}

/// Turns one deserialization error into a [`ScenarioError`] with the right key, line and a
/// message saying what was expected.
fn parse_error(text: &str, source: &str, path: &str, raw: &str, span: Option<Range<usize>>) -> ScenarioError {
    let spans = SpanIndex::build(text);
    let mut key = if path == "." { String::new() } else { path.to_string() };
    let mut raw = raw.to_string();
    let mut line = span.as_ref().map(|s| line_of(text, s.start));

    // Errors inside [workload]: serde buffers internally tagged enums, so the path stops at
    // `workload` and the span covers the whole table. Deserialize the table on its own.
    if key == "workload" {
        if let Some((inner_key, inner_raw)) = relocate_workload_error(text) {
            key = inner_key;
            raw = inner_raw;
            line = spans.as_ref().and_then(|s| s.line(&key)).or(line);
        }
    }

    // A missing key: name it in the key path; point at its table's header when there is one.
    if let Some(field) = between(&raw, "missing field `", "`") {
        let parent = key.clone();
        key = join_key(&parent, field);
        line = if parent.is_empty() { None } else { spans.as_ref().and_then(|s| s.line(&parent)).or(line) };
        return ScenarioError { source: source.to_string(), key: key.clone(), line, message: missing_message(&parent, field) };
    }

    // TOML syntax errors (and values TOML itself cannot represent) come with path `.`: find the
    // key written on the offending line, if any.
    let is_syntax = key.is_empty() && !raw.starts_with("unknown field") && !raw.starts_with("invalid type");
    if is_syntax {
        let l = line.unwrap_or(1);
        if let Some(dup) = duplicate_key(&raw) {
            key = dup;
        } else if let Some(k) = key_on_line(text, l) {
            key = k;
        }
        return ScenarioError { source: source.to_string(), key, line: Some(l), message: syntax_message(&raw) };
    }

    let message = explain(&raw, &key);
    ScenarioError { source: source.to_string(), key, line, message }
}

/// Re-runs the deserialization of `[workload]` on the table alone, to get the path inside it.
fn relocate_workload_error(text: &str) -> Option<(String, String)> {
    let doc: toml::Table = toml::from_str(text).ok()?;
    let w = doc.get("workload")?;
    let mut table = match w {
        toml::Value::Table(t) => t.clone(),
        other => {
            return Some(("workload".into(), format!("invalid type: {}, expected a table", describe_value(other))));
        }
    };
    let kind = match table.remove("kind") {
        None => return Some(("workload".into(), "missing field `kind`".into())),
        Some(k) => k,
    };
    match kind.as_str() {
        Some("perftest") => workload_path_error::<PerftestSection>(table),
        Some("srq-episode") => workload_path_error::<crate::workload::srq_episode::SrqEpisodeSection>(table),
        Some("flows") => workload_path_error::<super::flows::FlowsSection>(table),
        Some("mpi") => workload_path_error::<crate::workload::mpi::MpiSection>(table),
        Some("odp-reads") => workload_path_error::<super::odp::OdpReadsSection>(table),
        Some(other) => Some(("workload.kind".into(), format!("unknown variant `{other}`, expected one of `perftest`, `srq-episode`, `flows`, `mpi`, `odp-reads`"))),
        None => Some(("workload.kind".into(), format!("invalid type: {}, expected a string", describe_value(&kind)))),
    }
}

/// The key path and message of a workload table that does not deserialize as `T`.
fn workload_path_error<T: serde::de::DeserializeOwned>(table: toml::Table) -> Option<(String, String)> {
    match serde_path_to_error::deserialize::<_, T>(toml::Value::Table(table)) {
        Ok(_) => None,
        Err(e) => {
            let p = e.path().to_string();
            let key = if p == "." { "workload".to_string() } else { format!("workload.{p}") };
            Some((key, e.into_inner().message().to_string()))
        }
    }
}

fn describe_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("string {s:?}"),
        toml::Value::Integer(i) => format!("integer `{i}`"),
        toml::Value::Float(f) => format!("floating point `{f}`"),
        toml::Value::Boolean(b) => format!("boolean `{b}`"),
        toml::Value::Datetime(d) => format!("datetime `{d}`"),
        toml::Value::Array(_) => "sequence".into(),
        toml::Value::Table(_) => "map".into(),
    }
}

fn join_key(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_string()
    } else {
        format!("{parent}.{child}")
    }
}

/// The text between the first `start` and the next `end` after it.
fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let i = s.find(start)? + start.len();
    let j = s[i..].find(end)? + i;
    Some(&s[i..j])
}

/// The back-quoted items of serde's "expected one of `a`, `b`" / "expected `a` or `b`" lists.
fn backquoted(s: &str) -> Vec<String> {
    s.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    // Offsets from toml are on char boundaries, but be safe with any input.
    let bytes = &text.as_bytes()[..end];
    bytes.iter().filter(|&&b| b == b'\n').count() + 1
}

/// Where a key sits, for messages: "at the top level", "in [qp]", "in [[faults]] entry faults[1]".
fn table_name(path: &str) -> String {
    if path.is_empty() {
        "at the top level".into()
    } else if let Some((array, _)) = path.rsplit_once('[').filter(|_| path.ends_with(']')) {
        format!("in [[{array}]] entry {path}")
    } else {
        format!("in [{path}]")
    }
}

fn missing_message(parent: &str, field: &str) -> String {
    let key = join_key(parent, field);
    let what = expected_for(&key).map(|e| format!("; expected {e}")).unwrap_or_default();
    if parent.is_empty() {
        format!("missing required table [{field}]{what}")
    } else {
        format!("missing required key `{field}` {}{what}", table_name(parent))
    }
}

fn duplicate_key(raw: &str) -> Option<String> {
    // toml: "duplicate key `profile` in table `hardware`" / "duplicate key `seed` in document root"
    let k = between(raw, "duplicate key `", "`")?;
    match between(raw, "in table `", "`") {
        Some(t) => Some(format!("{t}.{k}")),
        None => Some(k.to_string()),
    }
}

fn syntax_message(raw: &str) -> String {
    let one_line = raw.trim().replace('\n', "; ");
    if raw.contains("number too large") {
        return format!(
            "integer out of range ({one_line}): TOML integers are signed 64-bit, so at most {}",
            i64::MAX
        );
    }
    let hint = if raw.contains("invalid basic string") || raw.contains("invalid literal string") {
        " (is a closing quote missing? a string must end on the line it starts)"
    } else if raw.contains("invalid table header") {
        " (a table header is written [name] or [[name]] on a line of its own)"
    } else if raw.contains("expected `=`") || raw.contains("invalid key") {
        " (expected `key = value`)"
    } else {
        ""
    };
    format!("TOML syntax error: {one_line}{hint}")
}

/// The dotted key written on a line of the document (`timeout = 3` under `[qp]` gives
/// `qp.timeout`), for errors that toml reports without a path.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let mut table = String::new();
    let mut arrays: HashMap<String, usize> = HashMap::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if i + 1 == line {
            if t.starts_with('[') {
                return None;
            }
            let (k, _) = t.split_once('=')?;
            let k = k.trim().replace(['"', '\'', ' '], "");
            if k.is_empty() {
                return None;
            }
            return Some(join_key(&table, &k));
        }
        if let Some(h) = t.strip_prefix("[[").and_then(|r| r.split_once("]]")).map(|(h, _)| h.trim().to_string()) {
            let n = arrays.entry(h.clone()).and_modify(|n| *n += 1).or_insert(0);
            table = format!("{h}[{n}]");
        } else if let Some(h) = t.strip_prefix('[').and_then(|r| r.split_once(']')).map(|(h, _)| h.trim().to_string()) {
            table = h;
        }
    }
    None
}

// ------------------------------------------------------------------------------------------
// Messages
// ------------------------------------------------------------------------------------------

/// What a key accepts, in words, for messages and for `docs/scenario.md`. Array elements are
/// written `faults[].link`.
pub fn expected_for(key: &str) -> Option<String> {
    let norm = normalize_key(key);
    let s: &str = match norm.as_str() {
        "name" => "a string",
        "seed" => "an integer 0..=9223372036854775807",
        "hardware" => "a table with `profile = \"<name>\"` and optional [hardware.overrides]",
        "hardware.profile" => return Some(format!("a profile name: {}", quoted_list(&profile::names()))),
        "hardware.overrides" => "a table of hardware profile parameters",
        "hardware.overrides.link_gen" => "one of \"sdr\", \"ddr\", \"qdr\", \"fdr10\", \"fdr\", \"edr\", \"hdr\"",
        "hardware.overrides.link_width" => "a lane count: 1, 4 or 12",
        "hardware.overrides.mtu" | "qp.mtu" => "an MTU in bytes: 256, 512, 1024, 2048 or 4096",
        "hardware.overrides.vl_buffer_bytes" => "an integer number of bytes, at least one full packet",
        "hardware.overrides.ack_req_every" => "an integer >= 1 (packets)",
        "hardware.overrides.max_inflight_packets" => "an integer 1..=8388608 (2^23 packets)",
        "hardware.overrides.arbitration" => {
            "one of \"packet-round-robin\", \"message-round-robin\", \"chunk-round-robin\""
        }
        "hardware.overrides.wqe_fetch_on_schedule" | "hardware.overrides.rx_dma_drain" => "true or false",
        "hardware.overrides.pcie_gen" => "a PCIe generation: 3, 4 or 5",
        "hardware.overrides.pcie_lanes" => "a PCIe lane count: 1, 2, 4, 8, 16 or 32",
        "hardware.overrides.pcie_mps" => "a PCIe Maximum Payload Size in bytes: 128, 256, 512, 1024, 2048 or 4096",
        "hardware.overrides.cpu_idle" => "\"none\", \"haswell\", \"haswell-pkg\" or \"sandybridge\"",
        "hardware.overrides.arbitration_chunk_bytes" => "an integer >= 1 (bytes)",
        "hardware.overrides.retransmit_floor_ms" => "a finite number of milliseconds >= 0",
        "hardware.overrides.adaptive_retrans_base_us" => "a finite number of microseconds >= 0 (0 disables)",
        "hardware.overrides.cable_ns_per_m" => "a finite number of nanoseconds per metre >= 0",
        "hardware.overrides.os_tick_hz" => "a finite tick rate in Hz >= 0 (0 = no tick noise), e.g. 100, 250 or 1000",
        k if k.starts_with("hardware.overrides.") && k.ends_with("_ns") => "a finite number of nanoseconds >= 0",
        "topology" => "a table",
        "topology.kind" => "\"back-to-back\" or \"single-switch\"",
        "topology.hosts" => "an integer: exactly 2 for back-to-back, 2..=1024 for single-switch",
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

fn quoted_list<S: AsRef<str>>(items: &[S]) -> String {
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

fn did_you_mean<S: AsRef<str>>(word: &str, candidates: &[S]) -> String {
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

/// Rewrites a serde/toml message for `key` into "what was found, what was expected".
pub fn explain(raw: &str, key: &str) -> String {
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
                let expected = expected_for(key).unwrap_or_else(|| humanize_expected(expected));
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

// ------------------------------------------------------------------------------------------
// Span index: where each key of the document is written
// ------------------------------------------------------------------------------------------

/// Lines of the keys of a TOML document, by dotted path (`qp.timeout`, `faults[1].link`).
pub struct SpanIndex {
    lines: HashMap<String, usize>,
}

impl SpanIndex {
    /// Indexes a document; `None` when it is not valid TOML.
    pub fn build(text: &str) -> Option<SpanIndex> {
        let root: toml::Spanned<Node> = toml::from_str(text).ok()?;
        let mut lines = HashMap::new();
        walk(text, "", root.get_ref(), &mut lines);
        Some(SpanIndex { lines })
    }

    /// The line of `key`, or of its nearest written ancestor (a key left at its default is
    /// reported at its table's header).
    pub fn line(&self, key: &str) -> Option<usize> {
        let mut k = key.to_string();
        loop {
            if let Some(&l) = self.lines.get(&k) {
                return Some(l);
            }
            let cut = k.rfind(['.', '['])?;
            k.truncate(cut);
            if k.is_empty() {
                return None;
            }
        }
    }
}

fn walk(text: &str, path: &str, node: &Node, out: &mut HashMap<String, usize>) {
    match node {
        Node::Table(entries) => {
            for (k, v) in entries {
                let p = join_key(path, k.get_ref());
                out.entry(p.clone()).or_insert_with(|| line_of(text, k.span().start));
                walk(text, &p, v.get_ref(), out);
            }
        }
        Node::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let p = format!("{path}[{i}]");
                out.entry(p.clone()).or_insert_with(|| line_of(text, v.span().start));
                walk(text, &p, v.get_ref(), out);
            }
        }
        Node::Scalar => {}
    }
}

/// A TOML document reduced to its shape, with the span of every key and value.
enum Node {
    Table(Vec<(toml::Spanned<String>, toml::Spanned<Node>)>),
    Array(Vec<toml::Spanned<Node>>),
    Scalar,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any TOML value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = a.next_element()? {
                    items.push(v);
                }
                Ok(Node::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some(k) = a.next_key()? {
                    let v = a.next_value()?;
                    entries.push((k, v));
                }
                Ok(Node::Table(entries))
            }
        }
        d.deserialize_any(V)
    }
}

// ------------------------------------------------------------------------------------------
// Link selectors
// ------------------------------------------------------------------------------------------

/// One end of a link: a host's HCA port or a switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Endpoint {
    Host(u32),
    Switch(u32),
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Host(n) => write!(f, "h{n}"),
            Endpoint::Switch(n) => write!(f, "sw{n}"),
        }
    }
}

const SELECTOR_SYNTAX: &str = "expected \"*\", \"hN-hM\", \"hN->hM\", \"hN-sw0\" or \"sw0->hN\"";

fn parse_endpoint(s: &str) -> Result<Endpoint, String> {
    let s = s.trim();
    let (ctor, digits): (fn(u32) -> Endpoint, &str) = if let Some(d) = s.strip_prefix("sw") {
        (Endpoint::Switch, d)
    } else if let Some(d) = s.strip_prefix('h') {
        (Endpoint::Host, d)
    } else {
        return Err(format!("`{s}` is not a host (hN) or switch (swN) name"));
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{s}` is not a host (hN) or switch (swN) name"));
    }
    digits.parse::<u32>().map(ctor).map_err(|_| format!("`{s}`: index too large"))
}

/// Every directed link of a topology.
pub fn topology_links(kind: TopologyKind, hosts: u32) -> Vec<(Endpoint, Endpoint)> {
    match kind {
        TopologyKind::BackToBack => vec![(Endpoint::Host(0), Endpoint::Host(1)), (Endpoint::Host(1), Endpoint::Host(0))],
        TopologyKind::SingleSwitch => (0..hosts)
            .flat_map(|h| [(Endpoint::Host(h), Endpoint::Switch(0)), (Endpoint::Switch(0), Endpoint::Host(h))])
            .collect(),
    }
}

/// The directed links a fault's `link` selector picks in a topology:
/// `"*"` (every link, both directions), `"a-b"` (both directions of the cable a–b),
/// `"a->b"` (a to b only), where a and b are hosts `hN` or the switch `sw0`.
///
/// Back-to-back has one cable, h0-h1; single-switch has hN-sw0 for each host. A selector that
/// names no existing link is an error saying which links exist.
pub fn parse_link_selector(sel: &str, kind: TopologyKind, hosts: u32) -> Result<Vec<(Endpoint, Endpoint)>, String> {
    let s = sel.trim();
    if s.is_empty() {
        return Err(format!("empty link selector; {SELECTOR_SYNTAX}"));
    }
    if s == "*" {
        return Ok(topology_links(kind, hosts));
    }
    let (a, b, both) = if let Some((a, b)) = s.split_once("->") {
        (a, b, false)
    } else if let Some((a, b)) = s.split_once('-') {
        (a, b, true)
    } else {
        return Err(format!("invalid link selector \"{s}\"; {SELECTOR_SYNTAX}"));
    };
    let (a, b) = match (parse_endpoint(a), parse_endpoint(b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return Err(format!("invalid link selector \"{s}\": {e}; {SELECTOR_SYNTAX}")),
    };
    let kind_name = match kind {
        TopologyKind::BackToBack => "back-to-back",
        TopologyKind::SingleSwitch => "single-switch",
    };
    let existing = match kind {
        TopologyKind::BackToBack => "the only link is h0-h1".to_string(),
        TopologyKind::SingleSwitch => format!("links are hN-sw0 for N in 0..={}", hosts.saturating_sub(1)),
    };
    for e in [a, b] {
        match e {
            Endpoint::Host(n) if n >= hosts => {
                return Err(format!(
                    "link selector \"{s}\": host {e} does not exist (the topology has hosts h0..=h{})",
                    hosts.saturating_sub(1)
                ))
            }
            Endpoint::Switch(_) if kind == TopologyKind::BackToBack => {
                return Err(format!("link selector \"{s}\": a back-to-back topology has no switch; {existing}"))
            }
            Endpoint::Switch(n) if n != 0 => {
                return Err(format!("link selector \"{s}\": switch {e} does not exist (the single-switch topology has sw0)"))
            }
            _ => {}
        }
    }
    if a == b {
        return Err(format!("link selector \"{s}\": {a} to itself is not a link; {existing}"));
    }
    let all = topology_links(kind, hosts);
    if !all.contains(&(a, b)) {
        return Err(format!("link selector \"{s}\": there is no link between {a} and {b} in a {kind_name} topology; {existing}"));
    }
    Ok(if both { vec![(a, b), (b, a)] } else { vec![(a, b)] })
}

// ------------------------------------------------------------------------------------------
// Semantic checks
// ------------------------------------------------------------------------------------------

/// Semantic checks that types alone cannot express. Errors carry no line (there is no text);
/// [`parse_toml`] runs the same checks with line numbers.
pub fn check(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    check_impl(s, source, None)
}

/// The floating-point (time-like) profile parameters an override may set; all must be finite
/// and >= 0.
fn override_times(o: &ProfileOverrides) -> [(&'static str, Option<f64>); 30] {
    [
        ("cable_ns_per_m", o.cable_ns_per_m),
        ("post_send_cpu_ns", o.post_send_cpu_ns),
        ("doorbell_ns", o.doorbell_ns),
        ("wqe_fetch_ns", o.wqe_fetch_ns),
        ("dma_read_ns", o.dma_read_ns),
        ("dma_write_ns", o.dma_write_ns),
        ("tx_pipeline_ns", o.tx_pipeline_ns),
        ("rx_pipeline_ns", o.rx_pipeline_ns),
        ("tx_packet_ns", o.tx_packet_ns),
        ("recv_wqe_fetch_ns", o.recv_wqe_fetch_ns),
        ("poll_cq_ns", o.poll_cq_ns),
        ("interrupt_ns", o.interrupt_ns),
        ("wakeup_ns", o.wakeup_ns),
        ("event_cpu_ns", o.event_cpu_ns),
        ("srq_event_interrupt_ns", o.srq_event_interrupt_ns),
        ("srq_arm_ns", o.srq_arm_ns),
        ("srq_recv_wqe_ns", o.srq_recv_wqe_ns),
        ("srq_poll_detect_ns", o.srq_poll_detect_ns),
        ("retransmit_floor_ms", o.retransmit_floor_ms),
        ("adaptive_retrans_base_us", o.adaptive_retrans_base_us),
        ("switch_latency_ns", o.switch_latency_ns),
        ("odp_fault_us", o.odp_fault_us),
        ("odp_requester_retry_us", o.odp_requester_retry_us),
        ("odp_invalidate_us", o.odp_invalidate_us),
        ("mr_register_us", o.mr_register_us),
        ("mr_pin_page_us", o.mr_pin_page_us),
        ("os_tick_hz", o.os_tick_hz),
        ("os_tick_detour_min_ns", o.os_tick_detour_min_ns),
        ("os_tick_detour_max_ns", o.os_tick_detour_max_ns),
        ("os_tick_entry_exit_ns", o.os_tick_entry_exit_ns),
    ]
}

/// Names of the floating-point override parameters checked by [`check`] (for tests that keep
/// this list in step with the profile).
pub fn checked_time_parameters() -> Vec<&'static str> {
    override_times(&ProfileOverrides::default()).iter().map(|(n, _)| *n).collect()
}

/// Largest value of a time-like override, in its own unit (by the name's suffix): 1000 s of
/// simulated time (a 10 km cable at `cable_ns_per_m`). Larger ones would saturate the clock
/// (u64 picoseconds, ~1.8e7 s) after a few thousand uses and the run would report nonsense.
fn override_time_max(name: &str) -> Option<(f64, &'static str)> {
    const SECONDS: f64 = 1000.0;
    if name == "cable_ns_per_m" {
        Some((SECONDS * 1e9 / MAX_CABLE_M, "ns per metre (1000 s over a 10 km cable)"))
    } else if name.ends_with("_ns") {
        Some((SECONDS * 1e9, "ns (1000 s)"))
    } else if name.ends_with("_us") {
        Some((SECONDS * 1e6, "us (1000 s)"))
    } else if name.ends_with("_ms") {
        Some((SECONDS * 1e3, "ms (1000 s)"))
    } else {
        None // os_tick_hz: bounded by its own checks below
    }
}

/// A number as the user would write it: plain, or in exponent form when very large or small
/// (1e300, not 301 digits).
fn fmt_f(x: f64) -> String {
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e15).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn check_impl(s: &Scenario, source: &str, spans: Option<&SpanIndex>) -> Result<(), ScenarioError> {
    let err = |key: &str, message: String| -> Result<(), ScenarioError> {
        Err(ScenarioError {
            source: source.to_string(),
            key: key.to_string(),
            line: spans.and_then(|sp| sp.line(key)),
            message,
        })
    };

    // --- hardware ---
    let names = profile::names();
    let Some((base, _)) = profile::by_name(&s.hardware.profile) else {
        return err(
            "hardware.profile",
            format!(
                "unknown profile \"{}\"{}; expected one of: {}",
                s.hardware.profile,
                did_you_mean(&s.hardware.profile, &names),
                quoted_list(&names)
            ),
        );
    };
    let o = &s.hardware.overrides;
    let ov = |k: &str| format!("hardware.overrides.{k}");
    if let Some(w) = o.link_width {
        if !VALID_LINK_WIDTHS.contains(&w) {
            return err(&ov("link_width"), format!("link width {w} is not supported; expected 1, 4 or 12 lanes"));
        }
    }
    if let Some(g) = o.pcie_gen {
        if !(3..=5).contains(&g) {
            return err(&ov("pcie_gen"), format!("pcie_gen = {g} is not modelled; expected 3, 4 or 5 (128b/130b encoding)"));
        }
    }
    if let Some(l) = o.pcie_lanes {
        if !VALID_PCIE_LANES.contains(&l) {
            return err(&ov("pcie_lanes"), format!("pcie_lanes = {l} is not a PCIe link width; expected 1, 2, 4, 8, 16 or 32"));
        }
    }
    if let Some(m) = o.pcie_mps {
        if !VALID_MPS.contains(&m) {
            return err(&ov("pcie_mps"), format!("pcie_mps = {m} is not a PCIe Maximum Payload Size; expected 128, 256, 512, 1024, 2048 or 4096"));
        }
    }
    if let Some(m) = o.mtu {
        if !VALID_MTUS.contains(&m) {
            return err(&ov("mtu"), format!("MTU {m} is not an InfiniBand MTU; expected 256, 512, 1024, 2048 or 4096"));
        }
    }
    for (name, v) in override_times(o) {
        if let Some(v) = v {
            if !v.is_finite() || v < 0.0 {
                return err(&ov(name), format!("{name} = {} is invalid; expected {}", fmt_f(v), expected_for(&ov(name)).unwrap_or_default()));
            }
            if let Some((max, unit)) = override_time_max(name).filter(|(max, _)| v > *max) {
                return err(&ov(name), format!("{name} = {v:?} is too large; expected at most {max:e} {unit}"));
            }
        }
    }
    if o.ack_req_every == Some(0) {
        return err(&ov("ack_req_every"), "ack_req_every = 0 is invalid; expected an integer >= 1 (packets between ACK requests)".into());
    }
    if let Some(n) = o.max_inflight_packets {
        if n == 0 || n > MAX_INFLIGHT_PACKETS {
            return err(
                &ov("max_inflight_packets"),
                format!("max_inflight_packets = {n} is out of range; expected 1..={MAX_INFLIGHT_PACKETS} (half the 24-bit PSN space)"),
            );
        }
    }
    if let Some(n) = o.odp_fault_workers {
        if n > MAX_ODP_FAULT_WORKERS {
            return err(&ov("odp_fault_workers"), format!("odp_fault_workers = {n} is out of range; expected 0 (unlimited) or 1..={MAX_ODP_FAULT_WORKERS} (mlx5 runs 32)"));
        }
    }
    if o.arbitration_chunk_bytes == Some(0) {
        return err(&ov("arbitration_chunk_bytes"), "arbitration_chunk_bytes = 0 is invalid; expected an integer >= 1 (bytes)".into());
    }
    let mut hw: HwProfile = base;
    hw.apply(o);
    if hw.os_tick_detour_max_ns < hw.os_tick_detour_min_ns {
        let k = if o.os_tick_detour_max_ns.is_some() { "os_tick_detour_max_ns" } else { "os_tick_detour_min_ns" };
        return err(
            &ov(k),
            format!("os_tick_detour_max_ns ({}) is below os_tick_detour_min_ns ({}); expected min <= max", fmt_f(hw.os_tick_detour_max_ns), fmt_f(hw.os_tick_detour_min_ns)),
        );
    }
    // Linux's CONFIG_HZ is 100..=1000; below 1 Hz one tick would outlast most runs.
    if hw.os_tick_hz > 0.0 && hw.os_tick_hz < 1.0 {
        return err(&ov("os_tick_hz"), format!("os_tick_hz = {:?} is too low; expected 0 (no tick) or a rate >= 1 Hz, e.g. 100, 250 or 1000", hw.os_tick_hz));
    }
    // A tick that lasts a whole period would never let the core run (and never end a span).
    if hw.os_tick_hz > 0.0 && hw.os_tick_detour_max_ns + hw.os_tick_entry_exit_ns >= 1e9 / hw.os_tick_hz {
        let k = if o.os_tick_hz.is_some() { "os_tick_hz" } else if o.os_tick_entry_exit_ns.is_some() { "os_tick_entry_exit_ns" } else { "os_tick_detour_max_ns" };
        return err(
            &ov(k),
            format!(
                "os_tick_hz = {} gives a {} ns tick period, not longer than os_tick_detour_max_ns + os_tick_entry_exit_ns = {}; expected detours shorter than the period",
                fmt_f(hw.os_tick_hz),
                fmt_f(1e9 / hw.os_tick_hz),
                fmt_f(hw.os_tick_detour_max_ns + hw.os_tick_entry_exit_ns)
            ),
        );
    }

    // --- topology ---
    let t = &s.topology;
    match t.kind {
        TopologyKind::BackToBack if t.hosts != 2 => {
            return err(
                "topology.hosts",
                format!("a back-to-back topology has exactly 2 hosts, found hosts = {}; use kind = \"single-switch\" for more", t.hosts),
            );
        }
        TopologyKind::SingleSwitch if !(2..=MAX_SINGLE_SWITCH_HOSTS).contains(&t.hosts) => {
            return err(
                "topology.hosts",
                format!("a single-switch topology has 2..={MAX_SINGLE_SWITCH_HOSTS} hosts, found hosts = {}", t.hosts),
            );
        }
        _ => {}
    }
    if !t.cable_m.is_finite() || t.cable_m <= 0.0 || t.cable_m > MAX_CABLE_M {
        return err("topology.cable_m", format!("cable_m = {} is out of range; expected a length in metres in (0, 10000]", fmt_f(t.cable_m)));
    }

    // --- qp ---
    let q = &s.qp;
    if q.timeout > 31 {
        return err("qp.timeout", format!("timeout = {} is out of range; expected 0..=31 (4.096 us x 2^timeout, 0 = infinite)", q.timeout));
    }
    if q.retry_cnt > 7 {
        return err("qp.retry_cnt", format!("retry_cnt = {} is out of range; expected 0..=7 (a 3-bit field)", q.retry_cnt));
    }
    if q.rnr_retry > 7 {
        return err("qp.rnr_retry", format!("rnr_retry = {} is out of range; expected 0..=7 (7 = retry forever)", q.rnr_retry));
    }
    if q.min_rnr_timer > 31 {
        return err("qp.min_rnr_timer", format!("min_rnr_timer = {} is out of range; expected a 5-bit IBTA timer code 0..=31", q.min_rnr_timer));
    }
    if !(1..=16).contains(&q.max_rd_atomic) {
        return err("qp.max_rd_atomic", format!("max_rd_atomic = {} is out of range; expected 1..=16", q.max_rd_atomic));
    }
    if let Some(m) = q.mtu {
        if !VALID_MTUS.contains(&m) {
            return err("qp.mtu", format!("MTU {m} is not an InfiniBand MTU; expected 256, 512, 1024, 2048 or 4096"));
        }
        if m > hw.mtu {
            return err(
                "qp.mtu",
                format!("path MTU {m} exceeds the port's active MTU {} (hardware mtu); expected at most {}", hw.mtu, hw.mtu),
            );
        }
    }
    let path_mtu = q.mtu.unwrap_or(hw.mtu);
    let need = min_vl_buffer_bytes(path_mtu);
    if hw.vl_buffer_bytes < need {
        let key = if o.vl_buffer_bytes.is_some() {
            ov("vl_buffer_bytes")
        } else if o.mtu.is_some() {
            ov("mtu")
        } else {
            "qp.mtu".to_string()
        };
        return err(
            &key,
            format!(
                "vl_buffer_bytes = {} cannot hold one full packet, so nothing could ever be sent: a {path_mtu} B MTU packet \
                 with up to {MAX_PACKET_HEADER_BYTES} B of headers needs {need} B of {CREDIT_BYTES}-byte credits; \
                 expected vl_buffer_bytes >= {need} (or a smaller MTU)",
                hw.vl_buffer_bytes
            ),
        );
    }

    // --- workload ---
    match &s.workload {
        WorkloadSection::Flows(_) => {} // checked below by scenario::flows::check
        WorkloadSection::Perftest(p) => {
            let tn = p.test.name();
            if let Some(sz) = p.size {
                if sz == 0 || sz > MAX_SIZE {
                    return err("workload.size", format!("size = {sz} is out of range; expected 1..={MAX_SIZE} bytes"));
                }
                if p.all_sizes {
                    return err("workload.size", "size cannot be combined with all_sizes = true (-a runs every size 2 B..8 MiB); remove one".into());
                }
            }
            if let Some(n) = p.iters {
                if n == 0 || n > MAX_ITERS {
                    return err("workload.iters", format!("iters = {n} is out of range; expected 1..={MAX_ITERS}"));
                }
            }
            // 0 is allowed: a server that posts no receive (every SEND meets an RNR NAK).
            if p.rx_depth.is_some_and(|d| d > MAX_TX_DEPTH) {
                return err("workload.rx_depth", format!("rx_depth = {} is out of range; expected 0..={MAX_TX_DEPTH} receives", p.rx_depth.unwrap_or(0)));
            }
            if let Some(d) = p.tx_depth {
                if d == 0 || d > MAX_TX_DEPTH {
                    return err("workload.tx_depth", format!("tx_depth = {d} is out of range; expected 1..={MAX_TX_DEPTH} (work requests a send queue holds)"));
                }
            }
            // PSNs are u32 inside the model (24 bits on the wire): a QP may use at most 2^31,
            // so comparisons across a go-back never wrap.
            let sizes: Vec<u64> = if p.all_sizes { (1..=23).map(|k| 1u64 << k).collect() } else { vec![p.size.unwrap_or(if p.test.is_latency() { 2 } else { 65536 })] };
            let per_iter: u64 = sizes.iter().map(|sz| sz.div_ceil(u64::from(path_mtu)).max(1)).sum();
            let iters = p.iters.unwrap_or(if p.test == PerftestTest::IbWriteBw { 5000 } else { 1000 });
            // A limit that stops the run first makes it safe: each packet is an event, and the
            // send engine takes at least tx_packet_ns per packet.
            let by_events = s.limits.max_events.unwrap_or(u64::MAX);
            let by_time = s.limits.max_sim_time_ms.map_or(u64::MAX, |ms| (ms * 1e6 / hw.tx_packet_ns.max(1e-3)) as u64);
            if iters.saturating_mul(per_iter) > MAX_PSNS_PER_QP && by_events.min(by_time) > MAX_PSNS_PER_QP {
                return err(
                    "workload.iters",
                    format!("iters = {iters} of {per_iter} packets each ({path_mtu} B MTU) is {} packets on one QP; expected at most {MAX_PSNS_PER_QP} (the model's PSN space), or a [limits] that stops the run sooner", iters.saturating_mul(per_iter)),
                );
            }
            if p.qps == 0 || p.qps > MAX_QPS {
                return err("workload.qps", format!("qps = {} is out of range; expected 1..={MAX_QPS}", p.qps));
            }
            if p.qps > 1 && p.test.is_latency() {
                return err("workload.qps", format!("{tn} uses one QP (perftest -q applies to bandwidth tests); expected qps = 1"));
            }
            if let Some(n) = p.inline_size {
                if n > MAX_INLINE {
                    return err("workload.inline_size", format!("inline_size = {n} is too large; expected 0..={MAX_INLINE} bytes"));
                }
                if n > 0 && matches!(p.test, PerftestTest::IbReadBw | PerftestTest::IbReadLat) {
                    return err(
                        "workload.inline_size",
                        format!("{tn} cannot use inline data (perftest rejects -I for RDMA READ: the data flows from the responder); expected inline_size = 0 or no inline_size"),
                    );
                }
            }
            let hosts = t.hosts;
            if p.client >= hosts {
                return err("workload.client", format!("client = {} is not a host; expected a host index 0..={}", p.client, hosts - 1));
            }
            if p.server >= hosts {
                return err("workload.server", format!("server = {} is not a host; expected a host index 0..={}", p.server, hosts - 1));
            }
            if p.client == p.server {
                return err(
                    "workload.server",
                    format!("client and server are both host {}; expected two different hosts (perftest runs between two machines)", p.client),
                );
            }
        }
        WorkloadSection::Mpi(m) => {
            if m.ranks_per_host == 0 {
                return err("workload.ranks_per_host", "ranks_per_host = 0 is invalid; expected an integer >= 1".into());
            }
            // Two ranks on one host talk through their HCA's own port; back to back, the only
            // path leaves over the cable to the other host, which has no such QP.
            if m.ranks_per_host > 1 && s.topology.kind == TopologyKind::BackToBack {
                return err(
                    "workload.ranks_per_host",
                    format!("ranks_per_host = {} puts several ranks on one host, and the model has no HCA loopback: back to back, a message between two of them would leave over the cable to the other host; expected ranks_per_host = 1, or topology kind = \"single-switch\" (same-host messages then turn around in the switch)", m.ranks_per_host),
                );
            }
            if m.srq_buffers == 0 || m.srq_buffers > 1 << 20 {
                return err("workload.srq_buffers", format!("srq_buffers = {} is out of range; expected 1..=1048576", m.srq_buffers));
            }
            if let Some(l) = m.srq_limit {
                if l == 0 || l >= m.srq_buffers {
                    return err("workload.srq_limit", format!("srq_limit = {l} must be 1..{} (below srq_buffers)", m.srq_buffers));
                }
            }
            if m.eager_threshold + 32 > m.buffer_bytes as u64 {
                return err(
                    "workload.eager_threshold",
                    format!("an eager message of {} B plus its 32 B header does not fit a {} B receive buffer; expected eager_threshold <= buffer_bytes - 32", m.eager_threshold, m.buffer_bytes),
                );
            }
            if !m.compute_scale.is_finite() || m.compute_scale < 0.0 {
                return err("workload.compute_scale", format!("compute_scale = {} must be finite and >= 0", m.compute_scale));
            }
        }
        WorkloadSection::SrqEpisode(e) => {
            let hosts = t.hosts;
            if e.client >= hosts || e.server >= hosts || e.client == e.server {
                return err("workload.server", format!("client {} and server {} must be two different hosts 0..={}", e.client, e.server, hosts - 1));
            }
            if e.refill == 0 || e.refill > 1 << 20 {
                return err("workload.refill", format!("refill = {} is out of range; expected 1..=1048576 buffers", e.refill));
            }
            if e.packet_bytes == 0 || e.packet_bytes > MAX_SIZE as u32 {
                return err("workload.packet_bytes", format!("packet_bytes = {} is out of range; expected 1..={MAX_SIZE}", e.packet_bytes));
            }
            if e.inline && e.packet_bytes > MAX_INLINE {
                return err("workload.inline", format!("inline SENDs carry at most {MAX_INLINE} B in the WQE, and packet_bytes = {}; expected inline = false or packet_bytes <= {MAX_INLINE}", e.packet_bytes));
            }
            if e.burst == 0 || e.burst > 4096 {
                return err("workload.burst", format!("burst = {} is out of range; expected 1..=4096 SENDs", e.burst));
            }
            if e.method == crate::hca::srq::SrqFlowControl::SrqLimit && (e.srq_limit == 0 || e.srq_limit >= e.refill) {
                return err("workload.srq_limit", format!("srq_limit = {} must be 1..{} (below the buffers posted, or the event fires at once)", e.srq_limit, e.refill));
            }
        }
        WorkloadSection::OdpReads(o) => {
            if let Err((k, m)) = super::odp::check(o, t.hosts, MAX_QPS) {
                return err(&k, m);
            }
        }
    }

    if let WorkloadSection::Flows(f) = &s.workload {
        if let Err((key, message)) = super::flows::check(f, t.hosts) {
            return err(&key, message);
        }
    }

    // --- faults ---
    for (i, f) in s.faults.iter().enumerate() {
        let k = |name: &str| format!("faults[{i}].{name}");
        if let Err(e) = parse_link_selector(&f.link, t.kind, t.hosts) {
            return err(&k("link"), e);
        }
        if !f.loss_rate.is_finite() || !(0.0..1.0).contains(&f.loss_rate) {
            return err(&k("loss_rate"), format!("loss_rate = {} is out of range; expected a probability in [0, 1)", fmt_f(f.loss_rate)));
        }
        if !f.ber.is_finite() || !(0.0..=MAX_BER).contains(&f.ber) {
            return err(&k("ber"), format!("ber = {} is out of range; expected a bit error rate in [0, 0.001]", fmt_f(f.ber)));
        }
        if let Some(j) = f.drop_nth.iter().position(|&n| n == 0) {
            return err(&format!("faults[{i}].drop_nth[{j}]"), "packet number 0 is invalid; drop_nth counts packets from 1, expected >= 1".into());
        }
    }

    // --- output ---
    let out = &s.output;
    if let Some(j) = out.capture_hosts.iter().position(|&h| h >= t.hosts) {
        return err(
            &format!("output.capture_hosts[{j}]"),
            format!("host {} does not exist; expected a host index 0..={}", out.capture_hosts[j], t.hosts - 1),
        );
    }
    if out.capture_max_packets == Some(0) {
        return err("output.capture_max_packets", "capture_max_packets = 0 is invalid; expected an integer >= 1".into());
    }

    // --- limits ---
    if let Some(ms) = s.limits.max_sim_time_ms {
        if !ms.is_finite() || ms <= 0.0 {
            return err("limits.max_sim_time_ms", format!("max_sim_time_ms = {} is invalid; expected a finite number of milliseconds > 0", fmt_f(ms)));
        }
    }
    if s.limits.max_events == Some(0) {
        return err("limits.max_events", "max_events = 0 is invalid; expected an integer >= 1".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_selectors_pick_directed_links() {
        use Endpoint::*;
        let b2b = TopologyKind::BackToBack;
        let sw = TopologyKind::SingleSwitch;
        assert_eq!(parse_link_selector("h0->h1", b2b, 2).unwrap(), vec![(Host(0), Host(1))]);
        assert_eq!(parse_link_selector("h1-h0", b2b, 2).unwrap(), vec![(Host(1), Host(0)), (Host(0), Host(1))]);
        assert_eq!(parse_link_selector("*", b2b, 2).unwrap().len(), 2);
        assert_eq!(parse_link_selector("*", sw, 4).unwrap().len(), 8);
        assert_eq!(parse_link_selector("sw0->h3", sw, 4).unwrap(), vec![(Switch(0), Host(3))]);
        assert_eq!(parse_link_selector(" h2 - sw0 ", sw, 4).unwrap(), vec![(Host(2), Switch(0)), (Switch(0), Host(2))]);
        assert!(parse_link_selector("h0-h1", sw, 4).unwrap_err().contains("hN-sw0"));
        assert!(parse_link_selector("h0-sw0", b2b, 2).unwrap_err().contains("no switch"));
        assert!(parse_link_selector("h0->h2", b2b, 2).unwrap_err().contains("h2 does not exist"));
        assert!(parse_link_selector("h4-sw0", sw, 4).unwrap_err().contains("h4 does not exist"));
        assert!(parse_link_selector("h1-sw1", sw, 4).unwrap_err().contains("sw1 does not exist"));
        assert!(parse_link_selector("h0=>h1", b2b, 2).is_err());
        assert!(parse_link_selector("", b2b, 2).is_err());
        assert!(parse_link_selector("h0->h0", b2b, 2).is_err());
        assert!(parse_link_selector("hx-h1", b2b, 2).is_err());
        assert!(parse_link_selector("h99999999999-h1", b2b, 2).is_err());
    }

    #[test]
    fn numbers_in_messages_are_short() {
        assert_eq!(fmt_f(1e300), "1e300");
        assert_eq!(fmt_f(2.5e-9), "2.5e-9");
        assert_eq!(fmt_f(250.0), "250");
        assert_eq!(fmt_f(0.5), "0.5");
        assert_eq!(fmt_f(0.0), "0");
    }

    #[test]
    fn vl_buffer_minimum_is_one_credit_rounded_packet() {
        assert_eq!(MAX_PACKET_HEADER_BYTES, 86);
        assert_eq!(min_vl_buffer_bytes(4096), 4224);
        assert_eq!(min_vl_buffer_bytes(256), 384);
    }

    #[test]
    fn every_float_profile_parameter_is_range_checked() {
        // Keeps `override_times` in step with profile.rs: every f64 parameter must be listed.
        let (p, _) = profile::by_name("cx4-edr").unwrap();
        let v = serde_json::to_value(&p).unwrap();
        let checked = checked_time_parameters();
        for name in HwProfile::PARAMETER_NAMES {
            if v[*name].as_number().is_some_and(|n| n.is_f64()) {
                assert!(checked.contains(name), "{name} is a float profile parameter but check() does not range-check it");
            }
        }
    }

    #[test]
    fn edit_distance_hints() {
        assert_eq!(edit_distance("timout", "timeout"), 1);
        assert_eq!(did_you_mean("timout", &["timeout", "retry_cnt"]), " (did you mean `timeout`?)");
        assert_eq!(did_you_mean("zzzzzz", &["timeout"]), "");
    }
}
