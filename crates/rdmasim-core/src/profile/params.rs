//! Every hardware-profile parameter once, with its part and its doc (profile/define.rs turns
//! the list into the part types). The order is the one users see: `rdmasim profiles` rows and
//! the allowed keys of `[hardware.overrides]` follow it.
use crate::fabric::rate::{LinkGen, LinkSpeed};
use serde::{Deserialize, Serialize};

/// How the NIC's send engine picks the next QP to transmit from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arbitration {
    /// One packet per QP in turn (finest interleaving).
    PacketRoundRobin,
    /// A whole work request (all its packets) before moving to the next QP.
    MessageRoundRobin,
    /// Up to `arbitration_chunk_bytes` of one work request before moving on.
    ChunkRoundRobin,
    /// Up to `arbitration_chunk_bytes` on the wire per turn, across the QP's work requests: a
    /// QP with several small messages ready sends them in one turn (a byte quantum, as in
    /// deficit round robin), and its turn ends early when it has nothing ready.
    QuantumRoundRobin,
}

super::define::profile_params! {
    /// Link generation (sdr, ddr, qdr, fdr10, fdr, edr, hdr).
    link.link_gen: LinkGen,
    /// Link width in lanes (1, 4, 12).
    link.link_width: u8,
    /// Active path MTU in bytes.
    link.mtu: u32,
    /// Path MTU the perftest workload uses when the scenario sets no `qp.mtu` (perftest's
    /// set_mtu without -m); 0 = the active MTU.
    host.perftest_mtu: u32,
    /// Propagation delay of a cable, ns per metre.
    link.cable_ns_per_m: f64,
    /// Receive buffer per virtual lane at each port, bytes (link-level credits of 64 B).
    link.vl_buffer_bytes: u32,
    /// CPU time to build a work request and ring the doorbell (ibv_post_send).
    host.post_send_cpu_ns: f64,
    /// Doorbell / BlueFlame MMIO write until the NIC sees the work request.
    nic.doorbell_ns: f64,
    /// DMA read round trip to fetch a WQE that was not written by BlueFlame (non-inline).
    nic.wqe_fetch_ns: f64,
    /// DMA read round trip to fetch payload from host memory (requester data, READ responder).
    nic.dma_read_ns: f64,
    /// Posted DMA write until data or a CQE is visible to the host CPU.
    nic.dma_write_ns: f64,
    /// NIC send pipeline: WQE processing to first bit on the wire.
    nic.tx_pipeline_ns: f64,
    /// NIC receive pipeline: last bit in to transport processing done.
    nic.rx_pipeline_ns: f64,
    /// A received packet holds its receive-buffer credits until its payload has been written
    /// to host memory over PCIe (hca/rx_dma.rs); false: credits return on arrival (line rate).
    nic.rx_dma_drain: bool,
    /// PCIe generation of the HCA's host link (3, 4 or 5).
    nic.pcie_gen: u8,
    /// PCIe lanes of the HCA's host link.
    nic.pcie_lanes: u8,
    /// PCIe Maximum Payload Size negotiated with the root port, bytes.
    nic.pcie_mps: u32,
    /// Per-packet occupancy of the NIC send engine (bounds the message rate).
    nic.tx_packet_ns: f64,
    /// Fetch of a receive WQE for an incoming SEND (cached in the NIC when prefetched).
    nic.recv_wqe_fetch_ns: f64,
    /// Busy polling: one ibv_poll_cq iteration, the delay to notice a new CQE.
    host.poll_cq_ns: f64,
    /// Event mode: MSI-X interrupt from the CQE write to the kernel handler.
    host.interrupt_ns: f64,
    /// Event mode: waking the thread blocked in ibv_get_cq_event.
    host.wakeup_ns: f64,
    /// Event mode: CPU time spent per completion event (handler, wake-up, ack, re-arm).
    host.event_cpu_ns: f64,
    /// SRQ_LIMIT_REACHED: from the HCA consuming the WQE that crosses srq_limit until the
    /// async event is ready for ibv_get_async_event (interrupt delivery; the thread wake-up,
    /// `wakeup_ns`, comes on top).
    nic.srq_event_interrupt_ns: f64,
    /// ibv_modify_srq(IBV_SRQ_LIMIT): CPU time to re-arm the one-shot limit event (t_setev).
    host.srq_arm_ns: f64,
    /// ibv_post_srq_recv: CPU time per receive WQE in a chained list (one call per refill).
    host.srq_recv_wqe_ns: f64,
    /// Stop/resume flow control: a polling receiver notices a new retransmission-table entry
    /// (poll of the CQ and the table, remaining-buffer count) this long after it lands.
    host.srq_poll_detect_ns: f64,
    /// Requester asks for an ACK (BTH AckReq) at least every this many packets, and on every
    /// message's last packet.
    nic.ack_req_every: u32,
    /// Unacknowledged packets a requester QP may have in flight.
    nic.max_inflight_packets: u32,
    /// Vendor minimum of the local ACK timeout, ms: the QP's 4.096 µs × 2^timeout is raised to it.
    nic.retransmit_floor_ms: f64,
    /// Adaptive retransmission (mlx5 `roce_adp_retrans`): the first retransmission waits this
    /// long (µs), doubling per retry up to the floored timeout; 0 disables it.
    nic.adaptive_retrans_base_us: f64,
    /// How the send engine serves QPs.
    nic.arbitration: Arbitration,
    /// Chunk size for chunk-round-robin arbitration; the byte quantum of quantum-round-robin.
    nic.arbitration_chunk_bytes: u32,
    /// Transmit staging: the send engine picks packets up to this many bytes ahead of the
    /// port (a FIFO between the arbiter and the wire), so another QP's packet waits for the
    /// bytes already staged. 0 = the engine picks when the port frees.
    nic.tx_staging_bytes: u32,
    /// Switch traversal latency (port to port, cut-through) of the matching switch generation.
    switch.switch_latency_ns: f64,
    /// Idle states of the host cores (event mode: a sleeping thread's wake-up pays the exit
    /// latency of the state its core entered): "none", "haswell", "haswell-pkg" or "sandybridge".
    host.cpu_idle: crate::host::cstate::CpuIdle,
    /// A non-inline WQE (and its payload) is fetched when the send scheduler first serves its
    /// QP, not when the doorbell rings; false: fetched at the doorbell.
    nic.wqe_fetch_on_schedule: bool,
    /// OS noise: the host kernel's scheduler tick rate (CONFIG_HZ); every tick holds each busy
    /// core for a detour (host/noise.rs). 0 = no tick noise.
    host.os_tick_hz: f64,
    /// OS noise: shortest and longest detour of one tick (timer interrupt), drawn uniformly.
    host.os_tick_detour_min_ns: f64,
    host.os_tick_detour_max_ns: f64,
    /// OS noise: the interrupt entry and exit around each tick's handler (the part of a tick's
    /// noise the tracer's per-handler duration leaves out), added to every detour. 0 = off.
    host.os_tick_entry_exit_ns: f64,
    /// ODP: one NIC page-fault service, µs: fault event to the driver, OS page lookup or
    /// allocation, NIC page-table (MTT) update, QP resume (hca/mr.rs).
    nic.odp_fault_us: f64,
    /// ODP: a requester whose READ response hit a non-present page re-requests this long after
    /// the fault is resolved, µs (the "fixed wait" of the client-side captures).
    nic.odp_requester_retry_us: f64,
    /// ODP: faults the driver services at once (0 = unlimited); more wait in its queue.
    nic.odp_fault_workers: u32,
    /// ODP: driver time to invalidate a range (MMU notifier: NIC table update), µs.
    nic.odp_invalidate_us: f64,
    /// Memory registration: fixed cost of ibv_reg_mr (MR object, mkey), µs.
    host.mr_register_us: f64,
    /// Memory registration: pinning and mapping one 4 KiB page of a pinned MR, µs.
    host.mr_pin_page_us: f64,
    /// Pitfall switch "damming": a request posted while its QP waits to retransmit (RNR wait or
    /// requester page fault) is sent at once and lost, and the retransmission after the wait
    /// replays only what was outstanding when the wait began; recovery waits for the local ACK
    /// timeout. false = the wait holds new requests and replays everything (fixed NIC).
    nic.odp_damming: bool,
    /// Pitfall switch "flood": a QP that saw a page absent keeps that state until its own fault
    /// brings the page in or its local ACK timer fires; a page brought in by another QP's fault
    /// stays invisible to it, so it keeps faulting and re-requesting. false = one shared table.
    nic.odp_flood: bool,
}

impl LinkParams {
    /// The speed a cable of this part trains to when nothing slower is at the other end.
    pub fn speed(&self) -> LinkSpeed {
        LinkSpeed { gen: self.link_gen, width: self.link_width }
    }
}

impl NicParams {
    /// The HCA's host link, for the receive DMA (hca/rx_dma.rs).
    pub fn pcie_link(&self) -> crate::hca::rx_dma::PcieLink {
        crate::hca::rx_dma::PcieLink { gen: self.pcie_gen, lanes: self.pcie_lanes, mps: self.pcie_mps }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile's serde stays one flat map of every parameter (the parts are flattened), as it
    /// was before the parts were typed, and reads back the same.
    #[test]
    fn a_profile_serializes_flat_and_reads_back() {
        let (p, _) = crate::profile::by_name("cx3-fdr").unwrap();
        let v = serde_json::to_value(&p).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut want: Vec<&str> = HwProfile::PARAMETER_NAMES.iter().copied().chain(["name"]).collect();
        want.sort_unstable();
        assert_eq!(keys, want);
        assert_eq!(v["post_send_cpu_ns"], 70.0);
        assert_eq!(serde_json::from_value::<HwProfile>(v).unwrap(), p);
    }
}
