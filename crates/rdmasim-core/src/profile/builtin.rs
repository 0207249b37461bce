//! The built-in hardware profiles (cx3-fdr, cx4-edr, cx5-edr, cx6-hdr): every value with its
//! source. A value not taken from a public source says "assumption" in its source string, with
//! the reasoning.
use super::{Arbitration, HostParams, HostSources, HwProfile, LinkParams, LinkSources, NicParams, NicSources, ProfileSources, SwitchParams, SwitchSources};
use crate::fabric::rate::LinkGen;

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
        nic: NicSources {
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
            srq_event_interrupt_ns: SRC_SRQ_INT,
            ack_req_every: "assumption: AckReq every 64 packets plus each message's last (IBTA leaves it to the requester, 9.7.6.1)",
            max_inflight_packets: SRC_RD_ATOMIC,
            retransmit_floor_ms: SRC_FLOOR,
            adaptive_retrans_base_us: "disabled by default; mlx5 adaptive retransmission exists (roce_adp_retrans counter, rdma-core mlx5 counters) but its timer law is unpublished",
            arbitration: "assumption: packet round robin between QPs with work (the vendor's arbiter is unpublished)",
            arbitration_chunk_bytes: "assumption",
            tx_staging_bytes: "assumption: 0 (no public figure for a ConnectX transmit buffer; a sensitivity in docs/isolation.md sec. 2.1)",
            wqe_fetch_on_schedule: "assumption: false (fetch at the doorbell); true is the isolation study's hypothesis for its 1 KB mouse (docs/isolation.md 2.3)",
            odp_fault_us: SRC_ODP_FAULT,
            odp_requester_retry_us: SRC_ODP_RETRY,
            odp_fault_workers: "Linux drivers/infiniband/hw/mlx5/odp.c: page faults are handled on the \"mlx5_ib_page_fault\" workqueue, alloc_workqueue(..., WQ_UNBOUND, MLX5_NUM_CMD_EQE = 32): at most 32 at once; that each holds its context for the whole odp_fault_us is an assumption (the fault latency taken as driver work)",
            odp_invalidate_us: "assumption: an MMU-notifier invalidation (UMR to zap MTT entries) ~10 us",
            odp_damming: SRC_DAMMING,
            odp_flood: SRC_FLOOD,
        },
        link: LinkSources {
            link_gen: SRC_IBTA_RATE,
            link_width: SRC_IBTA_RATE,
            mtu: SRC_MTU,
            cable_ns_per_m: SRC_CABLE,
            vl_buffer_bytes: "assumption: 32 KiB per VL, enough for line rate over a few metres of cable (credits cover the round trip)",
        },
        switch: SwitchSources {
            switch_latency_ns: "Mellanox switch product briefs: SwitchX-2 (FDR) 170 ns, Switch-IB (EDR) 90 ns port to port",
        },
        host: HostSources {
            perftest_mtu: "perftest set_mtu: without -m it takes the port's active MTU (0 here)",
            post_send_cpu_ns: "assumption: ~50-100 ns to build a WQE and write the doorbell (Kalia et al., ATC'16 'Design Guidelines for High Performance RDMA Systems', sec. 3)",
            poll_cq_ns: "assumption: one ibv_poll_cq iteration on a cached CQ ~30 ns (Kalia et al., ATC'16)",
            interrupt_ns: "assumption: MSI-X delivery and handler ~2 us",
            wakeup_ns: "assumption: waking a blocked thread ~3 us (Linux futex/ctx-switch figures)",
            event_cpu_ns: "assumption: ~4 us CPU per completion event (interrupt, wake-up, ibv_ack_cq_events, ibv_req_notify_cq)",
            srq_arm_ns: "Tanimoto et al., seeds/001 sec. 4.1.3: t_setev = 55.9 us measured on ConnectX-3 FDR (ibv_modify_srq setting the limit event); no figure for newer cards, so every profile uses it",
            srq_recv_wqe_ns: "assumption: ~10 ns per WQE; rdma-core mlx4/mlx5 post_srq_recv write a 16 B next-pointer + 16 B scatter entry per WQE from cache and update the doorbell record once per call",
            srq_poll_detect_ns: SRC_SRQ_POLL,
            os_tick_hz: SRC_TICK_HZ,
            os_tick_detour_min_ns: SRC_TICK_DETOUR,
            os_tick_detour_max_ns: SRC_TICK_DETOUR,
            os_tick_entry_exit_ns: SRC_TICK_ENTRY_EXIT,
            cpu_idle: "assumption: none (C-states off or idle=poll, a common RDMA benchmark set-up); \"haswell\" = intel_idle.c hsw_cstates (exit latency, target residency); \"haswell-pkg\" = the same with core-only exits while the package is awake (host/cstate.rs: table = package worst case; core C6 92 us from the kernel's Skylake-SP CC6 measurement, core C3 = table, both assumptions for Haswell-EP); \"sandybridge\" = intel_idle.c snb_cstates (also used for SANDYBRIDGE_X), C7 left out (client-only state, assumption)",
            mr_register_us: "assumption: ~10 us fixed ibv_reg_mr cost (Frey and Alonso, ICDCS'09 'Minimizing the hidden cost of RDMA': registration cost is a fixed part plus a per-page part)",
            mr_pin_page_us: "assumption: ~0.25 us per 4 KiB page to pin (get_user_pages) and write its MTT entry (Frey and Alonso, ICDCS'09; Mietke et al., Euro-Par'06)",
        },
    }
}

