//! The surface the Python binding and the CLI use: build a simulation from a scenario, step it
//! (so a caller can show progress), and collect its result tables and capture.
//!
//! A scenario's `engine` picks what runs it: the packet engine ([`crate::sim::Simulation`], the
//! default), the flow-level engine ([`crate::flow::run::FlowRun`]) or PM over Ethernet
//! ([`crate::ether::run::PmRun`]). The choice is made once, when the run is built (the file is
//! read by `prepare::parse`, which knows each engine's sections); after that
//! [`Simulation`] drives any of them through the one interface they share ([`Engine`]). The
//! packet engine's world is reachable through [`Simulation::packet`] for callers that inspect it
//! (None on the other engines: no panic for asking).
use crate::ether::run::PmRun;
use crate::flow::run::FlowRun;
use crate::profile::HwProfile;
use crate::report::capture::Capture;
use crate::report::tables::TableSelect;
use crate::run::Engine;
use crate::prepare;
use crate::scenario::{validate, EngineKind, Scenario, ScenarioError, ScenarioFile};
use crate::workload::perftest_settings::EffectivePerftest;
pub use crate::run::{RunResult, StopReason};

/// One run, on the engine its scenario names.
pub struct Simulation(Box<dyn Engine>);

impl Simulation {
    pub fn from_toml(text: &str, source: &str) -> Result<Simulation, ScenarioError> {
        match prepare::parse(text, source)? {
            ScenarioFile::Fabric(s) => Self::from_scenario(*s, source),
            ScenarioFile::Pm(s) => PmRun::new(*s, source).map(|r| Simulation(Box::new(r))).map_err(|e| validate::locate(e, text)),
        }
    }

    pub fn from_scenario(mut scenario: Scenario, source: &str) -> Result<Simulation, ScenarioError> {
        if scenario.engine == EngineKind::Flow {
            prepare::resolve(&mut scenario, source)?;
            return Ok(Simulation(Box::new(FlowRun::from_scenario(scenario, source)?)));
        }
        crate::sim::Simulation::from_scenario(scenario, source).map(|s| Simulation(Box::new(s)))
    }

    /// Runs at most `max_events` events; returns true when the run is over.
    pub fn step(&mut self, max_events: u64) -> bool {
        self.0.step(max_events)
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        self.0.run()
    }

    /// Fraction of the workload done, 0..=1.
    pub fn progress(&self) -> f64 {
        self.0.progress()
    }

    pub fn events(&self) -> u64 {
        self.0.events()
    }

    pub fn result(&self) -> RunResult {
        self.0.result()
    }

    /// The result with the tables `select` names; the others are not built (they are still
    /// listed in `offered_tables`).
    pub fn result_of(&self, select: &TableSelect) -> RunResult {
        self.0.result_of(select)
    }

    /// The tables the run offers so far, none built. A table of something the run creates while
    /// running (`sim::TABLES_MADE_WHILE_RUNNING`) may be offered only once it has.
    pub fn table_names(&self) -> Vec<String> {
        self.0.result_of(&TableSelect::none()).offered_tables
    }

    pub fn result_json(&self) -> String {
        serde_json::to_string(&self.result()).unwrap_or_default()
    }

    /// The pcap capture, when the scenario asked for one (a flow-level run has none).
    pub fn pcap(&self) -> Option<Vec<u8>> {
        self.0.pcap()
    }

    pub fn capture(&self) -> Option<&Capture> {
        self.0.capture()
    }

    pub fn take_capture(&mut self) -> Option<Capture> {
        self.0.take_capture()
    }

    /// The HCA profile the run used; a PM run has none (its NIC is ether/nic.rs's E1000).
    pub fn profile(&self) -> Option<&HwProfile> {
        self.0.profile()
    }

    /// The packet engine's run (`.world` and the rest), for callers that inspect it; None for
    /// a flow-level or a PM run, which have no packet world.
    pub fn packet(&self) -> Option<&crate::sim::Simulation> {
        self.0.as_any().downcast_ref()
    }

    pub fn packet_mut(&mut self) -> Option<&mut crate::sim::Simulation> {
        self.0.as_any_mut().downcast_mut()
    }
}

/// Parses and validates a scenario of any engine, without running it. A PM scenario's network
/// is built too: what only it can tell (the hosts a workload names, a switch's ports) is
/// checked there.
pub fn validate_any(text: &str, source: &str) -> Result<(), ScenarioError> {
    match prepare::parse(text, source)? {
        ScenarioFile::Fabric(_) => Ok(()),
        ScenarioFile::Pm(s) => PmRun::new(*s, source).map(drop).map_err(|e| validate::locate(e, text)),
    }
}

/// Parses and validates a TOML scenario without running it.
pub fn validate_toml(text: &str, source: &str) -> Result<Scenario, ScenarioError> {
    prepare::parse_toml(text, source)
}

/// The names the Python package and CLI offer, from the definitions the core parses them with,
/// so Python never keeps a copy: perftest tests (and which are latency tests), generator kinds,
/// routing engines and the ones compared by default, and the tables a run makes while running.
pub fn names_json() -> String {
    use crate::fabric::routing::engine::{ALL, COMPARE_DEFAULT};
    use crate::scenario::PerftestTest;
    serde_json::json!({
        "perftest_tests": PerftestTest::ALL.map(PerftestTest::name),
        "perftest_latency_tests": PerftestTest::ALL.into_iter().filter(|t| t.is_latency()).map(PerftestTest::name).collect::<Vec<_>>(),
        "generator_kinds": crate::fabric::build::GeneratorSpec::KINDS,
        "routing_engines": ALL.map(|e| e.name()),
        "compare_default_engines": COMPARE_DEFAULT.map(|e| e.name()),
        "tables_made_while_running": crate::sim::TABLES_MADE_WHILE_RUNNING,
    })
    .to_string()
}

/// Every built-in profile parameter with its value and source, as JSON rows.
pub fn profiles_json() -> String {
    let rows: Vec<_> = crate::profile::builtin().iter().flat_map(|(p, s)| p.table(s, &[])).collect();
    serde_json::to_string(&rows).unwrap_or_else(|_| "[]".into())
}

/// Every parameter a built-in named host sets (`[hardware] host`), with its value and source,
/// as JSON rows.
pub fn hosts_json() -> String {
    let rows: Vec<_> = crate::profile::host::builtin().iter().flat_map(|h| h.table()).collect();
    serde_json::to_string(&rows).unwrap_or_else(|_| "[]".into())
}

/// The values a perftest scenario runs with, every perftest default and limit applied
/// ([`EffectivePerftest`]), as JSON. The Python CLI prints perftest's header from them before
/// the run starts, rather than repeating perftest's rules.
pub fn perftest_settings_json(text: &str, source: &str) -> Result<String, ScenarioError> {
    let scenario = prepare::parse_toml(text, source)?;
    let effective = EffectivePerftest::of(&scenario).ok_or_else(|| ScenarioError {
        source: source.into(),
        key: "workload.kind".into(),
        line: None,
        message: "only a perftest workload has perftest settings; expected kind = \"perftest\"".into(),
    })?;
    Ok(serde_json::to_string(&effective).unwrap_or_default())
}
