//! The receive side's host write path: a packet waits in the HCA's receive buffer until the NIC
//! has written its payload into host memory over PCIe, and the link credits it holds come back
//! only then (profile switch `rx_dma_drain`; off = the buffer drains at line rate on arrival).
//!
//! When the PCIe write rate is below the link's payload rate, the receive buffer fills, credits
//! stop, and the backlog spreads upstream through the switch's buffers to the sender: a mouse's
//! packet then queues behind every buffered byte of an elephant going to the same host.
//!
//! The PCIe throughput model is Neugebauer et al., "Understanding PCIe performance for end host
//! networking", SIGCOMM 2018, as published in their model (github.com/pcie-bench/pcie-model,
//! `model/pcie.py`, `model/mem_bw.py`): link rate × encoding, minus the share of SKP ordered
//! sets and of ACK / UpdateFC DLLPs at the PCIe spec's recommended rates, and a memory write
//! splits into TLPs of at most MPS bytes, each with 24 B of framing, header and LCRC.
use crate::engine::Time;
use crate::fabric::rate::serialize_time;

/// Bytes a posted memory write TLP adds to its payload: 4 B framing (Gen3 STP token with the
/// sequence number; Gen1/2 STP + sequence + END), 16 B header (64-bit address, 4 DW), 4 B LCRC.
pub const MWR_OVERHEAD_BYTES: u32 = 24;
/// Bytes a completion with data adds to its payload: 4 B framing, 12 B header (3 DW), 4 B LCRC.
pub const CPLD_OVERHEAD_BYTES: u32 = 20;
/// A DLLP on the wire: 6 B + 2 B framing (ACK or UpdateFC).
const DLLP_BYTES: f64 = 8.0;
/// SKP ordered sets for clock compensation: 4 symbols every 1538 (pcie-model `SKIP_*`).
const SKIP_SHARE: f64 = 4.0 / 1538.0;
/// Valid Maximum Payload Sizes.
pub const VALID_MPS: [u32; 6] = [128, 256, 512, 1024, 2048, 4096];
/// Valid link widths.
pub const VALID_PCIE_LANES: [u8; 6] = [1, 2, 4, 8, 16, 32];

/// The HCA's PCIe link to its host.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PcieLink {
    /// Generation 3, 4 or 5 (128b/130b encoding; the DLLP interval table below is theirs).
    pub gen: u8,
    pub lanes: u8,
    /// Maximum Payload Size negotiated with the root port, bytes.
    pub mps: u32,
}

impl PcieLink {
    /// Bit rate after 128b/130b encoding, bit/s.
    pub fn encoded_bps(&self) -> f64 {
        let gts = 8e9 * f64::from(1u32 << (self.gen.saturating_sub(3)));
        gts * 128.0 / 130.0 * f64::from(self.lanes)
    }

    /// Share of the link the ACK and UpdateFC DLLPs take at the spec's recommended interval
    /// (PCIe Base Spec Tables 3-7..3-9 and 2-46..2-48: Ack latency limit in symbol times per
    /// width and MPS, identical for 8, 16 and 32 GT/s). One symbol time carries one byte per
    /// lane. Counted in the write direction, although for a one-way write stream these DLLPs
    /// travel the other way: an upper bound (about 1 %).
    pub fn dllp_share(&self) -> f64 {
        let interval_symbols = ack_interval_symbols(self.lanes, self.mps);
        2.0 * DLLP_BYTES / (interval_symbols * f64::from(self.lanes))
    }

    /// Bit rate available to TLPs, bit/s.
    pub fn tlp_bps(&self) -> f64 {
        self.encoded_bps() * (1.0 - SKIP_SHARE - self.dllp_share())
    }

    /// Payload rate of a long DMA write (every TLP carries MPS bytes), bit/s.
    pub fn write_payload_bps(&self) -> f64 {
        self.tlp_bps() * f64::from(self.mps) / f64::from(self.mps + MWR_OVERHEAD_BYTES)
    }

    /// Payload rate of a long DMA read, bit/s: the data returns as completions of at most MPS
    /// bytes (their requests, 24 B per read request, travel the other way). Not used by the
    /// model (requester payload fetches are a latency, `dma_read_ns`); documented beside the
    /// write rate (docs/isolation.md 2.5).
    pub fn read_payload_bps(&self) -> f64 {
        self.tlp_bps() * f64::from(self.mps) / f64::from(self.mps + CPLD_OVERHEAD_BYTES)
    }

    /// Time per TLP-layer byte in 32.32 fixed-point picoseconds (as `fabric/rate.rs` does).
    pub fn ps_per_byte_fp32(&self) -> u64 {
        (8e12 / self.tlp_bps() * 4_294_967_296.0).round() as u64
    }
}

