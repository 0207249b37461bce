//! Shared receive queues: one pool of receive WQEs consumed by every RC QP attached to it, and
//! the two ways of keeping it from running dry that seeds/001 compares.
//!
//! - `SrqLimit` (conventional; Sur & Panda, IPDPS'06, as in MVAPICH): the process arms
//!   `srq_limit` with ibv_modify_srq; when a consumed WQE leaves fewer than `srq_limit` posted,
//!   the HCA raises the one-shot SRQ_LIMIT_REACHED async event (interrupt delivery, thread
//!   wake-up); the woken thread refills and re-arms (t_setev). If the pool empties before the
//!   refill, the SEND draws an RNR NAK and the sender retries after the RNR timer.
//! - `StopResume` (proposed by seeds/001): when the pool is empty the HCA drops the packet,
//!   sends a stop request to its source and sets the source's bit in the SRQ's
//!   retransmission-management table in host memory (nodes × processes per node, one bit each).
//!   The receiving process, which polls instead of waiting for an interrupt, notices the entry,
//!   refills, and sends a resume request to each recorded source only; the source's HCA then
//!   retransmits from the stopped PSN.
use crate::engine::Time;
use crate::ids::{AppId, HcaId, QpIdx, SrqIdx, ThreadId, TiVec};
use crate::wire::in_flight::PktKind;
use crate::hca::qp::{RecvWqe, WrOp};
use crate::hca::Control;
use crate::world::{AppEvent, World};
pub use crate::scenario::srq::SrqFlowControl;
use serde::Serialize;
use std::collections::VecDeque;

/// The proposed retransmission-management table: one bit per (node, process) that had a
/// packet dropped and was sent a stop request (seeds/001 fig. 5). Kept per SRQ in host memory.
#[derive(Clone, Debug)]
pub struct RetransmissionTable {
    pub nodes: u32,
    pub procs_per_node: u32,
    bits: Vec<u64>,
    set: u32,
}

impl RetransmissionTable {
    pub fn new(nodes: u32, procs_per_node: u32) -> RetransmissionTable {
        let n = nodes as usize * procs_per_node as usize;
        RetransmissionTable { nodes, procs_per_node, bits: vec![0; n.div_ceil(64)], set: 0 }
    }
    /// Bytes the table takes for a configuration (one bit per source process).
    pub fn size_bytes(nodes: u64, procs_per_node: u64) -> u64 {
        (nodes * procs_per_node).div_ceil(8)
    }
    pub fn slot(&self, node: u32, proc: u32) -> u32 {
        node * self.procs_per_node + proc
    }
    /// Sets a slot's bit; true when it was clear.
    pub fn record(&mut self, slot: u32) -> bool {
        let (w, b) = ((slot / 64) as usize, slot % 64);
        let fresh = self.bits[w] & (1 << b) == 0;
        self.bits[w] |= 1 << b;
        self.set += fresh as u32;
        fresh
    }
    pub fn len(&self) -> u32 {
        self.set
    }
    pub fn is_empty(&self) -> bool {
        self.set == 0
    }
    /// Appends every recorded slot to `out` in slot order and clears the table.
    pub fn drain(&mut self, out: &mut Vec<u32>) {
        for (w, word) in self.bits.iter_mut().enumerate() {
            let mut x = *word;
            while x != 0 {
                out.push(w as u32 * 64 + x.trailing_zeros());
                x &= x - 1;
            }
            *word = 0;
        }
        self.set = 0;
    }
}

/// Per-SRQ event counts, reported in the `srqs` result table.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct SrqStats {
    pub wqes_posted: u64,
    pub wqes_consumed: u64,
    pub limit_events: u64,
    /// SENDs that found the pool empty (RNR NAK or stop request sent).
    pub overflows: u64,
    pub stop_requests: u64,
    pub resume_requests: u64,
    /// Fewest WQEs left after a consumption.
    pub min_posted: u64,
}

