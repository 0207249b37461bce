//! Routing a built or imported fabric with the engines asked for by name (`rdmasim fabric …
//! --route ftree,dfsssp`), and the same fabric under several engines side by side
//! (`--compare-engines`): the static answer an operator wants before any simulation.
use super::{FabricError, FabricReport, Routing};
use crate::fabric::analysis::{effective_bisection_bandwidth, EbbOptions, EbbReport, FabricSummary, LinkLoads, PatternKind, Weighting};
use crate::fabric::routing::{self, Engine, RouteOptions, SubnetRouting};
use serde::Serialize;
use std::time::Instant;

/// `ftree`, `ftree,dfsssp` (per rail, in rail order), a fallback named after its engine.
pub fn subnets_name(subnets: &[SubnetRouting]) -> String {
    let mut names: Vec<String> = Vec::new();
    for s in subnets {
        let name = match &s.fallback {
            Some(f) => format!("{} (fell back to {})", s.asked, f.to),
            None => s.asked.to_string(),
        };
        if names.last() != Some(&name) {
            names.push(name);
        }
    }
    names.join(",")
}

impl FabricReport {
    /// Replaces the fabric's tables by the engines' (one for all rails, or one per rail);
    /// what was computed on the old tables is dropped.
    pub fn route_with(&mut self, engines: &[Engine], opts: &RouteOptions) -> Result<(), FabricError> {
        let subnets = self.reroute(self.fabric.graph.clone(), engines, opts)?;
        self.routing = Routing::Engines(subnets);
        Ok(())
    }

    /// Routes `graph` with `engines` and makes it the report's fabric, dropping what was
    /// computed on the old one; nothing changes when routing fails. The subnets say how.
    fn reroute(&mut self, graph: crate::fabric::graph::FabricGraph, engines: &[Engine], opts: &RouteOptions) -> Result<Vec<SubnetRouting>, FabricError> {
        let routed = routing::route(graph, engines, opts).map_err(|e| self.routing_error(engines, e.0))?;
        self.fabric = routed.fabric;
        self.summary = None;
        self.counts = None;
        Ok(routed.subnets)
    }

    /// Gives the fabric other LIDs, `"opensm"` (as OpenSM assigns them on a fabric without
    /// any: fabric/lid_assign.rs) or those of an OpenSM `guid2lid` file, and routes it again
    /// with the engines it had (tables made for the old LIDs mean nothing with the new).
    pub fn set_lids(&mut self, lids: &str) -> Result<(), FabricError> {
        let engines: Vec<Engine> = match &self.routing {
            Routing::DModK => vec![Engine::Dmodk],
            Routing::DimensionOrder => vec![Engine::Dor],
            Routing::Minhop => vec![Engine::Minhop],
            Routing::Engines(s) => s.iter().map(|x| x.asked).collect(),
            Routing::FromFile => {
                return Err(FabricError::Routing { engines: "from file".into(), message: "the forwarding tables read from the file are for the file's LIDs; expected no LFT file beside new LIDs (route with an engine instead)".into() })
            }
        };
        let mut g = self.fabric.graph.clone();
        if lids == "opensm" {
            g.clear_lids();
            crate::fabric::lid_assign::assign_lids_opensm(&mut g, &[]).map_err(|e| FabricError::Routing { engines: String::new(), message: e.0 })?;
        } else {
            let text = crate::fabric::io::read_text(std::path::Path::new(lids)).map_err(FabricError::Io)?;
            let entries = crate::fabric::io::guid2lid::read(&text, lids).map_err(FabricError::Io)?;
            crate::fabric::io::guid2lid::apply(&mut g, &entries, lids).map_err(FabricError::Io)?;
        }
        let subnets = self.reroute(g, &engines, &RouteOptions::default())?;
        if let Routing::Engines(s) = &mut self.routing {
            *s = subnets;
        }
        Ok(())
    }

    fn routing_error(&self, engines: &[Engine], message: String) -> FabricError {
        let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
        FabricError::Routing { engines: names.join(","), message }
    }

