//! The doctor's measure on a replayed MPI trace (`--workload mpi-trace --trace DIR`): the trace
//! runs on the packet engine, over the fabric as observed or with suspects disabled, and its
//! figure is the bytes its ranks send over the time the replay takes, Gb/s. For one trace the
//! bytes are fixed, so the figure is the replay's speed: disabling a link that gains 10 % makes
//! the trace finish in 1/1.1 of the time. Compute gaps count as recorded, so a trace that mostly
//! computes shows little of what its network suffers, as it would on the machine.
//!
//! A trace runs as the MPI replay runs it (workload/mpi): rank r on the r-th host in node order,
//! one process per host, each rank driving every rail its host has (MVAPICH2 with
//! `MV2_NUM_HCAS` set to the rails, as the TSUBAME2.0 study ran). Unlike the flow-level
//! patterns, this runs the transport itself: the erroring links the doctor keeps corrupt
//! packets at their measured packet error rate (as a bit error rate, [`equivalent_ber`]) and RC
//! recovers them, timeouts included. Retrains and drops (LinkErrorRecoveryCounter,
//! LinkDownedCounter) are not replayed: a packet run has no link outage to give them
//! (docs/doctor.md).
use crate::run::Engine as _;
use super::error_cost::{equivalent_ber, error_rates, ErrorModel};
use super::Report;
use crate::fabric::graph::{FabricGraph, RoutedFabric};
use crate::fabric::io::IoError;
use crate::apps::fabric_report::FabricError;
use crate::ids::{LinkId, TiVec};
use crate::scenario::{Scenario, TopologyKind};
use crate::mpi::program::Op;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A trace ready to replay on any version of the fabric.
pub struct TraceBench {
    dir: PathBuf,
    /// Bytes every rank's sends carry, in all.
    bytes: u64,
    ranks: u32,
    /// The HCA profile the hosts run (`rdmasim profiles`).
    profile: String,
    /// Rails each rank drives: those every host of the fabric has.
    rails: u16,
    /// A replay still running at this simulated time has stalled (a rank cut off): its figure
    /// is 0.
    limit_ms: f64,
    /// Each link's bit error rate when kept (erroring suspects' measured packet error rate).
    ber: TiVec<LinkId, f64>,
}

/// One replay: its figure, and whether every rank got through without an error completion
/// (otherwise the figure is 0).
pub struct TraceRun {
    pub gbps: f64,
    pub finished: bool,
}

impl TraceBench {
    /// Reads the trace in `dir` (errors name the file and line) for the fabric `observed` with
    /// the suspects of `report`.
    pub fn new(dir: &Path, profile: &str, limit_ms: f64, observed: &FabricGraph, report: &Report, m: &ErrorModel) -> Result<TraceBench, FabricError> {
        let (program, _) = crate::mpi::trace::read_dir(dir, 1.0).map_err(|e| FabricError::Io(IoError { source: e.file, line: e.line, message: e.message }))?;
        let whole = |m: String| FabricError::Io(IoError::whole(&dir.display().to_string(), m));
        let bytes = program.ranks.iter().flat_map(|r| &r.ops).map(|op| if let Op::Isend { bytes, .. } = op { *bytes } else { 0 }).sum();
        let hosts = observed.hosts.len() as u32;
        if program.size() > hosts {
            return Err(whole(format!("{} ranks, but the fabric has {hosts} hosts; expected at most one rank per host", program.size())));
        }
        if !(limit_ms.is_finite() && limit_ms > 0.0) {
            return Err(whole(format!("trace_limit_ms = {limit_ms}: expected a positive number of milliseconds")));
        }
        if crate::profile::by_name(profile).is_none() {
            return Err(whole(format!("profile {profile:?}: expected one of `rdmasim profiles`")));
        }
        let rails = observed.hosts.iter().map(|h| h.hcas.len()).min().unwrap_or(1).max(1) as u16;
        let mut ber: TiVec<LinkId, f64> = vec![0.0; observed.links.len()].into();
        for s in &report.suspects {
            let r = error_rates(observed, s.link, &s.evidence, m);
            // One bit error rate for both directions (a link has one in the graph): the worse
            // direction's, an upper bound on the other.
            ber[s.link] = equivalent_ber(r.per_into[0].max(r.per_into[1]), m);
        }
        Ok(TraceBench { dir: dir.to_path_buf(), bytes, ranks: program.size(), profile: profile.to_string(), rails, limit_ms, ber })
    }

    pub fn ranks(&self) -> u32 {
        self.ranks
    }

    /// Replays the trace on `rf` (its graph the observed one with some links down).
    pub fn run(&self, mut rf: RoutedFabric, seed: u64) -> Result<TraceRun, FabricError> {
        for (l, &ber) in self.ber.iter_enumerated() {
            rf.graph.links[l].ber = rf.graph.links[l].ber.max(ber);
        }
        let source = format!("doctor trace {}", self.dir.display());
        // The strings go through TOML's own quoting: a directory may hold any character.
        let quoted = |v: &str| toml::Value::String(v.to_string()).to_string();
        let text = format!(
            "name = \"doctor mpi-trace\"\nseed = {seed}\n[hardware]\nprofile = {}\n[workload]\nkind = \"mpi\"\ntrace = {}\nnum_hcas = {}\n[limits]\nmax_sim_time_ms = {:?}\n",
            quoted(&self.profile),
            quoted(&self.dir.display().to_string()),
            self.rails,
            self.limit_ms
        );
        let dir = self.dir.display().to_string();
        // Deserialised only: the checks run once the fabric is in (from_scenario), since the
        // default two-host topology would refuse a trace's ranks or rails.
        let mut s: Scenario = toml::from_str(&text).map_err(|e| FabricError::Io(IoError::whole(&dir, e.to_string())))?;
        let bad = |e: crate::scenario::ScenarioError| FabricError::Io(IoError::whole(&dir, e.to_string()));
        s.topology.kind = TopologyKind::Graph;
        s.topology.hosts = rf.graph.hosts.len() as u32;
        s.topology.routed = Some(Arc::new(rf));
        let mut sim = crate::sim::Simulation::from_scenario(s, &source).map_err(bad)?;
        sim.run();
        let r = sim.result();
        // A rank cut off fails its sends once RC gives up (IBV_WC_RETRY_EXC_ERR): the run ends,
        // but the trace did not run.
        let finished = r.finished && r.error_completions == 0;
        let gbps = if finished && r.sim_time_us > 0.0 { self.bytes as f64 * 8.0 / (r.sim_time_us * 1e3) } else { 0.0 };
        Ok(TraceRun { gbps, finished })
    }
}
