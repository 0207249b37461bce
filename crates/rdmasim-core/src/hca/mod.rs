//! The host channel adapter: queue pairs and the RC transport (requester, responder), CQs,
//! the NIC's send engine and QP scheduler, hardware profiles (and the named hosts laid over
//! them) and counters.
pub mod counters;
pub mod cq;
pub mod mr;
pub mod mr_mode;
pub mod nic;
pub mod qp;
pub mod requester;
pub mod responder;
pub mod srq;
pub mod stall;
pub mod retx_wait;
pub mod send_sched;
pub mod rx_dma;
pub mod timers;
pub mod tx_staging;

use crate::engine::Time;
use crate::ids::{ChannelId, HcaId, HostId, QpIdx, SrqIdx, TiVec};
use counters::HcaCounters;
use crate::wire::in_flight::PacketId;
use crate::profile::{self, NicParams};
use qp::Qp;
use std::collections::VecDeque;

/// QP numbers start here on every HCA (numbers below are reserved: QP0/QP1 are special).
pub const QPN_BASE: u32 = 0x100;

/// A queued transport control packet (ACK / NAK / RNR NAK) of a responder QP.
#[derive(Clone, Copy, Debug)]
pub struct Control {
    pub qp: QpIdx,
    pub kind: crate::wire::in_flight::PktKind,
    /// NAK PSN (ACKs take the QP's latest expected PSN when sent: that is the coalescing).
    pub psn: u32,
}

/// The NIC part's times converted to picoseconds once.
#[derive(Clone, Copy, Debug)]
pub struct HcaTimes {
    pub doorbell: Time,
    pub wqe_fetch: Time,
    pub dma_read: Time,
    pub dma_write: Time,
    pub tx_pipeline: Time,
    pub tx_packet: Time,
    pub recv_wqe_fetch: Time,
    /// The local ACK timeout's vendor floor and adaptive base (hca/timers.rs).
    pub retransmit_floor: Time,
    pub adaptive_retrans_base: Time,
}

impl HcaTimes {
    pub fn from_nic(p: &NicParams) -> HcaTimes {
        HcaTimes {
            doorbell: Time::from_ns_f64(p.doorbell_ns),
            wqe_fetch: Time::from_ns_f64(p.wqe_fetch_ns),
            dma_read: Time::from_ns_f64(p.dma_read_ns),
            dma_write: Time::from_ns_f64(p.dma_write_ns),
            tx_pipeline: Time::from_ns_f64(p.tx_pipeline_ns),
            tx_packet: Time::from_ns_f64(p.tx_packet_ns),
            recv_wqe_fetch: Time::from_ns_f64(p.recv_wqe_fetch_ns),
            retransmit_floor: Time::from_ns_f64(p.retransmit_floor_ms * 1e6),
            adaptive_retrans_base: Time::from_ns_f64(p.adaptive_retrans_base_us.max(0.0) * 1e3),
        }
    }
}

pub struct Hca {
    pub id: HcaId,
    /// The host whose memory and CPU threads this HCA serves.
    pub host: HostId,
    /// Its profile in `World::profiles` (its host's).
    pub hw: u16,
    /// The NIC parameters the send path reads per packet, copied from that profile's NIC part.
    pub arbitration: profile::Arbitration,
    pub arbitration_chunk_bytes: u32,
    pub tx_staging_bytes: u32,
    pub lid: u16,
    /// Egress channel of the HCA's port.
    pub tx_ch: ChannelId,
    pub qps: TiVec<QpIdx, Qp>,
    pub srqs: TiVec<SrqIdx, srq::Srq>,
    pub counters: HcaCounters,
    pub control: VecDeque<Control>,
    /// QPs with (possibly) something to send, in service order (send_sched.rs).
    pub sched: send_sched::SendSched,
    /// The send engine is busy until then (per-packet occupancy).
    pub engine_free: Time,
    /// Time of the pending HcaKick (Time::MAX = none).
    pub kick_at: Time,
    pub rx_pipeline: Time,
    /// The receive buffer's drain into host memory (rx_dma.rs).
    pub rx_dma: rx_dma::RxDma,
    pub t: HcaTimes,
    /// The VLs its QPs use, a bit each, kept up to date as QPs are created (`note_vl`; some
    /// workloads connect QPs during the run).
    pub vl_mask: u8,
    /// Wire size of the largest packet at the profile's MTU: the send engine checks for that
    /// many credits before it chooses a QP (hca/nic.rs).
    pub max_packet_bytes: u32,
    /// Memory regions, NIC page tables and per-QP ODP / retransmission-wait state (mr.rs).
    pub odp: mr::Odp,
    /// Packets the send engine picked that wait for the port, oldest first, and their wire
    /// bytes (tx_staging.rs; always empty without `tx_staging_bytes`).
    pub staged: VecDeque<PacketId>,
    pub staged_bytes: u32,
    /// The send engine is busy picking into the staging buffer until then (in place of
    /// `engine_free`, which the port waits for without a buffer).
    pub staging_engine_free: Time,
}

