//! The host side: a NIC receives a frame into a descriptor of its ring and writes it to host
//! memory over its bus, then (when no handler is running) raises an interrupt after its
//! moderation delay; the one CPU (seeds/003 ran a UP kernel) handles received packets first,
//! one at a time at its per-packet cost, and sends PM packets when it has nothing received to
//! handle. A packet for another host is relayed: its Ethernet header rewritten and sent on
//! toward the next dimension (relay.rs).
use crate::ids::{EthNicId, FrameId, HostId, PmChannelId};
use super::frame::{Frame, FrameKind};
use super::relay::next_hop;
use super::trunk::LaneChoice;
use super::world::{Ev, EtherWorld, Job};
use crate::engine::Time;
use crate::fabric::build::hyperx::host_at;

/// A data packet's CPU time: PM's `pm` and, when the packet carries an MPI library's data, the
/// library's copy of its payload and its own work on it (which is relative to MPICH's and may
/// be negative: ether/mpi/packet_cost.rs bounds it well within PM's time).
fn data_packet(pm: Time, on: bool, cost: &super::host_cost::HostCost, payload: u32) -> Time {
    if !on {
        return pm;
    }
    let copy = (u64::from(payload) * cost.copy_ps_per_byte) as i64;
    Time((pm.0 as i64 + copy + cost.mpi_packet_ps).max(0) as u64)
}

impl EtherWorld {
    pub(super) fn nic_in(&mut self, n: EthNicId, f: FrameId) {
        let now = self.q.now();
        let ring = self.nic_profile.rx_ring;
        let nic = &mut self.nics[n];
        if nic.rx_held >= ring {
            nic.counters.rx_no_buffer_count += 1;
            self.data_drops += u64::from(self.frames.get(f).kind == FrameKind::Data);
            self.frames.release(f);
            return;
        }
        nic.rx_held += 1;
        let bytes = self.frames.get(f).dma_bytes();
        nic.counters.rx_packets += 1;
        nic.counters.rx_bytes += u64::from(bytes);
        let end = self.buses[nic.bus as usize].book(now, bytes) + self.nic_profile.rx_writeback;
        self.q.at(end, Ev::RxDone(n, f));
    }

    pub(super) fn rx_done(&mut self, n: EthNicId, f: FrameId) {
        let h = self.nics[n].host;
        let delay = self.nic_profile.irq_delay;
        let now = self.q.now();
        let host = &mut self.hosts[h];
        host.backlog.push_back((n, f));
        if !host.in_rx && !host.irq_pending {
            host.irq_pending = true;
            self.q.at(now + delay, Ev::Irq(h));
        }
    }

    /// The next hop toward `dst` from `h`: (dimension, next host).
    fn route(&self, h: HostId, dst: HostId) -> (u8, HostId) {
        let at = self.hosts[h].coords;
        let to = self.hosts[dst].coords;
        if self.dims[1] == 1 && self.dims[2] == 1 {
            return (0, dst);
        }
        let (d, next) = next_hop(at, to).expect("a frame to oneself is never sent");
        (d, host_at(self.dims, next))
    }

    /// The NIC a frame from `h` toward `dst` leaves by, and the NIC it reaches, when the
    /// lane's ring has room: trunking picks the lane round-robin, and the peer's lane as
    /// `[pm] lanes` says (trunk.rs).
    /// `depth`: how many frames the lane's queue may already hold.
    fn pick_nic(&mut self, h: HostId, dst: HostId, depth: u32) -> Option<(EthNicId, EthNicId)> {
        let (d, next) = self.route(h, dst);
        let host = &self.hosts[h];
        let lanes = host.lanes[usize::from(d)].len() as u8;
        let mut trunk = host.trunk;
        let lane = trunk.next_lane(d, lanes);
        let nic = host.lanes[usize::from(d)][usize::from(lane)];
        let held = self.nics[nic].tx_held;
        if held >= depth {
            if held >= self.nic_profile.tx_ring {
                self.nics[nic].counters.tx_restart_queue += 1;
            }
            return None;
        }
        self.hosts[h].trunk = trunk;
        let peer_lanes = self.hosts[next].lanes[usize::from(d)].len() as u64;
        let to_lane = match self.pm.lanes {
            LaneChoice::Same => usize::from(lane),
            LaneChoice::Random => self.hosts[h].lane_rng.below(peer_lanes) as usize,
        };
        let to = self.hosts[next].lanes[usize::from(d)][to_lane];
        Some((nic, to))
    }