    /// The fabric under each engine list in turn (each a whole routing: one engine, or one
    /// per rail), side by side. An engine that cannot route the fabric gets its error in its
    /// row; the others go on.
    pub fn compare_engines(&self, choices: &[Vec<Engine>], opts: &RouteOptions, top: usize, ebb: Option<&EbbOptions>) -> Vec<EngineRow> {
        choices
            .iter()
            .map(|engines| {
                let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
                let name = names.join(",");
                let mut r = FabricReport::new(self.fabric.clone(), self.source.clone(), self.routing.clone());
                let start = Instant::now();
                match r.route_with(engines, opts) {
                    Err(e) => EngineRow { engine: name, routing: None, route_s: start.elapsed().as_secs_f64(), error: Some(e.to_string()), summary: None, loads: None, ebb: None },
                    Ok(()) => {
                        let route_s = start.elapsed().as_secs_f64();
                        let summary = r.summary().clone();
                        let loads = r.loads(top);
                        let routing = match &r.routing {
                            Routing::Engines(s) => Some(s.clone()),
                            _ => None,
                        };
                        let ebb = ebb.map(|o| effective_bisection_bandwidth(&r.fabric, o));
                        EngineRow { engine: name, routing, route_s, error: None, summary: Some(summary), loads: Some(loads), ebb }
                    }
                }
            })
            .collect()
    }
}

/// One engine (or engine list) in a comparison.
#[derive(Clone, Debug, Serialize)]
pub struct EngineRow {
    pub engine: String,
    /// Per subnet: asked, used, fallback.
    pub routing: Option<Vec<SubnetRouting>>,
    /// Wall time to route the fabric, seconds.
    pub route_s: f64,
    /// Why the engine could not route the fabric.
    pub error: Option<String>,
    pub summary: Option<FabricSummary>,
    pub loads: Option<LinkLoads>,
    pub ebb: Option<EbbReport>,
}

/// The first pattern kind's mean over the rails (weighted by endpoints), with its interval.
fn ebb_cell(e: &EbbReport) -> String {
    let (mut sum, mut ci, mut n) = (0.0, 0.0f64, 0usize);
    for r in &e.rails {
        if let Some(k) = r.kinds.first() {
            sum += k.mean * r.endpoints as f64;
            ci = ci.max(k.ci95);
            n += r.endpoints;
        }
    }
    if n == 0 {
        return "-".into();
    }
    format!("{:.3}±{:.3}", sum / n as f64, ci)
}

/// The comparison as a table: one line per engine.
pub fn comparison_text(rows: &[EngineRow]) -> String {
    let with_ebb = rows.iter().any(|r| r.ebb.is_some());
    let ebb_head = rows.iter().find_map(|r| r.ebb.as_ref()).and_then(|e| e.rails.first()).and_then(|r| r.kinds.first()).map_or("ebb".to_string(), |k| format!("ebb {}", k.pattern.label()));
    let ebb_col = |r: &EngineRow| if with_ebb { format!(" {:>16}", r.ebb.as_ref().map_or("-".to_string(), ebb_cell)) } else { String::new() };
    let mut out = format!("{:<24} {:>9} {:>11} {:>6} {:>11} {:>10} {:>10}{}  {}\n", "engine", "route s", "unroutable", "loops", "credit loop", "max/link", "mean/link", if with_ebb { format!(" {ebb_head:>16}") } else { String::new() }, "note");
    for r in rows {
        match (&r.summary, &r.loads) {
            (Some(s), Some(l)) => {
                let note = r.routing.as_deref().map(subnets_name).filter(|n| n.contains("fell back")).unwrap_or_default();
                let credit = s.credit_loops.credit_loop.as_ref().map_or("none".to_string(), |l| format!("VL {}", l.vl));
                out += &format!(
                    "{:<24} {:>9.3} {:>11} {:>6} {:>11} {:>10} {:>10.1}{}  {}\n",
                    r.engine,
                    r.route_s,
                    s.unroutable.pairs,
                    s.loops.count,
                    credit,
                    l.switch_links.max,
                    l.switch_links.mean,
                    ebb_col(r),
                    note
                );
            }
            _ => out += &format!("{:<24} {:>9.3} {:>11} {:>6} {:>11} {:>10} {:>10}{}  {}\n", r.engine, r.route_s, "-", "-", "-", "-", "-", ebb_col(r), r.error.as_deref().unwrap_or("")),
        }
    }
    out
}

