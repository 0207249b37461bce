//! Hosts named in a scenario by name or GUID instead of index, on a fabric read from a file
//! or generated: `client = "node017"`, `server = "0x0002c903000a0b0c"` (an HCA's node GUID,
//! or the GUID a host with a default description is named by). An operator knows their
//! machines by name; the index is the importer's order.
//!
//! The names are resolved before the scenario is read: the fabric is built from `[topology]`,
//! and each name in the text is replaced by its host's index on its own line, so every later
//! message keeps its line numbers. The keys that name hosts: `client` and `server` of the
//! workload, of each `[[workload.flow]]` and of `[workload.kv]`.
use super::resolve::import_fabric;
use crate::scenario::TopologySection;
use crate::fabric::graph::FabricGraph;
use std::borrow::Cow;

/// A host reference by name: where (the key's path), which key, what name.
struct Named {
    path: String,
    key: &'static str,
    name: String,
}

fn collect(table: &toml::Table, prefix: &str, out: &mut Vec<Named>) {
    for key in ["client", "server"] {
        if let Some(toml::Value::String(name)) = table.get(key) {
            out.push(Named { path: format!("{prefix}.{key}"), key, name: name.clone() });
        }
    }
}

/// The hosts a scenario names, in the text order of their keys.
fn named_hosts(doc: &toml::Table) -> Vec<Named> {
    let mut out = Vec::new();
    let Some(toml::Value::Table(w)) = doc.get("workload") else { return out };
    collect(w, "workload", &mut out);
    if let Some(toml::Value::Table(kv)) = w.get("kv") {
        collect(kv, "workload.kv", &mut out);
    }
    if let Some(toml::Value::Array(flows)) = w.get("flow") {
        for (i, f) in flows.iter().enumerate() {
            if let toml::Value::Table(f) = f {
                collect(f, &format!("workload.flow[{i}]"), &mut out);
            }
        }
    }
    out
}

/// The index of the host `name` names: a host's name, or the node GUID of one of its HCAs.
fn host_index(g: &FabricGraph, name: &str) -> Option<usize> {
    if let Some(h) = g.hosts.iter().position(|h| h.name == name) {
        return Some(h);
    }
    let guid = crate::fabric::io::text::parse_hex(name.strip_prefix("0x").or_else(|| name.strip_prefix("0X"))?)?;
    g.hosts.iter().position(|h| h.hcas.iter().any(|&n| g.nodes[n].guid == guid))
}

/// `text` with every host named by name or GUID replaced by its index; `text` itself when
/// none is. Errors: (key, message).
pub fn resolve<'t>(text: &'t str, source: &str) -> Result<Cow<'t, str>, (String, String)> {
    let Ok(doc) = toml::from_str::<toml::Table>(text) else { return Ok(Cow::Borrowed(text)) };
    let named = named_hosts(&doc);
    let Some(first) = named.first() else { return Ok(Cow::Borrowed(text)) };
    let topology: Option<TopologySection> = match doc.get("topology").cloned().map(|t| t.try_into()) {
        // A [topology] that does not read: the scenario's own parse names the bad key.
        Some(Err(_)) => return Ok(Cow::Borrowed(text)),
        Some(Ok(t)) => Some(t),
        None => None,
    };
    let graph = match topology {
        Some(TopologySection { generator: Some(spec), .. }) => crate::fabric::generate::generate(&spec).map_err(|e| ("topology.generator".to_string(), e.0))?.graph,
        Some(TopologySection { file: Some(file), lfts, cable_m, .. }) => import_fabric(&file, lfts.as_deref(), source, cable_m)?.0.graph,
        _ => return Err((first.path.clone(), format!("{:?} names a host, which only a fabric from topology.file or topology.generator has; expected a host index", first.name))),
    };
    // (where the quoted name starts, its length, the index), each place used once.
    let mut edits: Vec<(usize, usize, usize)> = Vec::new();
    for n in &named {
        let Some(h) = host_index(&graph, &n.name) else {
            let some: Vec<&str> = graph.hosts.iter().take(4).map(|h| h.name.as_str()).collect();
            return Err((n.path.clone(), format!("{:?}: no host of that name or HCA GUID in the fabric ({} hosts, e.g. {}); expected a host's name, an HCA's node GUID or an index", n.name, graph.hosts.len(), some.join(", "))));
        };
        // The key, an '=', then the quoted name: replaced by the index in place.
        let quoted = format!("\"{}\"", n.name);
        let mut found = None;
        let mut from = 0;
        while let Some(k) = text[from..].find(n.key) {
            // Not inside a comment: no '#' between the line's start and the key.
            let line_start = text[..from + k].rfind('\n').map_or(0, |i| i + 1);
            if text[line_start..from + k].contains('#') {
                from += k + n.key.len();
                continue;
            }
            let after = text[from + k + n.key.len()..].trim_start_matches([' ', '\t']);
            if let Some(v) = after.strip_prefix('=').map(|a| a.trim_start_matches([' ', '\t'])) {
                let at = text.len() - v.len();
                if v.starts_with(&quoted) && !edits.iter().any(|e| e.0 == at) {
                    found = Some(at);
                    break;
                }
            }
            from += k + n.key.len();
        }
        let Some(at) = found else {
            return Err((n.path.clone(), format!("{:?}: expected the name as a plain \"quoted\" string", n.name)));
        };
        edits.push((at, quoted.len(), h));
    }
    edits.sort();
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for (at, len, h) in edits {
        out.push_str(&text[done..at]);
        out.push_str(&h.to_string());
        done = at + len;
    }
    let rest = &text[done..];
    out.push_str(rest);
    Ok(Cow::Owned(out))
}
