//! The NIC's send engine: transport control packets first, then QPs with work, chosen by the
//! profile's arbitration policy; and the receive side's dispatch to requester or responder.
use crate::engine::Time;
use crate::ids::{ChannelId, HcaId, QpIdx};
use crate::wire::in_flight::Damage;
use crate::wire::in_flight::{ib_wire_bytes, Packet, PacketId, PktKind};
use crate::profile::Arbitration;
use crate::fabric::forward::Forwarding;
use crate::world::{Event, World};

/// What a QP offers the send engine.
pub enum Next {
    /// A packet, already in the packet store (built where it is decided, not copied through
    /// the layers that pass it up); `more` = the QP may have further work; `end_of_message` =
    /// last packet of a WQE. Every packet offered is sent.
    Packet { pkt: PacketId, more: bool, end_of_message: bool },
    /// Work that becomes sendable at this time.
    Wait(Time),
    Idle,
}

/// Largest packet the engine may emit, for the credit check before choosing a QP.
pub(crate) fn max_packet_bytes(mtu: u32) -> u32 {
    ib_wire_bytes(PktKind::Write { first: true, last: true, imm: true }, mtu)
}

impl World {
    /// Puts a QP on the scheduler's list and pokes the engine.
    pub(crate) fn activate(&mut self, h: HcaId, qi: QpIdx) {
        self.hcas[h].sched.list_or_wake(qi);
        self.hca_try_send(h);
    }

    /// Schedules an engine kick at `at` unless one at or before it is pending. Whoever kicks
    /// the engine may have given it work (a post), so a TxDone left unscheduled because the
    /// HCA had none is scheduled now (`tx_done_pending`): it would have pulled that work.
    pub(crate) fn kick_hca_at(&mut self, h: HcaId, at: Time) {
        let ch = self.hcas[h].tx_ch;
        self.tx_done_pending(ch);
        let now = self.now();
        let hca = &mut self.hcas[h];
        if hca.kick_at >= now && hca.kick_at <= at {
            return;
        }
        hca.kick_at = at;
        self.q.at(at, Event::HcaKick { hca: h });
    }

    pub(crate) fn on_hca_kick(&mut self, h: HcaId) {
        let now = self.now();
        if self.hcas[h].kick_at <= now {
            self.hcas[h].kick_at = Time::MAX;
        }
        self.hca_try_send(h);
    }

    /// Sends the HCA's next packet if its port and engine are free.
    pub(crate) fn hca_try_send(&mut self, h: HcaId) {
        if self.hcas[h].tx_staging_bytes > 0 {
            return self.staged_try_send(h);
        }
        let now = self.now();
        let ch = self.hcas[h].tx_ch;
        if self.tx_done_pending(ch) || self.net.channel(ch).busy_until > now {
            return; // TxDone pulls again
        }
        let hca = &self.hcas[h];
        // Nothing to send: no kick for when the engine frees either.
        if hca.has_no_work() && self.skip_idle_events {
            return;
        }
        if hca.engine_free > now {
            let at = hca.engine_free;
            self.kick_hca_at(h, at);
            return;
        }
        if !hca.control.is_empty() {
            if let Some(pkt) = self.take_control(h, ch) {
                self.emit(h, pkt);
            }
            return;
        }
        if self.hcas[h].sched.is_empty() {
            return; // only when idle events are kept
        }
        let Some(front_due) = self.due_or_kick(h, now) else { return };
        let hca = &self.hcas[h];
        if hca.mixed_vls() {
            // QPs on several VLs: each is checked against its own VL's credits when its turn
            // comes (pick_round_robin).
            self.net.absorb_credits(ch, now);
        } else if !self.credits_or_wait(ch, hca.data_vl(), hca.max_packet_bytes) {
            return;
        }
        if let Some(pkt) = self.pick_round_robin(h, now, front_due) {
            self.emit(h, pkt);
        }
    }

    /// Whether a listed QP may have a packet now: `Some(front)` (the front QP, if it is due),
    /// or `None` after kicking the engine for when the first one is due. Every listed QP said
    /// it has nothing before some later time (WQE fetch, RNR wait): the port has no data yet,
    /// so it does not wait for credits (PortXmitWait) and the walk would only go round once;
    /// come back then. Usually the front QP is due, which settles it at once.
    #[inline(always)]
    pub(crate) fn due_or_kick(&mut self, h: HcaId, now: Time) -> Option<Option<QpIdx>> {
        let sched = &self.hcas[h].sched;
        let front_due = sched.front_if_due(now);
        if front_due.is_none() {
            if let Some(due) = sched.nothing_due_until(now) {
                self.kick_hca_at(h, due);
                return None;
            }
        }
        Some(front_due)
    }

