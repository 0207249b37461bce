//! The scenario format: what a user writes in a TOML file (or passes from Python) to describe
//! hardware, fabric, queue pairs, workload, faults and outputs. `docs/scenario.md` documents it.
//!
//! Parsing is strict: unknown keys and wrong types are errors naming the file, the key and
//! what was expected (see [`error`]); semantic checks live in [`validate`].
pub mod error;
pub mod flow_engine;
pub mod flow_pattern;
pub mod flows;
pub mod limits;
pub mod mpi;
pub mod odp;
pub mod paths;
pub mod pm;
pub mod srq;
pub mod srq_episode;
pub mod validate;

use serde::{Deserialize, Serialize};

pub use error::ScenarioError;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free-form name, copied to the result.
    #[serde(default)]
    pub name: Option<String>,
    /// Seed of every random stream in the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    pub hardware: HardwareSection,
    #[serde(default)]
    pub topology: TopologySection,
    #[serde(default)]
    pub qp: QpSection,
    pub workload: WorkloadSection,
    #[serde(default)]
    pub faults: Vec<FaultSection>,
    #[serde(default)]
    pub output: OutputSection,
    #[serde(default)]
    pub limits: LimitsSection,
    /// Which engine runs the scenario: `"packet"` (default) or `"flow"` (flow/, a `flows`
    /// workload at max-min fair rates over the same routed fabric: docs/flow.md).
    #[serde(default)]
    pub engine: EngineKind,
    /// Options of the flow engine (`[flow] hol`: head-of-line blocking, flow/hol.rs).
    #[serde(default, skip_serializing_if = "flow_engine::FlowSection::is_default")]
    pub flow: flow_engine::FlowSection,
}

/// `engine`: the packet engine, the flow-level engine (both on an InfiniBand fabric, a
/// [`Scenario`]), or PM over Ethernet (a [`pm::PmScenario`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    #[default]
    Packet,
    Flow,
    Pm,
}

/// A scenario file as written, by its `engine`: an InfiniBand fabric's (the packet and flow
/// engines) or PM's Ethernet one; `crate::prepare::parse` reads either.
#[derive(Clone, Debug)]
pub enum ScenarioFile {
    Fabric(Box<Scenario>),
    Pm(Box<pm::PmScenario>),
}

fn default_seed() -> u64 {
    1
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HardwareSection {
    /// A named hardware profile: `cx3-fdr`, `cx4-edr`, `cx5-edr` (see `rdmasim profiles`).
    pub profile: String,
    /// A named host (profile/host.rs: a test bed's idle states, tick, …) laid over the
    /// profile's host part; the overrides go on top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Any profile parameter, overridden for this scenario.
    #[serde(default)]
    pub overrides: crate::profile::ProfileOverrides,
    /// Hosts with other hardware: `[[hardware.hosts]]` entries (profile/parts.rs).
    #[serde(default)]
    pub hosts: Vec<HostHardware>,
}

/// Some hosts on another profile: their HCAs' NIC part and their CPUs' host part come from it,
/// and their cables train to the slower of their profile's link and the other end's.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostHardware {
    /// The host indices it applies to.
    pub hosts: Vec<u32>,
    /// A named profile; without one, the run's profile with the run's overrides.
    #[serde(default)]
    pub profile: Option<String>,
    /// A named host; without one, the run's when the entry names no profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Overrides on top of it (a switch's parameters have no place here).
    #[serde(default)]
    pub overrides: crate::profile::ProfileOverrides,
}

impl HostHardware {
    /// The entry as a whole `[hardware]` section (no hosts of its own): its profile, host and
    /// overrides; without a profile, the run's with the run's overrides under its own, and the
    /// run's host unless it names one.
    pub fn as_section(&self, run: &HardwareSection) -> HardwareSection {
        match &self.profile {
            Some(p) => HardwareSection { profile: p.clone(), host: self.host.clone(), overrides: self.overrides.clone(), hosts: Vec::new() },
            None => HardwareSection {
                profile: run.profile.clone(),
                host: self.host.clone().or_else(|| run.host.clone()),
                overrides: run.overrides.merged(&self.overrides),
                hosts: Vec::new(),
            },
        }
    }
}

