//! Why the transport has nothing left to do while work is still outstanding: the reason a
//! stalled run reports when its workload cannot name one itself; and the one endless loop that
//! never runs out of events, RNR retries forever at a receiver that nothing will refill.
use crate::engine::Time;
use crate::ids::{HcaId, QpIdx};
use crate::hca::qp::{QpState, WrOp};
use crate::world::{Event, World};

impl World {
    /// The first QP (by host, then QP) that holds posted work with no event left to move it,
    /// and what it waits for.
    pub(crate) fn transport_stall(&self) -> Option<String> {
        for (h, hca) in self.hcas.iter().enumerate() {
            for qp in &hca.qps {
                let n = qp.sq.len();
                if n == 0 {
                    continue;
                }
                let who = format!("h{h} QP {:#x} has {n} work request{} outstanding", qp.num, if n == 1 { "" } else { "s" });
                let why = if qp.state == QpState::Error {
                    "in the error state".to_string()
                } else if qp.paused_until == Time::MAX {
                    "its peer's SRQ told it to stop and no resume request came (stop-resume has no timer: was the resume lost?)".to_string()
                } else if qp.timer_deadline == Time::MAX {
                    format!("no local ACK timer armed (qp.timeout = {}{})", qp.attr.timeout, if qp.attr.timeout == 0 { ": infinite" } else { "" })
                } else {
                    "its ACK timer armed but no event left".to_string()
                };
                return Some(format!("{who}: {why}"));
            }
        }
        None
    }

    /// An RNR livelock, checked when QP `qi` of HCA `h` takes an RNR NAK it will retry
    /// (`rnr_retry = 7`: forever, IBTA Vol. 1 9.7.5.2.8; `ibv_modify_qp(3)`: 7 means infinite). Real hardware would retry forever
    /// too; the run stops instead once it is proven that nothing can ever post the receive WQE
    /// the QP waits for:
    /// - only a workload posts receive WQEs (`post_recv`, `post_srq_recv`, the SRQ refill), and
    ///   only while it handles an event: a timer, a completion, an SRQ event. None is queued
    ///   (nor a completion on its way to a thread, nor anything else outside the transport);
    /// - every QP with send work outstanding is in the error state or, like this one, has as
    ///   its oldest unacknowledged packet one that needs a receive WQE (a SEND's first packet,
    ///   a WRITE with immediate's last) at a peer that expects exactly that packet and has no
    ///   receive WQE. The transport can then deliver nothing in sequence and complete nothing,
    ///   so no event it schedules can ever reach a workload: every future event is a retry,
    ///   its RNR NAK, or a packet dropped behind it.
    ///
    /// The state then repeats every RNR delay. The check is conservative: anything else still
    /// queued or outstanding defers the verdict to the next RNR NAK.
    pub(crate) fn rnr_livelock(&self, h: HcaId, qi: QpIdx) -> Option<String> {
        let (peer_h, peer_qi, psn, op) = self.waits_for_a_receive(h, qi)?;
        for (hh, hca) in self.hcas.iter_enumerated() {
            for (i, q) in hca.qps.iter_enumerated() {
                if !q.sq.is_empty() && q.state != QpState::Error && self.waits_for_a_receive(hh, i).is_none() {
                    return None;
                }
            }
        }
        let only_transport = self.q.pending().all(|ev| {
            matches!(
                ev,
                Event::TxDone { .. } | Event::Arrive { .. } | Event::CreditWake { .. } | Event::SwitchKick { .. } | Event::HcaKick { .. } | Event::HcaRx { .. } | Event::AckTimer { .. }
            )
        });
        if !only_transport {
            return None;
        }
        let qp = &self.hcas[h].qps[qi];
        let peer = &self.hcas[peer_h].qps[peer_qi];
        let queue = match peer.srq {
            Some(s) => format!("its shared receive queue, SRQ {s}, is empty"),
            None => "its receive queue is empty".to_string(),
        };
        let what = match op {
            WrOp::WriteImm => "RDMA WRITE with immediate",
            _ => "SEND",
        };
        Some(format!(
            "RNR livelock: h{h} QP {:#x} would retry its {what} at PSN {psn} forever (qp.rnr_retry = 7: retry on RNR NAK forever), \
             but h{peer_h} QP {:#x} has no receive WQE ({queue}) and nothing can post one: no workload event or completion is pending \
             and no other QP has work that could complete (perftest's rx_depth = 0, or a receiver that never posts?)",
            qp.num, peer.num,
        ))
    }

    /// When QP `qi` of HCA `h` cannot go on until its peer posts a receive WQE: its oldest
    /// unacknowledged packet needs one (a SEND's first packet, a WRITE with immediate's last),
    /// the peer expects exactly that packet, and the peer has none. Returns the peer (HCA and
    /// QP index), the PSN and the verb.
    fn waits_for_a_receive(&self, h: HcaId, qi: QpIdx) -> Option<(HcaId, QpIdx, u32, WrOp)> {
        let qp = &self.hcas[h].qps[qi];
        if qp.state != QpState::Rts {
            return None;
        }
        let psn = qp.snd_una;
        let wqe = qp.sq.get(qp.wqe_index_of(psn))?;
        let needs_recv = match wqe.wr.op {
            WrOp::Send | WrOp::SendImm => psn == wqe.first_psn,
            WrOp::WriteImm => psn + 1 == wqe.end_psn(),
            WrOp::Write | WrOp::Read => false,
        };
        if !needs_recv {
            return None;
        }
        let peer_h = self.hcas.iter().position(|x| x.lid == qp.peer_lid).map(HcaId::from)?;
        let peer_hca = &self.hcas[peer_h];
        let peer_qi = peer_hca.qp_index(qp.peer_qp)?;
        let peer = &peer_hca.qps[peer_qi];
        let no_recv = match peer.srq {
            None => peer.rq.is_empty(),
            Some(s) => peer_hca.srqs[s].wqes.is_empty(),
        };
        (peer.state == QpState::Rts && peer.epsn == psn && no_recv).then_some((peer_h, peer_qi, psn, wqe.wr.op))
    }
}
