//! The RC requester: segments WQEs into packets by path MTU, keeps PSNs and a bounded window,
//! completes WQEs on ACKs and READ responses, and recovers from loss by go-back-N on a NAK, an
//! implied NAK or its local ACK timer, and from RNR NAKs after the IBTA RNR delay; exhausting
//! retry_cnt / rnr_retry ends in an error completion and the QP in the error state.
use crate::engine::Time;
use crate::ids::{HcaId, QpIdx};
use crate::wire::in_flight::Damage;
use crate::hca::cq::{Cqe, WcStatus};
use crate::hca::nic::Next;
use crate::wire::in_flight::{ib_wire_bytes, Packet, PktKind};
use crate::hca::qp::{QpState, WrOp};
use crate::hca::timers::{local_ack_timeout, rnr_delay};
use crate::world::{Event, World};

impl World {
    /// The next request packet, ignoring retransmission waits (retx_wait.rs wraps it).
    pub(crate) fn requester_emit(&mut self, h: HcaId, qi: QpIdx, now: Time) -> Next {
        let hw = self.nic_hw(h);
        let (ack_every, max_inflight) = (hw.ack_req_every.max(1), hw.max_inflight_packets);
        let hca = &mut self.hcas[h];
        let lid = hca.lid;
        let qp = &mut hca.qps[qi];
        if qp.state != QpState::Rts || qp.tx_wqe >= qp.sq.len() {
            return Next::Idle;
        }
        if qp.paused_until > now {
            return Next::Wait(qp.paused_until);
        }
        let w = qp.sq[qp.tx_wqe];
        if w.ready_at > now {
            return Next::Wait(w.ready_at);
        }
        if w.fetch > Time::ZERO {
            return crate::hca::nic::fetch_on_schedule(qp, now);
        }
        // The window bounds request packets in flight. A READ is one request packet whatever
        // the PSNs its responses take (max_rd_atomic bounds READs), so it is not held back by
        // its own responses: re-requesting the rest of a READ after a lost response from packet
        // 128 on would otherwise wait for an ACK that never comes.
        if w.wr.op != WrOp::Read && qp.snd_nxt.wrapping_sub(qp.snd_una) >= max_inflight {
            return Next::Idle; // an ACK that moves snd_una re-activates the QP
        }
        let mtu = qp.attr.mtu;
        let mut pkt = Packet {
            slid: lid,
            dlid: qp.peer_lid,
            vl: qp.vl,
            sl: qp.attr.sl,
            src_qp: qp.num,
            dst_qp: qp.peer_qp,
            kind: PktKind::ReadReq,
            psn: qp.snd_nxt,
            ack_req: true,
            payload: 0,
            wire_bytes: 0,
            msn: 0,
            dma_len: 0,
            remote_va: w.wr.remote_va,
            damage: Damage::None,
        };
        let end_of_message;
        if w.wr.op == WrOp::Read {
            if qp.reads_outstanding >= qp.attr.max_rd_atomic {
                return Next::Idle; // a READ completion re-activates the QP
            }
            // A READ (re)issued from PSN snd_nxt asks for the bytes not yet received.
            let done_pkts = qp.snd_nxt - w.first_psn;
            let offset = done_pkts * mtu;
            pkt.dma_len = w.wr.len - offset.min(w.wr.len);
            pkt.remote_va = w.wr.remote_va + offset as u64;
            qp.snd_nxt = w.end_psn();
            qp.reads_outstanding += 1;
            qp.tx_wqe += 1;
            end_of_message = true;
        } else {
            let idx = qp.snd_nxt - w.first_psn;
            let first = idx == 0;
            let last = idx + 1 == w.npkts;
            let imm = matches!(w.wr.op, WrOp::SendImm | WrOp::WriteImm);
            pkt.kind = match w.wr.op {
                WrOp::Send | WrOp::SendImm => PktKind::Send { first, last, imm },
                _ => PktKind::Write { first, last, imm },
            };
            pkt.payload = (w.wr.len - idx * mtu).min(mtu);
            if first && matches!(pkt.kind, PktKind::Write { .. }) {
                pkt.dma_len = w.wr.len;
            }
            // AckReq on the last packet, every `ack_req_every`, and on the packet that fills the
            // window: nothing else would be sent to ask for the ACK that reopens it.
            let fills_window = (qp.snd_nxt + 1).wrapping_sub(qp.snd_una) >= max_inflight;
            pkt.ack_req = last || (qp.snd_nxt + 1).is_multiple_of(ack_every) || fills_window;
            qp.snd_nxt += 1;
            if last {
                qp.tx_wqe += 1;
            }
            end_of_message = last;
        }
        pkt.wire_bytes = ib_wire_bytes(pkt.kind, pkt.payload);
        let more = qp.tx_wqe < qp.sq.len() || !qp.read_resps.is_empty();
        let retransmission = pkt.psn < qp.high_psn;
        qp.high_psn = qp.high_psn.max(qp.snd_nxt);
        if retransmission {
            hca.counters.retransmitted_packets += 1;
        }
        let pkt = self.packets.alloc(pkt);
        self.start_ack_timer(h, qi, false);
        Next::Packet { pkt, more, end_of_message }
    }

