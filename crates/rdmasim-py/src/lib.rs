//! `rdmasim._core`: the thin PyO3 layer over `rdmasim_core::api`.
//!
//! No logic lives here: scenario text in, the result (a JSON summary, its tables as Arrow
//! streams: `arrow_tables.rs`) and pcap bytes out; a fabric spec or
//! files in, JSON tables and the tools' file formats out (`rdmasim_core::apps::fabric_report`). The Python package
//! (`python/rdmasim`) turns these into pandas tables, files, sweeps and the CLI.
// PyO3 0.22's #[pyfunction]/#[pymethods] expansion converts each `PyResult` error into itself,
// which newer clippy flags at every function signature; the code written here converts nothing.
#![allow(clippy::useless_conversion)]
use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rdmasim_core::api;
use rdmasim_core::fabric::io::ImportOptions;
use rdmasim_core::apps::fabric_report::{FabricError as CoreFabricError, FabricReport};
use rdmasim_core::report::capture::Capture;
use rdmasim_core::report::tables::TableSelect;
use rdmasim_core::scenario::ScenarioError as CoreScenarioError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

mod arrow_tables;

/// The allocator of the hot loop (engine/alloc.rs says why).
#[global_allocator]
static ALLOCATOR: rdmasim_core::engine::alloc::Allocator = rdmasim_core::engine::alloc::Allocator;

create_exception!(
    rdmasim,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be run: names the file (`source`), the dotted `key`, the 1-based \
     `line` (or None) and what was expected (`message`). `str(err)` is `file:line: key `a.b`: message`."
);

create_exception!(
    rdmasim,
    FabricError,
    PyValueError,
    "A fabric that cannot be built or imported: `source` (the file, or None for a generator), \
     the 1-based `line` (or None) and `message` (naming the generator parameter when there is \
     one). `str(err)` is `file:line: message` or `generator KIND: param = value: expected ...`."
);

/// Converts a core fabric error into `rdmasim.FabricError`, with its fields as attributes.
fn fabric_err(py: Python<'_>, e: CoreFabricError) -> PyErr {
    let err = FabricError::new_err(e.to_string());
    let value = err.value_bound(py);
    let (source, line, message) = match &e {
        CoreFabricError::Io(io) => (Some(io.source.clone()), io.line, io.message.clone()),
        CoreFabricError::Generator { message, .. } | CoreFabricError::Routing { message, .. } => (None, None, message.clone()),
    };
    let _ = value.setattr("source", source);
    let _ = value.setattr("line", line);
    let _ = value.setattr("message", message);
    err
}

/// Converts a core scenario error into `rdmasim.ScenarioError`, with its fields as attributes.
fn scenario_err(py: Python<'_>, e: CoreScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let value = err.value_bound(py);
    // Setting attributes on a fresh exception instance cannot fail in practice; ignore if it does.
    let _ = value.setattr("source", e.source.clone());
    let _ = value.setattr("key", e.key.clone());
    let _ = value.setattr("line", e.line);
    let _ = value.setattr("message", e.message.clone());
    err
}

/// One simulation run, built from a TOML scenario and advanced in steps.
#[pyclass(module = "rdmasim._core", name = "Simulation")]
struct PySimulation {
    inner: api::Simulation,
    source: String,
}

#[pymethods]
impl PySimulation {
    /// Parses and validates `toml_text` (raises `ScenarioError`) and builds the world.
    #[new]
    #[pyo3(signature = (toml_text, source = "<string>"))]
    fn new(py: Python<'_>, toml_text: &str, source: &str) -> PyResult<Self> {
        let inner = api::Simulation::from_toml(toml_text, source).map_err(|e| scenario_err(py, e))?;
        Ok(PySimulation { inner, source: source.to_string() })
    }

    /// Runs at most `max_events` events with the GIL released; returns True when the run is over.
    fn step(&mut self, py: Python<'_>, max_events: u64) -> bool {
        let inner = &mut self.inner;
        py.allow_threads(move || inner.step(max_events))
    }

    /// Fraction of the workload done, 0.0 ..= 1.0.
    fn progress(&self) -> f64 {
        self.inner.progress()
    }

