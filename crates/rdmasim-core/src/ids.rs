//! Typed ids for every arena index, so a channel index cannot be passed where a switch index
//! is meant. Each is a `u32` newtype (the arenas stay below 2^32 entries, and a `u32` keeps the
//! 12-byte events of world/mod.rs small); arenas of them are `typed_index_collections::TiVec`s,
//! indexed by the id directly, with no conversion at each use. An id serializes as its number
//! (result tables name hosts, channels and NICs by it).
//!
//! A QP has two names: its place in its HCA's QP arena (`QpIdx`) and its QP number on the wire
//! (a plain `u32` as BTH.DestQP carries it, from `QPN_BASE` up); `Hca::qp_index` and
//! `QpRef::index` convert one to the other.
use std::fmt;

macro_rules! typed_id {
    ($( $(#[doc = $doc:literal])* $name:ident ),* $(,)?) => {$(
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            #[inline]
            pub const fn idx(self) -> usize {
                self.0 as usize
            }
        }
        impl From<usize> for $name {
            #[inline]
            fn from(i: usize) -> Self {
                debug_assert!(i <= u32::MAX as usize, concat!(stringify!($name), " out of range"));
                $name(i as u32)
            }
        }
        impl From<$name> for usize {
            #[inline]
            fn from(id: $name) -> usize {
                id.0 as usize
            }
        }
        impl crate::engine::SlotId for $name {
            #[inline]
            fn from_slot(slot: u32) -> Self {
                $name(slot)
            }
            #[inline]
            fn slot(self) -> u32 {
                self.0
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    )*};
}

typed_id! {
    /// A host: CPU threads and 1..N HCAs.
    HostId,
    /// An HCA in the packet engine (one transport engine with its QPs, SRQs and memory).
    HcaId,
    /// A port of any node (HCA or switch): the same index in the fabric graph and in the packet
    /// engine's counter arena.
    PortId,
    /// One direction of a link in the packet engine.
    ChannelId,
    /// A switch in the packet engine.
    SwitchId,
    /// A CPU thread (one core).
    ThreadId,
    /// A node of the fabric graph: a switch or an HCA.
    NodeId,
    /// A link (cable) of the fabric graph.
    LinkId,
    /// A QP's index in its HCA's QP arena.
    QpIdx,
    /// A flow of the flow-level engine (flow/), in the order the scenario lists them.
    FlowId,
    /// A NIC (one Ethernet port of an E1000) in PM's Ethernet world (ether/).
    EthNicId,
    /// A switch in PM's Ethernet world.
    EthSwitchId,
    /// A PM channel: one direction between two hosts, with its own sequence numbers (ether/pm.rs).
    PmChannelId,
    /// A frame in flight in PM's Ethernet world: its slot in the frame store (ether/frame.rs).
    FrameId,
    /// A packet in flight: its slot in the packet store (wire/in_flight.rs `Packets`).
    PacketId,
    /// A completion on its way to host memory: its slot in `World::cqes`.
    CqeSlot,
    /// An application event waiting for its time: its slot in `World::app_events`.
    AppEventSlot,
    /// An ODP page fault the driver is servicing: its slot in its HCA's fault store (hca/mr.rs).
    OdpFaultSlot,
    /// A completion channel: the CQ(s) one application polls or waits on (host/ `Poller`), and
    /// the QPs bound to it.
    CqId,
    /// An application (a workload) of the packet engine, in the order sim.rs makes them.
    AppId,
    /// A shared receive queue's place in its HCA's SRQ arena (hca/srq.rs).
    SrqIdx,
}

pub use typed_index_collections::{TiSlice, TiVec};
