//! What `rdmasim fabric` and `rdmasim.Fabric` ask of a fabric, without simulating: build one
//! from a generator spec or import the operators' files, route it as a scenario would, and
//! answer in JSON (summary, link loads, node / link / route tables) or in the real tools'
//! formats (ibsim `net`, `opensm-lfts.dump`, Graphviz dot).
//!
//! The binding calls these one at a time with the GIL released, so that Python can show a
//! progress bar between the steps of a large fabric; the all-pairs walk is the long step, so
//! its counts are kept and serve both the loads and the links table.
pub mod engines;
pub mod tables;

use crate::fabric::analysis::{count_routes, loads_from_counts, summarize, Components, FabricSummary, RouteCounts};
use crate::fabric::build::GeneratorSpec;
use crate::fabric::generate::generate;
use crate::fabric::graph::{GraphError, RoutedFabric};
use crate::fabric::routing::SubnetRouting;
use crate::fabric::io::notes::Notes;
use crate::fabric::io::{self, ImportOptions, IoError};
use std::fmt;
use std::path::Path;

/// Why a fabric could not be built or imported.
#[derive(Clone, Debug, PartialEq)]
pub enum FabricError {
    /// A file that could not be read: its name, the line, what was expected.
    Io(IoError),
    /// A generator spec that does not describe a fabric: the kind (when known) and the message
    /// naming the parameter, e.g. `k = 3: expected an even k >= 2`.
    Generator { kind: Option<String>, message: String },
    /// An engine that cannot route this fabric (`dor` on a fat tree, roots that do not exist).
    Routing { engines: String, message: String },
}

impl fmt::Display for FabricError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FabricError::Io(e) => e.fmt(f),
            FabricError::Generator { kind: Some(k), message } => write!(f, "generator {k}: {message}"),
            FabricError::Generator { kind: None, message } => write!(f, "generator: {message}"),
            FabricError::Routing { engines, message } => write!(f, "routing {engines}: {message}"),
        }
    }
}

impl std::error::Error for FabricError {}

/// How the fabric's forwarding tables were made.
#[derive(Clone, Debug, PartialEq)]
pub enum Routing {
    /// The generator's default engine (d-mod-k on trees).
    DModK,
    /// Dimension order, on the hyper-crossbar.
    DimensionOrder,
    /// Read from an LFT file (`opensm-lfts.dump`, ibroute).
    FromFile,
    /// An imported topology without LFTs: OpenSM's minhop, as a scenario routes it.
    Minhop,
    /// Routing engines asked for by name (`--route`), per subnet.
    Engines(Vec<SubnetRouting>),
}

impl Routing {
    /// `d-mod-k`, `from file`, or the engines per rail (`ftree,dfsssp`), with a fallback
    /// named (`ftree (fell back to minhop)`).
    pub fn name(&self) -> String {
        match self {
            Routing::DModK => "d-mod-k".into(),
            Routing::DimensionOrder => "dimension order".into(),
            Routing::FromFile => "from file".into(),
            Routing::Minhop => "minhop".into(),
            Routing::Engines(subnets) => engines::subnets_name(subnets),
        }
    }
}

/// A routed fabric and what has been computed on it so far.
pub struct FabricReport {
    pub fabric: RoutedFabric,
    /// The generator kind or the topology file, for messages.
    pub source: String,
    pub routing: Routing,
    /// What the import set aside or assumed (empty for a generated fabric).
    pub notes: Notes,
    summary: Option<FabricSummary>,
    counts: Option<(Components, RouteCounts)>,
}

impl FabricReport {
    fn new(fabric: RoutedFabric, source: String, routing: Routing) -> FabricReport {
        FabricReport { fabric, source, routing, notes: Notes::default(), summary: None, counts: None }
    }

    /// Builds and routes a generated fabric from its spec as JSON: `{"kind": "fat-tree-k",
    /// "k": 16, "speed": {"gen": "edr", "width": 4}}` (the fields of a scenario's
    /// `[topology] generator`).
    pub fn build_json(spec_json: &str) -> Result<FabricReport, FabricError> {
        let spec = spec_from_json(spec_json)?;
        Self::build(&spec).map_err(|e| FabricError::Generator { kind: Some(spec.kind_name().to_string()), message: e.0 })
    }