    /// The result so far as JSON: name, seed, profile, finished, stop_reason, sim_time_us,
    /// events, tables {name: [row, ...]}.
    fn result_json(&self) -> String {
        self.inner.result_json()
    }

    /// The result so far with its tables as columns: (the summary as JSON, with `tables`
    /// empty; {table: Arrow IPC stream bytes}, in name order; the names of every table the run
    /// offers). Only the tables in `only` (all when None) and not in `skip` are built.
    #[pyo3(signature = (only = None, skip = None))]
    fn result_tables<'py>(
        &mut self,
        py: Python<'py>,
        only: Option<Vec<String>>,
        skip: Option<Vec<String>>,
    ) -> PyResult<(String, Bound<'py, PyDict>, Vec<String>)> {
        let select = TableSelect { only: only.map(|o| o.into_iter().collect()), skip: skip.unwrap_or_default().into_iter().collect() };
        // Borrowed mutably only to be sent to the thread that runs without the GIL (`&mut` of a
        // Send engine is Send; `&` would need it Sync).
        let inner = &mut self.inner;
        let (summary, streams, offered) = py
            .allow_threads(move || -> Result<_, arrow_schema::ArrowError> {
                let mut r = inner.result_of(&select);
                let tables = std::mem::take(&mut r.tables);
                let offered = std::mem::take(&mut r.offered_tables);
                let streams = tables.iter().map(|(name, t)| arrow_tables::ipc_stream(t).map(|b| (name.clone(), b))).collect::<Result<Vec<_>, _>>()?;
                Ok((serde_json::to_string(&r).unwrap_or_default(), streams, offered))
            })
            .map_err(|e| PyRuntimeError::new_err(format!("a result table could not be written as Arrow: {e}")))?;
        let out = PyDict::new_bound(py);
        for (name, bytes) in streams {
            out.set_item(name, PyBytes::new_bound(py, &bytes))?;
        }
        Ok((summary, out, offered))
    }

    /// The names of the tables the run offers so far, none built.
    fn table_names(&self) -> Vec<String> {
        self.inner.table_names()
    }

    /// The pcap capture as bytes, or None when the scenario did not ask for one (or after
    /// `take_capture`). Written straight into the bytes object; raises MemoryError when it
    /// does not fit.
    fn pcap<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        if let Some(c) = self.inner.capture() {
            return pcap_bytes(py, c).map(Some);
        }
        // A PM run (engine = "pm") keeps Ethernet frames, made into a pcap by the core.
        Ok(self.inner.pcap().map(|b| PyBytes::new_bound(py, &b)))
    }

    /// Hands the captured packets over as a `Capture`, so the pcap is built only when wanted
    /// and can be streamed to a file; None when the scenario asked for no capture or they were
    /// handed over already (the run's table keeps the counts).
    fn take_capture(&mut self) -> Option<PyCapture> {
        self.inner.take_capture().map(|inner| PyCapture { inner })
    }

    /// The name the scenario was loaded from (file path, "<string>" or "<dict>").
    #[getter]
    fn source(&self) -> &str {
        &self.source
    }

    fn __repr__(&self) -> String {
        format!("<rdmasim._core.Simulation source={:?} progress={:.3}>", self.source, self.inner.progress())
    }
}

/// The packets a run captured, handed over from its `Simulation`: the pcap file is made from
/// them only when asked for, into a file (`write`, streamed) or one bytes object (`to_bytes`).
#[pyclass(module = "rdmasim._core", name = "Capture")]
struct PyCapture {
    inner: Capture,
}

#[pymethods]
impl PyCapture {
    /// Size of the pcap file, bytes.
    #[getter]
    fn nbytes(&self) -> u64 {
        self.inner.pcap_bytes
    }

