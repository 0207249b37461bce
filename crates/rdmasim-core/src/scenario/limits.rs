//! Limits of the format: the ranges the checks hold values to (validate/; docs/scenario.md
//! refers to them).

/// Path MTUs an InfiniBand port can run (IBTA Vol. 1, 7.7.1: 256..4096 in powers of two).
pub const VALID_MTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];
/// Link widths the model supports (1x, 4x, 12x).
pub const VALID_LINK_WIDTHS: [u8; 3] = [1, 4, 12];
/// Most hosts a single-switch topology may have.
/// A switch has at most 254 ports (InfiniBand port numbers are 8-bit, 255 is "no route"): more
/// hosts need a fat tree.
pub const MAX_SINGLE_SWITCH_HOSTS: u32 = 254;
/// Longest cable, metres.
pub const MAX_CABLE_M: f64 = 10_000.0;
/// Largest perftest message, bytes (2 GiB).
pub const MAX_SIZE: u64 = 1 << 31;
/// Most perftest iterations accepted.
pub const MAX_ITERS: u64 = 1_000_000_000;
/// Most QPs in one perftest run.
pub const MAX_QPS: u32 = 4096;
/// Largest inline size accepted, bytes.
pub const MAX_INLINE: u32 = 1024;
/// IBTA PSN space: at most 2^23 unacknowledged packets.
pub const MAX_INFLIGHT_PACKETS: u32 = 1 << 23;
/// Packets one QP may send in a run: PSNs are u32 in the model, and half the space keeps
/// PSN comparisons across a go-back from wrapping.
pub const MAX_PSNS_PER_QP: u64 = 1 << 31;
/// Largest perftest `tx_depth`: an assumption of the order of real devices' max_qp_wr.
pub const MAX_TX_DEPTH: u32 = 32768;
/// perftest's MAX_CQ_MOD (src/perftest_parameters.h).
pub const MAX_CQ_MOD: u32 = 1024;
/// Most ODP fault workers: mlx5's fault workqueue runs 32 (profile/builtin.rs); a bound far above
/// it keeps the per-fault scan over workers small.
pub const MAX_ODP_FAULT_WORKERS: u32 = 1024;
/// Highest bit error rate accepted (beyond it a link does not train).
pub const MAX_BER: f64 = 1e-3;
/// Headers of the largest packet: LRH 8 + GRH 40 + BTH 12 + RETH 16 + ImmDt 4 + ICRC 4 +
/// VCRC 2 (IBTA Vol. 1, ch. 5 and 9). An RDMA WRITE Only with Immediate over a global route
/// carries all of them.
pub const MAX_PACKET_HEADER_BYTES: u32 = 8 + 40 + 12 + 16 + 4 + 4 + 2;
/// Link-level flow-control credit size, bytes (IBTA Vol. 1, 7.9.4).
pub const CREDIT_BYTES: u32 = 64;

/// The receive buffer a VL needs to accept one full packet at this path MTU.
pub fn min_vl_buffer_bytes(mtu: u32) -> u32 {
    let bytes = mtu + MAX_PACKET_HEADER_BYTES;
    bytes.div_ceil(CREDIT_BYTES) * CREDIT_BYTES
}
