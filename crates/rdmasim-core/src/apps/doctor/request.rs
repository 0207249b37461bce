//! `rdmasim doctor` as one call: the files named in a JSON request are read (the topology or a
//! generator's design, iblinkinfo, one or two counter snapshots and the seconds between them),
//! diagnosed, and each suspect costed on the workload; the answer is JSON and a table. Errors
//! name the file and line, or the request field.
use super::cost::{cost, CostOptions, CostReport};
use super::port_errors::{rank, PortErrorReport};
use super::snapshot::read_records;
use super::{cost_table, diagnose_observed, CounterSnapshot, Observations, Report, Thresholds};
use crate::fabric::generate::generate;
use crate::fabric::io::notes::Notes;
use crate::fabric::io::{self, iblinkinfo, IoError};
use crate::apps::fabric_report::{spec_from_json, FabricError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const UNCABLED_COUNTS: &str = "ports with counts but no cable in the topology, not judged (--counters alone, with --no-cost, ranks them)";

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoctorRequest {
    /// The fabric as discovered (ibnetdiscover, or any topology format `rdmasim fabric` reads).
    pub topology: Option<PathBuf>,
    /// Or the fabric as designed, a generator spec (`{"kind": "k-ary-n-tree", ...}`): what each
    /// port supports, which a discovered one-port HCA cannot say.
    pub design: Option<serde_json::Value>,
    /// iblinkinfo's output (either layout).
    pub linkinfo: Option<PathBuf>,
    /// One or two counter snapshots (perfquery or ibqueryerrors), earlier first.
    #[serde(default)]
    pub counters: Vec<PathBuf>,
    /// Seconds between the two snapshots (the tools print no time).
    pub interval_s: Option<f64>,
    #[serde(default)]
    pub trust_could_be: bool,
    /// No cost simulation: the diagnosis alone.
    #[serde(default)]
    pub no_cost: bool,
    #[serde(default)]
    pub cost: CostOptions,
}

#[derive(Clone, Debug, Serialize)]
pub struct DoctorOutcome {
    /// With a topology or a design: the suspect links.
    pub diagnosis: Option<Report>,
    /// Without one: the ports the counters name, ranked (port_errors.rs).
    pub ports: Option<PortErrorReport>,
    pub cost: Option<CostReport>,
    /// What the readers set aside or assumed, per file.
    pub warnings: Vec<crate::fabric::io::notes::Note>,
}

fn read(path: &Path) -> Result<String, FabricError> {
    crate::fabric::io::read_text(path).map_err(FabricError::Io)
}

fn bad_request(message: String) -> FabricError {
    FabricError::Io(IoError::whole("request", message))
}

/// Reads, diagnoses and costs what `req` names.
pub fn run(req: &DoctorRequest) -> Result<DoctorOutcome, FabricError> {
    let mut notes = Notes::default();
    if req.topology.is_none() && req.design.is_none() && !req.counters.is_empty() {
        return counters_only(req, notes);
    }
    let graph = match (&req.topology, &req.design) {
        (Some(t), None) => io::read_topology(&read(t)?, &t.display().to_string(), &Default::default(), &mut notes).map_err(FabricError::Io)?,
        (None, Some(d)) => {
            let spec = spec_from_json(&d.to_string())?;
            generate(&spec).map_err(|e| FabricError::Generator { kind: Some(spec.kind_name().to_string()), message: e.0 })?.graph
        }
        _ => return Err(bad_request("expected one of topology (the fabric as discovered) or design (a generator spec)".into())),
    };
    let links = match &req.linkinfo {
        Some(p) => {
            let name = p.display().to_string();
            Some((iblinkinfo::read(&read(p)?, &name, &mut notes).map_err(FabricError::Io)?, name))
        }
        None => None,
    };
    let snapshots = match (req.counters.as_slice(), req.interval_s) {
        ([], _) | ([_], _) => req.counters.iter().map(|p| (p, 0.0)).collect::<Vec<_>>(),
        ([b, a], Some(dt)) if dt.is_finite() && dt > 0.0 => vec![(b, 0.0), (a, dt)],
        ([_, _], dt) => return Err(bad_request(format!("interval {dt:?}: expected the seconds between the two counter snapshots, a positive number"))),
        _ => return Err(bad_request(format!("{} counter snapshots: expected one or two (earlier first)", req.counters.len()))),
    };
    let snapshots = snapshots
        .into_iter()
        .map(|(p, at)| CounterSnapshot::read(&graph, &read(p)?, &p.display().to_string(), at, &mut notes).map_err(FabricError::Io))
        .collect::<Result<Vec<_>, _>>()?;
    // Counts on a port the topology shows no cable on: no link to judge them by (an excerpt,
    // a port cabled since), so said rather than dropped.
    for snap in &snapshots {
        for (&p, c) in &snap.ports {
            if graph.ports[p].link.is_none() && c.values.values().any(|&v| v > 0) {
                notes.add(&snap.source, UNCABLED_COUNTS, None);
            }
        }
    }
    let (before, after) = match snapshots.as_slice() {
        [b, a] => (Some(b), Some(a)),
        [a] => (None, Some(a)),
        _ => (None, None),
    };
    let obs = Observations { graph: &graph, links: links.as_ref().map(|(p, n)| (p.as_slice(), n.as_str())), before, after, trust_could_be: req.trust_could_be };
    let (diagnosis, observed) = diagnose_observed(&obs, &Thresholds::default()).map_err(FabricError::Io)?;
    let cost = if req.no_cost { None } else { Some(cost(&observed, &diagnosis, &req.cost)?) };
    Ok(DoctorOutcome { diagnosis: Some(diagnosis), ports: None, cost, warnings: notes.items })
}

/// Counter snapshots alone: the ports ranked by their errors (port_errors.rs).
fn counters_only(req: &DoctorRequest, mut notes: Notes) -> Result<DoctorOutcome, FabricError> {
    if !req.no_cost {
        return Err(bad_request("a cost needs the fabric: expected topology (or design), or no_cost (--no-cost) to rank the counters' ports alone".into()));
    }
    if req.linkinfo.is_some() {
        return Err(bad_request("linkinfo without topology: give the iblinkinfo file as the topology (--topology), which it describes".into()));
    }
    let mut files = Vec::new();
    for p in &req.counters {
        let name = p.display().to_string();
        let (records, _) = read_records(&read(p)?, &name, &mut notes).map_err(FabricError::Io)?;
        files.push((records, name));
    }
    let ports = match (files.as_slice(), req.interval_s) {
        ([after], _) => rank(None, (&after.0, &after.1), None),
        ([before, after], Some(dt)) if dt.is_finite() && dt > 0.0 => rank(Some((&before.0, &before.1)), (&after.0, &after.1), Some(dt)),
        ([_, _], dt) => return Err(bad_request(format!("interval {dt:?}: expected the seconds between the two counter snapshots, a positive number"))),
        _ => return Err(bad_request(format!("{} counter snapshots: expected one or two (earlier first)", req.counters.len()))),
    };
    Ok(DoctorOutcome { diagnosis: None, ports: Some(ports), cost: None, warnings: notes.items })
}

/// The request as JSON in, (the outcome as JSON, the table) out: what the binding calls.
pub fn run_json(request_json: &str) -> Result<(String, String), FabricError> {
    let req: DoctorRequest = serde_json::from_str(request_json).map_err(|e| bad_request(e.to_string()))?;
    let out = run(&req)?;
    let mut table: String = out.warnings.iter().map(|w| format!("warning: {w}\n")).collect();
    table.push_str(&match (&out.diagnosis, &out.cost, &out.ports) {
        (Some(d), Some(c), _) => cost_table::table(d, c),
        (Some(d), None, _) => d.table(),
        (None, _, Some(p)) => p.table(),
        (None, _, None) => String::new(),
    });
    Ok((serde_json::to_string(&out).unwrap_or_default(), table))
}
