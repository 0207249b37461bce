//! PME-NT, PM/Ethernet's kernel path ("Ethernet(NT)", seeds/003): its per-packet time split
//! into the work a kernel path does for each packet, each term from a source or marked.
//!
//! seeds/003's table gives PME-NT Gigx4 393 MB/s and 15.7 µs: one per-packet time, the whole
//! of it, as the PME-HXB rows beside it are (2.38-2.90 µs). No breakdown of it was found
//! (docs/sources/issue34.md §6). The model charges, per received packet:
//! - **interrupt** 5 µs: the one interrupt figure measured on this node, seeds/003's "割り込み
//!   5usec" (of its 6.9 µs routing delay). ASSUMPTION that the kernel path takes one interrupt a
//!   packet and spends that long in it on the CPU: the HXB driver reaps interrupts, the stock
//!   kernel path is not said to (no source gives its interrupt and softirq entry either:
//!   docs/sources/issue34.md §6).
//! - **copy** of the payload between the kernel's buffer and the user's, at `copy_mb_s`
//!   (memory bound, not scaled with the clock): 6.66 µs for 8 KB at the model's 1230 MB/s (a fit
//!   of its own, from D5, host_cost.rs). That NT copies where kRMA and HXB do not: seeds/003
//!   lists zero copy for PM/Ethernet-HXB and kernel RMA "コピーオーバヘッド削減" for kRMA, not
//!   NT; Sumimoto and Kumon, "PM/Ethernet-kRMA", CCGrid 2003 (doi 10.1109/CCGRID.2003.1199384,
//!   abstract): kRMA "provides one-copy communication between user memory spaces", 487 MB/s on
//!   four GbE against the trunking path's 420.
//! - **protocol** (PM's own work, the driver, socket-buffer handling): the rest of the 15.7 µs,
//!   4.04 µs at 3.6 GHz. A fit: solved from row D2-NT-x4-t, with the other two as above.
//!
//! A send copies the payload once too (user to kernel buffer, as the kRMA comparison implies)
//! and does the protocol work, but takes no interrupt of its own (ASSUMPTION: the e1000 driver
//! frees sent descriptors in its receive interrupt's handler, e1000_clean_tx_irq from
//! e1000_intr / e1000_clean, Linux 2.6 drivers/net/e1000/e1000_main.c).
use crate::engine::Time;

/// seeds/003's PME-NT per-packet time at 3.6 GHz, the whole of it (row D2-NT-x4-t).
pub const NT_PACKET_US: f64 = 15.7;
/// The interrupt a kernel-path packet takes, µs at 3.6 GHz (seeds/003's "割り込み 5usec").
pub const NT_INTERRUPT_US: f64 = 5.0;
/// The packet the seed measured: 8192 B of payload.
pub const NT_SEED_PAYLOAD: u32 = 8192;

/// PM's protocol work on the kernel path, µs at 3.6 GHz: what is left of the seed's 15.7 µs
/// after the interrupt and the copy of its 8 KB at `copy_mb_s`, the copy rate the model takes
/// for the seed's node (a fit, D2-NT-x4-t).
pub fn nt_protocol_us(copy_mb_s: f64) -> f64 {
    NT_PACKET_US - NT_INTERRUPT_US - f64::from(NT_SEED_PAYLOAD) / copy_mb_s
}

/// The terms of one kernel-path packet on a host (HostCostConfig::nt_terms makes them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NtTerms {
    pub interrupt: Time,
    pub copy: Time,
    pub protocol: Time,
}

impl NtTerms {
    /// A received packet: interrupt, copy out of the kernel's buffer, protocol.
    pub fn recv(&self) -> Time {
        self.interrupt + self.copy + self.protocol
    }

    /// A sent packet: copy into the kernel's buffer, protocol; no interrupt of its own.
    pub fn send(&self) -> Time {
        self.copy + self.protocol
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ether::host_cost::HostCostConfig;

    /// Each term alone, exactly, for a tiny packet: 1230 B at the default 1230 MB/s copies in
    /// 1 µs; at 3.6 GHz the interrupt is 5 µs and the protocol 15.7 − 5 − 8192/1230 µs.
    #[test]
    fn each_term_of_a_kernel_path_packet() {
        let cfg = HostCostConfig::default();
        let t = cfg.nt_terms(1230);
        assert_eq!(t.interrupt, Time(5_000_000));
        assert_eq!(t.copy, Time(1_000_000));
        assert_eq!(t.protocol, Time(4_039_837)); // 4.039837… µs, to the ps
        assert_eq!(t.recv(), Time(10_039_837));
        assert_eq!(t.send(), Time(5_039_837));
        // The seed's 8 KB packet: the three make its 15.7 µs.
        assert_eq!(cfg.nt_terms(8192).recv(), Time(15_700_000));
        // A clock twice as fast halves the interrupt and the protocol, not the copy (memory);
        // a copy rate twice as fast halves the copy only.
        let fast = HostCostConfig { cpu_ghz: 7.2, ..cfg }.nt_terms(1230);
        assert_eq!((fast.interrupt, fast.copy, fast.protocol), (Time(2_500_000), Time(1_000_000), Time(2_019_919)));
        let mem = HostCostConfig { copy_mb_s: 2460.0, ..cfg }.nt_terms(1230);
        assert_eq!((mem.interrupt, mem.copy, mem.protocol), (t.interrupt, Time(500_000), t.protocol));
    }
}
