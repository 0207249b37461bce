//! `[workload] kind = "flows"`: competing flows between hosts, as the performance-isolation
//! study's benchmarking tool ran them (one QP per flow, pipelining off, busy or event polling),
//! plus an optional HERD-like key-value client/server (`[workload.kv]`). `docs/isolation.md`
//! documents the model; `docs/scenario.md` the keys.
use super::limits::{MAX_INLINE, MAX_ITERS, MAX_QPS, MAX_SIZE};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowsSection {
    /// The flows, written `[[workload.flow]]`.
    #[serde(default)]
    pub flow: Vec<FlowSpec>,
    /// A generated set of flows instead (`flow_pattern.rs`), expanded into `flow` on reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<FlowPattern>,
    /// An optional HERD-like key-value store beside the flows.
    #[serde(default)]
    pub kv: Option<KvSpec>,
    /// When the run ends: `"first"` (default) when the first foreground flow is done, so every
    /// flow is measured while all are active; `"all"` when every one is, for completion times
    /// (each flow's `finish_us`: a permutation or an incast's slowest flow).
    #[serde(default)]
    pub until: FlowsUntil,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowsUntil {
    #[default]
    First,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowVerb {
    Write,
    Read,
    WriteImm,
    Send,
}

impl FlowVerb {
    pub fn name(self) -> &'static str {
        match self {
            FlowVerb::Write => "WRITE",
            FlowVerb::Read => "READ",
            FlowVerb::WriteImm => "WRITE_IMM",
            FlowVerb::Send => "SEND",
        }
    }
    /// The responder consumes a receive WQE per message.
    pub fn needs_recv(self) -> bool {
        matches!(self, FlowVerb::Send | FlowVerb::WriteImm)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Polling {
    /// Spin on the CQ (a core per flow).
    Busy,
    /// Wait for a completion event (interrupt, wake-up).
    Event,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Label in the result table (default `flowN`).
    #[serde(default)]
    pub name: Option<String>,
    pub verb: FlowVerb,
    /// Message size, bytes.
    pub size: u64,
    /// Messages to complete; with `total_bytes` the smaller wins. Neither: `background`.
    #[serde(default)]
    pub count: Option<u64>,
    #[serde(default)]
    pub total_bytes: Option<u64>,
    /// Keeps sending until every foreground flow is done (no count of its own).
    #[serde(default)]
    pub background: bool,
    /// Send the payload inline with the WQE (not for READ).
    #[serde(default)]
    pub inline: bool,
    /// Messages kept outstanding; 1 = post the next only after the previous completion is polled.
    #[serde(default = "one")]
    pub depth: u32,
    #[serde(default = "busy")]
    pub polling: Polling,
    /// When the flow posts its first message, µs.
    #[serde(default)]
    pub start_us: f64,
    /// QPs of the flow (messages go round robin over them).
    #[serde(default = "one")]
    pub qps: u32,
    /// Service level of the flow's QPs (default: `qp.sl`): its VL has its own buffers.
    #[serde(default)]
    pub sl: Option<u8>,
    /// The rail both ends use (each host's rail-th HCA port).
    #[serde(default)]
    pub rail: u16,
    /// Host that posts (the requester); READ data flows from `server` to `client`.
    #[serde(default)]
    pub client: u32,
    #[serde(default = "one")]
    pub server: u32,
    /// Sender-side scheduler (Justitia-like): split each message into WRs of this many bytes.
    #[serde(default)]
    pub split_bytes: Option<u64>,
    /// Split chunks kept outstanding (default 32).
    #[serde(default)]
    pub split_window: Option<u32>,
    /// Pace the flow's chunks to at most this rate, Gb/s (needs `split_bytes`).
    #[serde(default)]
    pub pace_gbps: Option<f64>,
}

impl FlowSpec {
    /// The flow's label in the result table: its `name`, or `flowN` for flow N.
    pub fn label(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("flow{index}"))
    }

    /// Messages the flow sends: `count`, or as many of `size` as fit in `total_bytes`, the
    /// fewer when both are given; None for a flow that sends until the run ends.
    pub fn messages(&self) -> Option<u64> {
        match (self.count, self.total_bytes.map(|b| b / self.size)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

fn one() -> u32 {
    1
}
fn busy() -> Polling {
    Polling::Busy
}

/// The key-value store: the client WRITEs requests into the server's request region, the
/// server (busy polling that memory) answers each with a SEND.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KvSpec {
    /// Requests to complete.
    pub requests: u64,
    /// Fraction of GETs (the rest are PUTs), 0..=1.
    #[serde(default = "half")]
    pub get_fraction: f64,
    /// Key size, bytes (HERD: 16).
    #[serde(default = "key16")]
    pub key_bytes: u32,
    /// Value size, bytes (HERD's default experiments: 32).
    #[serde(default = "val32")]
    pub value_bytes: u32,
    /// Server CPU time per request (lookup or insert in the MICA-style table), ns.
    #[serde(default = "server_ns")]
    pub server_cpu_ns: f64,
    /// Requests and responses of up to this size go inline (HERD inlines small messages).
    #[serde(default = "inline256")]
    pub inline_max: u32,
    /// Requests the client keeps outstanding (a sliding window: once `window` are in flight it
    /// polls for the oldest one's response before posting the next). HERD's SIGCOMM'14 code:
    /// `WINDOW_SIZE 4` (efficient/HERD common.h) and `if(num_req - num_resp == WINDOW_SIZE)`
    /// in `run_client` (main.c). Default 1: one request at a time.
    #[serde(default = "one")]
    pub window: u32,
    /// HERD's 2-stage server pipeline (workload/kv_pipeline.rs): a request is answered at the
    /// second push after its own (a later request, or a dummy after `fail_lim` empty polls).
    /// Default false: answered as soon as it is processed.
    #[serde(default)]
    pub server_pipeline: bool,
    /// Empty polls before a dummy push: `FAIL_LIM 100` in efficient/HERD common.h.
    #[serde(default = "fail_lim100")]
    pub fail_lim: u64,
    /// CPU time of one empty poll of HERD's server loop, ns. No source measures it:
    /// **assumption**, 4 cycles (a load that hits L1, a compare, a counter increment and the
    /// loop branch, issued ~3 per cycle, bounded by the loop's dependency chain) at 2.5 GHz.
    #[serde(default = "empty_poll_1_6")]
    pub empty_poll_ns: f64,
    #[serde(default)]
    pub client: u32,
    #[serde(default = "one")]
    pub server: u32,
}
fn half() -> f64 {
    0.5
}
fn key16() -> u32 {
    16
}
fn val32() -> u32 {
    32
}
fn server_ns() -> f64 {
    200.0
}
fn inline256() -> u32 {
    256
}
fn fail_lim100() -> u64 {
    100
}
fn empty_poll_1_6() -> f64 {
    1.6
}

/// Largest `[workload.kv] window`: HERD's queues hold 1024 entries (`Q_DEPTH`, efficient/HERD
/// common.h), so no client of it keeps more requests in flight.
pub const MAX_KV_WINDOW: u32 = 1024;

/// Latest `start_us`: 10 s. Until the last flow starts, every flow already started (a
/// background elephant, say) is simulated packet by packet, and that costs about 3 s of wall
/// time per simulated second on the development machine (a 1 MiB WRITE elephant on cx4-edr
/// beside a mouse starting at 0.1 s: 601 503 events, 0.3 s); the former bound, 10^12 µs
/// (11.6 days), made such a run take weeks (QA: it "hung"). 10 s keeps it near half a minute
/// per elephant, and is 10^4 times the latest start of the isolation study (a few ms) and 100
/// times that of any test (0.1 s). An assumption about what a start offset is for, not a model
/// limit.
pub const MAX_START_US: f64 = 1e7;
/// Largest `workload.kv.server_cpu_ns`: 1000 s, the cap of every time override.
pub const MAX_SERVER_CPU_NS: f64 = 1e12;

/// Slowest `pace_gbps`: 1 Mb/s. Slower, the pacing gap of one split chunk (up to 2 GiB) would
/// approach the clock's end (2^64 ps, about 213 days); Justitia paces to fractions of the link.
pub const MIN_PACE_GBPS: f64 = 1e-3;

/// Semantic checks; an error is (key, message).
pub fn check(f: &FlowsSection, hosts: u32) -> Result<(), (String, String)> {
    if f.flow.is_empty() && f.kv.is_none() {
        return Err(("workload.flow".into(), "no flows: expected at least one [[workload.flow]] (or a [workload.kv])".into()));
    }
    let host_ok = |key: String, h: u32| -> Result<(), (String, String)> {
        if h >= hosts {
            return Err((key, format!("host {h} does not exist; expected a host index 0..={}", hosts - 1)));
        }
        Ok(())
    };
    let mut foreground = f.kv.is_some();
    // Labels seen so far and their flow: one look-up per flow (a scan of the earlier flows
    // made checking thousands of flows quadratic).
    let mut labels: std::collections::HashMap<String, usize> = std::collections::HashMap::with_capacity(f.flow.len());
    for (i, fl) in f.flow.iter().enumerate() {
        let k = |name: &str| format!("workload.flow[{i}].{name}");
        if let Some(sl) = fl.sl.filter(|&sl| sl > 15) {
            return Err((k("sl"), format!("sl = {sl} is out of range; expected a service level 0..=15")));
        }
        if fl.size == 0 || fl.size > MAX_SIZE {
            return Err((k("size"), format!("size = {} is out of range; expected 1..={MAX_SIZE} bytes", fl.size)));
        }
        if fl.background && (fl.count.is_some() || fl.total_bytes.is_some()) {
            return Err((k("background"), "a background flow runs until the others are done; remove count / total_bytes, or background".into()));
        }
        if !fl.background && fl.count.is_none() && fl.total_bytes.is_none() {
            return Err((k("count"), "the flow has no amount of work; expected count, total_bytes, or background = true".into()));
        }
        if let Some(n) = fl.count {
            if n == 0 || n > MAX_ITERS {
                return Err((k("count"), format!("count = {n} is out of range; expected 1..={MAX_ITERS}")));
            }
        }
        if let Some(b) = fl.total_bytes {
            if b < fl.size {
                return Err((k("total_bytes"), format!("total_bytes = {b} is less than one message of {} B; expected >= size", fl.size)));
            }
            // With a count too, the smaller wins and count is bounded below.
            if fl.count.is_none() && b / fl.size > MAX_ITERS {
                let most = MAX_ITERS.saturating_mul(fl.size);
                return Err((k("total_bytes"), format!("total_bytes = {b} is {} messages of {} B; expected at most {MAX_ITERS} messages (total_bytes <= {most})", b / fl.size, fl.size)));
            }
        }
        foreground |= !fl.background;
        if fl.inline && (fl.verb == FlowVerb::Read || fl.size > MAX_INLINE as u64) {
            return Err((k("inline"), format!("inline needs a SEND/WRITE of at most {MAX_INLINE} B (READ data comes from the responder)")));
        }
        if fl.depth == 0 || fl.depth > 4096 {
            return Err((k("depth"), format!("depth = {} is out of range; expected 1..=4096", fl.depth)));
        }
        if fl.qps == 0 || fl.qps > MAX_QPS {
            return Err((k("qps"), format!("qps = {} is out of range; expected 1..={MAX_QPS}", fl.qps)));
        }
        if !fl.start_us.is_finite() || fl.start_us < 0.0 {
            return Err((k("start_us"), format!("start_us = {:?} is invalid; expected microseconds in 0..={MAX_START_US:e}", fl.start_us)));
        }
        if fl.start_us > MAX_START_US {
            return Err((
                k("start_us"),
                format!(
                    "start_us = {:?} is too late; expected microseconds in 0..={MAX_START_US:e} (10 s): until the last flow starts the others \
                     are simulated packet by packet, about 3 s of wall time per simulated second for one elephant",
                    fl.start_us
                ),
            ));
        }
        // A label is a row's key: no two flows may share one, default `flowN` labels included.
        let label = fl.label(i);
        if let Some(&j) = labels.get(&label) {
            return Err(if fl.name.is_some() {
                (k("name"), format!("name = {label:?} is already flow {j}'s; expected a name of its own (it labels the flow's row)"))
            } else {
                (format!("workload.flow[{j}].name"), format!("name = {label:?} is flow {i}'s default label; expected another name (it labels the flow's row)"))
            });
        }
        labels.insert(label, i);
        host_ok(k("client"), fl.client)?;
        host_ok(k("server"), fl.server)?;
        if fl.client == fl.server {
            return Err((k("server"), format!("client and server are both host {}; expected two different hosts", fl.client)));
        }
        if let Some(s) = fl.split_bytes {
            if s == 0 || s > fl.size {
                return Err((k("split_bytes"), format!("split_bytes = {s} is out of range; expected 1..={} (the message size)", fl.size)));
            }
            if fl.depth != 1 {
                return Err((k("split_bytes"), "the sender-side scheduler splits one message at a time; expected depth = 1".into()));
            }
            // Every piece is a work request: bound them as `count` bounds whole messages.
            let pieces = fl.size.div_ceil(s);
            let messages = fl.count.into_iter().chain(fl.total_bytes.map(|b| b / fl.size)).min().unwrap_or(1);
            if messages.saturating_mul(pieces) > MAX_ITERS {
                return Err((k("split_bytes"), format!("split_bytes = {s} makes {pieces} work requests per message, {} in all; expected at most {MAX_ITERS} (a larger split_bytes or fewer messages)", messages.saturating_mul(pieces))));
            }
        }
        if fl.split_window == Some(0) {
            return Err((k("split_window"), "split_window = 0 is invalid; expected an integer >= 1".into()));
        }
        if fl.split_window.is_some() && fl.split_bytes.is_none() {
            return Err((k("split_window"), "split_window bounds the split pieces outstanding; expected split_bytes too".into()));
        }
        if let Some(g) = fl.pace_gbps {
            if !g.is_finite() || g < MIN_PACE_GBPS {
                return Err((k("pace_gbps"), format!("pace_gbps = {g:?} is invalid; expected a finite rate in Gb/s >= {MIN_PACE_GBPS}")));
            }
            if fl.split_bytes.is_none() {
                return Err((k("pace_gbps"), "pacing works on split chunks; expected split_bytes too".into()));
            }
        }
    }
    if !foreground {
        return Err(("workload.flow".into(), "every flow is a background flow, so the run would never end; expected at least one with count or total_bytes".into()));
    }
    if let Some(kv) = &f.kv {
        let k = |name: &str| format!("workload.kv.{name}");
        if kv.requests == 0 || kv.requests > MAX_ITERS {
            return Err((k("requests"), format!("requests = {} is out of range; expected 1..={MAX_ITERS}", kv.requests)));
        }
        if !(0.0..=1.0).contains(&kv.get_fraction) {
            return Err((k("get_fraction"), format!("get_fraction = {} is out of range; expected a fraction in [0, 1]", kv.get_fraction)));
        }
        if kv.key_bytes == 0 || kv.key_bytes > 1024 {
            return Err((k("key_bytes"), format!("key_bytes = {} is out of range; expected 1..=1024", kv.key_bytes)));
        }
        if kv.value_bytes == 0 || kv.value_bytes > 1 << 20 {
            return Err((k("value_bytes"), format!("value_bytes = {} is out of range; expected 1..=1048576", kv.value_bytes)));
        }
        // Capped like the hardware's time overrides (1000 s): beyond that the server's
        // per-request time would saturate the clock and the run would stall.
        if !kv.server_cpu_ns.is_finite() || !(0.0..=MAX_SERVER_CPU_NS).contains(&kv.server_cpu_ns) {
            return Err((k("server_cpu_ns"), format!("server_cpu_ns = {:?} is invalid; expected nanoseconds in 0..={MAX_SERVER_CPU_NS:e} (1000 s)", kv.server_cpu_ns)));
        }
        if kv.inline_max > MAX_INLINE {
            return Err((k("inline_max"), format!("inline_max = {} is too large; expected 0..={MAX_INLINE}", kv.inline_max)));
        }
        if kv.window == 0 || kv.window > MAX_KV_WINDOW {
            return Err((k("window"), format!("window = {} is out of range; expected 1..={MAX_KV_WINDOW} outstanding requests", kv.window)));
        }
        if kv.fail_lim == 0 || kv.fail_lim > 1_000_000 {
            return Err((k("fail_lim"), format!("fail_lim = {} is out of range; expected 1..=1000000 empty polls", kv.fail_lim)));
        }
        if !kv.empty_poll_ns.is_finite() || kv.empty_poll_ns <= 0.0 || kv.empty_poll_ns > 1e6 {
            return Err((k("empty_poll_ns"), format!("empty_poll_ns = {} is invalid; expected a number of nanoseconds in (0, 1e6]", kv.empty_poll_ns)));
        }
        host_ok(k("client"), kv.client)?;
        host_ok(k("server"), kv.server)?;
        if kv.client == kv.server {
            return Err((k("server"), format!("client and server are both host {}; expected two different hosts", kv.client)));
        }
    }
    Ok(())
}

/// `pattern = { kind = "random-pair", ... }`: flows generated from a pattern (flow_pattern.rs
/// expands it into `flow` when the scenario is read).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum FlowPattern {
    RandomPair {
        /// Bytes each rank sends its partner (split evenly over the rails).
        bytes: u64,
        /// Seed of the pairing (the MPI program's `seed`, the EBB's `--seed`).
        #[serde(default)]
        seed: u64,
        /// Nodes taking part; the others are missing (default: every host).
        #[serde(default)]
        nodes: Option<u32>,
        /// Hosts that are down, by number; without it the missing ones are drawn.
        #[serde(default)]
        missing: Option<Vec<u32>>,
        #[serde(default)]
        missing_seed: u64,
        /// Rails every pair stripes over, from rail 0 (MVAPICH2's MV2_NUM_HCAS).
        #[serde(default = "one_rail")]
        rails: u16,
    },
}
fn one_rail() -> u16 {
    1
}
