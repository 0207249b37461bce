//! The memory-region verbs: register a region (pinned or ODP), prefetch and invalidate ODP
//! ranges, and post a READ whose response lands in a region (hca/mr.rs models the faults).
use crate::engine::Time;
use crate::hca::mr::{MemoryRegion, MrMode, PAGE};
use crate::hca::qp::{QpRef, WorkRequest, WrOp};
use crate::ids::HcaId;
use crate::world::World;

impl World {
    /// `ibv_reg_mr`: registers [base, base+len) on an HCA; returns the MR index and the host
    /// time registration takes (pinned: a fixed part plus pinning every page; ODP: the fixed
    /// part only).
    pub fn reg_mr(&mut self, h: HcaId, base: u64, len: u64, mode: MrMode) -> (u32, Time) {
        let pages = len.div_ceil(PAGE).max(1) as usize;
        let pinned = mode == MrMode::Pinned;
        let hw = self.host_hw(self.hcas[h].host);
        let us = hw.mr_register_us + if pinned { pages as f64 * hw.mr_pin_page_us } else { 0.0 };
        let odp = &mut self.hcas[h].odp;
        odp.mrs.push(MemoryRegion { base, len: pages as u64 * PAGE, mode, present: vec![pinned; pages], faulting: vec![false; pages], fault_done: vec![Time::ZERO; pages] });
        odp.stats.registration_us += us;
        (odp.mrs.len() as u32 - 1, Time::from_ns_f64(us * 1e3))
    }

    /// `ibv_advise_mr(IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH)`: the driver
    /// faults the range in ahead of use. Synchronous: returns the time the caller waits (one
    /// fault service for the range plus mapping each page as a pinned registration would); the
    /// pages are present when it returns. An unknown region or a range outside it (the verb's
    /// EINVAL) does nothing and costs nothing.
    pub fn advise_mr_prefetch(&mut self, h: HcaId, mr: u32, va: u64, len: u64) -> Time {
        let per_page = self.host_hw(self.hcas[h].host).mr_pin_page_us;
        let f = self.nic_hw(h).odp_fault_us;
        let odp = &mut self.hcas[h].odp;
        let Some(m) = odp.mrs.get_mut(mr as usize) else { return Time::ZERO };
        let Some(r) = m.pages(va, len) else { return Time::ZERO };
        let n = r.len();
        for p in r {
            if !m.present[p] {
                m.present[p] = true;
                odp.stats.prefetched_pages += 1;
            }
        }
        Time::from_ns_f64((f + n as f64 * per_page) * 1e3)
    }

    /// An MMU-notifier invalidation (page reclaimed or migrated): the NIC forgets the range;
    /// the next access faults again. Returns the driver time it takes (nothing for an unknown
    /// region or a range outside it).
    pub fn invalidate_mr(&mut self, h: HcaId, mr: u32, va: u64, len: u64) -> Time {
        let us = self.nic_hw(h).odp_invalidate_us;
        let odp = &mut self.hcas[h].odp;
        let Some(m) = odp.mrs.get_mut(mr as usize) else { return Time::ZERO };
        if m.mode == MrMode::Pinned {
            return Time::ZERO; // pinned pages are never invalidated
        }
        let Some(r) = m.pages(va, len) else { return Time::ZERO };
        for p in r {
            if m.present[p] {
                m.present[p] = false;
                odp.stats.invalidated_pages += 1;
            }
        }
        Time::from_ns_f64(us * 1e3)
    }

    /// `ibv_post_send` of an RDMA READ whose response lands at `local_va` (checked against the
    /// requester's MRs for client-side faults).
    pub fn post_read(&mut self, qp: QpRef, wr: WorkRequest, local_va: u64) -> Time {
        debug_assert_eq!(wr.op, WrOp::Read);
        let psn = self.hcas[qp.hca].qps[qp.index()].next_psn;
        self.hcas[qp.hca].odp.qp(qp.index()).local.push_back((psn, local_va));
        self.post_send(qp, wr)
    }
}