    /// One turn of the round robin at most, by the profile's arbitration: the packet of the
    /// first QP that has one (None after kicking the engine for the earliest later one).
    // Out of line: inlined into both send paths it crowds the requester out of the common one.
    #[inline(never)]
    pub(crate) fn pick_round_robin(&mut self, h: HcaId, now: Time, mut front_due: Option<QpIdx>) -> Option<PacketId> {
        // Each QP listed now is passed over (it said when it will have a packet, and nothing
        // changed since) or asked, in list order. QPs activated meanwhile join at the back and
        // wait for the next turn.
        let mut earliest = Time::MAX;
        let n = self.hcas[h].sched.len();
        let mut visited = 0;
        // With QPs on several VLs, a QP whose VL has no credits passes its turn; the port
        // waits for the first such VL's credits if no QP could send.
        let (mixed, ch, max_bytes) = {
            let hca = &self.hcas[h];
            (hca.mixed_vls(), hca.tx_ch, hca.max_packet_bytes)
        };
        if mixed {
            // Credits returned by now count (the staging engine picks without asking the port).
            self.net.absorb_credits(ch, now);
        }
        let mut blocked_vl: Option<u8> = None;
        while visited < n {
            let qi = match front_due.take() {
                Some(qi) => qi,
                None => {
                    let (passed, due, first_due) = self.hcas[h].sched.rotate_to_first_due(now, n - visited);
                    earliest = earliest.min(due);
                    visited += passed;
                    let Some(qi) = first_due else { break };
                    qi
                }
            };
            visited += 1;
            if mixed {
                let vl = self.hcas[h].qps[qi].vl;
                if !self.net.channel(ch).has_credits(vl, max_bytes) {
                    blocked_vl.get_or_insert(vl);
                    let hca = &mut self.hcas[h];
                    hca.qps[qi].turn_bytes = 0;
                    hca.sched.rotate_front(Time::ZERO);
                    continue;
                }
            }
            match self.qp_next(h, qi, now) {
                Next::Packet { pkt, more, end_of_message } => {
                    let hca = &mut self.hcas[h];
                    let (policy, chunk) = (hca.arbitration, hca.arbitration_chunk_bytes);
                    let qp = &mut hca.qps[qi];
                    if more {
                        let sent = self.packets.get(pkt);
                        // The QP stays at the front while its turn lasts: a QP keeping its
                        // turn packet after packet costs no list traffic.
                        let stay = match policy {
                            Arbitration::PacketRoundRobin => false,
                            Arbitration::MessageRoundRobin => !end_of_message,
                            Arbitration::ChunkRoundRobin => {
                                qp.turn_bytes += sent.payload;
                                !end_of_message && qp.turn_bytes < chunk
                            }
                            // Wire bytes, so that payload-less requests (READs) use it up too.
                            Arbitration::QuantumRoundRobin => {
                                qp.turn_bytes += sent.wire_bytes;
                                qp.turn_bytes < chunk
                            }
                        };
                        if !stay {
                            qp.turn_bytes = 0;
                            hca.sched.rotate_front(Time::ZERO);
                        }
                    } else {
                        qp.turn_bytes = 0;
                        hca.sched.pop_front();
                    }
                    return Some(pkt);
                }
                // Either way the QP's turn is over: it has nothing ready.
                Next::Wait(t) => {
                    earliest = earliest.min(t);
                    let hca = &mut self.hcas[h];
                    hca.qps[qi].turn_bytes = 0;
                    hca.sched.rotate_front(t);
                }
                Next::Idle => {
                    let hca = &mut self.hcas[h];
                    hca.qps[qi].turn_bytes = 0;
                    hca.sched.pop_front();
                }
            }
        }
        if earliest != Time::MAX {
            self.kick_hca_at(h, earliest);
        }
        if let Some(vl) = blocked_vl {
            if self.credits_or_wait(ch, vl, max_bytes) {
                // Cannot happen after the absorb above; come back at once rather than stall.
                self.kick_hca_at(h, now);
            }
        }
        None
    }

