//! The simulated world: the fabric (`Net`, fabric/net.rs, which the world reaches through
//! fabric/attachment.rs), the NICs and hosts in their arenas, the event queue, and the event
//! enum. NIC logic lives in `impl World` blocks next to the component (hca/nic.rs,
//! hca/requester.rs, hca/responder.rs); workloads live outside the world and act on it through
//! the verbs in verbs/.
mod attach;
mod completions;

use crate::engine::{prefetch_line, EventQueue, Slab, Time};
use crate::ids::{AppEventSlot, AppId, ChannelId, CqId, CqeSlot, HcaId, HostId, OdpFaultSlot, QpIdx, SrqIdx, ThreadId, TiVec};
use crate::fabric::channel::NodeRef;
use crate::fabric::net::Net;
use crate::hca::cq::Cqe;
use crate::wire::in_flight::{PacketId, Packets};
use crate::profile::{HostParams, HwProfile, NicParams};
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
    MemoryWritten { hca: HcaId, qp: u32, len: u32 },
    Timer(u64),
    /// SRQ_LIMIT_REACHED, returned by ibv_get_async_event to the thread blocked in it.
    SrqLimitReached { hca: HcaId, srq: SrqIdx },
    /// Stop/resume flow control: the polling receiver found new retransmission-table entries.
    SrqOverflow { hca: HcaId, srq: SrqIdx },
}

/// An event in the queue. Kept to 12 bytes (a test checks): each is moved a few times per heap
/// operation, and a completion or an application event carried inline made every entry twice as
/// big; those payloads wait in the world's slabs (`cqes`, `app_events`) instead.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A channel finished serialising a packet and may send the next.
    TxDone { ch: ChannelId },
    /// A packet reaches the far end of a channel (tail for an HCA, head for a switch).
    Arrive { ch: ChannelId, pkt: PacketId },
    /// Credits came back to a channel's sender that was waiting for them (fabric/forward.rs).
    CreditWake { ch: ChannelId },
    /// A switch output's head packet became ready.
    SwitchKick { ch: ChannelId },
    /// The HCA's send engine may have work now.
    HcaKick { hca: HcaId },
    /// A received packet leaves the HCA's receive pipeline.
    HcaRx { hca: HcaId, pkt: PacketId },
    /// A QP's local ACK timer (lazy: it re-checks the QP's deadline).
    AckTimer { hca: HcaId, qp: QpIdx },
    /// A CQE (slot in `World::cqes`) becomes visible in host memory; it goes to its QP's
    /// completion channel and thread.
    CqeVisible { cqe: CqeSlot },
    /// A resume request posted by a receiving process reaches its HCA's send engine.
    SrqResumeDoorbell { hca: HcaId, qp: QpIdx },
    /// Event mode: the thread waiting on completion channel `cq` wakes up and polls it.
    CqWake { cq: CqId },
    /// The driver finished servicing an ODP page fault (hca/mr.rs).
    OdpFault { hca: HcaId, fault: OdpFaultSlot },
    /// Deliver an event (slot in `World::app_events`) to a workload.
    App { app: AppId, ev: AppEventSlot },
}

pub struct World {
    pub q: EventQueue<Event>,
    /// The profiles hosts and their HCAs use: 0 is the run's (`[hardware]`, `World::profile`),
    /// then one per `[[hardware.hosts]]` entry (profile/parts.rs).
    pub profiles: Vec<HwProfile>,
    pub seed: u64,
    pub packets: Packets,
    /// Completions on their way to host memory (`Event::CqeVisible`).
    pub cqes: Slab<Cqe, CqeSlot>,
    /// Application events waiting for their time (`Event::App`).
    pub app_events: Slab<AppEvent, AppEventSlot>,
    /// The fabric: channels, switches, ports and what they count (fabric/net.rs). The world
    /// reaches it through `fabric::attachment::Attachment` (world/attach.rs).
    pub net: Net,
    pub hcas: TiVec<HcaId, Hca>,
    /// How result tables name each host and each HCA (its host, its device, its port number).
    pub host_names: TiVec<HostId, String>,
    pub hca_labels: TiVec<HcaId, (String, String, u16)>,
    /// The HCA that owns each LID (by LID; None for a switch's LID or an unused one).
    pub lid_hca: Vec<Option<HcaId>>,
    /// The SL of each path when the routing assigns them (dfsssp's layers): a QP takes its
    /// path's, as an application takes the SL of the path record the SA answers with.
    pub path_sls: Option<std::sync::Arc<crate::fabric::routing::PathSls>>,
    pub hosts: TiVec<HostId, Host>,
    /// Application threads; thread h < hosts.len() is host h's main thread.
    pub threads: TiVec<ThreadId, CpuThread>,
    pub capture: Option<Capture>,
    /// Events that would do nothing are not scheduled (docs/model.md §1): an idle HCA's
    /// `TxDone`, an idle engine's kick, a WRITE's notice to an app that does not poll its
    /// memory. `false` schedules them all, as before; `tests/event_count.rs` checks that the
    /// results are the same either way.
    pub skip_idle_events: bool,
    /// The run loop must look after this event: an application handled it (it may be done),
    /// or a handler halted the run. One flag, so the loop checks one thing per event.
    pub attention: bool,
    /// Set by a handler that proved the run can never finish although events remain (an RNR
    /// livelock, hca/stall.rs; [`World::halt`]): the reason the run stops with, after that event.
    pub halt: Option<String>,
}

