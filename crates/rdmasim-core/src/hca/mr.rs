//! Memory regions and On-Demand Paging (ODP).
//!
//! A memory region (MR) is pinned (every page present in the NIC's page table from
//! registration, paid for page by page) or ODP (explicit: a range; implicit: the whole address
//! space, modelled over the range the workload touches). An ODP region starts with no page
//! present; a NIC access to a non-present 4 KiB page is a page fault, serviced in
//! `odp_fault_us` (NIC fault event → driver → OS page lookup → NIC page-table update → QP
//! resume, one [`Event::OdpFault`]). The transport sees a fault in two places, as the captures
//! of seeds/000 show:
//! - responder (server-side ODP): a READ or WRITE touching a non-present page draws an RNR NAK
//!   and starts the fault; the requester retries after the RNR wait;
//! - requester (client-side ODP): a READ response landing on a non-present page is dropped, the
//!   fault is serviced, and the requester re-requests `odp_requester_retry_us` later.
//!
//! Two pitfall switches of the profile act here and in `retx_wait.rs`: `odp_damming` (what
//! happens to requests posted during a retransmission wait) and `odp_flood` (whether page state
//! resolved by one QP's fault reaches the other QPs). docs/odp.md explains both.
use crate::engine::Time;
use crate::ids::{HcaId, OdpFaultSlot, QpIdx, TiVec};
use crate::engine::Slab;
use crate::wire::in_flight::{Packet, PktKind};
use crate::hca::qp::WrOp;
use crate::hca::Control;
use crate::world::{Event, World};
use serde::Serialize;
use std::collections::VecDeque;

pub use super::mr_mode::{MrMode, PAGE};

/// A registered region with the NIC's page table for it.
pub struct MemoryRegion {
    pub base: u64,
    pub len: u64,
    pub mode: MrMode,
    /// Present bit per page.
    pub present: Vec<bool>,
    /// A fault for the page is being serviced (so the page is counted once).
    pub faulting: Vec<bool>,
    /// When the fault in service for the page completes.
    pub fault_done: Vec<Time>,
}

impl MemoryRegion {
    /// Page indexes of [va, va+len) if the range lies inside the region.
    pub(crate) fn pages(&self, va: u64, len: u64) -> Option<std::ops::Range<usize>> {
        let end = va.checked_add(len.max(1))?;
        if va < self.base || end > self.base.saturating_add(self.len) {
            return None;
        }
        Some(((va - self.base) / PAGE) as usize..((end - 1 - self.base) / PAGE) as usize + 1)
    }
}

/// A requester QP's retransmission wait (RNR wait, or a requester page fault).
#[derive(Clone, Copy, Debug)]
pub struct RetxWait {
    /// PSN the retransmission starts from.
    pub from: u32,
    /// High PSN when the wait began: what a dammed retransmission replays up to.
    pub upto: u32,
    /// End of the wait; Time::MAX while a page fault is being serviced.
    pub until: Time,
    /// Damming: requests posted meanwhile leave at once and are not replayed.
    pub dam: bool,
    /// A requester page fault: every response arriving meanwhile is dropped.
    pub fault: bool,
}

/// ODP and retransmission-wait state of one QP (index = QP index).
#[derive(Default)]
pub struct QpOdp {
    pub wait: Option<RetxWait>,
    /// After a dammed wait: once the replay reaches this PSN, resume at the high PSN (requests
    /// sent during the wait are believed to be in flight).
    pub replay_upto: Option<u32>,
    /// Local (destination) address of each posted READ, by first PSN.
    pub local: VecDeque<(u32, u64)>,
    /// Flood: pages (MR, page) this QP saw absent and has not itself seen resolved. A short
    /// list (the pages it stalled on since its last timeout), so it costs nothing per page of
    /// the region whatever the region's size and the number of QPs.
    pub stale: Vec<(u32, u32)>,
    /// Generation of this QP's current requester fault; a local ACK timeout moves it on, so a
    /// fault serviced after the QP gave up on it does not resume the QP.
    pub fault_gen: u32,
}

