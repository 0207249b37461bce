//! Running PM scenarios (`engine = "pm"`) in tests.
use rdmasim_core::run::Engine as _;
use rdmasim_core::ether::run::PmRun;
use serde_json::{Map, Value};

pub fn pm_run(toml: &str) -> PmRun {
    let mut r = PmRun::from_toml(toml, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    r.run();
    r
}

/// The run's `pm_summary` row, after checking that its workload completed.
pub fn pm_summary(r: &PmRun) -> Map<String, Value> {
    pm_tables(r)["pm_summary"][0].clone()
}

pub fn f(row: &Map<String, Value>, key: &str) -> f64 {
    row[key].as_f64().unwrap_or_else(|| panic!("{key} is not a number: {:?}", row[key]))
}

/// Every table of the run, after checking that its workload completed.
pub fn pm_tables(r: &PmRun) -> std::collections::BTreeMap<String, Vec<Map<String, Value>>> {
    let res = r.result();
    assert!(res.finished, "the run stopped early: {}", res.stop_reason);
    res.tables.iter().map(|(name, t)| (name.clone(), t.to_rows())).collect()
}