/// PCIe spec's Ack latency limit (symbol times) for 8 GT/s and faster, by width and MPS (the
/// values pcie-model's `Ack_Limits['gen3']` lists; UpdateFC uses the same intervals).
fn ack_interval_symbols(lanes: u8, mps: u32) -> f64 {
    const BY_MPS: [u32; 6] = VALID_MPS;
    const TABLE: [[u32; 6]; 6] = [
        [333, 512, 655, 1167, 2191, 4239], // x1
        [224, 313, 385, 641, 1153, 2177],  // x2
        [169, 214, 250, 378, 634, 1146],   // x4
        [163, 203, 182, 246, 374, 630],    // x8
        [144, 168, 182, 246, 374, 630],    // x16
        [129, 141, 148, 180, 244, 372],    // x32
    ];
    let w = VALID_PCIE_LANES.iter().position(|l| *l == lanes).unwrap_or(3);
    let m = BY_MPS.iter().position(|s| *s == mps).unwrap_or(1);
    f64::from(TABLE[w][m])
}

/// The receive buffer's drain through the DMA write engine: one FIFO server per HCA.
#[derive(Clone, Copy, Debug)]
pub struct RxDma {
    pub enabled: bool,
    pub mps: u32,
    pub ps_per_byte_fp32: u64,
    /// The write engine is busy until then.
    pub free_at: Time,
}

impl RxDma {
    pub fn new(enabled: bool, link: PcieLink) -> RxDma {
        RxDma { enabled, mps: link.mps, ps_per_byte_fp32: link.ps_per_byte_fp32(), free_at: Time::ZERO }
    }

    /// Time to write `payload` bytes (split into MPS-sized TLPs) into host memory.
    #[inline]
    pub fn write_time(&self, payload: u32) -> Time {
        let tlps = payload.div_ceil(self.mps);
        serialize_time(payload + tlps * MWR_OVERHEAD_BYTES, self.ps_per_byte_fp32)
    }

    /// A packet's tail arrived at `now`: returns when it leaves the receive buffer (its credits
    /// free) and when its transport processing runs. Packets drain in arrival order; one without
    /// payload (ACK, READ request) writes nothing but still waits for those ahead of it.
    #[inline]
    pub fn admit(&mut self, now: Time, payload: u32, rx_pipeline: Time) -> (Time, Time) {
        if !self.enabled {
            return (now, now + rx_pipeline);
        }
        let done = now.max(self.free_at) + self.write_time(payload);
        self.free_at = done;
        (done, done.max(now + rx_pipeline))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gbps(l: PcieLink) -> f64 {
        l.write_payload_bps() / 1e9
    }

    #[test]
    fn gen3_write_rates_of_the_isolation_profiles() {
        // ConnectX-3 (x8) and ConnectX-4 (x16), MPS 256: above FDR's and EDR's payload rates
        // (54.2 and 99.4 Gb/s for 4096 B packets), so no queue forms at line rate.
        let x8 = PcieLink { gen: 3, lanes: 8, mps: 256 };
        let x16 = PcieLink { gen: 3, lanes: 16, mps: 256 };
        assert!((x8.encoded_bps() / 1e9 - 63.015).abs() < 0.01);
        assert!((gbps(x8) - 56.9).abs() < 0.1, "{}", gbps(x8));
        assert!((gbps(x16) - 114.2).abs() < 0.1, "{}", gbps(x16));
        // Reads (completions carry a 3 DW header) are slightly faster than writes.
        assert!((x8.read_payload_bps() / 1e9 - 57.7).abs() < 0.1, "{}", x8.read_payload_bps());
        // A smaller MPS costs more header per byte.
        assert!(gbps(PcieLink { mps: 128, ..x16 }) < gbps(x16) - 8.0);
    }

    #[test]
    fn drain_is_fifo_and_off_means_line_rate() {
        let link = PcieLink { gen: 3, lanes: 4, mps: 256 };
        let mut d = RxDma::new(true, link);
        let t = d.write_time(4096);
        // 16 TLPs of 256 B: 4480 B at the TLP-layer rate.
        assert_eq!(t, serialize_time(4480, link.ps_per_byte_fp32()));
        let rx = Time::ns(100);
        let (f1, r1) = d.admit(Time::ZERO, 4096, rx);
        let (f2, r2) = d.admit(Time::ns(10), 0, rx);
        assert_eq!((f1, r1), (t, t));
        assert_eq!((f2, r2), (t, t), "an ACK behind a data packet waits for it");
        let mut off = RxDma::new(false, link);
        assert_eq!(off.admit(Time::ns(5), 4096, rx), (Time::ns(5), Time::ns(105)));
    }
}