    pub fn build(spec: &GeneratorSpec) -> Result<FabricReport, GraphError> {
        let routing = if matches!(spec, GeneratorSpec::Hyperx(_)) { Routing::DimensionOrder } else { Routing::DModK };
        Ok(FabricReport::new(generate(spec)?, spec.kind_name().to_string(), routing))
    }

    /// Imports a topology file and, if given, its forwarding tables (a file or a directory of
    /// ibroute files); without them the fabric is routed by minhop, as a scenario would be.
    /// HCA ports the file gives no LID get one, after the file's own.
    pub fn import(topology: &Path, lfts: Option<&Path>, opts: &ImportOptions) -> Result<FabricReport, FabricError> {
        let (fabric, from_file, notes) = io::import_routed(topology, lfts, opts).map_err(FabricError::Io)?;
        let routing = if from_file { Routing::FromFile } else { Routing::Minhop };
        let mut report = FabricReport::new(fabric, topology.display().to_string(), routing);
        report.notes = notes;
        Ok(report)
    }

    /// Counts, link speeds, degraded and down links, unroutable pairs and loops (computed once).
    pub fn summary(&mut self) -> &FabricSummary {
        let notes = &self.notes;
        self.summary.get_or_insert_with(|| FabricSummary { warnings: notes.items.clone(), ..summarize(&self.fabric) })
    }

    /// Routes per directed link for all-to-all traffic: the walk of every destination, made
    /// once for the loads and the links table.
    pub fn route_counts(&mut self) -> &(Components, RouteCounts) {
        let rf = &self.fabric;
        self.counts.get_or_insert_with(|| {
            let comps = Components::of(&rf.graph);
            let counts = count_routes(rf, &comps);
            (comps, counts)
        })
    }

    pub fn loads(&mut self, top: usize) -> crate::fabric::analysis::LinkLoads {
        self.route_counts();
        let (comps, counts) = self.counts.as_ref().expect("counted above");
        loads_from_counts(&self.fabric, comps, counts, top)
    }

    pub fn summary_json(&mut self) -> String {
        serde_json::to_string(self.summary()).unwrap_or_default()
    }

    pub fn summary_text(&mut self) -> String {
        self.summary().to_string()
    }

    pub fn loads_json(&mut self, top: usize) -> String {
        serde_json::to_string(&self.loads(top)).unwrap_or_default()
    }

    pub fn loads_text(&mut self, top: usize) -> String {
        self.loads(top).to_string()
    }

    /// The node table as JSON columns (tables.rs).
    pub fn nodes_json(&self) -> String {
        serde_json::to_string(&tables::nodes(&self.fabric.graph)).unwrap_or_default()
    }

    /// The link table as JSON columns, with the routes over each direction (tables.rs).
    pub fn links_json(&mut self) -> String {
        self.route_counts();
        let counts = &self.counts.as_ref().expect("counted above").1;
        serde_json::to_string(&tables::links(&self.fabric.graph, counts)).unwrap_or_default()
    }

    /// Every LFT entry as JSON columns (tables.rs); switches × LIDs rows, so only on request.
    pub fn routes_json(&self) -> String {
        serde_json::to_string(&tables::routes(&self.fabric)).unwrap_or_default()
    }

    /// The topology as an ibsim `net` file.
    pub fn net_text(&self) -> Result<String, FabricError> {
        io::ibsim_net::write(&self.fabric.graph).map_err(FabricError::Io)
    }

    /// The forwarding tables as OpenSM's `opensm-lfts.dump`.
    pub fn lfts_text(&self) -> String {
        io::lfts_dump::write(&self.fabric.graph, &self.fabric.lfts)
    }

    pub fn dot_text(&self) -> String {
        io::dot::write(&self.fabric.graph)
    }
}

