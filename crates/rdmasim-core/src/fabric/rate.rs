//! Link signalling rates and line encodings by InfiniBand generation (IBTA Vol. 2).
//!
//! The data rate of a link is lanes × lane signalling rate × encoding efficiency. Serialisation
//! time is computed in integer picoseconds through a 32.32 fixed-point "ps per byte", so the
//! event loop never touches floating point.
use crate::engine::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkGen {
    Sdr,
    Ddr,
    Qdr,
    Fdr10,
    Fdr,
    Edr,
    Hdr,
    /// 106.25 Gb/s per lane, PAM4 (IBTA Vol. 2 Release 1.5; ibnetdiscover and iblinkinfo print it).
    Ndr,
    /// 212.5 Gb/s per lane (ibnetdiscover prints XDR since rdma-core 50).
    Xdr,
}

impl LinkGen {
    /// Lane signalling rate in bit/s (symbols on the wire, before decoding).
    pub fn lane_baud(self) -> u64 {
        match self {
            LinkGen::Sdr => 2_500_000_000,
            LinkGen::Ddr => 5_000_000_000,
            LinkGen::Qdr => 10_000_000_000,
            LinkGen::Fdr10 => 10_312_500_000,
            LinkGen::Fdr => 14_062_500_000,
            LinkGen::Edr => 25_781_250_000,
            LinkGen::Hdr => 53_125_000_000,
            LinkGen::Ndr => 106_250_000_000,
            LinkGen::Xdr => 212_500_000_000,
        }
    }
    /// Encoding efficiency as (data bits, line bits).
    /// SDR/DDR/QDR: 8b/10b. FDR10/FDR/EDR: 64b/66b. HDR: PAM4 with RS-FEC, 50 Gb/s data per
    /// 53.125 Gb/s lane, which is exactly 16/17; NDR and XDR the same ratio (100 and 200 Gb/s
    /// data per lane, NVIDIA's quoted per-lane rates).
    pub fn encoding(self) -> (u64, u64) {
        match self {
            LinkGen::Sdr | LinkGen::Ddr | LinkGen::Qdr => (8, 10),
            LinkGen::Fdr10 | LinkGen::Fdr | LinkGen::Edr => (64, 66),
            LinkGen::Hdr | LinkGen::Ndr | LinkGen::Xdr => (16, 17),
        }
    }
    pub fn encoding_name(self) -> &'static str {
        match self {
            LinkGen::Sdr | LinkGen::Ddr | LinkGen::Qdr => "8b/10b",
            LinkGen::Fdr10 | LinkGen::Fdr | LinkGen::Edr => "64b/66b",
            LinkGen::Hdr | LinkGen::Ndr | LinkGen::Xdr => "PAM4 + RS-FEC (16/17)",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkSpeed {
    pub gen: LinkGen,
    /// Lanes; 4 when a scenario or `-p speed.gen=…` gives only the generation.
    #[serde(default = "four_lanes")]
    pub width: u8,
}

fn four_lanes() -> u8 {
    4
}

impl LinkSpeed {
    /// Signalling rate of the whole link, bit/s.
    pub fn signalling_bps(self) -> u64 {
        self.gen.lane_baud() * self.width as u64
    }
    /// Data rate after line encoding, bit/s (exact rational, rounded down for display).
    pub fn data_bps_f64(self) -> f64 {
        let (n, d) = self.gen.encoding();
        self.signalling_bps() as f64 * n as f64 / d as f64
    }
    /// Picoseconds per byte in 32.32 fixed point: 8e12 × d / (signalling × n) × 2^32.
    pub fn ps_per_byte_fp32(self) -> u64 {
        let (n, d) = self.gen.encoding();
        let num: u128 = 8u128 * 1_000_000_000_000u128 * d as u128;
        let den: u128 = self.signalling_bps() as u128 * n as u128;
        ((num << 32) / den) as u64
    }
    /// The width and speed a link between a port supporting `self` and one supporting `other`
    /// trains to: the narrower width and the slower generation.
    pub fn trained_with(self, other: LinkSpeed) -> LinkSpeed {
        let gen = if self.gen.rank() <= other.gen.rank() { self.gen } else { other.gen };
        LinkSpeed { gen, width: self.width.min(other.width) }
    }

    pub fn label(self) -> String {
        format!("{}x {:?}", self.width, self.gen).to_uppercase()
    }
}

/// Serialisation time of `bytes` at a rate given as 32.32 fixed-point ps per byte (rounded up).
#[inline]
pub fn serialize_time(bytes: u32, ps_per_byte_fp32: u64) -> Time {
    let t = (bytes as u128 * ps_per_byte_fp32 as u128 + 0xFFFF_FFFF) >> 32;
    Time(t as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_rates_match_the_generations() {
        let r = |g, w| LinkSpeed { gen: g, width: w }.data_bps_f64() / 1e9;
        assert_eq!(r(LinkGen::Sdr, 4), 8.0);
        assert_eq!(r(LinkGen::Qdr, 4), 32.0);
        assert_eq!(r(LinkGen::Qdr, 1), 8.0);
        assert!((r(LinkGen::Fdr, 4) - 54.545454).abs() < 1e-3);
        assert_eq!(r(LinkGen::Edr, 4), 100.0);
        assert_eq!(r(LinkGen::Hdr, 4), 200.0);
        assert_eq!(r(LinkGen::Ndr, 4), 400.0);
        assert_eq!(r(LinkGen::Ndr, 2), 200.0);
    }

    #[test]
    fn serialisation_is_exact_at_edr() {
        // EDR 4x carries 100 Gb/s: 80 ps per byte, a 4096 B payload packet of 4122 B takes 329.76 ns.
        let fp = LinkSpeed { gen: LinkGen::Edr, width: 4 }.ps_per_byte_fp32();
        assert_eq!(serialize_time(1, fp), Time(80));
        assert_eq!(serialize_time(4122, fp), Time(329_760));
    }
}
