//! Port counters with the InfiniBand PMA names (IBTA Vol. 1 16.1.3.5 PortCounters and
//! PortCountersExtended), as `perfquery` prints them.
use crate::engine::Time;
use crate::ids::PortId;
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
    /// Retrains of the port's link that recovered without going down (`[[faults]]
    /// retrains_per_s`, fabric/link_events.rs).
    pub LinkErrorRecoveryCounter: u64,
    /// Times the port's link went down (`[[faults]] flaps_per_s`).
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
    /// The counters of rare events (errors, discards). The packet and data counters, which
    /// every packet-hop adds to, are kept by the channels at the port
    /// (fabric/channel.rs `LinkCounts`) and added in by `Net::port_counters_at`.
    pub counters: PortCounters,
}

/// A packet counted at a port before it crosses it. The simulator decides some crossings
/// ahead of time, with no event at the crossing itself (a packet's arrival at an HCA or a
/// switch, a departure from a switch output: fabric/forward.rs, fabric/switch_fifo.rs), and
/// counts them then. A report of a run that stopped before such a crossing takes it out again
/// (`Net::port_counters_at`), so the counters are those of the stop time.
#[derive(Clone, Copy, Debug)]
pub struct AheadCount {
    pub at: Time,
    /// PortXmitWait ticks counted with a departure.
    pub wait: u64,
    pub port: PortId,
    pub words: u32,
    /// A departure (transmit counters), else an arrival (receive counters).
    pub xmit: bool,
}

/// Every crossing counted ahead, of all ports, in the order they were counted: one queue
/// written at its end rather than a queue per port direction, whose header and buffer were
/// two more cache misses per packet-hop in a large fabric. A crossing is forgotten once its
/// time has come (`now`): those at the front as each is added, and, when the queue has grown
/// (a crossing far ahead, a departure behind a long switch queue, holds up the front),
/// all of them in one pass.
#[derive(Debug, Default)]
pub struct AheadLog {
    q: VecDeque<AheadCount>,
    /// Length past which the queue is swept (twice what a sweep left, at least 4096).
    sweep_at: usize,
}

impl AheadLog {
    /// Keeps a crossing of `port` counted ahead of `now`, after forgetting those that have
    /// happened.
    #[inline]
    pub fn remember(&mut self, now: Time, at: Time, port: PortId, xmit: bool, words: u32, wait: u64) {
        while self.q.front().is_some_and(|a| a.at <= now) {
            self.q.pop_front();
        }
        if at > now {
            if self.q.len() >= self.sweep_at {
                self.sweep(now);
            }
            self.q.push_back(AheadCount { at, wait, port, words, xmit });
        }
    }

    #[cold]
    fn sweep(&mut self, now: Time) {
        self.q.retain(|a| a.at > now);
        self.sweep_at = (2 * self.q.len()).max(4096);
    }

    /// The crossings counted ahead that lie after `t`.
    pub fn after(&self, t: Time) -> impl Iterator<Item = &AheadCount> + '_ {
        self.q.iter().filter(move |a| a.at > t)
    }
}

impl Port {
    pub fn new(node: String, device: String, num: u16) -> Port {
        Port { node, device, num, counters: PortCounters::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the spread of the crossings (most within a µs, some far ahead and holding up
    /// the queue's front), `after(t)` gives exactly those after `t`.
    #[test]
    fn the_log_keeps_exactly_the_crossings_still_ahead() {
        let mut log = AheadLog::default();
        let mut all = Vec::new();
        let mut now = Time::ZERO;
        for i in 0..20_000u64 {
            now += Time::ps(700 + (i * 7919) % 3000);
            // Mostly within a µs; every 97th 20-60 µs ahead.
            let ahead = if i % 97 == 0 { Time::us(20 + i % 41) } else { Time::ps(1 + (i * 104_729) % 900_000) };
            log.remember(now, now + ahead, PortId::from(i as usize % 50), i % 2 == 0, 1, 0);
            all.push(now + ahead);
            if i % 1000 == 999 {
                let mut kept: Vec<Time> = log.after(now).map(|a| a.at).collect();
                let mut want: Vec<Time> = all.iter().copied().filter(|&at| at > now).collect();
                kept.sort();
                want.sort();
                assert_eq!(kept, want, "after crossing {i}");
            }
        }
        // Far beyond the last crossing counted: nothing is still ahead.
        assert_eq!(log.after(now + Time::ms(1)).count(), 0);
    }
}