    /// Hands frame `f` to NIC `nic`, addressed to NIC `to`: the NIC fetches it over its bus.
    fn nic_send(&mut self, nic: EthNicId, to: EthNicId, f: FrameId) {
        let now = self.q.now();
        let from_port = self.nics[nic].port;
        let to_port = self.nics[to].port;
        let fr = self.frames.get_mut(f);
        fr.from_port = from_port;
        fr.to_port = to_port;
        let frame = *fr;
        if let Some(cap) = &mut self.capture {
            if (cap.len() as u64) < self.capture_max {
                cap.push((now, frame));
            }
        }
        let bus = self.nics[nic].bus as usize;
        let end = self.buses[bus].book(now + self.nic_profile.tx_start, frame.dma_bytes());
        self.q.at(end, Ev::NicReady(from_port, f));
    }

    /// Gives the idle CPU of host `h` its next job: a received packet, else a PM packet to send.
    pub(super) fn cpu_kick(&mut self, h: HostId) {
        let now = self.q.now();
        let host = &mut self.hosts[h];
        if host.job != Job::Idle {
            return;
        }
        if host.in_rx {
            if let Some((n, f)) = host.backlog.pop_front() {
                let fr = self.frames.get(f);
                let cost = match fr.kind {
                    _ if fr.dst != h => host.cost.relay,
                    FrameKind::Data => data_packet(host.cost.recv, fr.copy, &host.cost, fr.payload),
                    _ => host.cost.ack,
                };
                if fr.dst != h {
                    host.relay_time += cost;
                    host.relay_packets += 1;
                }
                host.cpu_time += cost;
                host.job = Job::Rx(n, f);
                self.q.at(now + cost, Ev::CpuDone(h));
                return;
            }
            host.in_rx = false;
        }
        if host.mpi_work > Time::ZERO {
            // The MPI library's own copies (an unexpected message's, once matched).
            let work = std::mem::replace(&mut host.mpi_work, Time::ZERO);
            host.cpu_time += work;
            host.job = Job::Work;
            self.q.at(now + work, Ev::CpuDone(h));
            return;
        }
        let k = host.chans_out.len();
        for i in 0..k {
            let host = &self.hosts[h];
            let c = host.chans_out[(host.rr + i) % k];
            if !self.chans[c].can_send() {
                continue;
            }
            let dst = self.chans[c].dst;
            let Some((nic, to)) = self.pick_nic(h, dst, self.pm.nic_depth) else { return };
            let ch = &mut self.chans[c];
            let (seq, p) = ch.take_packet(self.pm.packet_bytes, now);
            let ack = ch.rx.expected;
            let f = self.frames.alloc(Frame { kind: FrameKind::Data, last: p.last, resent: p.resent, src: h, dst, chan: c, seq, ack, msg: p.msg, payload: p.payload, copy: p.copy, ..Frame::default() });
            self.arm_timer(c);
            let host = &mut self.hosts[h];
            host.rr = (host.rr + i + 1) % k;
            host.job = Job::Send(f, nic);
            self.nics[nic].tx_held += 1;
            // Remember the far NIC in the frame until the CPU hands it over.
            self.frames.get_mut(f).to_port = self.nics[to].port;
            let cost = data_packet(host.cost.send, p.copy, &host.cost, p.payload);
            host.cpu_time += cost;
            self.q.at(now + cost, Ev::CpuDone(h));
            return;
        }
    }

