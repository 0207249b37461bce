//! Port counters with the InfiniBand PMA names (IBTA Vol. 1 16.1.3.5 PortCounters and
//! PortCountersExtended), as `perfquery` prints them.
use crate::engine::Time;
use crate::ids::PortId;
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

/// Every crossing counted ahead, of all ports, filed by when it happens: a ring of time
/// buckets of 2^`AHEAD_SHIFT` ps reaching `AHEAD_BUCKETS` buckets past now, each an array
/// appended to, and the rare crossing beyond that reach in `far`. A bucket is forgotten whole
/// once its time has passed, by emptying its array (which keeps its capacity). One queue in
/// the order the crossings were counted (before) was held up at its front by a crossing far
/// ahead and had to be swept from end to end every time it doubled: 29 instructions and half
/// a cache miss per packet-hop of a k = 32 fat tree (cachegrind, docs/bench.md).
#[derive(Debug)]
pub struct AheadLog {
    /// Bucket b (the crossings at `b << AHEAD_SHIFT` ps and up to the next bucket) in slot
    /// `b % AHEAD_BUCKETS`, for b from `now_bucket` on.
    buckets: Box<[Vec<AheadCount>]>,
    /// The bucket of the time of the last crossing counted: the slots of earlier buckets are empty.
    now_bucket: u64,
    /// Crossings beyond the ring's reach when they were counted.
    far: Vec<AheadCount>,
    /// Length past which `far` is swept (twice what a sweep left, at least 64).
    far_sweep_at: usize,
}

/// A bucket spans 2^12 ps (4.1 ns): a packet-hop's crossings lie a few hundred ns ahead.
const AHEAD_SHIFT: u32 = 12;
/// The ring reaches 4096 buckets (16.8 µs) ahead.
const AHEAD_BUCKETS: u64 = 1 << 12;

impl Default for AheadLog {
    fn default() -> Self {
        AheadLog { buckets: (0..AHEAD_BUCKETS).map(|_| Vec::new()).collect(), now_bucket: 0, far: Vec::new(), far_sweep_at: 64 }
    }
}

impl AheadLog {
    /// Keeps a crossing of `port` counted ahead of `now`, after forgetting those that have
    /// happened.
    #[inline]
    pub fn remember(&mut self, now: Time, at: Time, port: PortId, xmit: bool, words: u32, wait: u64) {
        let now_bucket = now.as_ps() >> AHEAD_SHIFT;
        if now_bucket != self.now_bucket {
            self.forget_before(now_bucket);
        }
        if at > now {
            let a = AheadCount { at, wait, port, words, xmit };
            let b = at.as_ps() >> AHEAD_SHIFT;
            if b - now_bucket < AHEAD_BUCKETS {
                self.buckets[(b % AHEAD_BUCKETS) as usize].push(a);
            } else {
                self.push_far(now, a);
            }
        }
    }

    /// Empties the buckets before `now_bucket` (all of their crossings have happened).
    #[inline(never)]
    fn forget_before(&mut self, now_bucket: u64) {
        for b in self.now_bucket..now_bucket.min(self.now_bucket + AHEAD_BUCKETS) {
            self.buckets[(b % AHEAD_BUCKETS) as usize].clear();
        }
        self.now_bucket = now_bucket;
    }

    #[cold]
    fn push_far(&mut self, now: Time, a: AheadCount) {
        if self.far.len() >= self.far_sweep_at {
            self.far.retain(|a| a.at > now);
            self.far_sweep_at = (2 * self.far.len()).max(64);
        }
        self.far.push(a);
    }

    /// The crossings counted ahead that lie after `t` (in no particular order). `t` is no
    /// earlier than the last crossing counted.
    pub fn after(&self, t: Time) -> impl Iterator<Item = &AheadCount> + '_ {
        self.buckets.iter().flatten().chain(&self.far).filter(move |a| a.at > t)
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

    /// Whatever the spread of the crossings (a few ns ahead, beyond the ring's reach, in a
    /// bucket shared with ones that have happened), `after(t)` gives exactly those after `t`.
    #[test]
    fn the_log_keeps_exactly_the_crossings_still_ahead() {
        let mut log = AheadLog::default();
        let mut all = Vec::new();
        let mut now = Time::ZERO;
        for i in 0..20_000u64 {
            now = now + Time::ps(700 + (i * 7919) % 3000);
            // Mostly within a µs; every 97th 20-60 µs ahead (beyond the ring).
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
