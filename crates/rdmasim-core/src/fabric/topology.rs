//! The packet engine's fabric, instantiated from a routed graph (fabric/graph.rs): a channel
//! per direction of every cable, the switches with their forwarding tables turned into output
//! indices, the port arena (same `PortId`s as the graph), and one engine HCA per cabled HCA port.
//!
//! An HCA device with several cabled ports becomes one engine HCA per port, as mlx5 exposes
//! each port of a ConnectX-4 or later as a device of its own (mlx5_0, mlx5_1): each has its own
//! send engine, QPs and LID. Hosts keep their HCAs in rail order.
//!
//! Building is linear in the size of the graph plus its forwarding tables.
use crate::engine::{SimRng, Time};
use crate::fabric::channel::{credit_blocks, Channel, ErrorModel, NodeRef, NUM_VL};
use crate::fabric::graph::{LinkState, NodeKind, RoutedFabric, NO_ROUTE};
use crate::fabric::port::Port;
use crate::fabric::switch::{OutLink, OutPort, Switch, NO_OUTPUT};
use crate::profile::HwProfile;
use crate::ids::{ChannelId, HcaId, HostId, NodeId, PortId, SwitchId, TiSlice, TiVec};

/// Random-stream ids: channels draw from stream CHANNEL_STREAM + channel index.
pub const CHANNEL_STREAM: u64 = 1 << 32;

/// An engine HCA as the fabric gives it: its host, its port and LID, its egress channel.
#[derive(Clone, Copy, Debug)]
pub struct HcaPort {
    pub host: HostId,
    /// Its node in the graph (for its labels).
    pub node: NodeId,
    pub port: PortId,
    pub lid: u16,
    pub tx_ch: ChannelId,
}

pub struct Fabric {
    pub channels: TiVec<ChannelId, Channel>,
    pub switches: TiVec<SwitchId, Switch>,
    pub ports: TiVec<PortId, Port>,
    pub hcas: TiVec<HcaId, HcaPort>,
    /// Host names, by host.
    pub hosts: TiVec<HostId, String>,
}

