//! Port counters with the InfiniBand PMA names (IBTA Vol. 1 16.1.3.5 PortCounters and
//! PortCountersExtended), as `perfquery` prints them.
use crate::engine::Time;
use serde::Serialize;
use std::collections::VecDeque;

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
    /// Packets received that the switch could not forward (no route for their DLID).
    pub PortRcvSwitchRelayErrors: u64,
    pub LinkDownedCounter: u64,
}

/// A port of a node: an HCA port or a switch port.
#[derive(Clone, Debug)]
pub struct Port {
    /// `h3` or `sw0`: the host of an HCA port, or the switch.
    pub node: String,
    /// The node itself: an HCA's node description (`"h3 mlx4_1"`, a rail of h3), or the switch.
    pub device: String,
    /// 1-based port number, as IB numbers them.
    pub num: u16,
    pub counters: PortCounters,
    /// Packets counted before the time they cross the port (see `AheadCount`), per direction.
    pub xmit_ahead: VecDeque<AheadCount>,
    pub rcv_ahead: VecDeque<AheadCount>,
}

/// A packet counted at a port before it crosses it. The simulator decides some crossings
/// ahead of time, with no event at the crossing itself (a packet's arrival at an HCA or a
/// switch, a departure from a switch output: fabric/forward.rs, fabric/switch_fifo.rs), and
/// counts them then. A report of a run that stopped before such a crossing takes it out again
/// (`Port::counters_at`), so the counters are those of the stop time.
#[derive(Clone, Copy, Debug)]
pub struct AheadCount {
    pub at: Time,
    pub words: u64,
    /// PortXmitWait ticks counted with a departure.
    pub wait: u64,
}

impl Port {
    pub fn new(node: String, device: String, num: u16) -> Port {
        Port { node, device, num, counters: PortCounters::default(), xmit_ahead: VecDeque::new(), rcv_ahead: VecDeque::new() }
    }

    /// Counts a packet of `words` 4-byte words leaving at `at` (now or later), and `wait` ticks.
    pub fn count_xmit(&mut self, now: Time, at: Time, words: u64, wait: u64) {
        let c = &mut self.counters;
        c.PortXmitPkts += 1;
        c.PortXmitData += words;
        c.PortXmitWait += wait;
        remember(&mut self.xmit_ahead, now, at, words, wait);
    }

    /// Counts a packet of `words` words arriving at `at` (now or later).
    pub fn count_rcv(&mut self, now: Time, at: Time, words: u64) {
        self.counters.PortRcvPkts += 1;
        self.counters.PortRcvData += words;
        remember(&mut self.rcv_ahead, now, at, words, 0);
    }

    /// The counters as of `t`: without the crossings counted ahead that lie after it.
    pub fn counters_at(&self, t: Time) -> PortCounters {
        let mut c = self.counters.clone();
        for a in self.xmit_ahead.iter().filter(|a| a.at > t) {
            c.PortXmitPkts -= 1;
            c.PortXmitData -= a.words;
            c.PortXmitWait -= a.wait;
        }
        for a in self.rcv_ahead.iter().filter(|a| a.at > t) {
            c.PortRcvPkts -= 1;
            c.PortRcvData -= a.words;
        }
        c
    }
}

/// Keeps a crossing counted ahead of `now`, after forgetting those that have happened (each
/// direction's crossings are counted in time order, so the queue stays short and sorted).
#[inline]
fn remember(q: &mut VecDeque<AheadCount>, now: Time, at: Time, words: u64, wait: u64) {
    while q.front().is_some_and(|a| a.at <= now) {
        q.pop_front();
    }
    if at > now {
        q.push_back(AheadCount { at, words, wait });
    }
}