    pub(super) fn cpu_done(&mut self, h: HostId) {
        let job = std::mem::replace(&mut self.hosts[h].job, Job::Idle);
        match job {
            Job::Idle | Job::Work => {}
            Job::Send(f, nic) => {
                let (to_port, c) = (self.frames.get(f).to_port, self.frames.get(f).chan);
                let to = self.nic_of_port(to_port);
                self.nic_send(nic, to, f);
                self.with_app(|a, w| a.taken(w, c));
            }
            Job::Rx(n, f) => {
                self.nics[n].rx_held -= 1;
                self.handle_rx(h, f);
            }
        }
        self.cpu_kick(h);
    }

    fn nic_of_port(&self, p: crate::ids::PortId) -> EthNicId {
        match self.ports[p].owner {
            super::world::Owner::Nic(n) => n,
            _ => unreachable!("frames are addressed to NIC ports"),
        }
    }

    fn handle_rx(&mut self, h: HostId, f: FrameId) {
        let now = self.q.now();
        let fr = *self.frames.get(f);
        if fr.dst != h {
            // Relay: only the Ethernet header changes; the NIC sends the same buffer on.
            match self.pick_nic(h, fr.dst, self.nic_profile.tx_ring) {
                Some((nic, to)) => {
                    self.nics[nic].tx_held += 1;
                    self.nic_send(nic, to, f);
                }
                None => {
                    self.hosts[h].relay_drops += 1;
                    self.data_drops += u64::from(fr.kind == FrameKind::Data);
                    self.frames.release(f);
                }
            }
            return;
        }
        self.frames.release(f);
        let c = fr.chan;
        match fr.kind {
            FrameKind::Data => {
                let p = super::pm::SentPacket { msg: fr.msg, payload: fr.payload, last: fr.last, copy: fr.copy, resent: fr.resent };
                let (_, msgs, ack) = self.chans[c].on_data(fr.seq, p, self.pm.ack_every, now);
                if ack {
                    self.send_ack(h, c);
                }
                if msgs > 0 {
                    self.with_app(|a, w| a.messages(w, c, msgs));
                }
            }
            FrameKind::Ack => {
                if self.chans[c].on_ack(fr.ack, fr.held) {
                    self.chans[c].timer_armed = false;
                    if self.chans[c].unacked() {
                        self.arm_timer(c);
                    }
                }
            }
            FrameKind::Pause => {}
        }
    }

    /// An acknowledgement of channel `c` from its receiver `h`: sent by the receive handler
    /// (its cost is in the receive cost); dropped if the lane's ring is full (the next one
    /// covers it).
    fn send_ack(&mut self, h: HostId, c: PmChannelId) {
        let ch = &self.chans[c];
        let (src, (ack, held)) = (ch.src, ch.ack_fields());
        if let Some((nic, to)) = self.pick_nic(h, src, self.nic_profile.tx_ring) {
            let f = self.frames.alloc(Frame { kind: FrameKind::Ack, src: h, dst: src, chan: c, ack, held, ..Frame::default() });
            self.nics[nic].tx_held += 1;
            self.nic_send(nic, to, f);
        }
    }

    fn arm_timer(&mut self, c: PmChannelId) {
        let ch = &mut self.chans[c];
        if ch.timer_armed {
            return;
        }
        ch.timer_armed = true;
        ch.timer_gen = ch.timer_gen.wrapping_add(1);
        let gen = ch.timer_gen;
        let at = self.q.now() + self.rto;
        self.q.at(at, Ev::Timer(c, gen));
    }

    pub(super) fn timer(&mut self, c: PmChannelId, gen: u32) {
        let ch = &mut self.chans[c];
        if !ch.timer_armed || ch.timer_gen != gen {
            return;
        }
        ch.timer_armed = false;
        if ch.unacked() {
            ch.on_timeout();
            self.arm_timer(c);
            let src = self.chans[c].src;
            self.cpu_kick(src);
        }
    }
}