/// The built-in profiles, with their sources.
pub fn builtin() -> Vec<(HwProfile, ProfileSources)> {
    let edr = HwProfile {
        name: "cx4-edr".into(),
        nic: NicParams {
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
            srq_event_interrupt_ns: 30_500.0,
            ack_req_every: 64,
            max_inflight_packets: 128,
            retransmit_floor_ms: 500.0,
            adaptive_retrans_base_us: 0.0,
            arbitration: Arbitration::PacketRoundRobin,
            arbitration_chunk_bytes: 16 * 1024,
            tx_staging_bytes: 0,
            wqe_fetch_on_schedule: false,
            odp_fault_us: 500.0,
            odp_requester_retry_us: 3500.0,
            odp_fault_workers: 32,
            odp_invalidate_us: 10.0,
            odp_damming: true,
            odp_flood: true,
        },
        link: LinkParams {
            link_gen: LinkGen::Edr,
            link_width: 4,
            mtu: 4096,
            cable_ns_per_m: 5.0,
            vl_buffer_bytes: 32 * 1024,
        },
        switch: SwitchParams {
            switch_latency_ns: 90.0,
        },
        host: HostParams {
            perftest_mtu: 0,
            post_send_cpu_ns: 70.0,
            poll_cq_ns: 30.0,
            interrupt_ns: 2000.0,
            wakeup_ns: 3000.0,
            event_cpu_ns: 4000.0,
            srq_arm_ns: 55_900.0, // fit: B2's t_setev itself (seeds/001)
            srq_recv_wqe_ns: 10.0,
            srq_poll_detect_ns: 530.0,
            cpu_idle: crate::host::cstate::CpuIdle::None,
            os_tick_hz: 0.0,
            os_tick_detour_min_ns: 1845.0,
            os_tick_detour_max_ns: 2848.0,
            os_tick_entry_exit_ns: 0.0,
            mr_register_us: 10.0,
            mr_pin_page_us: 0.25,
        },
    };
    let mut s_edr = sources_common();
    s_edr.link.link_gen = "ConnectX-4 VPI product brief: EDR 100 Gb/s (4x, 25.78125 Gb/s per lane, 64b/66b)";

    let mut fdr = edr.clone();
    fdr.name = "cx3-fdr".into();
    fdr.link.link_gen = LinkGen::Fdr;
    fdr.nic.doorbell_ns = 250.0;
    fdr.nic.tx_packet_ns = 11.0;
    fdr.nic.pcie_lanes = 8;
    fdr.switch.switch_latency_ns = 170.0;
    fdr.nic.odp_damming = false;
    fdr.nic.odp_flood = false;
    fdr.host.perftest_mtu = 2048;
    let mut s_fdr = sources_common();
    s_fdr.link.link_gen = "ConnectX-3 VPI product brief: FDR 56 Gb/s (4x, 14.0625 Gb/s per lane, 64b/66b)";
    s_fdr.nic.tx_packet_ns = "assumption: ~90 M packets/s for the older engine (a ConnectX-3 message-rate figure is not in its product brief)";
    s_fdr.nic.pcie_lanes = "ConnectX-3 VPI product brief and adapter list (MCX353A/MCX354A-FCBT: PCIe 3.0 x8)";
    s_fdr.nic.odp_damming = "ConnectX-3 (mlx4) has no ODP, and seeds/001 reports RNR retries on it without damming: off";
    s_fdr.nic.odp_flood = "ConnectX-3 (mlx4) has no ODP: off";
    s_fdr.host.perftest_mtu = "perftest src/perftest_parameters.c set_mtu: \"CX3_PRO and CX3 have a HW bug in 4K MTU, so we're forcing it to be 2K MTU\" when the port's MTU is 4096 and no -m is given";
    s_fdr.nic.doorbell_ns = "assumption: older PCIe Gen3 x8 part; +50 ns over ConnectX-4 puts 2 B write latency near ConnectX-3 perftest reports (~0.8-1 us)";

    let mut cx5 = edr.clone();
    cx5.name = "cx5-edr".into();
    cx5.nic.doorbell_ns = 180.0;
    cx5.nic.tx_packet_ns = 5.0;
    let mut s_cx5 = sources_common();
    s_cx5.link.link_gen = "ConnectX-5 VPI product brief: EDR 100 Gb/s";
    s_cx5.nic.tx_packet_ns = "ConnectX-5 product brief: up to 200 M msg/s";
    s_cx5.nic.retransmit_floor_ms = "seeds/000: the ~500 ms floor is kept on the newest models (the vendor fixed damming, not the floor)";
    s_cx5.nic.doorbell_ns = "assumption: slightly faster doorbell path than ConnectX-4";
    s_cx5.nic.pcie_gen = "NVIDIA ConnectX-5 adapter user manual (Interfaces): ConnectX-5 PCIe Gen 3.0 x16 (Gen 4.0 only on ConnectX-5 Ex)";

    // The newer NIC of seeds/000's conclusion: the vendor fixed damming, the timeout floor stays.
    let mut cx6 = cx5.clone();
    cx6.name = "cx6-hdr".into();
    cx6.link.link_gen = LinkGen::Hdr;
    cx6.nic.odp_damming = false;
    cx6.nic.pcie_gen = 4;
    let mut s_cx6 = sources_common();
    s_cx6.link.link_gen = "ConnectX-6 VPI product brief: HDR 200 Gb/s (4x, 53.125 Gb/s per lane, PAM4)";
    s_cx6.nic.tx_packet_ns = s_cx5.nic.tx_packet_ns;
    s_cx6.nic.doorbell_ns = s_cx5.nic.doorbell_ns;
    s_cx6.nic.retransmit_floor_ms = s_cx5.nic.retransmit_floor_ms;
    s_cx6.nic.pcie_gen = "NVIDIA ConnectX-6 adapter user manual (Interfaces): PCIe Gen 3.0/4.0 x16; 4.0 assumed (an HDR port needs it)";
    s_cx6.nic.odp_damming = "seeds/000: the vendor reports packet damming fixed on the newest models (the ~500 ms floor is kept)";
    s_cx6.switch.switch_latency_ns = "assumption: HDR switch port to port latency taken as the EDR figure (Quantum brief gives ~130 ns; kept at 90 for comparability)";

    vec![(fdr, s_fdr), (edr, s_edr), (cx5, s_cx5), (cx6, s_cx6)]
}

/// Looks a profile up by name.
pub fn by_name(name: &str) -> Option<(HwProfile, ProfileSources)> {
    builtin().into_iter().find(|(p, _)| p.name == name)
}

pub fn names() -> Vec<String> {
    builtin().into_iter().map(|(p, _)| p.name).collect()
}
