//! The host CPU's cost per packet, from seeds/003's measured per-packet times, scaled to the
//! CPU's clock (times scale as 1/f: the seed's own conversion, "2.8GHz換算で 3.5 / 3.7 usec",
//! of 2.71 µs and 2.90 µs at 3.6 GHz).
use super::kernel_path::{nt_protocol_us, NtTerms, NT_INTERRUPT_US};
use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// The clock seeds/003's times were measured at (Xeon 3.6 GHz).
pub const REFERENCE_GHZ: f64 = 3.6;

/// Per-packet processing time of PM/Ethernet-HXB at 3.6 GHz with `nics` NICs, µs: the line
/// through the seed's ×2 (2.38 µs) and ×9 (2.90 µs) figures. More NICs cost more per packet
/// (more rings to poll, more interrupt sources); the seed gives no breakdown, so the ×4, ×6
/// and ×8 figures (2.58, 2.71, 2.81) are what the line predicts.
///
/// Fit: solved from rows D2-x2-t and D2-x9-t (`rdmasim reproduce pm`), which read it back; the
/// ×4, ×6, ×8 rows (D2-x4-t, D2-x6-t, D2-x8-t) read the line back too and are arithmetic.
pub fn hxb_packet_us(nics: u32) -> f64 {
    let (n0, t0, n1, t1) = (2.0, 2.38, 9.0, 2.90);
    t0 + (f64::from(nics) - n0) * (t1 - t0) / (n1 - n0)
}

/// mmap of one page: 0.064 µs (seeds/003); map and unmap of 9 KB (3 pages) 0.384 µs.
pub const MAP_US_PER_PAGE: f64 = 0.064;
pub const PAGE_BYTES: u32 = 4096;

/// How a received packet reaches the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RxPath {
    /// PM/Ethernet-HXB: receive skbufs mapped into the process in advance; the ID of the one
    /// used is passed up. No copy, no system call.
    #[default]
    Premapped,
    /// The usual receive-side zero copy: map the skbuf after receipt, unmap after: two
    /// system calls and the page-table work (0.064 µs a page each way).
    MapUnmap,
    /// Copy from the skbuf into the user buffer.
    Copy,
}

/// The host side of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostCostConfig {
    #[serde(default = "default_ghz")]
    pub cpu_ghz: f64,
    /// `hxb` (PM/Ethernet-HXB) or `nt` (PME-NT, the kernel path: kernel_path.rs).
    #[serde(default)]
    pub stack: Stack,
    /// How PM-HXB hands a received packet up (`premapped` when not given). The kernel path
    /// always copies (kernel_path.rs): under `stack = "nt"` only `copy` is accepted.
    #[serde(default)]
    pub rx_path: Option<RxPath>,
    /// Memory copy rate, MB/s (`rx_path = "copy"` and an MPI library's copies, `[workload] kind = "mpi"`).
    /// ASSUMPTION: 1230 MB/s, derived from one published figure: MPICH over PM on 8 links
    /// (seeds/003, 862 MB/s one-way) is receiver bound at 8192 B / 862 MB/s = 9.50 µs a packet,
    /// of which PM takes 2.83 µs; the other 6.67 µs copy 8 KB. A Xeon on an 800 MHz FSB (6.4
    /// GB/s peak: Intel Server Board SE7320SP2/SE7525GP2 TPS rev 2.0 §3.2.1.1 "Front Side Bus",
    /// of the E7520's family) copying while six to nine NICs DMA into the same memory is in
    /// that range. No independent copy-rate measurement for that platform was found, so it is a
    /// fit: solved from row D5-x8-MPICH-1way (docs/pm.md). Memory bound: not scaled with the clock.
    #[serde(default = "default_copy")]
    pub copy_mb_s: f64,
}

fn default_ghz() -> f64 {
    REFERENCE_GHZ
}
/// The copy rate the model takes for the seed's node, MB/s (the fit above).
pub const DEFAULT_COPY_MB_S: f64 = 1230.0;

fn default_copy() -> f64 {
    DEFAULT_COPY_MB_S
}

