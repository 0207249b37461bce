//! Topologies: two hosts back to back, or N hosts on one switch. Building one yields the
//! channels (one per link direction), the switches with their forwarding tables, the port
//! arena, and each host's LID and egress channel.
use std::collections::VecDeque;
use crate::ids::{ChannelId, HcaId, PortId, SwitchId, TiSlice, TiVec};
use crate::engine::{SimRng, Time};
use crate::fabric::channel::{credit_blocks, Channel, ErrorModel, NodeRef, NUM_VL};
use crate::fabric::port::Port;
use crate::fabric::switch::{OutPort, Switch};
use crate::hca::profile::HwProfile;
use crate::scenario::TopologyKind;

/// Random-stream ids: channels draw from stream CHANNEL_STREAM + channel index.
pub const CHANNEL_STREAM: u64 = 1 << 32;

pub struct Fabric {
    pub channels: TiVec<ChannelId, Channel>,
    pub switches: TiVec<SwitchId, Switch>,
    pub ports: TiVec<PortId, Port>,
    /// Per host: (LID, egress channel, HCA port index).
    pub hosts: Vec<(u16, ChannelId, PortId)>,
}

struct Builder<'a> {
    f: Fabric,
    profile: &'a HwProfile,
    prop: Time,
    seed: u64,
}

impl Builder<'_> {
    fn port(&mut self, node: String, num: u16) -> PortId {
        self.f.ports.push_and_get_key(Port::new(node, num))
    }
    fn channel(&mut self, from: NodeRef, to: NodeRef, src_port: PortId, dst_port: PortId) -> ChannelId {
        let speed = self.profile.link_speed();
        let id = self.f.channels.next_key();
        let credits = credit_blocks(self.profile.vl_buffer_bytes);
        let fp = speed.ps_per_byte_fp32();
        self.f.channels.push(Channel {
            from,
            to,
            src_port,
            dst_port,
            ps_per_byte_fp32: fp,
            prop: self.prop,
            busy_until: Time::ZERO,
            credits: [credits; NUM_VL],
            returns: VecDeque::new(),
            credit_wake: Time::MAX,
            errors: ErrorModel::default(),
            rng: SimRng::new(self.seed, CHANNEL_STREAM + u64::from(id.0)),
            sent: 0,
            wake_scheduled: false,
            idle_tx_done: None,
            wait_since: None,
            word_ps: ((4u128 * fp as u128) >> 32) as u64,
        });
        id
    }
}

pub fn build(kind: TopologyKind, hosts: u32, cable_m: f64, profile: &HwProfile, seed: u64) -> Fabric {
    let prop = Time::from_ns_f64(cable_m * profile.cable_ns_per_m);
    let mut b = Builder { f: Fabric { channels: TiVec::new(), switches: TiVec::new(), ports: TiVec::new(), hosts: vec![] }, profile, prop, seed };
    match kind {
        TopologyKind::BackToBack => {
            let p0 = b.port("h0".into(), 1);
            let p1 = b.port("h1".into(), 1);
            let c01 = b.channel(NodeRef::Hca(HcaId(0)), NodeRef::Hca(HcaId(1)), p0, p1);
            let c10 = b.channel(NodeRef::Hca(HcaId(1)), NodeRef::Hca(HcaId(0)), p1, p0);
            b.f.hosts = vec![(1, c01, p0), (2, c10, p1)];
        }
        TopologyKind::SingleSwitch => {
            let sw_lid = hosts as u16 + 1;
            let mut lft = vec![u16::MAX; sw_lid as usize + 1];
            let mut out_ports = Vec::new();
            for h in 0..hosts {
                let hp = b.port(format!("h{h}"), 1);
                let sp = b.port("sw0".into(), h as u16 + 1);
                let up = b.channel(NodeRef::Hca(HcaId(h)), NodeRef::Switch { sw: SwitchId(0), port: h as u16 }, hp, sp);
                let down = b.channel(NodeRef::Switch { sw: SwitchId(0), port: h as u16 }, NodeRef::Hca(HcaId(h)), sp, hp);
                out_ports.push(OutPort::new(down));
                lft[h as usize + 1] = h as u16;
                b.f.hosts.push((h as u16 + 1, up, hp));
            }
            b.f.switches.push(Switch {
                name: "sw0".into(),
                lid: sw_lid,
                lft,
                outputs: out_ports,
                latency: Time::from_ns_f64(profile.switch_latency_ns),
                inputs_in_send_order: false,
            });
        }
    }
    for (sw, s) in b.f.switches.iter_mut_enumerated() {
        s.inputs_in_send_order = inputs_alike(&b.f.channels, sw);
    }
    b.f
}

/// True when all links into switch `sw` share one rate and one propagation delay: a packet's
/// arrival is then its send time plus the same constant, and arrivals keep the send order.
fn inputs_alike(channels: &TiSlice<ChannelId, Channel>, sw: SwitchId) -> bool {
    let mut inputs = channels.iter().filter(|c| matches!(c.to, NodeRef::Switch { sw: s, .. } if s == sw));
    let Some(first) = inputs.next() else { return true };
    inputs.all(|c| c.ps_per_byte_fp32 == first.ps_per_byte_fp32 && c.prop == first.prop)
}
