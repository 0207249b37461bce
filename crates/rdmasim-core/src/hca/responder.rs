//! The RC responder: checks each request's PSN against the expected one, places data, consumes
//! receive WQEs, answers READs from host memory, and acknowledges. Out-of-order packets draw one
//! NAK (PSN sequence error) per episode; duplicates are re-acknowledged or, for READs, replayed;
//! a SEND without a receive WQE draws an RNR NAK.
use crate::engine::Time;
use crate::ids::{HcaId, QpIdx};
use crate::wire::in_flight::Damage;
use crate::hca::cq::{Cqe, WcOpcode, WcStatus};
use crate::hca::nic::Next;
use crate::wire::in_flight::{ib_wire_bytes, Packet, PktKind};
use crate::hca::qp::{QpState, ReadResponse};
use crate::hca::Control;
use crate::world::{AppEvent, World};

impl World {
    pub(crate) fn on_request(&mut self, h: HcaId, qi: QpIdx, pkt: &Packet) {
        let now = self.now();
        let t = self.hcas[h].t;
        let hca = &mut self.hcas[h];
        let qp = &mut hca.qps[qi];
        if qp.state != QpState::Rts {
            return;
        }
        if pkt.psn > qp.epsn {
            hca.counters.out_of_sequence += 1;
            if !qp.nak_outstanding && !qp.rnr_outstanding {
                qp.nak_outstanding = true;
                let psn = qp.epsn;
                self.queue_nak(h, Control { qp: qi, kind: PktKind::NakSeq, psn });
            }
            return;
        }
        if pkt.psn < qp.epsn {
            hca.counters.duplicate_request += 1;
            if pkt.kind == PktKind::ReadReq {
                let npkts = qp.packets_for(pkt.dma_len);
                let msn = qp.msn; // a replay: everything up to now has been executed
                qp.read_resps.push_back(ReadResponse { first_psn: pkt.psn, npkts, next: 0, len: pkt.dma_len, ready_at: now + t.dma_read, msn });
                self.activate(h, qi);
            } else {
                // C9-105: a duplicate SEND or WRITE is acknowledged again, AckReq or not (rxe
                // `duplicate_request`): a timer rewind may resend only packets without AckReq.
                self.queue_ack(h, qi);
            }
            return;
        }
        // In sequence, unless it touches a page the NIC must first fault in (mr.rs).
        if self.odp_responder_blocks(h, qi, pkt) {
            return;
        }
        let hca = &mut self.hcas[h];
        let qp = &mut hca.qps[qi];
        let no_recv = match qp.srq {
            None => qp.rq.is_empty(),
            Some(s) => hca.srqs[s].wqes.is_empty(),
        };
        // A packet that needs a receive WQE and finds none is dropped with an RNR NAK before it
        // is executed (rxe `check_resource`): neither placed nor counted.
        let needs_recv = matches!(pkt.kind, PktKind::Send { first: true, .. } | PktKind::Write { last: true, imm: true, .. });
        if pkt.kind != PktKind::ReadReq && !(needs_recv && no_recv) {
            qp.rx_bytes += pkt.payload as u64;
        }
        qp.nak_outstanding = false;
        qp.rnr_outstanding = false;
        let app = qp.app;
        match pkt.kind {
            PktKind::Send { first, last, imm } => {
                if first {
                    let Some(rwqe) = self.take_recv(h, qi) else {
                        return self.receiver_not_ready(h, qi);
                    };
                    let qp = &mut self.hcas[h].qps[qi];
                    qp.cur_recv = Some(rwqe);
                    qp.cur_recv_bytes = 0;
                }
                let qp = &mut self.hcas[h].qps[qi];
                qp.cur_recv_bytes += pkt.payload;
                qp.epsn += 1;
                if last {
                    qp.msn += 1;
                    qp.rx_msgs += 1;
                    if let Some(r) = qp.cur_recv.take() {
                        let _ = imm; // SEND with immediate also completes as IBV_WC_RECV (with IBV_WC_WITH_IMM)
                        let opcode = WcOpcode::Recv;
                        let cqe = Cqe { wr_id: r.wr_id, hca: h, qp: qp.num, status: WcStatus::Success, opcode, byte_len: qp.cur_recv_bytes };
                        self.cqe_at(now + t.recv_wqe_fetch + t.dma_write, cqe);
                    }
                }
            }
            PktKind::Write { first, last, imm } => {
                if first {
                    qp.cur_write_len = pkt.dma_len;
                }
                if last && imm {
                    let Some(rwqe) = self.take_recv(h, qi) else {
                        return self.receiver_not_ready(h, qi);
                    };
                    let qp = &mut self.hcas[h].qps[qi];
                    let cqe = Cqe { wr_id: rwqe.wr_id, hca: h, qp: qp.num, status: WcStatus::Success, opcode: WcOpcode::RecvRdmaWithImm, byte_len: qp.cur_write_len };
                    self.cqe_at(now + t.recv_wqe_fetch + t.dma_write, cqe);
                }
                if first {
                    self.hcas[h].counters.rx_write_requests += 1;
                }
                let qp = &mut self.hcas[h].qps[qi];
                qp.epsn += 1;
                if last {
                    qp.msn += 1;
                    qp.rx_msgs += 1;
                    if qp.watch_writes || !self.skip_idle_events {
                        let (qpn, len) = (qp.num, qp.cur_write_len);
                        self.app_at(now + t.dma_write, app, AppEvent::MemoryWritten { hca: h, qp: qpn, len });
                    }
                }
            }
            PktKind::ReadReq => {
                hca.counters.rx_read_requests += 1;
                let npkts = qp.packets_for(pkt.dma_len);
                qp.epsn += npkts;
                qp.msn += 1;
                let msn = qp.msn;
                qp.read_resps.push_back(ReadResponse { first_psn: pkt.psn, npkts, next: 0, len: pkt.dma_len, ready_at: now + t.dma_read, msn });
                qp.rx_msgs += 1;
                self.activate(h, qi);
                return; // the response is the acknowledgement
            }
            _ => return,
        }
        if pkt.ack_req {
            self.queue_ack(h, qi);
        }
    }