    /// The pcap file as bytes, written straight into the bytes object (one copy of the file
    /// in memory); raises MemoryError when it does not fit.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        pcap_bytes(py, &self.inner)
    }

    /// Writes the pcap file to `path` a frame at a time (never whole in memory), with the GIL
    /// released; returns its size. Raises OSError when the file cannot be written.
    fn write(&self, py: Python<'_>, path: PathBuf) -> PyResult<u64> {
        let c = &self.inner;
        py.allow_threads(move || -> std::io::Result<u64> {
            let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
            c.write_pcap(&mut w)?;
            w.flush()?;
            Ok(c.pcap_bytes)
        })
        .map_err(PyErr::from)
    }

    fn __repr__(&self) -> String {
        format!("<rdmasim._core.Capture {} bytes>", self.inner.pcap_bytes)
    }
}

/// A capture's pcap as one bytes object, written in place (no intermediate copy). The size
/// comes from the capture's own count; a mismatch would be a bug and is an error, not a panic.
fn pcap_bytes<'py>(py: Python<'py>, c: &Capture) -> PyResult<Bound<'py, PyBytes>> {
    let len = usize::try_from(c.pcap_bytes).map_err(|_| PyMemoryError::new_err("the capture is larger than this platform's address space"))?;
    PyBytes::new_bound_with(py, len, |buf| {
        let mut rest: &mut [u8] = buf;
        c.write_pcap(&mut rest).map_err(|e| PyRuntimeError::new_err(format!("the capture did not fit its counted size: {e}")))?;
        if rest.is_empty() {
            Ok(())
        } else {
            Err(PyRuntimeError::new_err(format!("the capture is {} bytes short of its counted size", rest.len())))
        }
    })
}

/// A routed fabric, built or imported, and what `rdmasim_core::apps::fabric_report` answers about
/// it. Every long call releases the GIL; results are cached in the core, so the summary and
/// the all-pairs route counts are computed once.
#[pyclass(module = "rdmasim._core", name = "Fabric")]
struct PyFabric {
    inner: FabricReport,
}

#[pymethods]
impl PyFabric {
    /// Builds and routes a generated fabric from its spec as JSON (`{"kind": "fat-tree-k", "k": 4}`);
    /// raises `FabricError` naming the parameter.
    #[staticmethod]
    fn build(py: Python<'_>, spec_json: &str) -> PyResult<Self> {
        py.allow_threads(|| FabricReport::build_json(spec_json)).map(|inner| PyFabric { inner }).map_err(|e| fabric_err(py, e))
    }

    /// Imports a topology file and optional LFTs (file or directory); raises `FabricError`
    /// naming the file and line.
    #[staticmethod]
    #[pyo3(signature = (path, lfts = None, default_speed = None))]
    fn import_file(py: Python<'_>, path: PathBuf, lfts: Option<PathBuf>, default_speed: Option<String>) -> PyResult<Self> {
        py.allow_threads(|| {
            let opts = ImportOptions::with_default_speed(default_speed.as_deref()).map_err(CoreFabricError::Io)?;
            FabricReport::import(&path, lfts.as_deref(), &opts)
        })
        .map(|inner| PyFabric { inner })
        .map_err(|e| fabric_err(py, e))
    }

    /// The generator kind or the topology file.
    #[getter]
    fn source(&self) -> &str {
        &self.inner.source
    }

    /// How the forwarding tables were made: "d-mod-k", "dimension order", "from file",
    /// "minhop", or the engines asked for ("ftree,dfsssp", "ftree (fell back to minhop)").
    #[getter]
    fn routing(&self) -> String {
        self.inner.routing.name()
    }

    /// Reroutes with the engines of a JSON request (`{"engines": "ftree,dfsssp", "roots": [],
    /// "max_vls": 8}`); raises `FabricError` naming the engine.
    fn route(&mut self, py: Python<'_>, request_json: &str) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(move || inner.route_json(request_json)).map_err(|e| fabric_err(py, e))
    }

    /// New LIDs, "opensm" (as OpenSM assigns them) or a guid2lid file, then routed again;
    /// raises `FabricError` naming the file and line.
    fn set_lids(&mut self, py: Python<'_>, lids: &str) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(move || inner.set_lids(lids)).map_err(|e| fabric_err(py, e))
    }

    /// Effective bisection bandwidth for JSON options (patterns, seed, kinds, weighting):
    /// (report as JSON, text).
    fn ebb(&self, py: Python<'_>, options_json: &str) -> PyResult<(String, String)> {
        let inner = &self.inner;
        py.allow_threads(move || inner.ebb_json(options_json)).map_err(|e| fabric_err(py, e))
    }

