//! Root switches named by the user (`--roots`, `[topology] roots`, OpenSM's `-a
//! root_guid_file`): by node name or by GUID (`0x…`). One list serves every rail of a
//! multi-rail fabric, so within one rail's subnet a name that is not there is skipped, as
//! OpenSM skips a root GUID it did not discover; but every name must be a switch somewhere in
//! the fabric ([`check_exist`]), so a typo is an error, not a silent fallback.
use crate::fabric::graph::{FabricGraph, GraphError};
use crate::ids::NodeId;

/// The node `name` names in `g`, if any; an error for a GUID that does not parse.
fn find(g: &FabricGraph, name: &str, engine: &str) -> Result<Option<NodeId>, GraphError> {
    match name.strip_prefix("0x").or_else(|| name.strip_prefix("0X")) {
        Some(hex) => {
            let guid = u64::from_str_radix(hex, 16).map_err(|e| GraphError(format!("{engine} root {name:?}: not a GUID ({e})")))?;
            Ok(g.nodes.iter_enumerated().find(|(_, n)| n.guid == guid).map(|(id, _)| id))
        }
        None => Ok(g.nodes.iter_enumerated().find(|(_, n)| n.name == name).map(|(id, _)| id)),
    }
}

/// The switches of `g` that `names` name, in the order given, each once; names not in `g`
/// skipped; a name of an HCA is an error.
pub fn switches_named(g: &FabricGraph, names: &[String], engine: &str) -> Result<Vec<NodeId>, GraphError> {
    let mut roots = Vec::new();
    for name in names {
        let name = name.trim();
        let Some(id) = find(g, name, engine)? else { continue };
        if !g.nodes[id].is_switch() {
            return Err(GraphError(format!("{engine} root {name:?} is not a switch (it is the CA {:?})", g.nodes[id].name)));
        }
        if !roots.contains(&id) {
            roots.push(id);
        }
    }
    Ok(roots)
}

/// An error naming the first of `names` that is no switch of the whole fabric `g`.
pub fn check_exist(g: &FabricGraph, names: &[String], engine: &str) -> Result<(), GraphError> {
    for name in names {
        let name = name.trim();
        match find(g, name, engine)? {
            Some(id) if g.nodes[id].is_switch() => {}
            Some(id) => return Err(GraphError(format!("{engine} root {name:?} is not a switch (it is the CA {:?})", g.nodes[id].name))),
            None => return Err(GraphError(format!("{engine} root {name:?}: no switch of the fabric has that name or GUID (expected a switch name or 0x GUID)"))),
        }
    }
    Ok(())
}