/// ODP counters of one HCA (a model diagnostic; mlx5 exposes page faults per MR through
/// `rdma statistic mr` as page_faults / page_invalidations).
#[derive(Clone, Debug, Default, Serialize)]
pub struct OdpStats {
    /// Pages brought into the NIC page table by a requester-side fault.
    pub requester_page_faults: u64,
    /// Pages brought in by a responder-side fault.
    pub responder_page_faults: u64,
    /// Fault events the driver serviced for a requester QP (including stale ones).
    pub requester_fault_events: u64,
    /// Requester faults whose page another QP had already brought in (flood).
    pub stale_faults: u64,
    /// READ responses dropped on a non-present page or while the QP was stalled on a fault.
    pub dropped_responses: u64,
    /// RNR NAKs sent because a request touched a non-present page.
    pub fault_rnr_naks: u64,
    pub prefetched_pages: u64,
    pub invalidated_pages: u64,
    /// Host time spent registering MRs, µs.
    pub registration_us: f64,
}

/// A fault the driver is servicing.
#[derive(Clone, Copy, Debug)]
pub enum PendingFault {
    /// For a requester QP's READ response landing on pages [first, first + n) of region `mr`.
    Requester { qp: QpIdx, gen: u32, mr: u32, first: u32, n: u32 },
    /// For a responder access to one page.
    Responder { mr: u32, page: u32 },
}

#[derive(Default)]
pub struct Odp {
    pub mrs: Vec<MemoryRegion>,
    pub qps: TiVec<QpIdx, QpOdp>,
    pub stats: OdpStats,
    /// The faults the driver is servicing (`Event::OdpFault` names one).
    pub faults: Slab<PendingFault, OdpFaultSlot>,
    /// Busy-until time of each driver fault-service context.
    workers: Vec<Time>,
}

impl Odp {
    pub(crate) fn qp(&mut self, qi: QpIdx) -> &mut QpOdp {
        if self.qps.len() <= qi.idx() {
            self.qps.resize_with(qi.idx() + 1, QpOdp::default);
        }
        &mut self.qps[qi]
    }

    fn mr_of(&self, va: u64, len: u64) -> Option<(u32, std::ops::Range<usize>)> {
        self.mrs.iter().enumerate().find_map(|(i, m)| m.pages(va, len).map(|r| (i as u32, r)))
    }

    /// When a fault raised now is serviced: by the first free of `workers` driver contexts
    /// (0 = unlimited, every fault in parallel), each busy for `service`.
    fn fault_done_at(&mut self, now: Time, service: Time, workers: u32) -> Time {
        if workers == 0 {
            return now + service;
        }
        if self.workers.len() != workers as usize {
            self.workers = vec![Time::ZERO; workers as usize];
        }
        let w = (0..self.workers.len()).min_by_key(|&i| self.workers[i]).unwrap_or(0);
        let done = self.workers[w].max(now) + service;
        self.workers[w] = done;
        done
    }

}

impl World {
    /// Fault service time and the driver's concurrent fault contexts, from the profile.
    fn fault_service(&self, h: HcaId) -> (Time, u32) {
        let hw = self.nic_hw(h);
        (Time::from_ns_f64(hw.odp_fault_us * 1e3), hw.odp_fault_workers)
    }