    /// Per subnet (rail): engine asked, engine used, fallback, as JSON.
    fn subnets_json(&self) -> String {
        self.inner.subnets_json()
    }

    /// The fabric under each engine list of `{"compare": [...]}`: (rows as JSON, table text).
    fn compare_engines(&self, py: Python<'_>, request_json: &str) -> PyResult<(String, String)> {
        let inner = &self.inner;
        py.allow_threads(move || inner.compare_json(request_json)).map_err(|e| fabric_err(py, e))
    }

    fn summary_json(&mut self, py: Python<'_>) -> String {
        let inner = &mut self.inner;
        py.allow_threads(move || inner.summary_json())
    }

    fn summary_text(&mut self, py: Python<'_>) -> String {
        let inner = &mut self.inner;
        py.allow_threads(move || inner.summary_text())
    }

    fn loads_json(&mut self, py: Python<'_>, top: usize) -> String {
        let inner = &mut self.inner;
        py.allow_threads(move || inner.loads_json(top))
    }

    fn loads_text(&mut self, py: Python<'_>, top: usize) -> String {
        let inner = &mut self.inner;
        py.allow_threads(move || inner.loads_text(top))
    }

    fn nodes_json(&self, py: Python<'_>) -> String {
        let inner = &self.inner;
        py.allow_threads(move || inner.nodes_json())
    }

    fn links_json(&mut self, py: Python<'_>) -> String {
        let inner = &mut self.inner;
        py.allow_threads(move || inner.links_json())
    }

    fn routes_json(&self, py: Python<'_>) -> String {
        let inner = &self.inner;
        py.allow_threads(move || inner.routes_json())
    }

    /// The topology as an ibsim `net` file; raises `FabricError` for a node name ibsim cannot take.
    fn net_text(&self, py: Python<'_>) -> PyResult<String> {
        self.inner.net_text().map_err(|e| fabric_err(py, e))
    }

    /// The forwarding tables as OpenSM's `opensm-lfts.dump`.
    fn lfts_text(&self, py: Python<'_>) -> String {
        let inner = &self.inner;
        py.allow_threads(move || inner.lfts_text())
    }

    /// The fabric as Graphviz dot.
    fn dot_text(&self) -> String {
        self.inner.dot_text()
    }

    fn __repr__(&self) -> String {
        let g = &self.inner.fabric.graph;
        format!("<rdmasim._core.Fabric {:?}: {} nodes, {} links, routing {}>", self.inner.source, g.nodes.len(), g.links.len(), self.inner.routing.name())
    }
}

/// Parses and validates a TOML scenario without running it; raises `ScenarioError`.
#[pyfunction]
#[pyo3(signature = (toml_text, source = "<string>"))]
fn validate(py: Python<'_>, toml_text: &str, source: &str) -> PyResult<()> {
    api::validate_any(toml_text, source).map_err(|e| scenario_err(py, e))
}

/// Every built-in hardware-profile parameter as JSON rows
/// (profile, parameter, value, overridden, source, doc).
#[pyfunction]
fn profiles_json() -> String {
    api::profiles_json()
}

/// Every parameter a built-in named host sets as JSON rows
/// (host, about, parameter, part, value, source, doc).
#[pyfunction]
fn hosts_json() -> String {
    api::hosts_json()
}

/// The names Python offers, from the core's own definitions (perftest tests, generator kinds,
/// routing engines, tables made while running), as JSON.
#[pyfunction]
fn names_json() -> String {
    api::names_json()
}

/// Data rate of a built-in profile's link after line encoding, bit/s (None for an unknown name).
#[pyfunction]
fn link_data_bps(profile: &str) -> Option<f64> {
    rdmasim_core::profile::by_name(profile).map(|(p, _)| p.link.speed().data_bps_f64())
}