/// What the CLI and Python ask for, as JSON: `{"engines": "ftree,dfsssp"}` to route, or
/// `{"compare": ["minhop", "updn", "ftree,dfsssp"]}` to compare; `roots` (names or GUIDs)
/// and `max_vls` for the engines that take them, `top` busiest links per engine.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteRequest {
    #[serde(default)]
    pub engines: Option<String>,
    #[serde(default)]
    pub compare: Vec<String>,
    #[serde(default)]
    pub roots: Vec<String>,
    #[serde(default)]
    pub max_vls: Option<u8>,
    #[serde(default)]
    pub top: Option<usize>,
    /// The effective bisection bandwidth of each engine's tables (fabric/analysis/ebb.rs);
    /// None: not computed.
    #[serde(default)]
    pub ebb: Option<EbbRequest>,
}

/// EBB options as the CLI and Python give them: pattern kinds in their command-line form
/// (`bisection`, `random-pair:1300`, `shift:16`: [`PatternKind::parse`]).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EbbRequest {
    #[serde(default = "default_patterns")]
    pub patterns: usize,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "default_kinds")]
    pub kinds: Vec<String>,
    #[serde(default)]
    pub weighting: Weighting,
}

fn default_patterns() -> usize {
    1000
}

fn default_kinds() -> Vec<String> {
    vec!["bisection".into()]
}

impl EbbRequest {
    pub fn options(&self) -> Result<EbbOptions, FabricError> {
        let bad = |message: String| FabricError::Routing { engines: String::new(), message };
        if self.patterns == 0 {
            return Err(bad("EBB patterns = 0: expected at least one pattern".into()));
        }
        let kinds = self.kinds.iter().map(|k| PatternKind::parse(k).map_err(bad)).collect::<Result<Vec<_>, _>>()?;
        Ok(EbbOptions { patterns: self.patterns, seed: self.seed, kinds, weighting: self.weighting })
    }
}

impl RouteRequest {
    pub fn from_json(json: &str) -> Result<RouteRequest, FabricError> {
        serde_json::from_str(json).map_err(|e| FabricError::Routing { engines: String::new(), message: format!("bad request: {e}") })
    }
    pub fn options(&self) -> RouteOptions {
        let mut o = RouteOptions { roots: self.roots.clone(), ..RouteOptions::default() };
        if let Some(v) = self.max_vls {
            o.max_vls = v;
        }
        o
    }
    fn engines_of(text: &str) -> Result<Vec<Engine>, FabricError> {
        Engine::parse_list(text).map_err(|e| FabricError::Routing { engines: text.to_string(), message: e.0 })
    }
}

impl FabricReport {
    /// [`route_with`](Self::route_with) from a JSON [`RouteRequest`].
    pub fn route_json(&mut self, request: &str) -> Result<(), FabricError> {
        let req = RouteRequest::from_json(request)?;
        let text = req.engines.clone().unwrap_or_default();
        let engines = RouteRequest::engines_of(&text)?;
        self.route_with(&engines, &req.options())
    }

    /// [`compare_engines`](Self::compare_engines) from a JSON [`RouteRequest`]: the rows as
    /// JSON, and as a table.
    pub fn compare_json(&self, request: &str) -> Result<(String, String), FabricError> {
        let req = RouteRequest::from_json(request)?;
        let choices = req.compare.iter().map(|c| RouteRequest::engines_of(c)).collect::<Result<Vec<_>, _>>()?;
        let ebb = req.ebb.as_ref().map(EbbRequest::options).transpose()?;
        let rows = self.compare_engines(&choices, &req.options(), req.top.unwrap_or(10), ebb.as_ref());
        Ok((serde_json::to_string(&rows).unwrap_or_default(), comparison_text(&rows)))
    }

    /// The effective bisection bandwidth of the fabric's tables for `options` (JSON
    /// [`EbbRequest`]): the report as JSON, and as text.
    pub fn ebb_json(&self, options: &str) -> Result<(String, String), FabricError> {
        let req: EbbRequest = serde_json::from_str(options).map_err(|e| FabricError::Routing { engines: String::new(), message: format!("bad EBB options: {e}") })?;
        let r = effective_bisection_bandwidth(&self.fabric, &req.options()?);
        Ok((serde_json::to_string(&r).unwrap_or_default(), r.to_string()))
    }