/// Reads a generator spec, naming the parameter a bad value was given to. A `kind`-tagged enum
/// reads its fields through serde's buffer, which loses the path ("invalid type: string, expected
/// u16" without saying `k`), so each known kind is read as its own struct with the path kept;
/// anything else goes through the enum for its message (unknown or missing kind).
pub(crate) fn spec_from_json(spec_json: &str) -> Result<GeneratorSpec, FabricError> {
    use crate::fabric::build::*;
    let err = |kind: Option<&str>, message: String| FabricError::Generator { kind: kind.map(str::to_string), message };
    let mut value: serde_json::Value = serde_json::from_str(spec_json).map_err(|e| err(None, strip_position(&e.to_string())))?;
    let kind = value.get("kind").and_then(|k| k.as_str()).map(str::to_string);
    if let (Some(fields), Some(kind)) = (value.as_object_mut(), kind.as_deref()) {
        let mut params = fields.clone();
        params.remove("kind");
        let params = serde_json::Value::Object(params);
        let spec = match kind {
            "back-to-back" => typed(params).map(GeneratorSpec::BackToBack),
            "single-switch" => typed(params).map(GeneratorSpec::SingleSwitch),
            "xgft" => typed(params).map(GeneratorSpec::Xgft),
            "k-ary-n-tree" => typed(params).map(GeneratorSpec::KAryNTree),
            "fat-tree-k" => typed(params).map(GeneratorSpec::FatTreeK),
            "director" => typed(params).map(GeneratorSpec::Director),
            "rails" => typed::<Rails>(params).map(GeneratorSpec::Rails),
            "tsubame2" => typed(params).map(GeneratorSpec::Tsubame2),
            "hyperx" => typed(params).map(GeneratorSpec::Hyperx),
            _ => serde_json::from_value(value).map_err(|e| format!("kind: {}", strip_position(&e.to_string()))),
        };
        return spec.map_err(|m| err(Some(kind), m));
    }
    serde_json::from_value(value).map_err(|e| err(kind.as_deref(), strip_position(&e.to_string())))
}

fn typed<T: serde::de::DeserializeOwned>(params: serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize(params).map_err(|e| {
        let path = e.path().to_string();
        let inner = strip_position(&e.into_inner().to_string());
        if path == "." || path.is_empty() {
            inner
        } else {
            format!("{path}: {inner}")
        }
    })
}

/// serde_json ends its messages with " at line 1 column 42", meaningless for parameters that
/// were given on a command line or as Python keywords.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_fat_tree_answers_every_question() {
        let mut r = FabricReport::build_json(r#"{"kind": "fat-tree-k", "k": 4}"#).unwrap();
        let s = r.summary();
        assert_eq!((s.hosts, s.switches, s.links, s.unroutable.pairs), (16, 20, 48, 0));
        let loads = r.loads(3);
        assert_eq!((loads.pairs, loads.routed_pairs, loads.busiest.len()), (240, 240, 3));
        let links: serde_json::Value = serde_json::from_str(&r.links_json()).unwrap();
        assert_eq!(links["a"].as_array().unwrap().len(), 48);
        let routes: serde_json::Value = serde_json::from_str(&r.routes_json()).unwrap();
        assert_eq!(routes["switch"].as_array().unwrap().len(), routes["lid"].as_array().unwrap().len());
        assert!(r.net_text().unwrap().contains("Switch"));
    }

    #[test]
    fn bad_generator_specs_name_the_kind_and_parameter() {
        let e = |j: &str| FabricReport::build_json(j).err().unwrap().to_string();
        assert!(e(r#"{"kind": "fat-tree-k", "k": 3}"#).starts_with("generator fat-tree-k: k = 3"), "{}", e(r#"{"kind": "fat-tree-k", "k": 3}"#));
        assert!(e(r#"{"kind": "fat-tree-k", "kk": 4}"#).contains("unknown field `kk`"));
        assert!(e(r#"{"kind": "no-such"}"#).contains("unknown variant `no-such`"));
        assert_eq!(e(r#"{"kind": "fat-tree-k", "k": "x"}"#), "generator fat-tree-k: k: invalid type: string \"x\", expected u16");
        assert!(e(r#"{"kind": "rails", "of": {"kind": "fat-tree-k", "k": 3}}"#).contains("k = 3"));
        assert!(e(r#"{"kind": "fat-tree-k"}"#).contains("missing field `k`"));
    }
}
