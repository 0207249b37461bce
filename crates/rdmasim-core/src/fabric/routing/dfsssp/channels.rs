//! Channels and the paths that use them, as dfsssp's dependency graph counts them. A channel
//! is one direction of a switch-to-switch cable, named by the sending port; a path is the
//! channels from the source's switch to the destination's, followed through the tables. The
//! HCA's first and last cables are left out (a source or a sink of the dependency graph can
//! be on no cycle), and so is every path sent by a switch's own port: OpenSM looks for the
//! first switch behind the source port, and a switch's port 0 has no cable, so those paths
//! add no dependency.
use super::super::sssp::network::{Network, Target};
use crate::fabric::graph::{FabricGraph, GraphError, Lfts, NO_ROUTE};
use crate::ids::{PortId, TiVec};

pub const NO_CHANNEL: u32 = u32::MAX;

pub struct Channels {
    /// Channel of each port that sends to a switch over a cable that is up.
    pub of_port: TiVec<PortId, u32>,
    pub port: Vec<PortId>,
    /// The port number each channel leaves its switch by.
    pub port_num: Vec<u8>,
    /// OpenSM's channel id: (switch LID, port, peer LID, peer port), which orders its tree of
    /// channels and so the order in which its cycle search visits them.
    pub key: Vec<u64>,
    /// One more than the highest switch port number.
    pub port_stride: usize,
}

impl Channels {
    pub fn new(g: &FabricGraph) -> Channels {
        let mut of_port: TiVec<PortId, u32> = g.ports.keys().map(|_| NO_CHANNEL).collect();
        let (mut port, mut port_num, mut key) = (Vec::new(), Vec::new(), Vec::new());
        let mut port_stride = 1;
        for s in g.switches() {
            port_stride = port_stride.max(usize::from(g.nodes[s].num_ports) + 1);
            for p in g.nodes[s].ports() {
                let Some(peer) = g.peer_up(p) else { continue };
                let other = g.ports[peer].node;
                if !g.nodes[other].is_switch() || other == s {
                    continue;
                }
                of_port[p] = port.len() as u32;
                port.push(p);
                port_num.push(g.ports[p].num as u8);
                let k = (u64::from(g.nodes[s].lid) << 48) | (u64::from(g.ports[p].num) << 32) | (u64::from(g.nodes[other].lid) << 16) | u64::from(g.ports[peer].num);
                key.push(k);
            }
        }
        Channels { of_port, port, port_num, key, port_stride }
    }

    pub fn len(&self) -> usize {
        self.port.len()
    }

    pub fn is_empty(&self) -> bool {
        self.port.is_empty()
    }

    /// The channels of the path from `src` to `dlid`, into `out`. An entry with no route is an
    /// error (OpenSM gives up dfsssp then), as is a path longer than the switch count.
    pub fn path(&self, g: &FabricGraph, net: &Network, lfts: &Lfts, src: &Target, dlid: u16, out: &mut Vec<u32>) -> Result<(), GraphError> {
        out.clear();
        if src.switch_port.is_none() {
            return Ok(());
        }
        let mut s = net.switches[src.switch as usize];
        loop {
            let port = lfts.tables[s].get(usize::from(dlid)).copied().unwrap_or(NO_ROUTE);
            if port == NO_ROUTE {
                return Err(GraphError(format!("dfsssp: {:?} has no route to LID {dlid}", g.nodes[s].name)));
            }
            if port == 0 {
                return Ok(());
            }
            let p = g.port_of(s, port.into())?;
            let ch = self.of_port[p];
            if ch == NO_CHANNEL {
                return Ok(());
            }
            if out.len() > net.switches.len() {
                return Err(GraphError(format!("dfsssp: the route to LID {dlid} loops through {:?}", g.nodes[s].name)));
            }
            out.push(ch);
            s = g.ports[g.peer_up(p).unwrap_or(p)].node;
        }
    }
}
