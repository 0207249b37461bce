//! The SRQ verbs: create an SRQ and attach QPs to it, post receive WQEs to it, arm its limit
//! event, and the handlers a receiving process runs (the asynchronous refill, the stop/resume
//! resume requests). Each charges the CPU of the thread the SRQ belongs to.
use crate::engine::Time;
use crate::hca::qp::{QpRef, RecvWqe};
use crate::hca::srq::{Srq, SrqFlowControl, SrqRef};
use crate::ids::{AppId, HcaId, ThreadId};
use crate::world::{Event, World};

impl World {
    /// `ibv_create_srq`; `nodes` × `procs_per_node` sizes the retransmission table.
    pub fn create_srq(&mut self, hca: HcaId, app: AppId, mode: SrqFlowControl, nodes: u32, procs_per_node: u32) -> SrqRef {
        let thread = self.main_thread(hca);
        let srq = self.hcas[hca].srqs.push_and_get_key(Srq::new(hca, app, thread, mode, nodes, procs_per_node));
        SrqRef { hca, srq }
    }

    /// Attaches a QP's receive side to an SRQ; `(node, proc)` names its source in the table.
    pub fn attach_srq(&mut self, qp: QpRef, srq: SrqRef, node: u32, proc: u32) {
        let h = &mut self.hcas[qp.hca];
        h.qps[qp.index()].srq = Some(srq.srq);
        h.srqs[srq.srq].attach(qp.index(), node, proc);
    }

    /// `ibv_post_srq_recv` with `count` chained WQEs of `len` bytes (wr_ids first_wr_id..):
    /// one call on the host CPU plus a per-WQE cost. Returns when the CPU is done.
    pub fn post_srq_recv(&mut self, r: SrqRef, first_wr_id: u64, count: u32, len: u32) -> Time {
        let hw = self.thread_hw(self.srq(r).thread);
        let cost = Time::from_ns_f64(hw.post_send_cpu_ns + count as f64 * hw.srq_recv_wqe_ns);
        let done = self.host_cpu(r, cost);
        let s = &mut self.hcas[r.hca].srqs[r.srq];
        s.wqes.extend((0..count as u64).map(|i| RecvWqe { wr_id: first_wr_id + i, len }));
        s.stats.wqes_posted += count as u64;
        done
    }

    /// `ibv_modify_srq(IBV_SRQ_LIMIT)`: arms the one-shot limit event once the (slow) command
    /// completes. Returns when the CPU is done.
    pub fn arm_srq_limit(&mut self, r: SrqRef, limit: u32) -> Time {
        let arm = Time::from_ns_f64(self.thread_hw(self.srq(r).thread).srq_arm_ns);
        let done = self.host_cpu(r, arm);
        let s = &mut self.hcas[r.hca].srqs[r.srq];
        s.limit = limit;
        s.armed_at = done;
        done
    }

    /// The SRQ_LIMIT_REACHED handler thread (a thread of its own, as MVAPICH's async thread):
    /// posts `count` WQEs and re-arms the limit, costing CPU time but not delaying the
    /// application thread. The WQEs are usable at once (their post, under 1 µs, is not waited
    /// for: a simplification); the limit is armed when ibv_modify_srq returns (t_setev later).
    pub fn srq_async_refill(&mut self, r: SrqRef, first_wr_id: u64, count: u32, len: u32, limit: u32) -> Time {
        let now = self.now();
        let th = self.hcas[r.hca].srqs[r.srq].thread;
        let p = self.thread_hw(th);
        let post = Time::from_ns_f64(p.post_send_cpu_ns + count as f64 * p.srq_recv_wqe_ns);
        let arm = Time::from_ns_f64(p.srq_arm_ns);
        self.threads[th].cpu_busy += post + arm;
        let s = &mut self.hcas[r.hca].srqs[r.srq];
        s.wqes.extend((0..count as u64).map(|i| RecvWqe { wr_id: first_wr_id + i, len }));
        s.stats.wqes_posted += count as u64;
        s.limit = limit;
        s.armed_at = now + post + arm;
        s.armed_at
    }

    /// The receiving process sends a resume request to every source in the table (one send
    /// post each) and clears it. Returns how many it sent.
    pub fn srq_resume(&mut self, r: SrqRef) -> u32 {
        let slots = self.hcas[r.hca].srqs[r.srq].drain_for_resume();
        let t = self.hcas[r.hca].t;
        let post = Time::from_ns_f64(self.thread_hw(self.srq(r).thread).post_send_cpu_ns);
        let mut sent = 0;
        for &slot in &slots {
            let Some(qp) = self.hcas[r.hca].srqs[r.srq].qp_of_slot(slot) else { continue };
            let posted = self.host_cpu(r, post);
            self.q.at(posted + t.doorbell + t.tx_pipeline, Event::SrqResumeDoorbell { hca: r.hca, qp });
            sent += 1;
        }
        self.hcas[r.hca].srqs[r.srq].resumed(slots, sent);
        sent
    }

    pub fn srq(&self, r: SrqRef) -> &Srq {
        &self.hcas[r.hca].srqs[r.srq]
    }

    /// Charges `cost` of CPU on a host's application thread; returns when it is done.
    fn host_cpu(&mut self, r: SrqRef, cost: Time) -> Time {
        let now = self.now();
        let th = self.hcas[r.hca].srqs[r.srq].thread;
        self.threads[th].run(now, cost)
    }

    /// Hands an SRQ to another application thread (its posts and polling run there).
    pub fn set_srq_thread(&mut self, r: SrqRef, thread: ThreadId) {
        self.hcas[r.hca].srqs[r.srq].thread = thread;
    }
}