impl Default for HostCostConfig {
    fn default() -> Self {
        HostCostConfig { cpu_ghz: REFERENCE_GHZ, stack: Stack::Hxb, rx_path: None, copy_mb_s: default_copy() }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Stack {
    #[default]
    Hxb,
    Nt,
}

/// ASSUMPTION: a system call's entry and exit, 0.1 µs at 3.6 GHz (a few hundred cycles on a
/// 2005 Xeon; not in the seed, and no Linux 2.6 / Xeon 3.6 GHz measurement was found).
const SYSCALL_US: f64 = 0.1;
/// ASSUMPTION: handling an acknowledgement (no payload, no delivery), 0.5 µs at 3.6 GHz (the
/// seed and the PM/Ethernet papers' abstracts give no per-ack cost; nothing else was found).
const ACK_US: f64 = 0.5;
/// The relay's own work per packet at 3.6 GHz: seeds/003's routing delay 6.9 µs less its
/// interrupt 5 µs and the NIC's receive write-back (0.2 µs) and transmit start (0.5 µs) that
/// the model already charges: 1.2 µs for the header rewrite and the driver's send
/// ("ヘッダ書き換えとデバイスドライバ送信処理のみのオーバヘッド"). Fit: solved from row D3-routing's
/// 6.9 µs (with D3-per-dim and the 2-D and 3-D half round trips it fixes the per-dimension
/// increment), see docs/pm.md.
const RELAY_US: f64 = 6.9 - 5.0 - 0.2 - 0.5;

/// The per-packet times of one host, as `Time`s, fixed before the run.
#[derive(Clone, Copy, Debug)]
pub struct HostCost {
    pub send: Time,
    pub recv: Time,
    pub ack: Time,
    pub relay: Time,
    /// Copying one byte (an MPI library's copy into or out of PM's buffers), in ps.
    pub copy_ps_per_byte: u64,
    /// The MPI library's own time per packet of its data beyond MPICH's, in ps (negative when
    /// leaner; ether/mpi/packet_cost.rs). 0 unless an MPI workload sets it.
    pub mpi_packet_ps: i64,
}

impl HostCostConfig {
    /// A CPU time measured at 3.6 GHz, on this host's clock. The 1/f law is the seed's own
    /// "2.8GHz換算" (fit: taken from rows D2-x6-2.8GHz and D2-x9-2.8GHz, which read it back).
    pub fn scale(&self, us_at_ref: f64) -> Time {
        Time::from_ns_f64(us_at_ref * 1e3 * REFERENCE_GHZ / self.cpu_ghz)
    }

    /// Copying `bytes` at the host's copy rate (memory bound: not scaled with the clock).
    fn copy_time(&self, bytes: u32) -> Time {
        Time::from_ns_f64(f64::from(bytes) / self.copy_mb_s * 1e3)
    }

    /// The kernel path's terms for a packet of `payload` bytes (kernel_path.rs): the interrupt
    /// and the protocol work on this host's clock, the copy at its copy rate.
    pub fn nt_terms(&self, payload: u32) -> NtTerms {
        NtTerms { interrupt: self.scale(NT_INTERRUPT_US), copy: self.copy_time(payload), protocol: self.scale(nt_protocol_us(DEFAULT_COPY_MB_S)) }
    }

    /// Per-packet times for a host with `nics` NICs receiving packets of `payload` bytes.
    pub fn costs(&self, nics: u32, payload: u32) -> HostCost {
        let (send, recv) = match self.stack {
            Stack::Hxb => {
                let pages = payload.div_ceil(PAGE_BYTES);
                let packet = hxb_packet_us(nics);
                let recv = match self.rx_path.unwrap_or_default() {
                    RxPath::Premapped => self.scale(packet),
                    RxPath::MapUnmap => self.scale(packet + 2.0 * SYSCALL_US + 2.0 * MAP_US_PER_PAGE * f64::from(pages)),
                    RxPath::Copy => self.scale(packet) + self.copy_time(payload),
                };
                (self.scale(packet), recv)
            }
            Stack::Nt => {
                let nt = self.nt_terms(payload);
                (nt.send(), nt.recv())
            }
        };
        HostCost {
            send,
            recv,
            ack: self.scale(ACK_US),
            relay: self.scale(RELAY_US),
            copy_ps_per_byte: (1e6 / self.copy_mb_s).round() as u64,
            mpi_packet_ps: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_s_2_8_ghz_conversion() {
        let at_2_8 = HostCostConfig { cpu_ghz: 2.8, ..Default::default() };
        // The seed's ×6 and ×9 per-packet times, 2.71 and 2.90 µs at 3.6 GHz: "3.5" and "3.7".
        assert!((at_2_8.scale(2.71).as_us_f64() - 3.5).abs() < 0.05);
        assert!((at_2_8.scale(2.90).as_us_f64() - 3.7).abs() < 0.05);
        // The model's cost with nine NICs is the ×9 figure itself (the line's end point).
        assert!((at_2_8.costs(9, 8192).recv.as_us_f64() - 3.729).abs() < 0.001);
        // The seed's map/unmap of 9 KB: 0.384 µs (3 pages, both ways).
        assert!((2.0 * MAP_US_PER_PAGE * f64::from(9216u32.div_ceil(PAGE_BYTES)) - 0.384).abs() < 1e-9);
    }
}
