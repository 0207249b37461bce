//! A PM run's description: the `[ethernet]`, `[host]`, `[pm]`, `[nic]`, `[workload]`, `[output]`
//! and `[limits]` sections of a scenario with `engine = "pm"` (docs/pm.md). Checked by
//! validate/pm.rs; run by ether/run.rs.
use crate::ether::host_buses::NicSection;
use crate::ether::host_cost::HostCostConfig;
use crate::ether::link::{EthRate, FlowControl};
use crate::ether::pm_config::PmConfig;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmScenario {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default = "one")]
    pub seed: u64,
    /// Always [`super::EngineKind::Pm`] (validate/pm.rs reads a scenario as PM's by it).
    pub engine: super::EngineKind,
    pub ethernet: EthernetSection,
    #[serde(default)]
    pub host: HostCostConfig,
    #[serde(default)]
    pub pm: PmConfig,
    /// `[nic]`: which bus the hosts' NICs sit on (ether/host_buses.rs).
    #[serde(default)]
    pub nic: NicSection,
    pub workload: PmWorkload,
    #[serde(default)]
    pub output: PmOutput,
    /// The same `[limits]` as every engine's (`max_sim_time_ms`, `max_events`); a PM run
    /// without them stops at [`DEFAULT_MAX_SIM_TIME_MS`] or [`DEFAULT_MAX_EVENTS`].
    #[serde(default)]
    pub limits: super::LimitsSection,
}

fn one() -> u64 {
    1
}

/// The time limit of a PM run that sets none, ms: 10 s simulated (every study case ends well
/// before; the progress bar measures against it).
pub const DEFAULT_MAX_SIM_TIME_MS: f64 = 10_000.0;
/// The event limit of a PM run that sets none.
pub const DEFAULT_MAX_EVENTS: u64 = 200_000_000;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EthernetSection {
    #[serde(default)]
    pub rate: EthRate,
    /// A switch profile: foundry-fwfx448, broadcom-12port, extreme-summit7i.
    #[serde(default = "default_switch")]
    pub switch: String,
    #[serde(default)]
    pub flow_control: FlowControl,
    #[serde(default = "default_cable")]
    pub cable_m: f64,
    pub topology: PmTopology,
    /// How a hyper-crossbar's rows sit on physical switches (ether/cabling.rs); `rows`, the
    /// default, gives each row a switch of its own.
    #[serde(default)]
    pub cabling: Cabling,
    /// Each switch's packet buffer, KiB, in place of its profile's (the test bed's is not
    /// published: a study sweeps it); an output's cap is then at most the whole buffer.
    #[serde(default)]
    pub switch_buffer_kib: Option<u32>,
    /// Links with their own flow control: `[[ethernet.links]] hosts = [0, 3]
    /// flow_control = { kind = "pause", … }` (both directions of those hosts' cables).
    #[serde(default)]
    pub links: Vec<LinkOverride>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOverride {
    pub hosts: Vec<u32>,
    pub flow_control: FlowControl,
}

fn default_switch() -> String {
    "foundry-fwfx448".into()
}
fn default_cable() -> f64 {
    2.0
}

/// The layout family of `[ethernet] cabling`: how a hyper-crossbar's rows sit on physical
/// switches (ether/cabling.rs describes each family and what is known and assumed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cabling {
    #[default]
    Rows,
    LanePerSwitch,
    DimPerSwitch,
    Packed,
}

impl Cabling {
    /// As written in a scenario.
    pub fn name(self) -> &'static str {
        match self {
            Cabling::Rows => "rows",
            Cabling::LanePerSwitch => "lane-per-switch",
            Cabling::DimPerSwitch => "dim-per-switch",
            Cabling::Packed => "packed",
        }
    }
}

/// Hosts on one switch with `links` NICs each, or the 3-D hyper-crossbar.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum PmTopology {
    SingleSwitch { hosts: u32, links: u16 },
    Hyperx { dims: [u16; 3], links_per_dim: u16 },
}