impl Hca {
    /// An HCA with its host's NIC part `nic`, its port at the active MTU `mtu` (its host's link
    /// part).
    pub fn new(id: HcaId, host: HostId, hw: u16, lid: u16, tx_ch: ChannelId, nic: &NicParams, mtu: u32) -> Hca {
        Hca {
            id,
            host,
            hw,
            arbitration: nic.arbitration,
            arbitration_chunk_bytes: nic.arbitration_chunk_bytes,
            tx_staging_bytes: nic.tx_staging_bytes,
            lid,
            tx_ch,
            qps: TiVec::new(),
            srqs: TiVec::new(),
            counters: HcaCounters::default(),
            control: VecDeque::new(),
            sched: send_sched::SendSched::new(),
            engine_free: Time::ZERO,
            kick_at: Time::MAX,
            rx_pipeline: Time::from_ns_f64(nic.rx_pipeline_ns),
            rx_dma: rx_dma::RxDma::new(nic.rx_dma_drain, nic.pcie_link()),
            t: HcaTimes::from_nic(nic),
            vl_mask: 0,
            max_packet_bytes: nic::max_packet_bytes(mtu),
            odp: mr::Odp::default(),
            staged: VecDeque::new(),
            staged_bytes: 0,
            staging_engine_free: Time::ZERO,
        }
    }
    /// A QP of this HCA sends on `vl`.
    pub fn note_vl(&mut self, vl: u8) {
        self.vl_mask |= 1 << vl;
    }

    /// The VL its QPs send on when they all use one (VL 0 before it has a QP).
    #[inline]
    pub fn data_vl(&self) -> u8 {
        self.vl_mask.trailing_zeros() as u8 & 7
    }

    /// Its QPs use several VLs: the send engine checks each QP's VL for credits.
    #[inline]
    pub fn mixed_vls(&self) -> bool {
        self.vl_mask.count_ones() > 1
    }

    /// Brings into the cache what its send path (hca/nic.rs `hca_try_send`) reads first: a
    /// hint for the event loop (world/mod.rs `prefetch_ahead`). A k = 16 fat tree's 1024 HCAs do
    /// not stay in cache, and these were a miss each on every packet an HCA sent.
    #[inline(always)]
    pub(crate) fn prefetch_send_state(&self) {
        use crate::engine::prefetch_line;
        prefetch_line(&self.tx_staging_bytes);
        prefetch_line(&self.control);
        prefetch_line(&self.sched);
        prefetch_line(&self.engine_free);
        prefetch_line(&self.vl_mask);
    }

    /// After `prefetch_send_state`: the QP at the front of the send list, which the send
    /// path asks for its next packet.
    #[inline(always)]
    pub(crate) fn prefetch_front_qp(&self) {
        if let Some(qp) = self.sched.prefetch_front().and_then(|qi| self.qps.get(QpIdx(qi))) {
            crate::engine::prefetch_line(qp);
            crate::engine::prefetch_line(&qp.sq);
        }
    }

    /// No control packet queued and no QP listed for the send engine.
    #[inline]
    pub fn has_no_work(&self) -> bool {
        self.control.is_empty() && self.sched.is_empty() && self.staged.is_empty()
    }

    /// Index of a QP by number, if it exists.
    #[inline]
    pub fn qp_index(&self, qpn: u32) -> Option<QpIdx> {
        let i = qpn.checked_sub(QPN_BASE)?;
        ((i as usize) < self.qps.len()).then_some(QpIdx(i))
    }
}
