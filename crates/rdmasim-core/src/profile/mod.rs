//! Hardware profiles: a named set of NIC, link and host parameters, each with its source.
//!
//! One macro invocation lists every parameter once; it generates the profile struct, the
//! all-optional override struct a scenario may give (`[hardware.overrides]`, unknown keys
//! rejected), and the source table `rdmasim profiles` prints. A value not taken from a public
//! source says "assumption" in its source string, with the reasoning.
pub mod host;
pub mod parts;

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

macro_rules! profile_params {
    ($( $(#[doc = $doc:literal])* $name:ident : $ty:ty ),* $(,)?) => {
        /// A complete hardware profile. Times are in nanoseconds unless the name says otherwise.
        #[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
        pub struct HwProfile {
            pub name: String,
            $( $(#[doc = $doc])* pub $name: $ty, )*
        }

        /// Per-scenario overrides: any subset of the profile's parameters.
        #[derive(Clone, Debug, Default, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct ProfileOverrides {
            $( #[serde(default)] pub $name: Option<$ty>, )*
        }

        impl ProfileOverrides {
            /// These overrides with `over`'s on top (where both set a parameter, `over` wins).
            pub fn merged(&self, over: &ProfileOverrides) -> ProfileOverrides {
                ProfileOverrides { $( $name: over.$name.clone().or_else(|| self.$name.clone()), )* }
            }

            /// The names of the parameters set.
            pub fn names(&self) -> Vec<&'static str> {
                let mut v = Vec::new();
                $( if self.$name.is_some() { v.push(stringify!($name)); } )*
                v
            }
        }

        /// Where each parameter's value comes from.
        #[derive(Clone, Debug)]
        pub struct ProfileSources {
            $( pub $name: &'static str, )*
        }

        /// One row of `rdmasim profiles`.
        #[derive(Clone, Debug, Serialize)]
        pub struct ParamRow {
            pub profile: String,
            pub parameter: &'static str,
            /// The node it belongs to in a fabric (profile/parts.rs).
            pub part: crate::profile::parts::Part,
            pub value: serde_json::Value,
            pub overridden: bool,
            pub source: &'static str,
            pub doc: &'static str,
        }

        impl HwProfile {
            /// Applies overrides; returns the names of the parameters that changed.
            pub fn apply(&mut self, o: &ProfileOverrides) -> Vec<&'static str> {
                let mut changed = Vec::new();
                $( if let Some(v) = &o.$name { self.$name = v.clone(); changed.push(stringify!($name)); } )*
                changed
            }
            pub fn table(&self, sources: &ProfileSources, overridden: &[&str]) -> Vec<ParamRow> {
                vec![ $( ParamRow {
                    profile: self.name.clone(),
                    parameter: stringify!($name),
                    part: crate::profile::parts::part_of(stringify!($name)),
                    value: serde_json::to_value(&self.$name).unwrap_or(serde_json::Value::Null),
                    overridden: overridden.contains(&stringify!($name)),
                    source: if overridden.contains(&stringify!($name)) { "scenario override" } else { sources.$name },
                    doc: concat!($($doc),*).trim_start(),
                }, )* ]
            }
            pub const PARAMETER_NAMES: &'static [&'static str] = &[ $( stringify!($name) ),* ];
        }
    };
}

profile_params! {
    /// Link generation (sdr, ddr, qdr, fdr10, fdr, edr, hdr).
    link_gen: LinkGen,
    /// Link width in lanes (1, 4, 12).
    link_width: u8,
    /// Active path MTU in bytes.
    mtu: u32,
    /// Path MTU the perftest workload uses when the scenario sets no `qp.mtu` (perftest's
    /// set_mtu without -m); 0 = the active MTU.
    perftest_mtu: u32,
    /// Propagation delay of a cable, ns per metre.
    cable_ns_per_m: f64,
    /// Receive buffer per virtual lane at each port, bytes (link-level credits of 64 B).
    vl_buffer_bytes: u32,
    /// CPU time to build a work request and ring the doorbell (ibv_post_send).
    post_send_cpu_ns: f64,
    /// Doorbell / BlueFlame MMIO write until the NIC sees the work request.
    doorbell_ns: f64,
    /// DMA read round trip to fetch a WQE that was not written by BlueFlame (non-inline).
    wqe_fetch_ns: f64,
    /// DMA read round trip to fetch payload from host memory (requester data, READ responder).
    dma_read_ns: f64,
    /// Posted DMA write until data or a CQE is visible to the host CPU.
    dma_write_ns: f64,
    /// NIC send pipeline: WQE processing to first bit on the wire.
    tx_pipeline_ns: f64,
    /// NIC receive pipeline: last bit in to transport processing done.
    rx_pipeline_ns: f64,
    /// A received packet holds its receive-buffer credits until its payload has been written
    /// to host memory over PCIe (hca/rx_dma.rs); false: credits return on arrival (line rate).
    rx_dma_drain: bool,
    /// PCIe generation of the HCA's host link (3, 4 or 5).
    pcie_gen: u8,
    /// PCIe lanes of the HCA's host link.
    pcie_lanes: u8,
    /// PCIe Maximum Payload Size negotiated with the root port, bytes.
    pcie_mps: u32,
    /// Per-packet occupancy of the NIC send engine (bounds the message rate).
    tx_packet_ns: f64,
    /// Fetch of a receive WQE for an incoming SEND (cached in the NIC when prefetched).
    recv_wqe_fetch_ns: f64,
    /// Busy polling: one ibv_poll_cq iteration, the delay to notice a new CQE.
    poll_cq_ns: f64,
    /// Event mode: MSI-X interrupt from the CQE write to the kernel handler.
    interrupt_ns: f64,
    /// Event mode: waking the thread blocked in ibv_get_cq_event.
    wakeup_ns: f64,
    /// Event mode: CPU time spent per completion event (handler, wake-up, ack, re-arm).
    event_cpu_ns: f64,
    /// SRQ_LIMIT_REACHED: from the HCA consuming the WQE that crosses srq_limit until the
    /// async event is ready for ibv_get_async_event (interrupt delivery; the thread wake-up,
    /// `wakeup_ns`, comes on top).
    srq_event_interrupt_ns: f64,
    /// ibv_modify_srq(IBV_SRQ_LIMIT): CPU time to re-arm the one-shot limit event (t_setev).
    srq_arm_ns: f64,
    /// ibv_post_srq_recv: CPU time per receive WQE in a chained list (one call per refill).
    srq_recv_wqe_ns: f64,
    /// Stop/resume flow control: a polling receiver notices a new retransmission-table entry
    /// (poll of the CQ and the table, remaining-buffer count) this long after it lands.
    srq_poll_detect_ns: f64,
    /// Requester asks for an ACK (BTH AckReq) at least every this many packets, and on every
    /// message's last packet.
    ack_req_every: u32,
    /// Unacknowledged packets a requester QP may have in flight.
    max_inflight_packets: u32,
    /// Vendor minimum of the local ACK timeout, ms: the QP's 4.096 µs × 2^timeout is raised to it.
    retransmit_floor_ms: f64,
    /// Adaptive retransmission (mlx5 `roce_adp_retrans`): the first retransmission waits this
    /// long (µs), doubling per retry up to the floored timeout; 0 disables it.
    adaptive_retrans_base_us: f64,
    /// How the send engine serves QPs.
    arbitration: Arbitration,
    /// Chunk size for chunk-round-robin arbitration; the byte quantum of quantum-round-robin.
    arbitration_chunk_bytes: u32,
    /// Transmit staging: the send engine picks packets up to this many bytes ahead of the
    /// port (a FIFO between the arbiter and the wire), so another QP's packet waits for the
    /// bytes already staged. 0 = the engine picks when the port frees.
    tx_staging_bytes: u32,
    /// Switch traversal latency (port to port, cut-through) of the matching switch generation.
    switch_latency_ns: f64,
    /// Idle states of the host cores (event mode: a sleeping thread's wake-up pays the exit
    /// latency of the state its core entered): "none", "haswell", "haswell-pkg" or "sandybridge".
    cpu_idle: crate::host::cstate::CpuIdle,
    /// A non-inline WQE (and its payload) is fetched when the send scheduler first serves its
    /// QP, not when the doorbell rings; false: fetched at the doorbell.
    wqe_fetch_on_schedule: bool,
    /// OS noise: the host kernel's scheduler tick rate (CONFIG_HZ); every tick holds each busy
    /// core for a detour (host/noise.rs). 0 = no tick noise.
    os_tick_hz: f64,
    /// OS noise: shortest and longest detour of one tick (timer interrupt), drawn uniformly.
    os_tick_detour_min_ns: f64,
    os_tick_detour_max_ns: f64,
    /// OS noise: the interrupt entry and exit around each tick's handler (the part of a tick's
    /// noise the tracer's per-handler duration leaves out), added to every detour. 0 = off.
    os_tick_entry_exit_ns: f64,
    /// ODP: one NIC page-fault service, µs: fault event to the driver, OS page lookup or
    /// allocation, NIC page-table (MTT) update, QP resume (hca/mr.rs).
    odp_fault_us: f64,
    /// ODP: a requester whose READ response hit a non-present page re-requests this long after
    /// the fault is resolved, µs (the "fixed wait" of the client-side captures).
    odp_requester_retry_us: f64,
    /// ODP: faults the driver services at once (0 = unlimited); more wait in its queue.
    odp_fault_workers: u32,
    /// ODP: driver time to invalidate a range (MMU notifier: NIC table update), µs.
    odp_invalidate_us: f64,
    /// Memory registration: fixed cost of ibv_reg_mr (MR object, mkey), µs.
    mr_register_us: f64,
    /// Memory registration: pinning and mapping one 4 KiB page of a pinned MR, µs.
    mr_pin_page_us: f64,
    /// Pitfall switch "damming": a request posted while its QP waits to retransmit (RNR wait or
    /// requester page fault) is sent at once and lost, and the retransmission after the wait
    /// replays only what was outstanding when the wait began; recovery waits for the local ACK
    /// timeout. false = the wait holds new requests and replays everything (fixed NIC).
    odp_damming: bool,
    /// Pitfall switch "flood": a QP that saw a page absent keeps that state until its own fault
    /// brings the page in or its local ACK timer fires; a page brought in by another QP's fault
    /// stays invisible to it, so it keeps faulting and re-requesting. false = one shared table.
    odp_flood: bool,
}

impl HwProfile {
    pub fn link_speed(&self) -> LinkSpeed {
        LinkSpeed { gen: self.link_gen, width: self.link_width }
    }
    pub fn pcie_link(&self) -> crate::hca::rx_dma::PcieLink {
        crate::hca::rx_dma::PcieLink { gen: self.pcie_gen, lanes: self.pcie_lanes, mps: self.pcie_mps }
    }
}

const SRC_IBTA_RATE: &str = "IBTA Vol. 2 (physical): lane signalling rate and encoding of the generation";
const SRC_MTU: &str = "ConnectX active MTU 4096 (ibv_devinfo active_mtu on ConnectX-3/4/5)";
const SRC_CABLE: &str = "~5 ns/m signal propagation in copper/fibre (c/1.5)";
// fit: seeds/000's published A1 floor itself (~500 ms); rows A1 and A4 (silence) read it back.
const SRC_FLOOR: &str = "Fukuoka, Sato, Taura, seeds/000: measured minimum effective timeout ~500 ms on most ConnectX models, set by firmware";
// fit: solved from B2's t_int (seeds/001); rows B2 (t_int, total) and B3 agree by construction.
/// t_int is measured from the sender's post (the study cannot timestamp the arrival), so the
/// model's own post-to-HCA path on cx3-fdr (~1.45 us: post 70 ns, doorbell 250, WQE fetch 450,
/// payload DMA 450, pipelines 200, wire ~25) and the thread wake-up (`wakeup_ns`, 3 us) are
/// taken out of it.
const SRC_SRQ_INT: &str = "derived from Tanimoto et al., seeds/001 sec. 4.1.3: t_int = 35.0 us from the sender's post to the receiving thread running on ConnectX-3 FDR; minus the model's ~1.45 us post-to-HCA path and wakeup_ns 3 us = 30.5 us (the study blames the slow SRQ_LIMIT_REACHED notification)";
// fit: solved from B1's t_poll (seeds/001); rows B1 (t_poll, total) and B3 agree by construction.
/// Same subtraction for t_poll = 2.18 us (post to detection by polling): minus ~1.45 us to
/// the HCA and dma_write_ns 0.2 us for the table entry to land.
const SRC_SRQ_POLL: &str = "derived from Tanimoto et al., seeds/001 sec. 4.1.3: t_poll = 2.18 us from the sender's post to the polling receiver knowing the remaining buffers; minus the model's ~1.45 us post-to-HCA path and the 0.2 us table write = 0.53 us";
// fit: chosen so A2's lower stall-window edge lands on seeds/000's published ~500 us.
const SRC_ODP_FAULT: &str = "seeds/000 (citing Lesokhin et al., ASPLOS'17 'Page Fault Support for Network Controllers'): a NIC page fault costs hundreds of us; the value inside that range is an assumption, the one the A2 lower window edge (both-side ODP) implies (docs/odp.md)";
// fit: chosen so A2's window width (odp_fault_us + this) lands on the published ~4000 us.
const SRC_ODP_RETRY: &str = "assumption: seeds/000's capture shows the client re-requesting a fixed time after the faulting response; the length is unpublished; 3.5 ms is the value the A2 window width (about 4 ms = fault + this wait) implies (docs/odp.md derives the edges)";
// fit (mechanism): the switch implements A4's and A5's stated cause, so those rows read it back.
const SRC_DAMMING: &str = "seeds/000: packet damming observed on ConnectX-4 (and most models) in ibdump captures";
// fit (mechanism): the switch implements A7's stated cause on requester QPs only (A6: no flood
// server-side), so A7's and A6's server-side rows read it back; A6's client-side flood is its effect.
const SRC_FLOOD: &str = "seeds/000: packet flood observed with client-side ODP on several QPs; page state resolved on one QP does not reach the others (mechanism inferred by the study, the timer refresh is an assumption)";
const SRC_TICK_HZ: &str = "assumption: 0 (no tick noise: nohz_full cores, or noise left out) so benchmark figures stay noiseless; Ubuntu 16.04 generic kernels use CONFIG_HZ=250 on amd64 and ppc64el (debian.master/config: amd64/config.flavour.generic, ppc64el/config.common.ppc64el), what the isolation reproduction sets (docs/isolation.md 2.6)";
const SRC_TICK_DETOUR: &str = "Linux Documentation/trace/osnoise-tracer.rst: irq_noise of local_timer on a CPU running a busy loop, 1845 ns and 2848 ns (its example trace); the entry/exit overhead the doc says comes on top, and the softirqs and kthreads some ticks trigger, are not included";
const SRC_TICK_ENTRY_EXIT: &str = "assumption: 0 (the handler's own duration only); 898 ns in the isolation reproduction, from the timestamps of the one full noise sample in Linux Documentation/trace/osnoise-tracer.rst (sample 8812 ns = 316 ns before the local_timer handler starts + 2848 ns handler + 1581 ns until migration/8 starts + 3068 ns thread + 999 ns back to the workload): entry 316 ns, exit 1581 - 999 = 582 ns if the switch into the thread costs what the switch back cost (bounds 316..1897 ns; docs/isolation.md 2.6)";
const SRC_LANES_X16: &str = "NVIDIA ConnectX-4 InfiniBand adapter user manual (MCX455A/MCX456A-ECAT: PCIe 3.0 x16 edge connector); ConnectX-5/-6 VPI user manuals: x16";
const SRC_MPS: &str = "assumption: 256 B, the Intel Xeon root-port limit seen in public lspci dumps of ConnectX cards (DevCtl MaxPayload 256 bytes); ConnectX-3 itself advertises at most 256 B (Mellanox community, 'PCIe maximum payload size' on ConnectX-3's INI default)";
const SRC_RD_ATOMIC: &str = "assumption: 128 packets; IBTA allows 2^23, ConnectX limits are not published";

fn sources_common() -> ProfileSources {
    ProfileSources {
        link_gen: SRC_IBTA_RATE,
        link_width: SRC_IBTA_RATE,
        mtu: SRC_MTU,
        perftest_mtu: "perftest set_mtu: without -m it takes the port's active MTU (0 here)",
        cable_ns_per_m: SRC_CABLE,
        vl_buffer_bytes: "assumption: 32 KiB per VL, enough for line rate over a few metres of cable (credits cover the round trip)",
        post_send_cpu_ns: "assumption: ~50-100 ns to build a WQE and write the doorbell (Kalia et al., ATC'16 'Design Guidelines for High Performance RDMA Systems', sec. 3)",
        doorbell_ns: "assumption: PCIe posted write latency ~150-300 ns (Neugebauer et al., SIGCOMM'18 'Understanding PCIe performance for end host networking'); chosen to put 2 B ib_write_lat near published ConnectX figures",
        wqe_fetch_ns: "Neugebauer et al., SIGCOMM'18: PCIe DMA read round trip ~400-600 ns on Xeon hosts",
        dma_read_ns: "Neugebauer et al., SIGCOMM'18: PCIe DMA read round trip ~400-600 ns on Xeon hosts",
        dma_write_ns: "assumption: posted DMA write into LLC (DDIO) ~200 ns, half a PCIe round trip",
        tx_pipeline_ns: "assumption: NIC send pipeline ~100 ns",
        rx_pipeline_ns: "assumption: NIC receive pipeline ~100 ns",
        rx_dma_drain: "off by default (credits return on arrival, as before); on: Neugebauer et al., SIGCOMM'18 PCIe model (github.com/pcie-bench/pcie-model) gives the write rate; with the profiles' links it exceeds the link's payload rate (docs/isolation.md 2.5)",
        pcie_gen: "ConnectX-3/-4/-5 product briefs and user manuals: PCI Express 3.0 (8 GT/s)",
        pcie_lanes: SRC_LANES_X16,
        pcie_mps: SRC_MPS,
        tx_packet_ns: "assumption: send engine occupancy per packet, from the vendor's peak message rate (ConnectX-4: 150 M msg/s product brief)",
        recv_wqe_fetch_ns: "assumption: receive WQEs are prefetched, so an incoming SEND pays ~100 ns",
        poll_cq_ns: "assumption: one ibv_poll_cq iteration on a cached CQ ~30 ns (Kalia et al., ATC'16)",
        interrupt_ns: "assumption: MSI-X delivery and handler ~2 us",
        wakeup_ns: "assumption: waking a blocked thread ~3 us (Linux futex/ctx-switch figures)",
        event_cpu_ns: "assumption: ~4 us CPU per completion event (interrupt, wake-up, ibv_ack_cq_events, ibv_req_notify_cq)",
        srq_event_interrupt_ns: SRC_SRQ_INT,
        srq_arm_ns: "Tanimoto et al., seeds/001 sec. 4.1.3: t_setev = 55.9 us measured on ConnectX-3 FDR (ibv_modify_srq setting the limit event); no figure for newer cards, so every profile uses it",
        srq_recv_wqe_ns: "assumption: ~10 ns per WQE; rdma-core mlx4/mlx5 post_srq_recv write a 16 B next-pointer + 16 B scatter entry per WQE from cache and update the doorbell record once per call",
        srq_poll_detect_ns: SRC_SRQ_POLL,
        ack_req_every: "assumption: AckReq every 64 packets plus each message's last (IBTA leaves it to the requester, 9.7.6.1)",
        max_inflight_packets: SRC_RD_ATOMIC,
        retransmit_floor_ms: SRC_FLOOR,
        adaptive_retrans_base_us: "disabled by default; mlx5 adaptive retransmission exists (roce_adp_retrans counter, rdma-core mlx5 counters) but its timer law is unpublished",
        arbitration: "assumption: packet round robin between QPs with work (the vendor's arbiter is unpublished)",
        arbitration_chunk_bytes: "assumption",
        tx_staging_bytes: "assumption: 0 (no public figure for a ConnectX transmit buffer; a sensitivity in docs/isolation.md sec. 2.1)",
        switch_latency_ns: "Mellanox switch product briefs: SwitchX-2 (FDR) 170 ns, Switch-IB (EDR) 90 ns port to port",
        wqe_fetch_on_schedule: "assumption: false (fetch at the doorbell); true is the isolation study's hypothesis for its 1 KB mouse (docs/isolation.md 2.3)",
        os_tick_hz: SRC_TICK_HZ,
        os_tick_detour_min_ns: SRC_TICK_DETOUR,
        os_tick_detour_max_ns: SRC_TICK_DETOUR,
        os_tick_entry_exit_ns: SRC_TICK_ENTRY_EXIT,
        cpu_idle: "assumption: none (C-states off or idle=poll, a common RDMA benchmark set-up); \"haswell\" = intel_idle.c hsw_cstates (exit latency, target residency); \"haswell-pkg\" = the same with core-only exits while the package is awake (host/cstate.rs: table = package worst case; core C6 92 us from the kernel's Skylake-SP CC6 measurement, core C3 = table, both assumptions for Haswell-EP); \"sandybridge\" = intel_idle.c snb_cstates (also used for SANDYBRIDGE_X), C7 left out (client-only state, assumption)",
        odp_fault_us: SRC_ODP_FAULT,
        odp_requester_retry_us: SRC_ODP_RETRY,
        odp_fault_workers: "Linux drivers/infiniband/hw/mlx5/odp.c: page faults are handled on the \"mlx5_ib_page_fault\" workqueue, alloc_workqueue(..., WQ_UNBOUND, MLX5_NUM_CMD_EQE = 32): at most 32 at once; that each holds its context for the whole odp_fault_us is an assumption (the fault latency taken as driver work)",
        odp_invalidate_us: "assumption: an MMU-notifier invalidation (UMR to zap MTT entries) ~10 us",
        mr_register_us: "assumption: ~10 us fixed ibv_reg_mr cost (Frey and Alonso, ICDCS'09 'Minimizing the hidden cost of RDMA': registration cost is a fixed part plus a per-page part)",
        mr_pin_page_us: "assumption: ~0.25 us per 4 KiB page to pin (get_user_pages) and write its MTT entry (Frey and Alonso, ICDCS'09; Mietke et al., Euro-Par'06)",
        odp_damming: SRC_DAMMING,
        odp_flood: SRC_FLOOD,
    }
}

/// The built-in profiles, with their sources.
pub fn builtin() -> Vec<(HwProfile, ProfileSources)> {
    let edr = HwProfile {
        name: "cx4-edr".into(),
        link_gen: LinkGen::Edr,
        link_width: 4,
        mtu: 4096,
        perftest_mtu: 0,
        cable_ns_per_m: 5.0,
        vl_buffer_bytes: 32 * 1024,
        post_send_cpu_ns: 70.0,
        doorbell_ns: 200.0,
        wqe_fetch_ns: 450.0,
        dma_read_ns: 450.0,
        dma_write_ns: 200.0,
        tx_pipeline_ns: 100.0,
        rx_pipeline_ns: 100.0,
        rx_dma_drain: false,
        pcie_gen: 3,
        pcie_lanes: 16,
        pcie_mps: 256,
        tx_packet_ns: 6.6,
        recv_wqe_fetch_ns: 100.0,
        poll_cq_ns: 30.0,
        interrupt_ns: 2000.0,
        wakeup_ns: 3000.0,
        event_cpu_ns: 4000.0,
        srq_event_interrupt_ns: 30_500.0,
        srq_arm_ns: 55_900.0, // fit: B2's t_setev itself (seeds/001)
        srq_recv_wqe_ns: 10.0,
        srq_poll_detect_ns: 530.0,
        ack_req_every: 64,
        max_inflight_packets: 128,
        retransmit_floor_ms: 500.0,
        adaptive_retrans_base_us: 0.0,
        arbitration: Arbitration::PacketRoundRobin,
        arbitration_chunk_bytes: 16 * 1024,
        tx_staging_bytes: 0,
        switch_latency_ns: 90.0,
        cpu_idle: crate::host::cstate::CpuIdle::None,
        wqe_fetch_on_schedule: false,
        os_tick_hz: 0.0,
        os_tick_detour_min_ns: 1845.0,
        os_tick_detour_max_ns: 2848.0,
        os_tick_entry_exit_ns: 0.0,
        odp_fault_us: 500.0,
        odp_requester_retry_us: 3500.0,
        odp_fault_workers: 32,
        odp_invalidate_us: 10.0,
        mr_register_us: 10.0,
        mr_pin_page_us: 0.25,
        odp_damming: true,
        odp_flood: true,
    };
    let mut s_edr = sources_common();
    s_edr.link_gen = "ConnectX-4 VPI product brief: EDR 100 Gb/s (4x, 25.78125 Gb/s per lane, 64b/66b)";

    let mut fdr = edr.clone();
    fdr.name = "cx3-fdr".into();
    fdr.link_gen = LinkGen::Fdr;
    fdr.doorbell_ns = 250.0;
    fdr.tx_packet_ns = 11.0;
    fdr.pcie_lanes = 8;
    fdr.switch_latency_ns = 170.0;
    fdr.odp_damming = false;
    fdr.odp_flood = false;
    fdr.perftest_mtu = 2048;
    let mut s_fdr = sources_common();
    s_fdr.link_gen = "ConnectX-3 VPI product brief: FDR 56 Gb/s (4x, 14.0625 Gb/s per lane, 64b/66b)";
    s_fdr.tx_packet_ns = "assumption: ~90 M packets/s for the older engine (a ConnectX-3 message-rate figure is not in its product brief)";
    s_fdr.pcie_lanes = "ConnectX-3 VPI product brief and adapter list (MCX353A/MCX354A-FCBT: PCIe 3.0 x8)";
    s_fdr.odp_damming = "ConnectX-3 (mlx4) has no ODP, and seeds/001 reports RNR retries on it without damming: off";
    s_fdr.odp_flood = "ConnectX-3 (mlx4) has no ODP: off";
    s_fdr.perftest_mtu = "perftest src/perftest_parameters.c set_mtu: \"CX3_PRO and CX3 have a HW bug in 4K MTU, so we're forcing it to be 2K MTU\" when the port's MTU is 4096 and no -m is given";
    s_fdr.doorbell_ns = "assumption: older PCIe Gen3 x8 part; +50 ns over ConnectX-4 puts 2 B write latency near ConnectX-3 perftest reports (~0.8-1 us)";

    let mut cx5 = edr.clone();
    cx5.name = "cx5-edr".into();
    cx5.doorbell_ns = 180.0;
    cx5.tx_packet_ns = 5.0;
    let mut s_cx5 = sources_common();
    s_cx5.link_gen = "ConnectX-5 VPI product brief: EDR 100 Gb/s";
    s_cx5.tx_packet_ns = "ConnectX-5 product brief: up to 200 M msg/s";
    s_cx5.retransmit_floor_ms = "seeds/000: the ~500 ms floor is kept on the newest models (the vendor fixed damming, not the floor)";
    s_cx5.doorbell_ns = "assumption: slightly faster doorbell path than ConnectX-4";
    s_cx5.pcie_gen = "NVIDIA ConnectX-5 adapter user manual (Interfaces): ConnectX-5 PCIe Gen 3.0 x16 (Gen 4.0 only on ConnectX-5 Ex)";

    // The newer NIC of seeds/000's conclusion: the vendor fixed damming, the timeout floor stays.
    let mut cx6 = cx5.clone();
    cx6.name = "cx6-hdr".into();
    cx6.link_gen = LinkGen::Hdr;
    cx6.odp_damming = false;
    cx6.pcie_gen = 4;
    let mut s_cx6 = sources_common();
    s_cx6.link_gen = "ConnectX-6 VPI product brief: HDR 200 Gb/s (4x, 53.125 Gb/s per lane, PAM4)";
    s_cx6.tx_packet_ns = s_cx5.tx_packet_ns;
    s_cx6.doorbell_ns = s_cx5.doorbell_ns;
    s_cx6.retransmit_floor_ms = s_cx5.retransmit_floor_ms;
    s_cx6.pcie_gen = "NVIDIA ConnectX-6 adapter user manual (Interfaces): PCIe Gen 3.0/4.0 x16; 4.0 assumed (an HDR port needs it)";
    s_cx6.odp_damming = "seeds/000: the vendor reports packet damming fixed on the newest models (the ~500 ms floor is kept)";
    s_cx6.switch_latency_ns = "assumption: HDR switch port to port latency taken as the EDR figure (Quantum brief gives ~130 ns; kept at 90 for comparability)";

    vec![(fdr, s_fdr), (edr, s_edr), (cx5, s_cx5), (cx6, s_cx6)]
}

/// Looks a profile up by name.
pub fn by_name(name: &str) -> Option<(HwProfile, ProfileSources)> {
    builtin().into_iter().find(|(p, _)| p.name == name)
}

pub fn names() -> Vec<String> {
    builtin().into_iter().map(|(p, _)| p.name).collect()
}