pub struct Srq {
    pub hca: HcaId,
    /// Owning application (receives the async events and overflow notices).
    pub app: AppId,
    /// The application thread that posts to it and polls for it (default: the host's main thread).
    pub thread: ThreadId,
    pub mode: SrqFlowControl,
    pub wqes: VecDeque<RecvWqe>,
    /// Armed srq_limit (0 = not armed: the event is one-shot), effective from `armed_at`.
    pub limit: u32,
    pub armed_at: Time,
    pub table: RetransmissionTable,
    /// Local QP index of the connection from each table slot (u32::MAX = none).
    slot_qp: Vec<QpIdx>,
    /// Table slot of each attached QP, by QP index (u32::MAX = not attached).
    qp_slot: TiVec<QpIdx, u32>,
    /// An overflow notice is on its way to (or waiting for) the polling process.
    notice_pending: bool,
    /// Reused by `srq_resume` for the drained table slots (no allocation per episode).
    drained: Vec<u32>,
    pub stats: SrqStats,
}

impl Srq {
    /// An empty SRQ of `hca` owned by `app`, served by `thread`; `nodes` × `procs_per_node`
    /// sizes the retransmission table.
    pub fn new(hca: HcaId, app: AppId, thread: ThreadId, mode: SrqFlowControl, nodes: u32, procs_per_node: u32) -> Srq {
        let slots = nodes as usize * procs_per_node as usize;
        Srq {
            hca,
            app,
            thread,
            mode,
            wqes: VecDeque::new(),
            limit: 0,
            armed_at: Time::ZERO,
            table: RetransmissionTable::new(nodes, procs_per_node),
            slot_qp: vec![QpIdx(u32::MAX); slots],
            qp_slot: TiVec::new(),
            notice_pending: false,
            drained: Vec::new(),
            stats: SrqStats { min_posted: u64::MAX, ..Default::default() },
        }
    }

    /// Attaches QP `qi`, whose source is `(node, proc)` in the table.
    pub fn attach(&mut self, qi: QpIdx, node: u32, proc: u32) {
        let slot = self.table.slot(node, proc);
        self.slot_qp[slot as usize] = qi;
        if self.qp_slot.len() <= qi.idx() {
            self.qp_slot.resize(qi.idx() + 1, u32::MAX);
        }
        self.qp_slot[qi] = slot;
    }

    /// Empties the retransmission table for a resume: the slots it held, in table order
    /// (`qp_of_slot` names their QPs). Hand the list back with `resumed`.
    pub fn drain_for_resume(&mut self) -> Vec<u32> {
        let mut slots = std::mem::take(&mut self.drained);
        slots.clear();
        self.table.drain(&mut slots);
        self.notice_pending = false;
        slots
    }

    /// The QP of a table slot, if one is attached there.
    pub fn qp_of_slot(&self, slot: u32) -> Option<QpIdx> {
        Some(self.slot_qp[slot as usize]).filter(|&qp| qp != QpIdx(u32::MAX))
    }

    /// A resume sent `sent` requests; `slots` is the list `drain_for_resume` gave (kept for
    /// the next one: no allocation per episode).
    pub fn resumed(&mut self, slots: Vec<u32>, sent: u32) {
        self.stats.resume_requests += sent as u64;
        self.drained = slots;
    }