/// The values a perftest scenario runs with, every perftest default and limit applied, as JSON
/// (test, profile, seed, events, sizes, iters, tx_depth, cq_mod, inline_size, rx_depth, qps,
/// mtu, max_rd_atomic): what perftest's header prints, from the rules the run itself uses.
/// Raises `ScenarioError` for an invalid scenario or another workload kind.
#[pyfunction]
#[pyo3(signature = (toml_text, source = "<string>"))]
fn perftest_settings_json(py: Python<'_>, toml_text: &str, source: &str) -> PyResult<String> {
    api::perftest_settings_json(toml_text, source).map_err(|e| scenario_err(py, e))
}

/// Bytes of the stop/resume retransmission-management table of one SRQ (one bit per source).
#[pyfunction]
fn srq_table_bytes(nodes: u64, procs_per_node: u64) -> u64 {
    rdmasim_core::hca::srq::RetransmissionTable::size_bytes(nodes, procs_per_node)
}

/// The core's speed benchmark (`rdmasim_core::bench`): a fixed, documented workload run
/// `{"iterations": n, "cases": [...]}` (default 3 iterations, every case), the best runs
/// reported as JSON, one set of keys per case; an unknown case is a ValueError naming the cases.
#[pyfunction]
#[pyo3(signature = (json_options = "{}"))]
fn bench_run(py: Python<'_>, json_options: &str) -> PyResult<String> {
    py.allow_threads(|| rdmasim_core::bench::run_json(json_options)).map_err(PyValueError::new_err)
}

/// `rdmasim doctor`: the files a JSON request names (rdmasim_core::apps::doctor::request)
/// read, diagnosed and costed; (outcome as JSON, table). Raises `FabricError` naming the file
/// and line or the request field.
#[pyfunction]
fn doctor(py: Python<'_>, request_json: &str) -> PyResult<(String, String)> {
    py.allow_threads(|| rdmasim_core::apps::doctor::request::run_json(request_json)).map_err(|e| fabric_err(py, e))
}

/// Rounds of equal flows on one routed fabric (rdmasim_core::apps::rounds): the TSUBAME2.0
/// sweeps. A JSON request in, the outcome as JSON out; raises `FabricError` naming the field.
#[pyfunction]
fn flow_rounds(py: Python<'_>, request_json: &str) -> PyResult<String> {
    py.allow_threads(|| rdmasim_core::apps::rounds::run_json(request_json)).map_err(|e| fabric_err(py, e))
}

/// Tables given as JSON rows (`{"name": [row, ...]}`) as the Arrow IPC streams a run's tables
/// cross in (`Simulation.result_tables`): for tests that compare the two forms on any rows.
#[pyfunction]
fn tables_as_arrow<'py>(py: Python<'py>, tables_json: &str) -> PyResult<Bound<'py, PyDict>> {
    let tables: std::collections::BTreeMap<String, Vec<rdmasim_core::report::tables::Row>> =
        serde_json::from_str(tables_json).map_err(|e| PyValueError::new_err(format!("expected {{table: [row, ...]}} as JSON: {e}")))?;
    let out = PyDict::new_bound(py);
    for (name, rows) in tables {
        let mut t = rdmasim_core::report::columns::ColumnTable::default();
        for r in &rows {
            t.push_row(r);
        }
        let bytes = arrow_tables::ipc_stream(&t).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        out.set_item(name, PyBytes::new_bound(py, &bytes))?;
    }
    Ok(out)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add_class::<PySimulation>()?;
    m.add("FabricError", m.py().get_type_bound::<FabricError>())?;
    m.add_class::<PyCapture>()?;
    m.add_class::<PyFabric>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(doctor, m)?)?;
    m.add_function(wrap_pyfunction!(flow_rounds, m)?)?;
    m.add_function(wrap_pyfunction!(profiles_json, m)?)?;
    m.add_function(wrap_pyfunction!(hosts_json, m)?)?;
    m.add_function(wrap_pyfunction!(names_json, m)?)?;
    m.add_function(wrap_pyfunction!(link_data_bps, m)?)?;
    m.add_function(wrap_pyfunction!(perftest_settings_json, m)?)?;
    m.add_function(wrap_pyfunction!(bench_run, m)?)?;
    m.add_function(wrap_pyfunction!(srq_table_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(tables_as_arrow, m)?)?;
    Ok(())
}
