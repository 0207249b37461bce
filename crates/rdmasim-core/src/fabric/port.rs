//! Port counters with the InfiniBand PMA names (IBTA Vol. 1 16.1.3.5 PortCounters and
//! PortCountersExtended), as `perfquery` prints them.
use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
#[allow(non_snake_case)]
pub struct PortCounters {
    /// Data octets transmitted, divided by 4 (PMA counts 32-bit words).
    pub PortXmitData: u64,
    pub PortRcvData: u64,
    pub PortXmitPkts: u64,
    pub PortRcvPkts: u64,
    /// Ticks with data to send but no credits; one tick = one 4-byte word time at the port's rate
    /// (the real tick is implementation specific).
    pub PortXmitWait: u64,
    /// Packets received with errors (lost or failed CRC).
    pub PortRcvErrors: u64,
    /// Packets received with symbol errors (bit errors).
    pub SymbolErrorCounter: u64,
    /// Packets discarded on transmit (none in a lossless fabric unless a port is down).
    pub PortXmitDiscards: u64,
    pub LinkDownedCounter: u64,
}

/// A port of a node: an HCA port or a switch port.
#[derive(Clone, Debug)]
pub struct Port {
    /// `h3` or `sw0`.
    pub node: String,
    /// 1-based port number, as IB numbers them.
    pub num: u16,
    pub counters: PortCounters,
}