impl World {
    #[inline]
    pub fn now(&self) -> Time {
        self.q.now()
    }

    /// Stops the run after the current event, for `why`.
    pub(crate) fn halt(&mut self, why: String) {
        self.halt = Some(why);
        self.attention = true;
    }

    /// The run's profile (`[hardware]`): the switches' and, where a topology does not give
    /// its own, the links' parameters, and every host's unless `[[hardware.hosts]]` says.
    #[inline]
    pub fn profile(&self) -> &HwProfile {
        &self.profiles[0]
    }

    /// The hardware parameters of HCA `h`: the NIC part of its host's profile.
    #[inline]
    pub fn nic_hw(&self, h: HcaId) -> &NicParams {
        &self.profiles[self.hcas[h].hw as usize].nic
    }

    /// A new application thread on `host` (its own core); returns its id. Thread `h` for
    /// h < number of hosts is host h's main thread, created with the world.
    pub fn new_thread(&mut self, host: HostId) -> ThreadId {
        let tick = self.hosts[host].tick;
        self.threads.push_and_get_key(CpuThread { tick, ..CpuThread::new(host) })
    }

    /// The wake-up delay of `thread`'s core for an interrupt at `irq` (host/thread.rs), with its
    /// host's idle states.
    pub(crate) fn idle_exit_delay(&mut self, thread: ThreadId, irq: Time) -> Time {
        let states = self.thread_hw(thread).cpu_idle.states();
        crate::host::thread::idle_exit_delay(&mut self.threads, states, thread, irq)
    }

    /// The hardware parameters of the host thread `th` runs on: the host part of its host's
    /// profile.
    #[inline]
    pub fn thread_hw(&self, th: ThreadId) -> &HostParams {
        self.host_hw(self.threads[th].host)
    }

    /// The hardware parameters of `host`: the host part of its profile.
    #[inline]
    pub fn host_hw(&self, host: HostId) -> &HostParams {
        &self.profiles[self.hosts[host].hw as usize].host
    }

    /// The main thread of `host`: threads 0..hosts are the hosts' main threads, in host order.
    #[inline]
    pub fn host_thread(host: HostId) -> ThreadId {
        ThreadId(host.0)
    }

    /// The HCA of `host` on rail `rail` (its `rail`-th HCA), if it has one.
    pub fn hca_on_rail(&self, host: HostId, rail: usize) -> Option<HcaId> {
        self.hosts.get(host)?.hcas.get(rail).copied()
    }

    /// The first HCA of `host` (rail 0). Every host has at least one.
    #[inline]
    pub fn hca_of(&self, host: HostId) -> HcaId {
        self.hosts[host].hcas[0]
    }

    /// The main thread of the host that `hca` serves (thread h of host h: host/thread.rs).
    #[inline]
    pub fn main_thread(&self, hca: HcaId) -> ThreadId {
        World::host_thread(self.hcas[hca].host)
    }

    /// The VLs the QPs made so far send on, as a bit mask. Workloads that connect QPs during
    /// the run (MPI) give them all the scenario's `qp.sl`: one VL, whichever it is, keeps
    /// every switch output a single FIFO (fabric/switch_fifo.rs).
    pub(crate) fn vls_in_use(&self) -> u8 {
        self.hcas.iter().fold(0, |m, h| m | h.vl_mask)
    }

    /// Plans the switch outputs that decide departures as packets are queued
    /// (fabric/switch_fifo.rs), once the QPs exist and the faults are applied.
    pub(crate) fn plan_switch_outputs(&mut self) {
        let one_vl = self.vls_in_use().count_ones() <= 1;
        self.net.plan_switch_outputs(one_vl);
    }

    /// Tells application `app` about `ev` at `at`.
    #[inline]
    pub fn app_at(&mut self, at: Time, app: AppId, ev: AppEvent) {
        let slot = self.app_events.alloc(ev);
        self.q.at(at, Event::App { app, ev: slot });
    }