    /// Arms the local ACK timer if it is not running (or restarts it on progress).
    pub(crate) fn start_ack_timer(&mut self, h: HcaId, qi: QpIdx, restart: bool) {
        let now = self.now();
        let hca = &mut self.hcas[h];
        let (floor, adaptive) = (hca.t.retransmit_floor, hca.t.adaptive_retrans_base);
        let qp = &mut hca.qps[qi];
        if qp.timer_deadline != Time::MAX && !restart {
            return;
        }
        let Some(timeout) = local_ack_timeout(qp.attr.timeout, floor, adaptive, qp.retries) else { return };
        qp.timer_deadline = now + timeout;
        if qp.timer_event_at == Time::MAX || qp.timer_event_at > qp.timer_deadline {
            qp.timer_event_at = qp.timer_deadline;
            self.q.at(qp.timer_deadline, Event::AckTimer { hca: h, qp: qi });
        }
    }

    fn stop_ack_timer(&mut self, h: HcaId, qi: QpIdx) {
        self.hcas[h].qps[qi].timer_deadline = Time::MAX;
    }

    pub(crate) fn on_ack_timer(&mut self, h: HcaId, qi: QpIdx) {
        let now = self.now();
        let qp = &mut self.hcas[h].qps[qi];
        if qp.timer_event_at != now {
            return; // superseded by an earlier event
        }
        qp.timer_event_at = Time::MAX;
        if qp.timer_deadline == Time::MAX || qp.state != QpState::Rts {
            return;
        }
        if qp.timer_deadline > now {
            qp.timer_event_at = qp.timer_deadline;
            let at = qp.timer_deadline;
            self.q.at(at, Event::AckTimer { hca: h, qp: qi });
            return;
        }
        qp.timer_deadline = Time::MAX;
        if qp.snd_una == qp.snd_nxt && qp.reads_outstanding == 0 {
            return; // nothing outstanding
        }
        if !self.take_transport_retry(h, qi) {
            return;
        }
        let adaptive = self.nic_hw(h).adaptive_retrans_base_us > 0.0;
        let c = &mut self.hcas[h].counters;
        c.local_ack_timeout_err += 1;
        if adaptive {
            c.roce_adp_retrans += 1;
        }
        self.odp_on_ack_timeout(h, qi);
        let from = self.resume_psn(h, qi);
        self.go_back(h, qi, from);
    }