    /// No receive WQE for an incoming SEND (or WRITE with immediate): drop it and send an RNR
    /// NAK carrying the QP's min_rnr_timer; later packets of the message are dropped silently.
    fn receiver_not_ready(&mut self, h: HcaId, qi: QpIdx) {
        let hca = &mut self.hcas[h];
        hca.counters.out_of_buffer += 1;
        let qp = &mut hca.qps[qi];
        qp.rnr_outstanding = true;
        let (psn, timer, srq) = (qp.epsn, qp.attr.min_rnr_timer, qp.srq);
        let kind = match srq {
            Some(s) => self.srq_overflow(h, qi, s, timer),
            None => PktKind::RnrNak { timer },
        };
        self.queue_nak(h, Control { qp: qi, kind, psn });
    }

    /// Queues a NAK in PSN order: behind the QP's pending READ responses if there are any
    /// (`responder_next` sends it when they are out). A NAK names a later PSN than those
    /// responses, and the requester takes it as acknowledging everything before that PSN.
    pub(crate) fn queue_nak(&mut self, h: HcaId, nak: Control) {
        let qp = &mut self.hcas[h].qps[nak.qp];
        if qp.read_resps.is_empty() {
            self.queue_control(h, nak);
        } else {
            qp.nak_after_reads = Some(nak);
        }
    }

    /// Queues an ACK of everything received so far, or moves the waiting one up to it.
    fn queue_ack(&mut self, h: HcaId, qi: QpIdx) {
        let qp = &mut self.hcas[h].qps[qi];
        if !qp.read_resps.is_empty() {
            qp.ack_after_reads = true;
            return;
        }
        // No READ response is pending, so every READ accepted so far has been answered: the
        // ACK may cover them.
        qp.ack_received_so_far();
        if qp.ack_pending {
            return;
        }
        qp.ack_pending = true;
        self.queue_control(h, Control { qp: qi, kind: PktKind::Ack, psn: 0 });
    }

    pub(crate) fn queue_control(&mut self, h: HcaId, c: Control) {
        self.hcas[h].control.push_back(c);
        self.hca_try_send(h);
    }

    /// The next READ response packet of this QP, if one is ready.
    pub(crate) fn responder_next(&mut self, h: HcaId, qi: QpIdx, now: Time) -> Next {
        let hca = &mut self.hcas[h];
        let lid = hca.lid;
        let qp = &mut hca.qps[qi];
        let Some(r) = qp.read_resps.front_mut() else { return Next::Idle };
        if r.ready_at > now {
            return Next::Wait(r.ready_at);
        }
        let mtu = qp.attr.mtu;
        let idx = r.next;
        let first = idx == 0;
        let last = idx + 1 == r.npkts;
        let payload = (r.len - (idx * mtu).min(r.len)).min(mtu);
        let kind = PktKind::ReadResp { first, last };
        let pkt = Packet {
            slid: lid,
            dlid: qp.peer_lid,
            vl: qp.vl,
            sl: qp.attr.sl,
            src_qp: qp.num,
            dst_qp: qp.peer_qp,
            kind,
            psn: r.first_psn + idx,
            ack_req: false,
            payload,
            wire_bytes: ib_wire_bytes(kind, payload),
            msn: r.msn,
            dma_len: 0,
            remote_va: 0,
            damage: Damage::None,
        };
        r.next += 1;
        if last {
            qp.read_resps.pop_front();
            if qp.read_resps.is_empty() {
                // The responses are out: what waited behind them in PSN order may go.
                if qp.ack_after_reads {
                    qp.ack_after_reads = false;
                    qp.ack_pending = true;
                    qp.ack_received_so_far();
                    hca.control.push_back(Control { qp: qi, kind: PktKind::Ack, psn: 0 });
                }
                if let Some(nak) = qp.nak_after_reads.take() {
                    hca.control.push_back(nak);
                }
            }
        }
        let more = !qp.read_resps.is_empty() || qp.tx_wqe < qp.sq.len();
        Next::Packet { pkt: self.packets.alloc(pkt), more, end_of_message: last }
    }
}