impl HardwareSection {
    /// What the scenario lays over the named profile: the named host's values with the
    /// overrides on top; None for an unknown host.
    pub fn changes(&self) -> Option<crate::profile::ProfileOverrides> {
        let host: crate::profile::ProfileOverrides = match &self.host {
            Some(name) => (&crate::profile::host::by_name(name)?.values).into(),
            None => Default::default(),
        };
        Some(host.merged(&self.overrides))
    }

    /// The named profile with the named host and the overrides applied, and the names of the
    /// parameters they set; None for an unknown name.
    pub fn resolved_profile(&self) -> Option<(crate::profile::HwProfile, Vec<&'static str>)> {
        let (mut hw, _) = crate::profile::by_name(&self.profile)?;
        let overridden = hw.apply(&self.changes()?);
        Some((hw, overridden))
    }

    /// The profiles of a run on `hosts` hosts: `run` (the run's own) first, then one per
    /// `[[hardware.hosts]]` entry, and each host's index into them (0: the run's). An error
    /// names the entry whose profile is unknown.
    pub fn host_profiles(&self, run: &crate::profile::HwProfile, hosts: u32) -> Result<(Vec<crate::profile::HwProfile>, Vec<u16>), (String, String)> {
        let mut profiles = vec![run.clone()];
        let mut host_hw = vec![0u16; hosts as usize];
        for (i, e) in self.hosts.iter().enumerate() {
            let (p, _) = e.as_section(self).resolved_profile().ok_or_else(|| (format!("hardware.hosts[{i}].profile"), "unknown profile".to_string()))?;
            profiles.push(p);
            for &h in &e.hosts {
                host_hw[h as usize] = i as u16 + 1;
            }
        }
        Ok((profiles, host_hw))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TopologyKind {
    /// Two hosts, HCA port to HCA port, one cable.
    BackToBack,
    /// N hosts each cabled to one switch.
    SingleSwitch,
    /// A fabric from `generator` (or, later, a file): set when the scenario is resolved, not
    /// written by users.
    #[serde(skip_deserializing)]
    Graph,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySection {
    #[serde(default = "default_topology_kind")]
    pub kind: TopologyKind,
    /// Number of hosts (back-to-back: exactly 2).
    #[serde(default = "default_hosts")]
    pub hosts: u32,
    /// Cable length in metres (propagation ~5 ns/m).
    #[serde(default = "default_cable_m")]
    pub cable_m: f64,
    /// A generated fabric instead of `kind`: `generator = { kind = "fat-tree-k", k = 16 }`
    /// (fabric/build/: back-to-back, single-switch, xgft, k-ary-n-tree, fat-tree-k, director,
    /// rails, tsubame2, hyperx), routed by its default engine. Hosts and link speeds are the
    /// generator's.
    #[serde(default)]
    pub generator: Option<crate::fabric::build::GeneratorSpec>,
    /// A fabric read from a file operators have: `ibnetdiscover` (default or `-p`) output, an
    /// ibsim `net` file or OpenSM's `opensm-subnet.lst` (relative to the scenario file). Each
    /// link keeps the width and speed the file gives it.
    #[serde(default)]
    pub file: Option<String>,
    /// Its forwarding tables: OpenSM's `opensm-lfts.dump`, or `ibroute` output (one file, the
    /// concatenation `dump_lfts.sh` prints, or a directory of them). Without: minhop routing.
    #[serde(default)]
    pub lfts: Option<String>,
    /// Route the generated or imported fabric with OpenSM's engines by name instead of its
    /// default (fabric/routing/): one for all rails or one per rail, `"ftree,dfsssp"`.
    #[serde(default)]
    pub route: Option<String>,
    /// Root switches (names or GUIDs) for `route = "updn"` or `"ftree"`.
    #[serde(default)]
    pub roots: Vec<String>,
    /// Cables taken down before routing, by link selector (fabric/select.rs, as `[[faults]]
    /// link`): each rail is routed by its engine (`route`, or the fabric's default) as OpenSM
    /// would after the link went down (fabric/disable.rs). Not with `lfts` alone (fixed tables).
    #[serde(default)]
    pub disable: Vec<String>,
    /// What a credit loop in the routed fabric does before the packet simulation starts:
    /// `"refuse"` (an error naming the loop; the default: such a fabric can deadlock),
    /// `"warn"` (run it anyway), as the routing-engines issue asks.
    #[serde(default)]
    pub credit_loops: CreditLoopPolicy,
    /// The routed fabric the generator built (fabric/resolve.rs), kept so it is built once.
    #[serde(skip)]
    pub routed: Option<std::sync::Arc<crate::fabric::graph::RoutedFabric>>,
    /// With `disable`: the cables taken down and how each rail was routed after.
    #[serde(skip)]
    pub rerouted: Option<std::sync::Arc<crate::fabric::rerouted::Rerouted>>,
    /// With `file`: what the import set aside or assumed (an `import_warnings` table).
    #[serde(skip)]
    pub import_notes: Option<std::sync::Arc<crate::fabric::io::notes::Notes>>,
}

/// `[topology] credit_loops`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CreditLoopPolicy {
    #[default]
    Refuse,
    Warn,
}

pub(crate) fn default_topology_kind() -> TopologyKind {
    TopologyKind::BackToBack
}
pub(crate) fn default_hosts() -> u32 {
    2
}
pub(crate) fn default_cable_m() -> f64 {
    2.0
}
impl Default for TopologySection {
    fn default() -> Self {
        TopologySection {
            kind: default_topology_kind(),
            hosts: default_hosts(),
            cable_m: default_cable_m(),
            generator: None,
            file: None,
            lfts: None,
            route: None,
            roots: Vec::new(),
            disable: Vec::new(),
            credit_loops: CreditLoopPolicy::default(),
            routed: None,
            rerouted: None,
            import_notes: None,
        }
    }
}

/// Queue-pair attributes as `ibv_modify_qp` takes them.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpSection {
    /// Local ACK timeout exponent: 4.096 µs × 2^timeout (0 = infinite), 0..=31.
    #[serde(default = "d_timeout")]
    pub timeout: u8,
    /// Transport retries before an error completion, 0..=7.
    #[serde(default = "d_retry")]
    pub retry_cnt: u8,
    /// RNR retries, 0..=7; 7 means retry forever.
    #[serde(default = "d_retry")]
    pub rnr_retry: u8,
    /// Responder's minimum RNR NAK timer code, 0..=31 (IBTA table; 12 = 0.64 ms).
    #[serde(default = "d_min_rnr")]
    pub min_rnr_timer: u8,
    /// Outstanding RDMA READs per QP (max_rd_atomic / max_dest_rd_atomic), 1..=16.
    #[serde(default = "d_rd_atomic")]
    pub max_rd_atomic: u32,
    /// Path MTU in bytes (256, 512, 1024, 2048, 4096); default: the profile's.
    #[serde(default)]
    pub mtu: Option<u32>,
    /// Service level of every QP's path, 0..=15 (a flow may set its own): it picks the
    /// virtual lane, whose buffer and credits are its own (fabric/sl2vl.rs).
    #[serde(default)]
    pub sl: u8,
}
fn d_timeout() -> u8 {
    14
}
fn d_retry() -> u8 {
    7
}
fn d_min_rnr() -> u8 {
    12
}
fn d_rd_atomic() -> u32 {
    16
}
impl Default for QpSection {
    fn default() -> Self {
        QpSection {
            timeout: d_timeout(),
            retry_cnt: d_retry(),
            rnr_retry: d_retry(),
            min_rnr_timer: d_min_rnr(),
            max_rd_atomic: d_rd_atomic(),
            mtu: None,
            sl: 0,
        }
    }
}

/// The workload, selected by `kind`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum WorkloadSection {
    Perftest(PerftestSection),
    /// One SRQ flow-control episode (seeds/001 sec. 4.1), `docs/srq.md`.
    SrqEpisode(srq_episode::SrqEpisodeSection),
    /// Competing flows (and an optional key-value store): see [`flows`].
    Flows(flows::FlowsSection),
    /// MPI trace replay over the verbs model with per-rank SRQs, `docs/srq.md`.
    Mpi(mpi::MpiSection),
    /// The On-Demand Paging READ microbenchmarks of seeds/000 (scenario/odp.rs).
    OdpReads(odp::OdpReadsSection),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PerftestTest {
    IbWriteBw,
    IbWriteLat,
    IbReadBw,
    IbReadLat,
    IbSendBw,
    IbSendLat,
}

impl PerftestTest {
    /// Every perftest equivalent, in perftest's order (the CLI's choices come from here).
    pub const ALL: [PerftestTest; 6] = [
        PerftestTest::IbWriteBw,
        PerftestTest::IbWriteLat,
        PerftestTest::IbReadBw,
        PerftestTest::IbReadLat,
        PerftestTest::IbSendBw,
        PerftestTest::IbSendLat,
    ];

