//! The QP verbs: create and connect RC QPs, post send and receive work requests. Posting
//! charges the host CPU and models the doorbell, WQE fetch and payload DMA latencies before the
//! NIC may transmit.
use crate::engine::Time;
use crate::ids::{AppId, CqId, HcaId, ThreadId};
use crate::hca::cq::{Cqe, WcStatus};
use crate::hca::qp::{Qp, QpAttr, QpRef, QpState, RecvWqe, SendWqe, WorkRequest, WrOp};
use crate::hca::QPN_BASE;
use crate::world::World;

impl World {
    /// Creates an RC QP on each HCA and connects them (INIT→RTR→RTS), owned by the given apps.
    pub fn connect_rc(&mut self, a: HcaId, app_a: AppId, b: HcaId, app_b: AppId, attr: QpAttr) -> (QpRef, QpRef) {
        let qpn_a = QPN_BASE + self.hcas[a].qps.len() as u32;
        let qpn_b = QPN_BASE + self.hcas[b].qps.len() as u32 + if a == b { 1 } else { 0 };
        let (lid_a, lid_b) = (self.hcas[a].lid, self.hcas[b].lid);
        let (thread_a, thread_b) = (self.main_thread(a), self.main_thread(b));
        // Each side sends on its path's SL when the routing gives paths SLs (dfsssp), as the
        // SA's path record would tell it; the two directions may differ.
        let (attr_a, attr_b) = match &self.path_sls {
            Some(sls) => (QpAttr { sl: sls.get(lid_a, lid_b), ..attr }, QpAttr { sl: sls.get(lid_b, lid_a), ..attr }),
            None => (attr, attr),
        };
        self.hcas[a].qps.push(Qp::new(qpn_a, a, lid_b, qpn_b, attr_a, app_a, thread_a));
        self.hcas[b].qps.push(Qp::new(qpn_b, b, lid_a, qpn_a, attr_b, app_b, thread_b));
        let (vl_a, vl_b) = (crate::fabric::sl2vl::vl_of(attr_a.sl), crate::fabric::sl2vl::vl_of(attr_b.sl));
        self.hcas[a].note_vl(vl_a);
        self.hcas[b].note_vl(vl_b);
        (QpRef { hca: a, qpn: qpn_a }, QpRef { hca: b, qpn: qpn_b })
    }

    /// `ibv_post_send`: returns the time the doorbell reached the NIC.
    pub fn post_send(&mut self, qp: QpRef, wr: WorkRequest) -> Time {
        let now = self.now();
        let h = qp.hca;
        let post_cost = self.hosts[self.hcas[h].host].post_cost;
        let th = self.hcas[h].qps[qp.index()].thread;
        let t_post = self.threads[th].run(now, post_cost);
        let fetch_on_schedule = self.nic_hw(h).wqe_fetch_on_schedule;
        let hca = &mut self.hcas[h];
        let t = hca.t;
        if hca.qps[qp.index()].state == QpState::Error {
            // A QP in the error state takes the work request and flushes it (IBTA 10.8.3.1):
            // IBV_WC_WR_FLUSH_ERR, signaled or not.
            hca.counters.req_cqe_flush_error += 1;
            let cqe = Cqe { wr_id: wr.wr_id, hca: qp.hca, qp: qp.qpn, status: WcStatus::WrFlushErr, opcode: wr.op.wc_opcode(), byte_len: 0 };
            self.cqe_at(t_post + t.doorbell + t.dma_write, cqe);
            return t_post + t.doorbell;
        }
        let doorbell = t_post + t.doorbell;
        // Inline WQEs arrive with the doorbell (BlueFlame); others are fetched by DMA, and their
        // payload (SEND/WRITE) read by DMA before the first packet can leave: at once, or when
        // the send scheduler first serves the QP (`wqe_fetch_on_schedule`, see requester_next).
        let mut ready = doorbell + t.tx_pipeline;
        let mut fetch = Time::ZERO;
        if !wr.inline {
            fetch += t.wqe_fetch;
            if wr.op != WrOp::Read && wr.len > 0 {
                fetch += t.dma_read;
            }
        }
        if !fetch_on_schedule {
            ready += fetch;
            fetch = Time::ZERO;
        }
        let q = &mut hca.qps[qp.index()];
        let npkts = q.packets_for(wr.len);
        let first_psn = q.next_psn;
        q.next_psn += npkts;
        // Alone in its send queue, the new WQE is all the QP has to send, and nothing before
        // `ready` (the doorbell's way to the engine, and with `wqe_fetch_on_schedule` off the
        // WQE fetch too): until then the QP is passed over, and the port does not count credit
        // waits (PortXmitWait) for it. Otherwise the QP is asked at its next turn.
        let only_work = q.tx_wqe == q.sq.len() && q.read_resps.is_empty();
        q.sq.push_back(SendWqe { wr, first_psn, npkts, ready_at: ready, fetch, read_rcvd: 0, done: false });
        hca.sched.list_from(qp.index(), if only_work { ready } else { Time::ZERO });
        self.kick_hca_at(qp.hca, ready);
        doorbell
    }

    /// When the thread that posts on `qp` can begin a verbs call: now, or when the work it is
    /// doing ends.
    pub fn thread_free_at(&self, qp: QpRef) -> Time {
        let th = self.hcas[qp.hca].qps[qp.index()].thread;
        self.q.now().max(self.threads[th].cpu_free)
    }

    /// `ibv_post_recv`.
    pub fn post_recv(&mut self, qp: QpRef, wr_id: u64, len: u32) {
        let cost = self.hosts[self.hcas[qp.hca].host].post_cost;
        let th = self.qp(qp).thread;
        let now = self.q.now();
        self.threads[th].run(now, cost);
        self.hcas[qp.hca].qps[qp.index()].rq.push_back(RecvWqe { wr_id, len });
    }

    /// Gives a QP its own completion channel and thread (by default they are its app's channel
    /// and its host's main thread).
    pub fn bind_qp(&mut self, r: QpRef, cq: CqId, thread: ThreadId) {
        let q = &mut self.hcas[r.hca].qps[r.index()];
        q.cq = cq;
        q.thread = thread;
    }

    /// Tells the QP's app each time an incoming WRITE has been written to memory.
    pub fn watch_writes(&mut self, r: QpRef) {
        self.hcas[r.hca].qps[r.index()].watch_writes = true;
    }

    pub fn qp(&self, r: QpRef) -> &Qp {
        &self.hcas[r.hca].qps[r.index()]
    }
}