    /// Responder side: true when an in-sequence READ request or first WRITE packet touches a
    /// non-present page. The request is dropped, an RNR NAK answers it, and the fault starts.
    pub(crate) fn odp_responder_blocks(&mut self, h: HcaId, qi: QpIdx, pkt: &Packet) -> bool {
        let is_access = pkt.kind == PktKind::ReadReq || matches!(pkt.kind, PktKind::Write { first: true, .. });
        // Checked before anything else: this runs on every request packet.
        if !is_access || self.hcas[h].odp.mrs.is_empty() {
            return false;
        }
        let now = self.now();
        let (fault, workers) = self.fault_service(h);
        let hca = &mut self.hcas[h];
        let Some((mr, pages)) = hca.odp.mr_of(pkt.remote_va, pkt.dma_len as u64) else { return false };
        if pages.clone().all(|p| hca.odp.mrs[mr as usize].present[p]) {
            return false;
        }
        for p in pages {
            let m = &mut hca.odp.mrs[mr as usize];
            if !m.present[p] && !m.faulting[p] {
                m.faulting[p] = true;
                hca.odp.stats.responder_page_faults += 1;
                let f = hca.odp.faults.alloc(PendingFault::Responder { mr, page: p as u32 });
                let at = hca.odp.fault_done_at(now, fault, workers);
                hca.odp.mrs[mr as usize].fault_done[p] = at;
                self.q.at(at, Event::OdpFault { hca: h, fault: f });
            }
        }
        let hca = &mut self.hcas[h];
        hca.odp.stats.fault_rnr_naks += 1;
        // Every in-sequence attempt (the first and each retry) draws its own RNR NAK; packets
        // beyond it are dropped silently while rnr_outstanding (responder.rs).
        let qp = &mut hca.qps[qi];
        qp.rnr_outstanding = true;
        let (psn, timer) = (qp.epsn, qp.attr.min_rnr_timer);
        // In PSN order behind earlier READs' responses, or it would acknowledge them.
        self.queue_nak(h, Control { qp: qi, kind: PktKind::RnrNak { timer }, psn });
        true
    }


    /// Requester side: true when a READ response must be dropped: the QP is stalled on a page
    /// fault, or the response's destination page is not present (as this QP sees it), which
    /// starts a fault and a retransmission wait.
    pub(crate) fn odp_requester_drops(&mut self, h: HcaId, qi: QpIdx, pkt: &Packet) -> bool {
        // Checked before anything else: this runs on every response packet.
        if self.hcas[h].odp.mrs.is_empty() || qi.idx() >= self.hcas[h].odp.qps.len() {
            return false;
        }
        let now = self.now();
        let flood = self.nic_hw(h).odp_flood;
        let (fault, workers) = self.fault_service(h);
        let hca = &mut self.hcas[h];
        if hca.odp.qps[qi].wait.is_some_and(|w| w.fault) {
            hca.odp.stats.dropped_responses += 1;
            return true;
        }
        let qp = &hca.qps[qi];
        let Some(ri) = qp.sq.iter().position(|w| w.wr.op == WrOp::Read && !w.done) else { return false };
        let w = qp.sq[ri];
        let expected = w.first_psn + w.read_rcvd;
        if pkt.psn != expected || ri >= qp.tx_wqe {
            return false; // duplicates and gaps are the transport's business
        }
        let offset = w.read_rcvd as u64 * qp.attr.mtu as u64;
        let q = &mut hca.odp.qps[qi];
        while q.local.front().is_some_and(|&(psn, _)| psn < w.first_psn) {
            q.local.pop_front();
        }
        let Some(&(_, local)) = q.local.iter().find(|&&(psn, _)| psn == w.first_psn) else { return false };
        let Some((mr, pages)) = hca.odp.mr_of(local + offset, pkt.payload as u64) else { return false };
        let odp = &mut hca.odp;
        let q = &odp.qps[qi];
        let visible = |p: usize, m: &MemoryRegion| m.present[p] && !(flood && q.stale.contains(&(mr, p as u32)));
        if pages.clone().all(|p| visible(p, &odp.mrs[mr as usize])) {
            return false;
        }
        // Drop the response and fault the pages in.
        odp.stats.dropped_responses += 1;
        odp.stats.requester_fault_events += 1;
        let mut new_pages = false;
        let mut joined = Time::ZERO;
        let q = &mut odp.qps[qi];
        let m = &mut odp.mrs[mr as usize];
        for p in pages.clone() {
            let is_stale = q.stale.contains(&(mr, p as u32));
            if m.present[p] && !(flood && is_stale) {
                continue;
            }
            if flood && !is_stale {
                q.stale.push((mr, p as u32));
            }
            if !m.present[p] && !m.faulting[p] {
                m.faulting[p] = true;
                new_pages = true;
                odp.stats.requester_page_faults += 1;
            } else if m.faulting[p] {
                joined = joined.max(m.fault_done[p]);
            }
        }
        q.fault_gen = q.fault_gen.wrapping_add(1);
        let gen = q.fault_gen;
        let (first, n) = (pages.start as u32, pages.len() as u32);
        // With one shared page table (no flood) a QP whose pages are already being faulted in
        // waits for that fault; otherwise its fault event queues at the driver like any other.
        let at = if !flood && !new_pages && joined > Time::ZERO { joined.max(now) } else { odp.fault_done_at(now, fault, workers) };
        if new_pages {
            let m = &mut odp.mrs[mr as usize];
            for p in pages {
                if m.faulting[p] && !m.present[p] && m.fault_done[p] < at {
                    m.fault_done[p] = at;
                }
            }
        }
        let f = odp.faults.alloc(PendingFault::Requester { qp: qi, gen, mr, first, n });
        self.q.at(at, Event::OdpFault { hca: h, fault: f });
        self.begin_retx_wait(h, qi, expected, Time::MAX, true);
        true
    }