    /// Makes `cqe` visible in host memory at `at`.
    #[inline]
    pub(crate) fn cqe_at(&mut self, at: Time, cqe: Cqe) {
        let slot = self.cqes.alloc(cqe);
        self.q.at(at, Event::CqeVisible { cqe: slot });
    }
}

impl World {
    /// Brings into the cache what the handlers of the event about to run (`now`) and the next
    /// three will read, when the queue has them at hand (engine/queue.rs `ahead`: a large run's
    /// calendar). A k = 16 fat tree's channels, switch outputs and HCAs do not stay in cache,
    /// and each packet-hop's handler went from one miss to the next. Each stage reads only
    /// what the one before brought in, one event earlier:
    /// - the third event from now (`ahead(2)`) gets its channel's lines;
    /// - the second the head of its credit returns and its switch output (or its HCA's send
    ///   state);
    /// - the next one, when its output leads to a switch, the entry of that switch's
    ///   forwarding table its head packet will read there and the switch's output table;
    /// - the one about to run, the next switch's output and channel that entry names (or the
    ///   QP at the front of its HCA's send list).
    ///
    /// Asking for the next switch's lines here rather than in the handler (fabric/forward.rs
    /// `prefetch_next_hop`, which is then too late to hide much) moved about half of
    /// `switch_enqueue`'s stalls out of the run: 2 % less wall time on the fat-tree bench in
    /// interleaved runs. One stage deeper (four events) was slower. Hints only: nothing here
    /// changes what runs. A small run (the queue's heap) stays in cache and skips it all.
    #[inline(always)]
    pub(crate) fn prefetch_ahead(&self, now: &Event) {
        if !self.q.is_large() {
            return;
        }
        if let Event::TxDone { ch } | Event::SwitchKick { ch } | Event::CreditWake { ch } = *now {
            match self.net.channel(ch).from {
                NodeRef::Hca(h) => self.hcas[h].prefetch_front_qp(),
                NodeRef::Switch { sw, port } => {
                    if let Some(head) = self.net.switch(sw).outputs[port as usize].front(0) {
                        self.prefetch_next_output(ch, head.hop.dlid);
                    }
                }
            }
        }
        if let Some(&(Event::TxDone { ch } | Event::SwitchKick { ch } | Event::CreditWake { ch })) = self.q.ahead(2) {
            let c = &self.net.channel(ch);
            prefetch_line(c);
            prefetch_line(&c.returns);
            prefetch_line(&c.prop);
        }
        if let Some(&(Event::TxDone { ch } | Event::SwitchKick { ch } | Event::CreditWake { ch })) = self.q.ahead(1) {
            let c = &self.net.channel(ch);
            if let Some(r) = c.returns.front() {
                prefetch_line(r);
            }
            match c.from {
                NodeRef::Switch { sw, port } => prefetch_line(&self.net.switch(sw).outputs[port as usize]),
                NodeRef::Hca(h) => self.hcas[h].prefetch_send_state(),
            }
        }
        if let Some(&(Event::TxDone { ch } | Event::SwitchKick { ch } | Event::CreditWake { ch })) = self.q.ahead(0) {
            let c = &self.net.channel(ch);
            if let (NodeRef::Switch { sw, port }, NodeRef::Switch { sw: next, .. }) = (c.from, c.to) {
                if let Some(head) = self.net.switch(sw).outputs[port as usize].front(0) {
                    let s = &self.net.switch(next);
                    if let Some(entry) = s.lft.get(usize::from(head.hop.dlid)) {
                        prefetch_line(entry);
                    }
                    // Its output table: 8 bytes an output, two lines for 16.
                    if let Some(l) = s.links.first() {
                        prefetch_line(l);
                    }
                    if let Some(l) = s.links.get(8) {
                        prefetch_line(l);
                    }
                }
            }
        }
    }

    /// For the head packet (to `dlid`) of the switch output sending on `ch`: the line of the
    /// next switch's output it will be queued at, and that output's channel.
    #[inline(always)]
    fn prefetch_next_output(&self, ch: ChannelId, dlid: u16) {
        if let NodeRef::Switch { sw: next, .. } = self.net.channel(ch).to {
            let s = &self.net.switch(next);
            if let Some(out) = s.route(dlid) {
                if let (Some(link), Some(op)) = (s.links.get(out as usize), s.outputs.get(out as usize)) {
                    prefetch_line(op);
                    prefetch_line(&self.net.channel(link.ch));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Event;

    /// Payloads stay out of the queue: an event is at most 12 bytes (module doc of `Event`).
    #[test]
    fn events_stay_small() {
        assert!(std::mem::size_of::<Event>() <= 12, "Event is {} bytes", std::mem::size_of::<Event>());
    }
}