/// A PM scenario's `[workload]`, by `kind`. Each kind's keys are a struct of their own, so a
/// bad key is found by its path inside the table (scenario/validate/parse_errors.rs).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PmWorkload {
    Bandwidth(PmBandwidth),
    Mpi(PmMpi),
    Incast(PmIncast),
    Pingpong(PmPingpong),
    Neighbor(PmNeighbor),
    Alltoall(PmAlltoall),
}

/// The kinds of `PmWorkload`, as written.
pub const PM_WORKLOAD_KINDS: &[&str] = &["bandwidth", "mpi", "incast", "pingpong", "neighbor", "alltoall"];

/// `count` messages of `bytes` from `src` to `dst` (hosts), and back too with `two_way`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmBandwidth {
    #[serde(default)]
    pub src: u32,
    #[serde(default = "one_u32")]
    pub dst: u32,
    pub bytes: u64,
    pub count: u32,
    #[serde(default)]
    pub two_way: bool,
}

/// An MPI program, one rank per host, over PM through `library`'s protocol (ether/mpi): a
/// generated `program`, or a `trace` directory (rank.<r>.trace, tools/pmpi_trace; a relative
/// path is read beside the scenario file).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmMpi {
    #[serde(default)]
    pub library: crate::ether::mpi::profile::MpiLibrary,
    #[serde(default)]
    pub program: Option<crate::mpi::program_spec::ProgramSpec>,
    #[serde(default)]
    pub trace: Option<String>,
    /// Multiplies a trace's recorded compute gaps.
    #[serde(default = "one_f64")]
    pub compute_scale: f64,
    /// The library's own CPU time per packet of its data beyond MPICH's, µs at 3.6 GHz
    /// (ether/mpi/packet_cost.rs); the library's profile when not given.
    #[serde(default)]
    pub packet_us: Option<f64>,
}

impl PmMpi {
    /// The per-packet time the run uses: the one given, else the library's.
    pub fn packet_us(&self) -> f64 {
        self.packet_us.unwrap_or(self.library.profile().packet_us)
    }
}

/// Every other host streams `count` messages of `bytes` to `dst`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmIncast {
    #[serde(default)]
    pub dst: u32,
    pub bytes: u64,
    pub count: u32,
}

/// `iters` round trips of `bytes` between `src` and `dst`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmPingpong {
    #[serde(default)]
    pub src: u32,
    #[serde(default = "one_u32")]
    pub dst: u32,
    #[serde(default = "eight")]
    pub bytes: u64,
    pub iters: u32,
}

/// Host 0 and its neighbours in the first `dims` dimensions: `send` (host 0 to each), `recv`
/// (each to host 0) or `both` (every host with all its neighbours). With `skew_us` > 0 each
/// sending host starts after a random delay up to `skew_us` (drawn from its own stream; 0, the
/// default, starts every host at once and draws nothing): seeds/003's "skew between nodes".
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmNeighbor {
    pub dims: u8,
    pub mode: NeighborMode,
    pub bytes: u64,
    pub count: u32,
    #[serde(default)]
    pub skew_us: f64,
}

/// scstest-like all-to-all: `rounds` rounds, each host sending `count` messages of `bytes` to
/// every other host after a random start skew up to `skew_us`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmAlltoall {
    pub bytes: u64,
    pub rounds: u32,
    #[serde(default = "one_u32")]
    pub count: u32,
    #[serde(default)]
    pub skew_us: f64,
}

fn one_u32() -> u32 {
    1
}
fn one_f64() -> f64 {
    1.0
}
fn eight() -> u64 {
    8
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NeighborMode {
    Send,
    Recv,
    Both,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmOutput {
    #[serde(default)]
    pub capture: bool,
    #[serde(default = "default_cap_packets")]
    pub capture_max_packets: u64,
}

fn default_cap_packets() -> u64 {
    10_000
}


#[cfg(test)]
mod kinds_test {
    use super::*;

    /// `PM_WORKLOAD_KINDS` names exactly the kinds serde takes (error messages list it).
    #[test]
    fn the_kinds_list_matches_the_enum() {
        let e = toml::from_str::<PmWorkload>("kind = \"nope\"").unwrap_err().to_string();
        let listed: Vec<&str> = e.split('`').skip(1).step_by(2).skip(1).collect();
        assert_eq!(listed, PM_WORKLOAD_KINDS, "{e}");
    }
}