/// The engine's fabric for `rf`: link rates and lengths are each link's own; the buffers
/// behind each port (credits) and the switches' traversal latency come from `profile`.
pub fn instantiate(rf: &RoutedFabric, profile: &HwProfile, seed: u64) -> Fabric {
    let g = &rf.graph;
    // What sits at each graph node in the engine: a switch index, or nothing yet for HCAs.
    let mut switch_of: TiVec<NodeId, Option<SwitchId>> = vec![None; g.nodes.len()].into();
    let mut next_sw = 0u32;
    for (id, n) in g.nodes.iter_enumerated() {
        if n.is_switch() {
            switch_of[id] = Some(SwitchId(next_sw));
            next_sw += 1;
        }
    }
    // Engine HCAs: every cabled port of every HCA, hosts in order, rails in order.
    let mut hca_of_port: TiVec<PortId, Option<HcaId>> = vec![None; g.ports.len()].into();
    let mut hcas: TiVec<HcaId, HcaPort> = TiVec::new();
    for (host, spec) in g.hosts.iter_enumerated() {
        for &ca in &spec.hcas {
            for p in g.nodes[ca].ports().filter(|&p| g.ports[p].link.is_some()) {
                hca_of_port[p] = Some(hcas.next_key());
                hcas.push(HcaPort { host, node: ca, port: p, lid: g.ports[p].lid, tx_ch: ChannelId(u32::MAX) });
            }
        }
    }
    // The output index of each cabled switch port (outputs are the cabled ports, in order).
    let mut output_of_port: TiVec<PortId, u16> = vec![u16::MAX; g.ports.len()].into();
    for n in g.nodes.iter().filter(|n| n.is_switch()) {
        for (i, p) in n.ports().filter(|&p| g.ports[p].link.is_some()).enumerate() {
            output_of_port[p] = i as u16;
        }
    }
    let node_ref = |p: PortId| -> NodeRef {
        let node = g.ports[p].node;
        match g.nodes[node].kind {
            NodeKind::Switch => NodeRef::Switch { sw: switch_of[node].expect("a switch node"), port: output_of_port[p] },
            NodeKind::Ca { .. } => NodeRef::Hca(hca_of_port[p].expect("a cabled HCA port")),
        }
    };
    let credits = credit_blocks(profile.link.vl_buffer_bytes);
    let mut channels: TiVec<ChannelId, Channel> = TiVec::with_capacity(2 * g.links.len());
    let mut out_channel: TiVec<PortId, Option<ChannelId>> = vec![None; g.ports.len()].into();
    for link in g.links.iter() {
        let fp = link.speed.ps_per_byte_fp32();
        let prop = Time::from_ns_f64(link.length_m * profile.link.cable_ns_per_m);
        for (src, dst) in [(link.ends[0], link.ends[1]), (link.ends[1], link.ends[0])] {
            let id = channels.next_key();
            out_channel[src] = Some(id);
            channels.push(Channel {
                from: node_ref(src),
                to: node_ref(dst),
                src_port: src,
                dst_port: dst,
                ps_per_byte_fp32: fp,
                prop,
                busy_until: Time::ZERO,
                credits: [credits; NUM_VL],
                returns: Default::default(),
                credit_wake: Time::MAX,
                errors: ErrorModel { down: link.state == LinkState::Down, ber: link.ber, ..ErrorModel::default() },
                rng: SimRng::new(seed, CHANNEL_STREAM + u64::from(id.0)),
                sent: 0,
                wake_scheduled: false,
                idle_tx_done: Default::default(),
                idle_tx_done_pending: false,
                faulty: false,
                counts: Default::default(),
                wait_since: Time::MAX,
                word_ps: ((4u128 * fp as u128) >> 32) as u64,
            });
        }
    }
    for h in hcas.iter_mut() {
        h.tx_ch = out_channel[h.port].expect("an engine HCA's port is cabled");
    }
    let latency = Time::from_ns_f64(profile.switch.switch_latency_ns);
    let mut switches: TiVec<SwitchId, Switch> = TiVec::with_capacity(next_sw as usize);
    for (id, n) in g.nodes.iter_enumerated().filter(|(_, n)| n.is_switch()) {
        let links: Vec<OutLink> = n.ports().filter_map(|p| out_channel[p]).map(|ch| OutLink { ch, departs_on_arrival: false }).collect();
        let outputs = links.iter().map(|_| OutPort::default()).collect();
        // Graph LFT entries are port numbers; the engine forwards by output index. Port 0 (the
        // switch itself) and ports without a cable have no output: no route.
        let lft = rf.lfts.tables.get(id).map_or_else(Vec::new, |t| {
            t.iter()
                .map(|&num| match num {
                    0 | NO_ROUTE => NO_OUTPUT,
                    num => n.port(u16::from(num)).map_or(NO_OUTPUT, |p| match output_of_port[p] {
                        u16::MAX => NO_OUTPUT,
                        // Below the port number, itself a byte (`Switch::lft`).
                        o => u8::try_from(o).ok().filter(|&o| o != NO_OUTPUT).expect("an LFT port's output index fits a byte"),
                    }),
                })
                .collect()
        });
        switches.push(Switch { name: n.name.clone(), lid: n.lid, first_port: n.first_port, lft, links, outputs, latency, inputs_in_send_order: false });
    }
    inputs_alike(&channels, &mut switches);
    let ports = g
        .ports
        .iter()
        .map(|p| {
            let (node, device) = port_labels(g, p.node);
            Port::new(node, device, p.num)
        })
        .collect();
    Fabric { channels, switches, ports, hcas, hosts: g.hosts.iter().map(|h| h.name.clone()).collect() }
}

/// How the counter tables name a node's ports: an HCA port by its host (`h3`) and its device
/// (the node description without the host's name: `mlx4_1`, `HCA-1`), a switch by its name.
pub fn port_labels(g: &crate::fabric::graph::FabricGraph, node: NodeId) -> (String, String) {
    let n = &g.nodes[node];
    match n.kind {
        NodeKind::Ca { host, .. } => {
            let host = &g.hosts[host].name;
            let device = n.name.strip_prefix(host.as_str()).map(str::trim_start).filter(|d| !d.is_empty()).unwrap_or(&n.name);
            (host.clone(), device.to_string())
        }
        NodeKind::Switch => (n.name.clone(), n.name.clone()),
    }
}

/// Marks the switches all of whose input links share one rate and one propagation delay: a
/// packet's arrival is then its send time plus the same constant, and arrivals keep the send
/// order (fabric/forward.rs `switch_receive`).
fn inputs_alike(channels: &TiSlice<ChannelId, Channel>, switches: &mut TiSlice<SwitchId, Switch>) {
    let mut first: TiVec<SwitchId, Option<(u64, Time)>> = vec![None; switches.len()].into();
    for s in switches.iter_mut() {
        s.inputs_in_send_order = true;
    }
    for c in channels.iter() {
        if let NodeRef::Switch { sw, .. } = c.to {
            let f = *first[sw].get_or_insert((c.ps_per_byte_fp32, c.prop));
            if f != (c.ps_per_byte_fp32, c.prop) {
                switches[sw].inputs_in_send_order = false;
            }
        }
    }
}