    pub fn is_latency(self) -> bool {
        matches!(self, PerftestTest::IbWriteLat | PerftestTest::IbReadLat | PerftestTest::IbSendLat)
    }
    pub fn name(self) -> &'static str {
        match self {
            PerftestTest::IbWriteBw => "ib_write_bw",
            PerftestTest::IbWriteLat => "ib_write_lat",
            PerftestTest::IbReadBw => "ib_read_bw",
            PerftestTest::IbReadLat => "ib_read_lat",
            PerftestTest::IbSendBw => "ib_send_bw",
            PerftestTest::IbSendLat => "ib_send_lat",
        }
    }
}

/// perftest's options, under the names of its long flags.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerftestSection {
    pub test: PerftestTest,
    /// `-s/--size`: message size in bytes (default 65536 for bandwidth, 2 for latency tests).
    #[serde(default)]
    pub size: Option<u64>,
    /// `-a`: every size 2 B .. 8 MiB (powers of two).
    #[serde(default)]
    pub all_sizes: bool,
    /// `-n/--iters` (default 5000 for bandwidth, 1000 for latency tests).
    #[serde(default)]
    pub iters: Option<u64>,
    /// `-I/--inline_size` (default: 220 for ib_write_lat, 236 for ib_send_lat, else 0).
    #[serde(default)]
    pub inline_size: Option<u32>,
    /// `-t/--tx-depth`: outstanding work requests per QP in bandwidth tests (default 128).
    #[serde(default)]
    pub tx_depth: Option<u32>,
    /// `-q/--qp`: number of QPs (bandwidth tests), served by the NIC's arbitration policy.
    #[serde(default = "d_one")]
    pub qps: u32,
    /// `-e/--events`: wait for completions by event (interrupt) instead of busy polling.
    #[serde(default)]
    pub events: bool,
    /// `-r/--rx-depth`: receive WQEs the server keeps posted for ib_send_* (default 512).
    /// A depth below tx_depth makes SENDs outrun the receives: RNR NAKs.
    #[serde(default)]
    pub rx_depth: Option<u32>,
    /// `-Q/--cq-mod`: bandwidth tests signal one work request in `cq_mod` and count each
    /// completion as `cq_mod` (default as perftest: 100, or 1 for a single size above 8 KiB
    /// without events; never above tx_depth).
    #[serde(default)]
    pub cq_mod: Option<u32>,
    /// Host index of the client (the side that posts) and of the server.
    #[serde(default)]
    pub client: u32,
    #[serde(default = "d_one")]
    pub server: u32,
    /// The rail both sides use: each host's rail-th HCA port (perftest's `-d`/`-i`).
    #[serde(default)]
    pub rail: u16,
}
fn d_one() -> u32 {
    1
}

