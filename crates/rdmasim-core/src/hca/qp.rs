//! Queue pairs: the send queue as the requester sees it, the receive queue and the responder's
//! expected-PSN state, and the QP attributes of `ibv_modify_qp`.
use super::cq::WcStatus;
use crate::ids::{AppId, CqId, HcaId, SrqIdx, ThreadId};
use crate::engine::Time;
use std::collections::VecDeque;

/// Verbs a send work request can carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrOp {
    Send,
    SendImm,
    Write,
    WriteImm,
    Read,
}

impl WrOp {
    /// The opcode of the requester's completion for this verb.
    pub fn wc_opcode(self) -> super::cq::WcOpcode {
        use super::cq::WcOpcode;
        match self {
            WrOp::Send | WrOp::SendImm => WcOpcode::Send,
            WrOp::Write | WrOp::WriteImm => WcOpcode::RdmaWrite,
            WrOp::Read => WcOpcode::RdmaRead,
        }
    }
}

/// A send work request, as posted.
#[derive(Clone, Copy, Debug)]
pub struct WorkRequest {
    pub wr_id: u64,
    pub op: WrOp,
    pub len: u32,
    pub inline: bool,
    pub signaled: bool,
    pub remote_va: u64,
}

/// A posted send WQE with its transport state.
#[derive(Clone, Copy, Debug)]
pub struct SendWqe {
    pub wr: WorkRequest,
    /// First PSN of the message; READ: of its response packets.
    pub first_psn: u32,
    /// Packets of the message (READ: response packets; the request itself is one packet).
    pub npkts: u32,
    /// When the NIC can start transmitting it (doorbell, WQE and payload fetch, pipeline).
    pub ready_at: Time,
    /// DMA fetch (WQE, payload) still to start when the send scheduler first serves this WQE
    /// (profile `wqe_fetch_on_schedule`); zero once started, or when fetched at the doorbell.
    pub fetch: Time,
    /// READ: response packets received in order so far.
    pub read_rcvd: u32,
    pub done: bool,
}

