//! The simulated world: every component in its arena, the event queue, and the event enum.
//! Component logic lives in `impl World` blocks next to the component (fabric/forward.rs,
//! hca/nic.rs, hca/requester.rs, hca/responder.rs); workloads live outside the world and act on
//! it through the verbs in hca/verbs.rs.
use crate::engine::{EventQueue, Time};
use crate::fabric::channel::Channel;
use crate::fabric::port::Port;
use crate::fabric::switch::Switch;
use crate::hca::cq::Cqe;
use crate::hca::packet::{PacketId, Packets};
use crate::hca::profile::HwProfile;
use crate::hca::Hca;
use crate::host::{CpuThread, Host};
use crate::report::capture::Capture;

/// Something a workload is told about.
#[derive(Clone, Copy, Debug)]
pub enum AppEvent {
    Start,
    /// A completion the application has polled (after busy polling or an event wake-up).
    Completion(Cqe),
    /// The last byte of an RDMA WRITE became visible in memory at this QP (memory polling).
    MemoryWritten { hca: u32, qp: u32, len: u32 },
    Timer(u64),
    /// SRQ_LIMIT_REACHED, returned by ibv_get_async_event to the thread blocked in it.
    SrqLimitReached { hca: u32, srq: u32 },
    /// Stop/resume flow control: the polling receiver found new retransmission-table entries.
    SrqOverflow { hca: u32, srq: u32 },
}

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A channel finished serialising a packet and may send the next.
    TxDone { ch: u32 },
    /// A packet reaches the far end of a channel (tail for an HCA, head for a switch).
    Arrive { ch: u32, pkt: PacketId },
    /// Credits came back to a channel's sender that was waiting for them (fabric/forward.rs).
    CreditWake { ch: u32 },
    /// A switch output's head packet became ready.
    SwitchKick { ch: u32 },
    /// The HCA's send engine may have work now.
    HcaKick { hca: u32 },
    /// A received packet leaves the HCA's receive pipeline.
    HcaRx { hca: u32, pkt: PacketId },
    /// A QP's local ACK timer (lazy: it re-checks the QP's deadline).
    AckTimer { hca: u32, qp: u32 },
    /// A CQE becomes visible in host memory; it goes to its QP's completion channel and thread.
    CqeVisible { cqe: Cqe },
    /// A resume request posted by a receiving process reaches its HCA's send engine.
    SrqResumeDoorbell { hca: u32, qp: u32 },
    /// Event mode: the thread waiting on completion channel `cq` wakes up and polls it.
    CqWake { cq: u32 },
    /// The driver finished servicing an ODP page fault (hca/mr.rs).
    OdpFault { hca: u32, fault: u32 },
    /// Deliver an event to a workload.
    App { app: u32, ev: AppEvent },
}

pub struct World {
    pub q: EventQueue<Event>,
    pub profile: HwProfile,
    pub seed: u64,
    pub packets: Packets,
    pub channels: Vec<Channel>,
    pub switches: Vec<Switch>,
    pub ports: Vec<Port>,
    pub hcas: Vec<Hca>,
    pub hosts: Vec<Host>,
    /// Application threads; thread h < hosts.len() is host h's main thread.
    pub threads: Vec<CpuThread>,
    pub capture: Option<Capture>,
    /// Packet transmissions on any channel (a packet crossing a switch counts twice).
    pub packet_hops: u64,
}

impl World {
    #[inline]
    pub fn now(&self) -> Time {
        self.q.now()
    }
}