    /// The driver finished servicing a fault: the NIC page table is updated; a requester QP
    /// resumes `odp_requester_retry_us` later. Under `odp_flood`, a page another QP's fault
    /// already brought in is not made visible to this QP (its stale state stays).
    pub(crate) fn on_odp_fault(&mut self, h: HcaId, fault: OdpFaultSlot) {
        let now = self.now();
        let retry = Time::from_ns_f64(self.nic_hw(h).odp_requester_retry_us * 1e3);
        let odp = &mut self.hcas[h].odp;
        let f = odp.faults.take(fault);
        match f {
            PendingFault::Responder { mr, page } => {
                let m = &mut odp.mrs[mr as usize];
                m.present[page as usize] = true;
                m.faulting[page as usize] = false;
            }
            PendingFault::Requester { qp, gen, mr, first, n } => {
                // The driver maps the pages whether or not the QP still waits for them (a QP
                // that timed out meanwhile has moved its generation on).
                let current = odp.qps[qp].fault_gen == gen;
                let q = &mut odp.qps[qp];
                let m = &mut odp.mrs[mr as usize];
                let mut stale = false;
                for p in first..first + n {
                    let was_stale = q.stale.iter().position(|&e| e == (mr, p));
                    if !m.present[p as usize] {
                        m.present[p as usize] = true;
                        m.faulting[p as usize] = false;
                        if let (true, Some(i)) = (current, was_stale) {
                            q.stale.swap_remove(i); // its own fault brought the page in
                        }
                    } else if current && was_stale.is_some() {
                        stale = true; // brought in by another QP: this QP does not learn it
                    }
                }
                if !current {
                    return;
                }
                if stale {
                    odp.stats.stale_faults += 1;
                }
                if let Some(w) = q.wait.as_mut().filter(|w| w.fault && w.until == Time::MAX) {
                    w.until = now + retry;
                    self.activate(h, qp);
                }
            }
        }
    }

    /// The local ACK timer fired: the QP retransmits from scratch. A pending fault wait is
    /// abandoned, and (flood) the QP's context reload refreshes its page state (assumption:
    /// the study only says the stale state lasts "a long time"; the timeout is the one event
    /// that reloads the whole QP context).
    pub(crate) fn odp_on_ack_timeout(&mut self, h: HcaId, qi: QpIdx) {
        let odp = &mut self.hcas[h].odp;
        let Some(q) = odp.qps.get_mut(qi) else { return };
        q.wait = None;
        q.replay_upto = None;
        q.fault_gen = q.fault_gen.wrapping_add(1);
        q.stale.clear();
    }
}