    /// Uses one of the QP's `retry_cnt` transport retries (local ACK timeout or sequence-error
    /// NAK); when none is left the QP ends in `IBV_WC_RETRY_EXC_ERR` and this returns false.
    fn take_transport_retry(&mut self, h: HcaId, qi: QpIdx) -> bool {
        let qp = &mut self.hcas[h].qps[qi];
        if qp.retries >= qp.attr.retry_cnt {
            self.hcas[h].counters.req_transport_retries_exceeded += 1;
            self.qp_error(h, qi, WcStatus::RetryExcErr);
            return false;
        }
        qp.retries += 1;
        true
    }

    /// The first PSN not yet acknowledged or received (inside a partly received READ).
    fn resume_psn(&self, h: HcaId, qi: QpIdx) -> u32 {
        let qp = &self.hcas[h].qps[qi];
        match qp.sq.front() {
            Some(w) if w.wr.op == WrOp::Read => w.first_psn + w.read_rcvd,
            Some(w) => qp.snd_una.max(w.first_psn),
            None => qp.snd_una,
        }
    }

    /// Go-back-N: transmit again from `psn`.
    pub(crate) fn go_back(&mut self, h: HcaId, qi: QpIdx, psn: u32) {
        self.rewind(h, qi, psn);
        self.activate(h, qi);
    }

    /// Moves the send cursor back to `psn` (without poking the send engine), but never below
    /// the first PSN still unacknowledged (`resume_psn`): a stale NAK, or a retransmission wait
    /// merged before the requester moved on, may name a PSN already acknowledged.
    pub(crate) fn rewind(&mut self, h: HcaId, qi: QpIdx, psn: u32) {
        let psn = psn.max(self.resume_psn(h, qi));
        let qp = &mut self.hcas[h].qps[qi];
        qp.snd_nxt = psn;
        qp.tx_wqe = qp.wqe_index_of(psn);
        qp.reads_outstanding = qp.sq.iter().take(qp.tx_wqe).filter(|w| w.wr.op == WrOp::Read && !w.done).count() as u32;
        qp.rewound_to = Some(psn);
    }

    /// Responses to this QP's requests: ACK, NAK, RNR NAK, READ response.
    // Not collapsed into match guards: `odp_requester_drops` acts (it drops the packet and
    // starts the fault), and a guard reads as a test.
    #[allow(clippy::collapsible_match)]
    pub(crate) fn on_response(&mut self, h: HcaId, qi: QpIdx, pkt: &Packet) {
        let now = self.now();
        if self.hcas[h].qps[qi].state != QpState::Rts {
            return;
        }
        match pkt.kind {
            PktKind::Ack => {
                let before = self.hcas[h].qps[qi].snd_una;
                self.acknowledge(h, qi, pkt.psn.wrapping_add(1));
                // Forward progress renews both retry budgets (rxe `check_ack` →
                // `reset_retry_counters`): retry_cnt bounds one episode without progress, not
                // the losses of a whole message. A NAK's implicit ACK does not renew them.
                let qp = &mut self.hcas[h].qps[qi];
                if qp.snd_una > before {
                    qp.retries = 0;
                    qp.rnr_retries = 0;
                }
            }
            // A NAK for a PSN already acknowledged is stale (it waited behind READ responses,
            // hca/responder.rs `nak_after_reads`, while the requester moved on): nothing to redo.
            PktKind::NakSeq | PktKind::RnrNak { .. } if pkt.psn < self.hcas[h].qps[qi].snd_una => {}
            PktKind::NakSeq => {
                self.acknowledge(h, qi, pkt.psn);
                let hca = &mut self.hcas[h];
                hca.counters.packet_seq_err += 1;
                if self.take_transport_retry(h, qi) {
                    // From the NAKed PSN, or from an earlier READ still missing responses
                    // (`acknowledge` holds snd_una there): rxe restarts at the oldest
                    // incomplete WQE.
                    let from = self.hcas[h].qps[qi].snd_una.min(pkt.psn);
                    self.go_back(h, qi, from);
                }
            }
            PktKind::RnrNak { timer } => {
                self.acknowledge(h, qi, pkt.psn);
                let qp = &mut self.hcas[h].qps[qi];
                if qp.attr.rnr_retry != 7 && qp.rnr_retries >= qp.attr.rnr_retry {
                    self.hcas[h].counters.req_rnr_retries_exceeded += 1;
                    self.qp_error(h, qi, WcStatus::RnrRetryExcErr);
                    return;
                }
                qp.rnr_retries = qp.rnr_retries.saturating_add(1);
                self.hcas[h].counters.rnr_nak_retry_err += 1;
                self.stop_ack_timer(h, qi);
                // Retry from the NAKed request, or from an earlier READ still missing responses.
                let from = self.hcas[h].qps[qi].snd_una.min(pkt.psn);
                if self.nic_hw(h).odp_damming {
                    self.begin_retx_wait(h, qi, from, now + rnr_delay(timer), false);
                } else {
                    self.hcas[h].qps[qi].paused_until = now + rnr_delay(timer);
                    self.go_back(h, qi, from);
                }
                // Retrying forever: stop the run if nothing can ever post the receive WQE.
                if self.hcas[h].qps[qi].attr.rnr_retry == 7 {
                    if let Some(why) = self.rnr_livelock(h, qi) {
                        self.halt(why);
                    }
                }
            }
            PktKind::ReadResp { last, .. } => {
                if !self.odp_requester_drops(h, qi, pkt) {
                    self.on_read_response(h, qi, pkt, last);
                }
            }
            PktKind::SrqStop => self.on_srq_stop(h, qi, pkt.psn),
            PktKind::SrqResume => self.on_srq_resume(h, qi),
            _ => {}
        }
    }