/// Which link direction(s) a fault applies to: `"h0->h1"` (one direction), `"h0-h1"` (both),
/// `"*"` (every link, both directions). Switch ports are named `sw0`; on a generated or
/// imported fabric the ends are node names, with a port if needed (fabric/select.rs).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultSection {
    pub link: String,
    /// Probability that a packet is lost on this link (dropped at the receiver, PortRcvErrors).
    #[serde(default)]
    pub loss_rate: f64,
    /// Bit error rate: a packet of b bits is corrupted with probability 1-(1-ber)^b and
    /// dropped by the receiver's CRC check (SymbolErrorCounter, PortRcvErrors).
    #[serde(default)]
    pub ber: f64,
    /// Errors per second as `SymbolErrorCounter` shows them on a loaded link, each corrupting
    /// the packet it falls in: a packet is corrupted with probability rate × its time on the
    /// wire (fabric/channel.rs `ErrorModel::symbol_errors_per_ps`).
    #[serde(default)]
    pub symbol_errors_per_s: f64,
    /// Drop exactly these packets (1-based count of packets sent on the direction), for tests.
    #[serde(default)]
    pub drop_nth: Vec<u64>,
    /// Link error recoveries per second (LinkErrorRecoveryCounter): the cable stops for
    /// `retrain_us` and loses what is on its wire (fabric/link_events.rs). Unknown for any real
    /// fabric: an input to sweep.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retrains_per_s: f64,
    /// How long a retrain stops the cable, µs (needed with `retrains_per_s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retrain_us: Option<f64>,
    /// Flaps per second (LinkDownedCounter): the cable goes down for `flap_down_ms`, loses
    /// what is on its wire and discards what is sent on it meanwhile.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flaps_per_s: f64,
    /// How long a flap keeps the cable down until it is ACTIVE again, ms (needed with
    /// `flaps_per_s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flap_down_ms: Option<f64>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Write a RoCEv2-framed pcap of the packets.
    #[serde(default)]
    pub capture: bool,
    /// Only packets sent or received by these hosts (empty = all).
    #[serde(default)]
    pub capture_hosts: Vec<u32>,
    /// Only packets of these QP numbers (either end; empty = all).
    #[serde(default)]
    pub capture_qps: Vec<u32>,
    /// Stop capturing after this many packets (default 100000).
    #[serde(default)]
    pub capture_max_packets: Option<u64>,
    /// Stop capturing before the pcap file would pass this many bytes (default 1 GiB, at most
    /// 4 GiB: report/capture.rs).
    #[serde(default)]
    pub capture_max_bytes: Option<u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSection {
    /// Stop the run at this simulated time (ms); results so far are kept and flagged.
    #[serde(default)]
    pub max_sim_time_ms: Option<f64>,
    /// Stop after this many events.
    #[serde(default)]
    pub max_events: Option<u64>,
    /// PM's former time limit, in µs: read only to be refused with the key that replaced it
    /// (`max_sim_time_ms`, the same for every engine).
    #[serde(default, skip_serializing)]
    pub max_time_us: Option<f64>,
}

/// How many rails (cabled HCA ports, in the engine's order: fabric/topology.rs) host `h` of the
/// scenario's fabric has: one on `back-to-back` and `single-switch`.
pub fn rails_of_host(t: &TopologySection, h: u32) -> usize {
    match &t.routed {
        Some(r) => r.graph.rails_of_host(crate::ids::HostId(h)),
        None => 1,
    }
}

/// An error for `key` unless host `h` has rail `rail`.
pub fn check_rail(t: &TopologySection, key: &str, h: u32, rail: u16) -> Result<(), (String, String)> {
    let n = rails_of_host(t, h);
    if h < t.hosts && n == 0 {
        return Err((key.to_string(), format!("host {h} has no cabled HCA port (its cable is missing from the fabric); expected a host with one")));
    }
    if h < t.hosts && usize::from(rail) >= n {
        return Err((key.to_string(), format!("rail = {rail} but host {h} has {n} rail{} (cabled HCA ports); expected 0..={}", if n == 1 { "" } else { "s" }, n.saturating_sub(1))));
    }
    Ok(())
}

