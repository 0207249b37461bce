//! The simulation: builds the world from a scenario and runs the event loop. (stub; being written)
use crate::scenario::{validate, Scenario, ScenarioError};
use serde::Serialize;
use std::collections::BTreeMap;

pub type Row = serde_json::Map<String, serde_json::Value>;

#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub name: Option<String>,
    pub seed: u64,
    pub profile: String,
    pub finished: bool,
    pub stop_reason: String,
    pub sim_time_us: f64,
    pub events: u64,
    pub tables: BTreeMap<String, Vec<Row>>,
}

pub struct Simulation {
    scenario: Scenario,
}

impl Simulation {
    pub fn from_toml(text: &str, source: &str) -> Result<Simulation, ScenarioError> {
        Self::from_scenario(validate::parse_toml(text, source)?, source)
    }
    pub fn from_scenario(scenario: Scenario, source: &str) -> Result<Simulation, ScenarioError> {
        validate::check(&scenario, source)?;
        Ok(Simulation { scenario })
    }
    /// Runs at most `max_events` events; returns true when the run is over.
    pub fn step(&mut self, _max_events: u64) -> bool {
        true
    }
    /// Fraction of the workload done, 0..=1.
    pub fn progress(&self) -> f64 {
        1.0
    }
    pub fn result(&self) -> RunResult {
        RunResult {
            name: self.scenario.name.clone(),
            seed: self.scenario.seed,
            profile: self.scenario.hardware.profile.clone(),
            finished: true,
            stop_reason: "completed".into(),
            sim_time_us: 0.0,
            events: 0,
            tables: BTreeMap::new(),
        }
    }
    pub fn result_json(&self) -> String {
        serde_json::to_string(&self.result()).unwrap_or_default()
    }
    /// The RoCEv2 pcap capture, when the scenario asked for one.
    pub fn pcap(&self) -> Option<Vec<u8>> {
        None
    }
}