    /// A QP's next packet: READ responses (responder role) first, then requests.
    #[inline(always)]
    fn qp_next(&mut self, h: HcaId, qi: QpIdx, now: Time) -> Next {
        let resp = self.responder_next(h, qi, now);
        if let Next::Packet { .. } = resp {
            return resp;
        }
        match (resp, self.requester_next(h, qi, now)) {
            (_, p @ Next::Packet { .. }) => p,
            (Next::Wait(a), Next::Wait(b)) => Next::Wait(a.min(b)),
            (Next::Wait(a), Next::Idle) | (Next::Idle, Next::Wait(a)) => Next::Wait(a),
            _ => Next::Idle,
        }
    }

    /// The HCA's next transport control packet (one is queued), built; None while the link has
    /// no credits for it (the port waits, PortXmitWait). Control packets go before data.
    pub(crate) fn take_control(&mut self, h: HcaId, ch: ChannelId) -> Option<PacketId> {
        let ctl = *self.hcas[h].control.front()?;
        let vl = self.hcas[h].qps[ctl.qp].vl;
        if !self.credits_or_wait(ch, vl, ib_wire_bytes(ctl.kind, 0)) {
            return None;
        }
        self.hcas[h].control.pop_front();
        let pkt = self.build_control(h, ctl);
        Some(self.packets.alloc(pkt))
    }

    fn build_control(&mut self, h: HcaId, ctl: crate::hca::Control) -> Packet {
        let hca = &mut self.hcas[h];
        let qp = &mut hca.qps[ctl.qp];
        let (psn, msn) = match ctl.kind {
            PktKind::Ack => {
                qp.ack_pending = false;
                (qp.ack_psn, qp.ack_msn)
            }
            _ => (ctl.psn, qp.msn),
        };
        Packet {
            slid: hca.lid,
            dlid: qp.peer_lid,
            vl: qp.vl,
            sl: qp.attr.sl,
            src_qp: qp.num,
            dst_qp: qp.peer_qp,
            kind: ctl.kind,
            psn,
            ack_req: false,
            payload: 0,
            wire_bytes: ib_wire_bytes(ctl.kind, 0),
            msn,
            dma_len: 0,
            remote_va: 0,
            damage: Damage::None,
        }
    }

    /// Hands a packet to the port.
    fn emit(&mut self, h: HcaId, pkt: PacketId) {
        let now = self.now();
        let hca = &mut self.hcas[h];
        hca.engine_free = now + hca.t.tx_packet;
        let ch = hca.tx_ch;
        self.transmit(ch, pkt);
    }

    /// The fabric hands HCA `h` an intact packet arriving at `arrive_at`: it enters the receive
    /// buffer. Returns when it leaves the buffer (its credits go back then) and when the
    /// receive pipeline is done with it (`hca_process_at`).
    #[inline]
    pub(crate) fn hca_admit(&mut self, h: HcaId, pkt: PacketId, arrive_at: Time) -> (Time, Time) {
        let payload = self.packets.get(pkt).payload;
        let hca = &mut self.hcas[h];
        hca.rx_dma.admit(arrive_at, payload, hca.rx_pipeline)
    }

    /// Processes an admitted packet at `ready` (`on_hca_rx`).
    #[inline]
    pub(crate) fn hca_process_at(&mut self, h: HcaId, pkt: PacketId, ready: Time) {
        self.q.at(ready, Event::HcaRx { hca: h, pkt });
    }

    /// A packet left the receive pipeline: hand it to the QP's responder or requester.
    pub(crate) fn on_hca_rx(&mut self, h: HcaId, id: PacketId) {
        let pkt = *self.packets.get(id);
        self.packets.release(id);
        let Some(qi) = self.hcas[h].qp_index(pkt.dst_qp) else { return };

        if pkt.kind.is_request() {
            self.on_request(h, qi, &pkt);
        } else {
            self.on_response(h, qi, &pkt);
        }
    }
}

/// `wqe_fetch_on_schedule`: the send scheduler serves a QP whose next WQE is not fetched yet.
/// The NIC starts the DMA fetches of that WQE and of every later one already posted (they
/// proceed in parallel) and serves other QPs meanwhile. Assumption (docs/isolation.md 2.3):
/// without BlueFlame a doorbell only tells the NIC that the send queue has work; the WQE is
/// read when the scheduler gets to the QP.
pub(crate) fn fetch_on_schedule(qp: &mut crate::hca::qp::Qp, now: Time) -> Next {
    let head = qp.tx_wqe;
    for w in qp.sq.iter_mut().skip(head).filter(|w| w.fetch > Time::ZERO) {
        w.ready_at = w.ready_at.max(now) + w.fetch;
        w.fetch = Time::ZERO;
    }
    Next::Wait(qp.sq[head].ready_at)
}
