//! Links and switches at work: a port sends the frames queued in front of it one at a time
//! (PAUSE frames first, as MAC control frames go), a switch takes a frame wholly received,
//! buffers it if it fits and forwards it after its latency, or drops it at the output (tail
//! drop). PAUSE and credits act here (link.rs describes them).
use super::frame::{Frame, FrameKind};
use super::link::FlowControl;
use super::world::{Ev, EtherWorld, Owner, NONE};
use crate::engine::Time;
use crate::ids::{EthSwitchId, FrameId, PortId};

impl EtherWorld {
    /// Starts the next frame on port `p`'s wire, if it may go.
    pub(super) fn try_tx(&mut self, p: PortId) {
        let now = self.q.now();
        let port = &self.ports[p];
        if port.on_wire != NONE || port.peer.is_none() {
            return;
        }
        if let Some(quanta) = port.pending_pause {
            let f = self.frames.alloc(Frame { kind: FrameKind::Pause, quanta, ..Frame::default() });
            let port = &mut self.ports[p];
            port.pending_pause = None;
            port.on_wire = f;
            port.wire_is_pause = true;
            port.counters.dot3_out_pause_frames += 1;
            let t = port.rate.time_of(self.frames.get(f).wire());
            self.q.at(now + t, Ev::TxDone(p));
            return;
        }
        let Some(&f) = port.queue.front() else { return };
        if now < port.paused_until {
            if port.kick_at != port.paused_until {
                let at = port.paused_until;
                self.ports[p].kick_at = at;
                self.q.at(at, Ev::Kick(p));
            }
            return;
        }
        let wire = self.frames.get(f).wire();
        let to_switch = matches!(port.peer.map(|q| self.ports[q].owner), Some(Owner::Switch(..)));
        if port.fc == FlowControl::Credits && to_switch {
            if port.credits < wire {
                return; // a frame leaving the switch returns credits and kicks this port
            }
            self.ports[p].credits -= wire;
        }
        let port = &mut self.ports[p];
        port.on_wire = f;
        port.wire_is_pause = false;
        let t = port.rate.time_of(wire);
        self.q.at(now + t, Ev::TxDone(p));
    }

    pub(super) fn tx_done(&mut self, p: PortId) {
        let now = self.q.now();
        let port = &mut self.ports[p];
        let f = port.on_wire;
        port.on_wire = NONE;
        if !port.wire_is_pause {
            port.queue.pop_front();
        }
        let frame = *self.frames.get(f);
        let wire = frame.wire();
        if frame.kind != FrameKind::Pause {
            port.counters.if_hc_out_octets += u64::from(wire);
            port.counters.if_hc_out_ucast_pkts += 1;
        }
        let (peer, prop, owner) = (port.peer, port.prop, port.owner);
        match owner {
            Owner::Nic(n) if frame.kind != FrameKind::Pause => {
                let nic = &mut self.nics[n];
                nic.tx_held -= 1;
                nic.counters.tx_packets += 1;
                nic.counters.tx_bytes += u64::from(frame.dma_bytes());
                let h = nic.host;
                self.cpu_kick(h); // a send may have waited for a descriptor
            }
            Owner::Switch(s, _) if frame.kind != FrameKind::Pause => self.leave_switch(s, &frame, wire),
            _ => {}
        }
        if let Some(peer) = peer {
            self.q.at(now + prop, Ev::Arrive(peer, f));
        }
        self.try_tx(p);
    }

    /// A frame left switch `s`: its buffer is free, which may end a PAUSE or return credits.
    fn leave_switch(&mut self, s: EthSwitchId, frame: &Frame, wire: u32) {
        let sw = &mut self.switches[s];
        let (i, o) = (usize::from(frame.sw_in), usize::from(frame.sw_out));
        sw.release(i, o, wire);
        let in_port = sw.ports[i];
        let held = sw.held_in[i];
        match self.ports[in_port].fc {
            FlowControl::Pause { xon_bytes, .. } if sw.paused_in[i] && held <= xon_bytes => {
                sw.paused_in[i] = false;
                self.ports[in_port].pending_pause = Some(0);
                self.try_tx(in_port);
            }
            FlowControl::Credits => {
                if let Some(up) = self.ports[in_port].peer {
                    self.ports[up].credits += wire;
                    self.try_tx(up);
                }
            }
            _ => {}
        }
    }

    pub(super) fn arrive(&mut self, p: PortId, f: FrameId) {
        let now = self.q.now();
        let frame = *self.frames.get(f);
        if frame.kind == FrameKind::Pause {
            self.frames.release(f);
            let port = &mut self.ports[p];
            port.counters.dot3_in_pause_frames += 1;
            if let Owner::Nic(n) = port.owner {
                let c = &mut self.nics[n].counters;
                if frame.quanta == 0 { c.rx_flow_control_xon += 1 } else { c.rx_flow_control_xoff += 1 }
            }
            let port = &mut self.ports[p];
            port.paused_until = now + Time(port.rate.pause_quantum().0 * u64::from(frame.quanta));
            self.try_tx(p);
            return;
        }
        let wire = frame.wire();
        self.ports[p].counters.if_hc_in_octets += u64::from(wire);
        self.ports[p].counters.if_hc_in_ucast_pkts += 1;
        match self.ports[p].owner {
            Owner::Switch(s, i) => self.switch_in(s, i, p, f, wire),
            Owner::Nic(n) => self.nic_in(n, f),
            Owner::Unused => self.frames.release(f),
        }
    }

    fn switch_in(&mut self, s: EthSwitchId, i: u16, in_port: PortId, f: FrameId, wire: u32) {
        let now = self.q.now();
        let to = self.frames.get(f).to_port;
        // A learnt MAC table on a crossbar: the destination NIC's cable ends on this switch.
        let out = self.ports[to].peer.filter(|&o| matches!(self.ports[o].owner, Owner::Switch(t, _) if t == s));
        let Some(out) = out else {
            self.unroutable += 1;
            self.frames.release(f);
            return;
        };
        let Owner::Switch(_, o) = self.ports[out].owner else { unreachable!("checked above") };
        let fc = self.ports[in_port].fc;
        let sw = &mut self.switches[s];
        // Under credits the sender reserved the space before sending: it always fits.
        let fits = match fc {
            FlowControl::Credits => true,
            FlowControl::Pause { .. } => sw.fits_pool(wire),
            FlowControl::None => sw.fits(usize::from(o), wire),
        };
        if !fits {
            self.ports[out].counters.if_out_discards += 1;
            self.data_drops += u64::from(self.frames.get(f).kind == FrameKind::Data);
            self.frames.release(f);
            return;
        }
        sw.hold(usize::from(i), usize::from(o), wire);
        if let FlowControl::Pause { xoff_bytes, .. } = fc {
            if !sw.paused_in[usize::from(i)] && sw.held_in[usize::from(i)] > xoff_bytes {
                sw.paused_in[usize::from(i)] = true;
                self.ports[in_port].pending_pause = Some(u16::MAX);
                self.try_tx(in_port);
            }
        }
        let fr = self.frames.get_mut(f);
        fr.sw_in = i;
        fr.sw_out = o;
        let latency = self.switches[s].profile.latency;
        self.q.at(now + latency, Ev::Forward(out, f));
    }
}