    fn on_read_response(&mut self, h: HcaId, qi: QpIdx, pkt: &Packet, last: bool) {
        // The oldest incomplete READ is the one responses must belong to, in PSN order.
        let qp = &self.hcas[h].qps[qi];
        let Some(ri) = qp.sq.iter().position(|w| w.wr.op == WrOp::Read && !w.done) else { return };
        let w = qp.sq[ri];
        let expected = w.first_psn + w.read_rcvd;
        if pkt.psn < expected || ri >= qp.tx_wqe {
            return; // duplicate, or a response to a request we have since rewound
        }
        if pkt.psn > expected {
            // A response was lost: implied NAK, re-request from the missing PSN (once).
            if qp.rewound_to != Some(expected) {
                self.hcas[h].counters.implied_nak_seq_err += 1;
                self.go_back(h, qi, expected);
            }
            return;
        }
        // In sequence: everything before this READ is implicitly acknowledged.
        self.acknowledge(h, qi, w.first_psn);
        let qp = &mut self.hcas[h].qps[qi];
        let Some(ri) = qp.sq.iter().position(|x| x.wr.op == WrOp::Read && !x.done) else { return };
        qp.rx_bytes += pkt.payload as u64;
        let w = &mut qp.sq[ri];
        w.read_rcvd += 1;
        qp.retries = 0;
        qp.rewound_to = None;
        if last || w.read_rcvd == w.npkts {
            w.done = true;
            qp.reads_outstanding = qp.reads_outstanding.saturating_sub(1);
            self.acknowledge(h, qi, self.hcas[h].qps[qi].sq[ri].end_psn());
            self.activate(h, qi);
        } else {
            self.start_ack_timer(h, qi, true);
        }
    }

