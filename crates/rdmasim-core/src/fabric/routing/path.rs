//! Following the forwarding tables: the switches a packet crosses from an HCA port to a LID.
//! For tests, the static analysis and the flow engine.
use crate::fabric::graph::{FabricGraph, GraphError, Lfts};
use crate::ids::{NodeId, PortId};

/// The switches crossed from HCA port `from` to `dst_lid`, in order (empty when `from` is
/// cabled straight to it). An error names the switch with no route, a down link, or a loop.
pub fn trace(g: &FabricGraph, lfts: &Lfts, from: PortId, dst_lid: u16) -> Result<Vec<NodeId>, GraphError> {
    let mut out = from;
    let mut crossed = Vec::new();
    loop {
        let Some(inp) = g.peer_up(out) else {
            return Err(GraphError(format!("to LID {dst_lid}: {} has no link up", g.port_name(out))));
        };
        let node = g.ports[inp].node;
        if !g.nodes[node].is_switch() {
            if g.ports[inp].lid == dst_lid {
                return Ok(crossed);
            }
            return Err(GraphError(format!("to LID {dst_lid}: arrived at {} (LID {})", g.port_name(inp), g.ports[inp].lid)));
        }
        crossed.push(node);
        if g.nodes[node].lid == dst_lid {
            return Ok(crossed);
        }
        if crossed.len() > g.nodes.len() {
            return Err(GraphError(format!("to LID {dst_lid}: a loop through {:?}", g.nodes[node].name)));
        }
        let port = lfts.route(node, dst_lid).ok_or_else(|| GraphError(format!("to LID {dst_lid}: {:?} has no route", g.nodes[node].name)))?;
        out = g.port_of(node, port.into())?;
    }
}
