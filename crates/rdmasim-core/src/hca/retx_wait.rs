//! A requester's retransmission wait, and the "damming" pitfall switch.
//!
//! A QP waits before retransmitting after an RNR NAK (the IBTA RNR delay) or after a READ
//! response hit a non-present page (the fault service plus `odp_requester_retry_us`). With the
//! profile's `odp_damming` off (a fixed NIC) the wait holds everything and the retransmission is
//! go-back-N from the waiting PSN, covering requests posted meanwhile. With it on (ConnectX-4 as
//! seeds/000 captured it), a request posted during the wait leaves at once; the responder drops
//! it (it is beyond the PSN it NAKed, IBTA sends one NAK per episode) or the requester drops its
//! response (the QP is stalled on the fault); and the retransmission after the wait replays only
//! what was outstanding when the wait began. The lost request is then believed in flight, and
//! only the local ACK timeout — floored at `retransmit_floor_ms` — recovers it, unless a later
//! request draws a NAK first (A3).
use crate::engine::Time;
use crate::ids::{HcaId, QpIdx};
use crate::hca::mr::RetxWait;
use crate::hca::nic::Next;
use crate::hca::qp::WrOp;
use crate::world::World;

impl World {
    /// Starts a wait before retransmitting from `from`; `until` = Time::MAX while a fault is
    /// being serviced. A later wait on the same QP widens the first (earliest PSN, latest end).
    pub(crate) fn begin_retx_wait(&mut self, h: HcaId, qi: QpIdx, from: u32, until: Time, fault: bool) {
        let dam = self.nic_hw(h).odp_damming;
        let hca = &mut self.hcas[h];
        let upto = hca.qps[qi].high_psn;
        let odp = &mut hca.odp;
        if odp.qps.len() <= qi.idx() {
            odp.qps.resize_with(qi.idx() + 1, Default::default);
        }
        let q = &mut odp.qps[qi];
        q.replay_upto = None;
        q.wait = Some(match q.wait {
            Some(w) => RetxWait { from: w.from.min(from), upto: w.upto.max(upto), until: w.until.max(until), dam, fault: w.fault || fault },
            None => RetxWait { from, upto, until, dam, fault },
        });
        self.activate(h, qi);
    }

    /// The requester's next packet, through its retransmission wait if it has one.
    pub(crate) fn requester_next(&mut self, h: HcaId, qi: QpIdx, now: Time) -> Next {
        let wait = self.hcas[h].odp.qps.get(qi).and_then(|q| q.wait);
        if let Some(w) = wait {
            if now < w.until {
                let held = if w.until == Time::MAX { Next::Idle } else { Next::Wait(w.until) };
                if !w.dam {
                    return held;
                }
                // Damming: the wait does not hold requests posted meanwhile.
                return match self.requester_emit(h, qi, now) {
                    Next::Idle => held,
                    Next::Wait(t) => Next::Wait(t.min(w.until)),
                    // Stay scheduled: the wait's end is still to come.
                    Next::Packet { pkt, end_of_message, .. } => Next::Packet { pkt, more: true, end_of_message },
                };
            }
            let q = &mut self.hcas[h].odp.qps[qi];
            q.wait = None;
            q.replay_upto = w.dam.then_some(w.upto);
            self.rewind(h, qi, w.from);
        }
        let next = self.requester_emit(h, qi, now);
        if let Next::Packet { .. } = next {
            self.end_dammed_replay(h, qi);
        }
        next
    }

    /// A dammed replay that reached the PSN outstanding when its wait began jumps to the high
    /// PSN: what was sent during the wait counts as in flight (it was lost).
    fn end_dammed_replay(&mut self, h: HcaId, qi: QpIdx) {
        let hca = &mut self.hcas[h];
        let Some(q) = hca.odp.qps.get_mut(qi) else { return };
        let Some(upto) = q.replay_upto else { return };
        let qp = &mut hca.qps[qi];
        if qp.snd_nxt < upto {
            return;
        }
        q.replay_upto = None;
        qp.snd_nxt = qp.high_psn;
        qp.tx_wqe = qp.wqe_index_of(qp.high_psn);
        qp.reads_outstanding = qp.sq.iter().take(qp.tx_wqe).filter(|w| w.wr.op == WrOp::Read && !w.done).count() as u32;
    }
}