    /// Everything before `upto` (exclusive) is acknowledged: complete WQEs in order. An ACK that
    /// covers an incomplete READ means its responses were lost (implied NAK).
    pub(crate) fn acknowledge(&mut self, h: HcaId, qi: QpIdx, upto: u32) {
        let now = self.now();
        let dma_write = self.hcas[h].t.dma_write;
        let old_una = self.hcas[h].qps[qi].snd_una;
        let mut completed = 0;
        // An incomplete READ holds the acknowledged point at its first missing response: an
        // ACK or NAK beyond it (e.g. an RNR NAK for a later request) does not acknowledge
        // responses that never arrived.
        let mut held_at = u32::MAX;
        loop {
            let qp = &mut self.hcas[h].qps[qi];
            let Some(w) = qp.sq.front().copied() else { break };
            if w.first_psn >= upto {
                break;
            }
            if w.wr.op == WrOp::Read && !w.done {
                // The responder has moved past this READ, yet its responses are missing.
                let expected = w.first_psn + w.read_rcvd;
                held_at = expected;
                if upto > w.first_psn && qp.rewound_to != Some(expected) {
                    self.hcas[h].counters.implied_nak_seq_err += 1;
                    self.go_back(h, qi, expected);
                }
                break;
            }
            if w.end_psn() > upto {
                break;
            }
            qp.sq.pop_front();
            // tx_wqe = 0: a timer rewind had put the cursor back inside this WQE (moved below).
            qp.tx_wqe = qp.tx_wqe.saturating_sub(1);
            qp.snd_una = w.end_psn();
            qp.retries = 0;
            qp.rnr_retries = 0;
            completed += 1;
            if w.wr.signaled {
                let opcode = w.wr.op.wc_opcode();
                let cqe = Cqe { wr_id: w.wr.wr_id, hca: h, qp: qp.num, status: WcStatus::Success, opcode, byte_len: w.wr.len };
                self.cqe_at(now + dma_write, cqe);
            }
        }
        let upto = upto.min(held_at);
        let qp = &mut self.hcas[h].qps[qi];
        if upto > qp.snd_una && upto <= qp.high_psn {
            qp.snd_una = upto;
        }
        if qp.snd_nxt < qp.snd_una {
            // A late ACK covers packets a timer rewind was about to send again (rxe completes
            // on any ACK whatever its send position): resume after them.
            qp.snd_nxt = qp.snd_una;
            qp.tx_wqe = qp.wqe_index_of(qp.snd_una);
        }
        let advanced = qp.snd_una > old_una;
        if advanced {
            if qp.snd_una == qp.snd_nxt && qp.reads_outstanding == 0 {
                self.stop_ack_timer(h, qi);
            } else {
                self.start_ack_timer(h, qi, true);
            }
        }
        // A completed WQE, or an ACK that moved snd_una (it may have opened a full window:
        // the round trip is longer than the window takes to send on a long cable).
        if completed > 0 || advanced {
            self.activate(h, qi);
        }
    }

    /// Moves the QP to the error state: the failing WQE completes with `cause`, the rest flush.
    pub(crate) fn qp_error(&mut self, h: HcaId, qi: QpIdx, cause: WcStatus) {
        let now = self.now();
        let dma_write = self.hcas[h].t.dma_write;
        let hca = &mut self.hcas[h];
        let qp = &mut hca.qps[qi];
        qp.state = QpState::Error;
        qp.timer_deadline = Time::MAX;
        let num = qp.num;
        let mut first = true;
        while let Some(w) = qp.sq.pop_front() {
            let status = crate::hca::qp::flush_status(first, cause);
            first = false;
            if status == WcStatus::WrFlushErr {
                hca.counters.req_cqe_flush_error += 1;
            } else {
                hca.counters.req_cqe_error += 1;
            }
            let opcode = w.wr.op.wc_opcode();
            // Error completions are always generated, signaled or not (IBTA 10.8.3).
            // (World::cqe_at spelled out: `qp` still borrows the HCA.)
            let slot = self.cqes.alloc(Cqe { wr_id: w.wr.wr_id, hca: h, qp: num, status, opcode, byte_len: 0 });
            self.q.at(now + dma_write, Event::CqeVisible { cqe: slot });
        }
        qp.tx_wqe = 0;
        qp.read_resps.clear();
        qp.nak_after_reads = None;
    }
}