    /// How each subnet was routed, as JSON (empty when no engine was asked for by name).
    pub fn subnets_json(&self) -> String {
        match &self.routing {
            Routing::Engines(s) => serde_json::to_string(s).unwrap_or_default(),
            _ => "[]".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fabric_is_rerouted_by_name_and_engines_compare_side_by_side() {
        let mut r = FabricReport::build_json(r#"{"kind": "rails", "rails": 2, "of": {"kind": "fat-tree-k", "k": 4}}"#).unwrap();
        r.route_json(r#"{"engines": "dmodk,minhop-mod"}"#).unwrap();
        assert_eq!(r.routing.name(), "dmodk,minhop-mod");
        assert_eq!(r.summary().unroutable.pairs, 0);
        let (json, text) = r.compare_json(r#"{"compare": ["dmodk", "minhop-mod", "dmodk,dmodk,dmodk"], "top": 2}"#).unwrap();
        let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(rows.as_array().unwrap().len(), 3);
        // Both route along shortest paths (same mean routes per switch link); D-mod-K spreads
        // them (at most 14 on a link of a k = 4 fat tree), LID mod count less so (24).
        let stat = |i: usize, k: &str| rows[i]["loads"]["switch_links"][k].as_f64().unwrap();
        assert_eq!((stat(0, "max"), stat(1, "max")), (14.0, 24.0), "{text}");
        assert_eq!(stat(0, "mean"), stat(1, "mean"));
        assert!(rows[2]["error"].as_str().unwrap().contains("3 routing engines"), "{text}");
        assert!(text.contains("minhop-mod") && text.lines().count() == 4, "{text}");
        let e = r.route_json(r#"{"engines": "lash"}"#).unwrap_err().to_string();
        assert!(e.starts_with("routing lash: unknown routing engine"), "{e}");
    }

    #[test]
    fn the_comparison_carries_each_engines_ebb_and_bad_patterns_are_named() {
        let r = FabricReport::build_json(r#"{"kind": "single-switch", "hosts": 8}"#).unwrap();
        let (json, text) = r.compare_json(r#"{"compare": ["dmodk"], "ebb": {"patterns": 20, "kinds": ["bisection", "shift:3"]}}"#).unwrap();
        let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
        let kinds = &rows[0]["ebb"]["rails"][0]["kinds"];
        assert_eq!((kinds[0]["mean"].as_f64(), kinds[1]["mean"].as_f64()), (Some(1.0), Some(1.0)), "a crossbar: {text}");
        assert!(text.contains("ebb bisection") && text.contains("1.000±0.000"), "{text}");
        let e = r.ebb_json(r#"{"kinds": ["shift"]}"#).unwrap_err().to_string();
        assert!(e.contains("expected shift:N"), "{e}");
        let e = r.ebb_json(r#"{"kinds": ["ring"]}"#).unwrap_err().to_string();
        assert!(e.contains("unknown pattern \"ring\""), "{e}");
    }

    #[test]
    fn new_lids_route_the_fabric_again_with_its_engines() {
        let mut r = FabricReport::build_json(r#"{"kind": "fat-tree-k", "k": 4}"#).unwrap();
        let mut want = r.fabric.graph.clone();
        want.clear_lids();
        crate::fabric::lid_assign::assign_lids_opensm(&mut want, &[]).unwrap();
        r.set_lids("opensm").unwrap();
        assert_eq!(r.fabric.graph.lids(), want.lids());
        assert_ne!(r.fabric.graph.lids(), FabricReport::build_json(r#"{"kind": "fat-tree-k", "k": 4}"#).unwrap().fabric.graph.lids(), "OpenSM numbers switches first here");
        assert_eq!((r.routing.name(), r.summary().unroutable.pairs), ("d-mod-k".to_string(), 0));
        r.route_json(r#"{"engines": "minhop"}"#).unwrap();
        r.set_lids("opensm").unwrap();
        assert_eq!((r.routing.name(), r.summary().unroutable.pairs), ("minhop".to_string(), 0));
        let before = r.fabric.graph.lids();
        let e = r.set_lids("/no/such/guid2lid").unwrap_err().to_string();
        assert!(e.starts_with("/no/such/guid2lid: cannot read"), "{e}");
        assert_eq!(r.fabric.graph.lids(), before, "a failed change leaves the fabric as it was");
    }
}