impl SendWqe {
    pub fn end_psn(&self) -> u32 {
        self.first_psn + self.npkts
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QpState {
    Rts,
    Error,
}

/// Attributes set by `ibv_modify_qp` (RTR/RTS).
#[derive(Clone, Copy, Debug)]
pub struct QpAttr {
    pub timeout: u8,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub min_rnr_timer: u8,
    pub max_rd_atomic: u32,
    pub mtu: u32,
    /// Service level of the QP's path (ibv_ah_attr.sl), 0..=15.
    pub sl: u8,
}

/// A pending READ response the responder streams back.
#[derive(Clone, Copy, Debug)]
pub struct ReadResponse {
    pub first_psn: u32,
    pub npkts: u32,
    /// Next packet index to send.
    pub next: u32,
    pub len: u32,
    pub ready_at: Time,
    /// The MSN its responses carry: the responder's count with this READ included (rxe
    /// increments it when it executes the READ, C9-148), not the count when a response leaves,
    /// which later pipelined READs have already raised.
    pub msn: u32,
}

#[derive(Clone, Copy, Debug)]
pub struct RecvWqe {
    pub wr_id: u64,
    pub len: u32,
}

pub struct Qp {
    pub num: u32,
    pub hca: HcaId,
    pub peer_lid: u16,
    pub peer_qp: u32,
    pub attr: QpAttr,
    /// The data VL its packets leave on (the HCA port's SL2VL of `attr.sl`).
    pub vl: u8,
    pub state: QpState,
    /// Owning application (completions go through `cq`).
    pub app: AppId,
    /// The app polls memory for this QP's incoming WRITEs (HERD's request region,
    /// ib_write_lat's last byte), so it is told when one is written (`AppEvent::MemoryWritten`);
    /// other apps are not: the event would be one per message that does nothing.
    pub watch_writes: bool,
    /// Completion channel its CQEs go to, and the thread that posts and polls for it
    /// (default: the app's channel and the host's main thread).
    pub cq: CqId,
    pub thread: ThreadId,

    // ---- requester ----
    /// Posted, not yet completed WQEs, in order.
    pub sq: VecDeque<SendWqe>,
    /// PSN assigned to the next posted WQE.
    pub next_psn: u32,
    /// Oldest unacknowledged PSN.
    pub snd_una: u32,
    /// Next PSN to transmit (go-back-N rewinds it).
    pub snd_nxt: u32,
    /// Highest PSN ever transmitted + 1 (a packet below it is a retransmission).
    pub high_psn: u32,
    /// Index into `sq` of the WQE holding `snd_nxt` (may equal sq.len()).
    pub tx_wqe: usize,
    /// READs outstanding (request sent, responses not all in).
    pub reads_outstanding: u32,
    /// Transport retries used since the last forward progress.
    pub retries: u8,
    pub rnr_retries: u8,
    /// Local ACK timer deadline (Time::MAX = disarmed).
    pub timer_deadline: Time,
    /// Time of the earliest AckTimer event in the queue for this QP (Time::MAX = none). The
    /// timer is lazy: restarting it moves the deadline without scheduling another event.
    pub timer_event_at: Time,
    /// An implied NAK / sequence NAK already rewound to this PSN (suppresses repeats).
    pub rewound_to: Option<u32>,
    /// No transmission before this time (RNR wait).
    pub paused_until: Time,
    /// Bytes sent in this scheduler turn: of the current WQE's payload (chunk arbitration), or
    /// on the wire across WQEs (quantum arbitration).
    pub turn_bytes: u32,

    // ---- responder ----
    pub epsn: u32,
    pub msn: u32,
    pub nak_outstanding: bool,
    pub rnr_outstanding: bool,
    pub rq: VecDeque<RecvWqe>,
    /// Shared receive queue (index in the HCA's `srqs`) replacing `rq`, if attached.
    pub srq: Option<SrqIdx>,
    /// Receive WQE of the SEND in progress.
    pub cur_recv: Option<RecvWqe>,
    pub cur_recv_bytes: u32,
    pub read_resps: VecDeque<ReadResponse>,
    /// Pending coalesced ACK (index in the HCA's control queue is not kept: a flag suffices).
    pub ack_pending: bool,
    /// The PSN the pending ACK acknowledges, fixed when it is generated or coalesced (rxe
    /// `send_ack(qp, syndrome, psn)`), not read at transmit time: a READ accepted while the ACK
    /// waits for the port must not be covered before its responses are sent.
    pub ack_psn: u32,
    /// The MSN that ACK carries, fixed with its PSN.
    pub ack_msn: u32,
    /// An ACK is owed once the pending READ responses are out: responses and ACKs share the
    /// PSN order, and an ACK overtaking a READ's responses would read as an implied NAK.
    pub ack_after_reads: bool,
    /// A NAK (sequence error, RNR, ODP-fault RNR or SRQ stop) owed once the pending READ responses are out:
    /// it carries a later PSN, so sent ahead of them it would acknowledge the READs they
    /// complete (see `World::queue_nak`).
    pub nak_after_reads: Option<super::Control>,
    /// RETH DMA length of the WRITE in progress (only its first packet carries it).
    pub cur_write_len: u32,
    /// Payload bytes accepted in sequence (responder: SEND/WRITE; requester: READ responses).
    pub rx_bytes: u64,
    /// Messages completed by this QP as responder.
    pub rx_msgs: u64,
}

impl Qp {
    pub fn new(num: u32, hca: HcaId, peer_lid: u16, peer_qp: u32, attr: QpAttr, app: AppId, thread: ThreadId) -> Qp {
        Qp {
            num,
            hca,
            peer_lid,
            peer_qp,
            attr,
            vl: crate::fabric::sl2vl::vl_of(attr.sl),
            state: QpState::Rts,
            app,
            watch_writes: false,
            // The app's completion channel, which sim.rs makes at the app's index, until
            // bind_qp names another.
            cq: CqId(app.0),
            thread,
            sq: VecDeque::new(),
            next_psn: 0,
            snd_una: 0,
            snd_nxt: 0,
            high_psn: 0,
            tx_wqe: 0,
            reads_outstanding: 0,
            retries: 0,
            rnr_retries: 0,
            timer_deadline: Time::MAX,
            timer_event_at: Time::MAX,
            rewound_to: None,
            paused_until: Time::ZERO,
            turn_bytes: 0,
            epsn: 0,
            msn: 0,
            nak_outstanding: false,
            rnr_outstanding: false,
            rq: VecDeque::new(),
            srq: None,
            cur_recv: None,
            cur_recv_bytes: 0,
            read_resps: VecDeque::new(),
            ack_pending: false,
            ack_psn: 0,
            ack_msn: 0,
            ack_after_reads: false,
            nak_after_reads: None,
            cur_write_len: 0,
            rx_bytes: 0,
            rx_msgs: 0,
        }
    }

    /// Packets a message of `len` bytes takes at this QP's MTU (a zero-byte message takes one).
    pub fn packets_for(&self, len: u32) -> u32 {
        len.div_ceil(self.attr.mtu).max(1)
    }

    /// Points the pending ACK at everything received in sequence so far (its PSN and MSN are
    /// fixed here, not when it leaves). Only while no READ response waits: those go first.
    pub fn ack_received_so_far(&mut self) {
        self.ack_psn = self.epsn.wrapping_sub(1);
        self.ack_msn = self.msn;
    }

    /// Index in `sq` of the WQE containing PSN `psn` (sq.len() when none).
    pub fn wqe_index_of(&self, psn: u32) -> usize {
        self.sq.iter().position(|w| psn < w.end_psn()).unwrap_or(self.sq.len())
    }
}

/// Status of a WQE ended by an error, for flushing.
pub fn flush_status(first: bool, cause: WcStatus) -> WcStatus {
    if first { cause } else { WcStatus::WrFlushErr }
}

/// A QP as a verb names it: its HCA and its QP number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpRef {
    pub hca: HcaId,
    pub qpn: u32,
}

impl QpRef {
    pub fn index(self) -> crate::ids::QpIdx {
        crate::ids::QpIdx(self.qpn - crate::hca::QPN_BASE)
    }
}
