//! What every engine offers the caller, whichever runs the scenario: the object the binding and
//! the CLI drive (step with progress, then the result in one common form). The loop itself and
//! the stop reasons are `engine/run.rs`'s, shared by all three engines.
use crate::profile::HwProfile;
use crate::report::capture::Capture;
use crate::report::columns::ColumnTable;
use crate::report::tables::{Row, TableSelect};
use serde::Serialize;
use std::any::Any;
use std::collections::BTreeMap;

pub use crate::engine::run::StopReason;

/// A run's result, the same for every engine: a summary and its tables.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub name: Option<String>,
    pub seed: u64,
    pub profile: String,
    pub finished: bool,
    pub stop_reason: String,
    pub sim_time_us: f64,
    pub events: u64,
    /// Work requests that completed in error or were flushed (hca_counters req_cqe_error +
    /// req_cqe_flush_error, all HCAs): a run can complete with some of its work failed.
    pub error_completions: u64,
    /// The tables built (all, unless the result was asked for some: [`Engine::result_of`]);
    /// as JSON, each is a list of rows.
    pub tables: BTreeMap<String, ColumnTable>,
    /// Every table the run offers, built or left out.
    #[serde(skip)]
    pub offered_tables: Vec<String>,
}

impl RunResult {
    /// A table's rows as JSON objects (none when the run has no such table), for the tests and
    /// tools that read a few values.
    pub fn rows(&self, table: &str) -> Vec<Row> {
        self.tables.get(table).map(ColumnTable::to_rows).unwrap_or_default()
    }
}

/// One run on one engine: the packet engine (`sim.rs`), the flow engine (`flow/run.rs`) or PM
/// over Ethernet (`ether/run.rs`). `Send`: the binding releases the GIL while one runs.
pub trait Engine: Any + Send {
    /// Runs at most `max_events` events; true when the run is over.
    fn step(&mut self, max_events: u64) -> bool;
    /// Runs to the end.
    fn run(&mut self) {
        while !self.step(1 << 20) {}
    }
    /// Fraction of the workload done, 0..=1.
    fn progress(&self) -> f64;
    fn events(&self) -> u64;
    /// The result with every table.
    fn result(&self) -> RunResult {
        self.result_of(&TableSelect::default())
    }
    /// The result with the tables `select` names; the others are not built.
    fn result_of(&self, select: &TableSelect) -> RunResult;
    /// The packet capture, when the scenario asked for one and the engine makes packets.
    fn capture(&self) -> Option<&Capture> {
        None
    }
    fn take_capture(&mut self) -> Option<Capture> {
        None
    }
    /// The capture as a pcap file's bytes.
    fn pcap(&self) -> Option<Vec<u8>> {
        self.capture().map(Capture::to_pcap)
    }
    /// The HCA profile the run used (PM's NIC is not an HCA: none).
    fn profile(&self) -> Option<&HwProfile> {
        None
    }
    /// For callers that inspect one engine's state (`api::Simulation::packet`).
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}