    /// The counts as reported (`min_posted` is the pool size while nothing was consumed).
    pub fn report(&self) -> SrqStats {
        let mut s = self.stats;
        if s.wqes_consumed == 0 {
            s.min_posted = self.wqes.len() as u64;
        }
        s
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrqRef {
    pub hca: HcaId,
    pub srq: SrqIdx,
}

impl World {
    /// Responder: the receive WQE for a new incoming message, from the QP's SRQ or its RQ.
    /// Consuming below an armed srq_limit raises SRQ_LIMIT_REACHED (and disarms it).
    pub(crate) fn take_recv(&mut self, h: HcaId, qi: QpIdx) -> Option<RecvWqe> {
        let now = self.now();
        let hca = &mut self.hcas[h];
        let Some(si) = hca.qps[qi].srq else { return hca.qps[qi].rq.pop_front() };
        let s = &mut hca.srqs[si];
        let w = s.wqes.pop_front()?;
        s.stats.wqes_consumed += 1;
        let left = s.wqes.len() as u32;
        s.stats.min_posted = s.stats.min_posted.min(left as u64);
        if s.limit > 0 && now >= s.armed_at && left < s.limit {
            s.limit = 0;
            s.stats.limit_events += 1;
            let (app, thread) = (s.app, s.thread);
            // The HCA raises the event after its notification delay; the host takes it from
            // there (world/completions.rs).
            let raise_ns = self.nic_hw(h).srq_event_interrupt_ns;
            self.async_event_raised(now, raise_ns, thread, app, AppEvent::SrqLimitReached { hca: h, srq: si });
        }
        Some(w)
    }

    /// Responder: a SEND found the SRQ empty. Returns the control packet to answer with: an
    /// RNR NAK (conventional) or a stop request, recorded in the table (proposed).
    pub(crate) fn srq_overflow(&mut self, h: HcaId, qi: QpIdx, si: SrqIdx, rnr_timer: u8) -> PktKind {
        let now = self.now();
        let dma_write = self.hcas[h].t.dma_write;
        let detect = Time::from_ns_f64(self.thread_hw(self.hcas[h].srqs[si].thread).srq_poll_detect_ns);
        let hca = &mut self.hcas[h];
        let s = &mut hca.srqs[si];
        let slot = s.qp_slot.get(qi).copied().unwrap_or(u32::MAX);
        s.stats.overflows += 1;
        if s.mode == SrqFlowControl::SrqLimit {
            return PktKind::RnrNak { timer: rnr_timer };
        }
        s.stats.stop_requests += 1;
        if slot != u32::MAX {
            s.table.record(slot);
        }
        if !s.notice_pending {
            s.notice_pending = true;
            let app = s.app;
            // The table entry lands by DMA; the polling process finds it on its next pass.
            self.app_at(now + dma_write + detect, app, AppEvent::SrqOverflow { hca: h, srq: si });
        }
        PktKind::SrqStop
    }

    /// A resume request leaves the receiving HCA.
    pub(crate) fn on_srq_resume_doorbell(&mut self, h: HcaId, qi: QpIdx) {
        self.hcas[h].control.push_back(Control { qp: qi, kind: PktKind::SrqResume, psn: 0 });
        self.hca_try_send(h);
    }

    /// Requester: stop request. Everything before `psn` arrived; hold the QP at `psn` until a
    /// resume request (no timer runs meanwhile).
    pub(crate) fn on_srq_stop(&mut self, h: HcaId, qi: QpIdx, psn: u32) {
        self.acknowledge(h, qi, psn);
        let qp = &mut self.hcas[h].qps[qi];
        qp.paused_until = Time::MAX;
        qp.timer_deadline = Time::MAX;
        self.go_back(h, qi, psn);
    }

    /// Requester: resume request. The HCA keeps no copy of sent payload, so it re-reads the
    /// WQE (and non-inline payload) by DMA before retransmitting from the stopped PSN.
    pub(crate) fn on_srq_resume(&mut self, h: HcaId, qi: QpIdx) {
        let now = self.now();
        let hca = &mut self.hcas[h];
        let t = hca.t;
        let qp = &mut hca.qps[qi];
        if qp.paused_until != Time::MAX {
            return; // not stopped (a duplicate resume)
        }
        let mut refetch = t.wqe_fetch;
        if let Some(w) = qp.sq.get(qp.tx_wqe) {
            if !w.wr.inline && w.wr.op != WrOp::Read && w.wr.len > 0 {
                refetch += t.dma_read;
            }
        }
        qp.paused_until = now + refetch;
        self.activate(h, qi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_records_each_source_once_and_drains_in_order() {
        let mut t = RetransmissionTable::new(4, 3);
        assert!(t.record(t.slot(2, 1)));
        assert!(!t.record(t.slot(2, 1)));
        assert!(t.record(t.slot(0, 0)));
        assert_eq!(t.len(), 2);
        let mut out = vec![];
        t.drain(&mut out);
        assert_eq!(out, vec![0, 7]);
        assert!(t.is_empty());
    }

    #[test]
    fn table_size_is_one_bit_per_process() {
        // 4096 nodes x 256 processes = 1 Mi bits = 128 KiB; the study's 32K x 256 = 1 MiB.
        assert_eq!(RetransmissionTable::size_bytes(4096, 256), 128 * 1024);
        assert_eq!(RetransmissionTable::size_bytes(32 * 1024, 256), 1024 * 1024);
    }
}
