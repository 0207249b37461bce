//! An E1000-class GigE NIC (Intel 82546 dual-port / 82541 on-board, as seeds/003's nodes had:
//! "Dual E1000 NIC x 4 + Onboard E1000", each card on its own PCI-X 100 MHz bus): descriptor
//! rings, DMA over a PCI-X bus that the two ports of a dual card share (the onboard NIC's bus:
//! host_buses.rs), and a receive interrupt delayed by the card's interrupt moderation.
//!
//! Sources: the Linux e1000 driver of the seed's kernel family (2.6.12: torvalds/linux @
//! 1da177e4c3f4, `Documentation/networking/e1000.txt`, "Linux* Base Driver for the Intel(R)
//! PRO/1000 Family of Adapters", Nov 17 2004, and `drivers/net/e1000/e1000_param.c`,
//! `e1000_main.c`); Intel's "PCI/PCI-X Family of Gigabit Ethernet Controllers Software
//! Developer's Manual" (SDM).
//!
//! Not modelled: the 82546's 64 KB on-chip packet buffer (SDM §13.4.16 "Packet Buffer
//! Allocation", Table 13-62: 48 KB receive / 16 KB transmit by default; the driver's
//! `e1000_reset()` sets 40 KB / 24 KB when receive buffers exceed 8 KB, i.e. with jumbo
//! frames). It would fill only if the bus were slower than the line; two ports' full duplex
//! need 500 MB/s ("a peak throughput demand of 250 MB/sec" a port, SDM p. 77) of the bus's 800.
use crate::engine::Time;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NicProfile {
    pub name: &'static str,
    /// Transmit and receive descriptors per port: the e1000 driver's default (e1000.txt,
    /// "RxDescriptors"/"TxDescriptors": "Default Value: 256", range 80-4096 on the 82546).
    pub tx_ring: u32,
    pub rx_ring: u32,
    /// PCI-X bus bandwidth in bytes per second: 64 bit × 100 MHz = 800 MB/s (PCI-X 1.0; Tom's
    /// Hardware, "Data Transfer Rates Depending On PCI Standard": "PCI-X 1.0 | 64 Bit | 100 MHz
    /// | 800 MB/sec", medium-high confidence: a secondary source, but the figure is 8 B × the
    /// clock). seeds/003: each card on its own PCI-X 100 MHz bus.
    pub bus_bytes_per_s: u64,
    /// Ports sharing one bus: 2 on a dual-port card.
    pub ports_per_bus: u32,
    /// From the driver's doorbell to the frame's first byte fetched (descriptor fetch and the
    /// first data read on the bus). ASSUMPTION: 0.5 µs, a PCI-X read round trip or two. Not
    /// found: no E1000 descriptor-fetch or DMA latency in the SDM pages or driver documents
    /// searched.
    pub tx_start: Time,
    /// From the last byte written to host memory to the descriptor's write-back. ASSUMPTION:
    /// 0.2 µs, a posted write and a descriptor write-back (not found, as `tx_start`).
    pub rx_writeback: Time,
    /// Receive interrupt delay: seeds/003's measured "割り込み 5usec" (of its 6.9 µs routing
    /// delay), study-reported. The stock driver's moderation defaults (e1000.txt: RxIntDelay 0,
    /// RxAbsIntDelay 128, TxIntDelay 64, TxAbsIntDelay 64, in units of 1.024 µs;
    /// InterruptThrottleRate 8000 a second; e1000_param.c `DEFAULT_RDTR 0`, `DEFAULT_RADV 128`,
    /// `DEFAULT_ITR 8000`) are not used: PM/Ethernet-HXB ran its own driver ("Specially
    /// developed driver", PACS-CS design table, https://www.rccp.tsukuba.ac.jp/PACS-CS/details.html)
    /// with interrupt reaping (Sumimoto et al., HPDC 2000), and its settings are not published.
    pub irq_delay: Time,
    /// Largest frame, destination MAC to FCS: 16128 B (e1000.txt, "Jumbo Frames": "The maximum
    /// MTU setting for Jumbo Frames is 16110. This value coincides with the maximum Jumbo
    /// Frames size of 16128.").
    pub max_frame_bytes: u32,
}

/// The E1000 of seeds/003.
pub fn e1000() -> NicProfile {
    NicProfile {
        name: "e1000",
        tx_ring: 256,
        rx_ring: 256,
        bus_bytes_per_s: 800_000_000,
        ports_per_bus: 2,
        tx_start: Time::ns(500),
        rx_writeback: Time::ns(200),
        irq_delay: Time::us(5),
        max_frame_bytes: 16_128,
    }
}

impl NicProfile {
    /// Time a card's bus is busy moving `bytes`.
    pub fn bus_time(&self, bytes: u32) -> Time {
        Bus::new(self.bus_bytes_per_s).time(bytes)
    }
}

/// Counters of one NIC port, named as the e1000 driver's `ethtool -S` names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NicCounters {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub rx_packets: u64,
    pub rx_bytes: u64,
    /// Frames dropped because the receive ring had no free descriptor.
    pub rx_no_buffer_count: u64,
    /// Times the driver found the transmit ring full.
    pub tx_restart_queue: u64,
    pub rx_flow_control_xon: u64,
    pub rx_flow_control_xoff: u64,
}

/// A bus a NIC moves frames over (shared by the ports of a card): one transfer at a time, in
/// the order asked.
#[derive(Clone, Copy, Debug)]
pub struct Bus {
    busy_until: Time,
    bytes_per_s: u64,
}

impl Bus {
    pub fn new(bytes_per_s: u64) -> Bus {
        Bus { busy_until: Time::ZERO, bytes_per_s }
    }

    /// Time the bus is busy moving `bytes` (exact in ps: 1250 ps per byte at 800 MB/s).
    pub fn time(&self, bytes: u32) -> Time {
        Time(u64::from(bytes) * 1_000_000_000_000 / self.bytes_per_s)
    }

    /// Books a transfer of `bytes` asked for at `at`; returns when it ends.
    pub fn book(&mut self, at: Time, bytes: u32) -> Time {
        let start = self.busy_until.max(at);
        self.busy_until = start + self.time(bytes);
        self.busy_until
    }
}
