//! The fabric of a packet run, owned in one place: its channels, switches and ports, the port
//! crossings counted ahead of their time, and what the fabric counts of the whole run. Its
//! fields are the fabric's own (fabric/forward.rs and switch_fifo.rs move packets through
//! them); the rest of the engine reads it through the accessors below and reaches it through
//! `fabric::attachment::Attachment`.
use crate::engine::Time;
use crate::fabric::channel::Channel;
use crate::fabric::port::{AheadLog, Port, PortCounters};
use crate::fabric::switch::Switch;
use crate::ids::{ChannelId, PortId, SwitchId, TiVec};

pub struct Net {
    pub(super) channels: TiVec<ChannelId, Channel>,
    pub(super) switches: TiVec<SwitchId, Switch>,
    pub(super) ports: TiVec<PortId, Port>,
    /// Port crossings counted before their time (fabric/port.rs `AheadCount`).
    pub(super) ahead: AheadLog,
    /// Packet transmissions on any channel (a packet crossing a switch counts twice).
    pub(super) packet_hops: u64,
    /// Packets a switch discarded because its LFT has no route for their DLID (each also
    /// counted as PortRcvSwitchRelayErrors at the port it came in on).
    pub(super) unroutable_packets: u64,
}

impl Net {
    /// The fabric built from a topology (fabric/topology.rs `instantiate`), faults applied.
    pub fn new(channels: TiVec<ChannelId, Channel>, switches: TiVec<SwitchId, Switch>, ports: TiVec<PortId, Port>) -> Net {
        Net { channels, switches, ports, ahead: AheadLog::default(), packet_hops: 0, unroutable_packets: 0 }
    }

    #[inline(always)]
    pub fn channel(&self, ch: ChannelId) -> &Channel {
        &self.channels[ch]
    }

    pub fn channels(&self) -> &TiVec<ChannelId, Channel> {
        &self.channels
    }

    #[inline(always)]
    pub fn switch(&self, sw: SwitchId) -> &Switch {
        &self.switches[sw]
    }

    pub fn ports(&self) -> &TiVec<PortId, Port> {
        &self.ports
    }

    pub fn packet_hops(&self) -> u64 {
        self.packet_hops
    }

    pub fn unroutable_packets(&self) -> u64 {
        self.unroutable_packets
    }

    /// Takes the credits that have come back to `ch`'s sender by `now` (a sender about to
    /// check them).
    #[inline]
    pub fn absorb_credits(&mut self, ch: ChannelId, now: Time) {
        self.channels[ch].absorb(now);
    }

    /// Every port's counters as of `t`: its own, those its channels keep (fabric/channel.rs
    /// `LinkCounts`), less the crossings counted ahead that lie after `t`.
    pub fn port_counters_at(&self, t: Time) -> TiVec<PortId, PortCounters> {
        let mut out: TiVec<PortId, PortCounters> = self.ports.iter().map(|p| p.counters.clone()).collect();
        for c in &self.channels {
            let (s, d) = (&c.counts, c.src_port);
            out[d].PortXmitPkts += s.xmit_pkts;
            out[d].PortXmitData += s.xmit_words;
            out[d].PortXmitWait += s.xmit_wait;
            let r = &mut out[c.dst_port];
            r.PortRcvPkts += s.rcv_pkts;
            r.PortRcvData += s.rcv_words;
            // Each end of a cable retrains or goes down with it: a direction counts the
            // events at its sending port, so the cable's two directions count both ends.
            if let Some(events) = &c.errors.events {
                let (retrains, flaps) = events.begun_by(t);
                out[d].LinkErrorRecoveryCounter += retrains;
                out[d].LinkDownedCounter += flaps;
            }
        }
        for a in self.ahead.after(t) {
            let c = &mut out[a.port];
            if a.xmit {
                c.PortXmitPkts -= 1;
                c.PortXmitData -= u64::from(a.words);
                c.PortXmitWait -= a.wait;
            } else {
                c.PortRcvPkts -= 1;
                c.PortRcvData -= u64::from(a.words);
            }
        }
        out
    }
}
