//! An E1000-class GigE NIC (Intel 82546 dual-port / 82541 on-board, as seeds/003's nodes had:
//! "Dual E1000 NIC x 4 + Onboard E1000", each card on its own PCI-X 100 MHz bus): descriptor
//! rings, DMA over a PCI-X bus that the two ports of a dual card share, and a receive
//! interrupt delayed by the card's interrupt moderation.
use crate::engine::Time;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NicProfile {
    pub name: &'static str,
    /// Transmit and receive descriptors per port: the Linux e1000 driver's default
    /// (`TxDescriptors`/`RxDescriptors` = 256, Documentation/networking/e1000.txt).
    pub tx_ring: u32,
    pub rx_ring: u32,
    /// PCI-X bus bandwidth in bytes per second: 64 bit × 100 MHz = 800 MB/s (PCI-X 1.0).
    pub bus_bytes_per_s: u64,
    /// Ports sharing one bus: 2 on a dual-port card.
    pub ports_per_bus: u32,
    /// From the driver's doorbell to the frame's first byte fetched (descriptor fetch and the
    /// first data read on the bus). ASSUMPTION: 0.5 µs, a PCI-X read round trip or two; no
    /// published E1000 figure at hand.
    pub tx_start: Time,
    /// From the last byte written to host memory to the descriptor's write-back. ASSUMPTION:
    /// 0.2 µs, a posted write and a descriptor write-back.
    pub rx_writeback: Time,
    /// Receive interrupt delay (moderation): seeds/003 "割り込み 5usec".
    pub irq_delay: Time,
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
    }
}

impl NicProfile {
    /// Time the bus is busy moving `bytes` (exact in ps: 1250 ps per byte at 800 MB/s).
    pub fn bus_time(&self, bytes: u32) -> Time {
        Time(u64::from(bytes) * 1_000_000_000_000 / self.bus_bytes_per_s)
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

/// A shared bus: one transfer at a time, in the order asked. Returns when a transfer of
/// `bytes` asked for at `now` ends, and books the bus until then.
pub fn book_bus(busy_until: &mut Time, now: Time, t: Time) -> Time {
    let start = (*busy_until).max(now);
    *busy_until = start + t;
    *busy_until
}
