//! The PM protocol over Ethernet (PMv2, seeds/003 "信頼性と順序性を確保したデータグラム通信"):
//! reliable, ordered datagrams between processes. Each (source, destination) pair is a
//! channel with its own sequence numbers; the receiver keeps them in the sequence-indexed
//! receive array (pm_receive_array.rs) and acknowledges cumulatively; the sender keeps at most
//! `window` packets unacknowledged and, when its timer expires, sends again from the oldest
//! one (go-back-N: the receive array drops what it already has).
//!
//! PM/Ethernet's window and retransmission timer are documented knobs with public ranges
//! (SCore 6.0.0 manual page pm-ether-conf(5),
//! https://www.pccluster.org/score_doc/score-6.0.0/html/en/man/man5/pm-ether-conf.html:
//! `maxnsend` and `backoff`); the acknowledgement interval is a knob (`ackskip`, SCore 7
//! scorehosts.db(5), also for the `etherhxb` device) whose value is not documented; the values
//! the PM/Ethernet-HXB runs used were not found (not in seeds/003; the ICS 2006 paper's full
//! text and SCore's sources are not available to us). Each default below says which.
use super::pm_receive_array::{Arrival, ReceiveArray};
pub use super::trunk::LaneChoice;
use crate::engine::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmConfig {
    /// Packets a sender may have unacknowledged per destination: PM/Ethernet's `maxnsend`,
    /// "Define number of sending packets at a time", documented range 8 - 32 (pm-ether-conf(5),
    /// example `maxnsend 16`; "When you use network trunking, you should increase this
    /// parameter from default value"). 32, the documented maximum: HXB trunks up to nine links,
    /// and nine links' round trip with 8 KB packets needs about 28 (1.07 GB/s over a round trip
    /// of about 160 µs with store-and-forward hops and an 8-packet acknowledgement delay).
    /// ASSUMPTION that the HXB runs used the maximum (their value is not published; the page
    /// does not print the default).
    #[serde(default = "default_window")]
    pub window: u32,
    /// The receiver acknowledges every this many in-order packets, and at a message's end.
    /// ASSUMPTION: 8 (an ack frame per 64 KB costs 0.1 % of the line). PM/Ethernet's knob is
    /// `ackskip`, "number of packet to skip send ack frame" (SCore 7 beta4 scorehosts.db(5),
    /// http://www.pccluster.org/score_doc/score-7-beta4/html/en/man/man5/scorehosts.db.html);
    /// no default or example value was found.
    #[serde(default = "default_ack_every")]
    pub ack_every: u32,
    /// Retransmission timer, µs: PM/Ethernet's `backoff`, "Define a re-transmitting time",
    /// documented range 1000 - 20000 µs; 4800 µs is the page's example (pm-ether-conf(5):
    /// "backoff 4800"), the only value published. ASSUMPTION that the HXB runs used it (the
    /// default is not printed). It must exceed an acknowledgement's wait behind a full window
    /// of data in the reverse direction's NIC queues (32 packets of 8 KB over two GigE links:
    /// 1.1 ms each way in two-way traffic), which it does.
    #[serde(default = "default_rto_us")]
    pub rto_us: f64,
    /// Data packets PM keeps queued on one NIC at most (the driver's ring holds 256): more
    /// would only wait there and hold the acknowledgements queued behind them. ASSUMPTION: 4
    /// (four 8 KB frames keep a GigE link busy for 265 µs, longer than the host needs to
    /// queue the next). Not found: PM/Ethernet's documented pacing knobs (`maxpkt`, packets
    /// per 10 ms, scorehosts.db(5)) bound a rate, not a queue.
    #[serde(default = "default_nic_depth")]
    pub nic_depth: u32,
    /// Payload bytes per packet: seeds/003's 8192 B packets in jumbo frames (PM/Ethernet's
    /// documented MTU, 1468 B in pm-ether-conf(5)'s example, is for standard frames).
    #[serde(default = "default_mtu")]
    pub packet_bytes: u32,
    /// Which of the peer's NICs a trunked frame is addressed to (trunk.rs, `LaneChoice`):
    /// `same` (lane k to lane k, the default) or `random` (chosen per frame, independently of
    /// the sending lane). ASSUMPTION either way: seeds/003 says only that PM trunks over
    /// several NICs, not how it picks the peer's NIC.
    #[serde(default)]
    pub lanes: LaneChoice,
}

fn default_window() -> u32 {
    32
}
fn default_ack_every() -> u32 {
    8
}
fn default_rto_us() -> f64 {
    4800.0
}
fn default_nic_depth() -> u32 {
    4
}
fn default_mtu() -> u32 {
    8192
}

impl Default for PmConfig {
    fn default() -> Self {
        PmConfig { window: default_window(), ack_every: default_ack_every(), rto_us: default_rto_us(), nic_depth: default_nic_depth(), packet_bytes: default_mtu(), lanes: LaneChoice::Same }
    }
}

/// What the sender remembers of a packet it may have to send again.
#[derive(Clone, Copy, Debug, Default)]
pub struct SentPacket {
    pub msg: u32,
    pub payload: u32,
    pub last: bool,
    /// The application copies the payload into PM's buffer and out of it (an MPI library).
    pub copy: bool,
}

/// One direction of a pair: the sender's state at `src`, the receiver's at `dst`.
pub struct Channel {
    pub src: u32,
    pub dst: u32,
    window: u32,
    /// Messages queued to send: (message number, bytes, copied by the application).
    pending: VecDeque<(u32, u64, bool)>,
    /// Messages ever posted, and those whose last packet has been taken.
    posted: u32,
    taken: u64,
    /// Bytes of the front pending message already packetised.
    offset: u64,
    /// Next sequence number never sent.
    pub next_new: u32,
    /// Next sequence number to send (below `next_new` while going back).
    pub next_seq: u32,
    /// Oldest unacknowledged.
    pub base: u32,
    sent: Vec<SentPacket>,
    /// Bumped whenever the timer is re-armed; an expiry of an older generation is ignored.
    pub timer_gen: u32,
    pub timer_armed: bool,
    pub timeouts: u64,
    pub retransmitted: u64,
    pub packets_sent: u64,
    // Receiver.
    pub rx: ReceiveArray,
    pub since_ack: u32,
    pub delivered_bytes: u64,
    pub delivered_msgs: u32,
    pub duplicates: u64,
    pub msg_bytes_so_far: u64,
    pub first_send: Option<Time>,
    pub last_delivery: Time,
}

/// Marks the last packet of a message in a receive-array slot.
const LAST: u32 = 1 << 31;

impl Channel {
    pub fn new(src: u32, dst: u32, window: u32) -> Channel {
        Channel {
            src,
            dst,
            window,
            pending: VecDeque::new(),
            posted: 0,
            taken: 0,
            offset: 0,
            next_new: 0,
            next_seq: 0,
            base: 0,
            sent: vec![SentPacket::default(); window as usize],
            timer_gen: 0,
            timer_armed: false,
            timeouts: 0,
            retransmitted: 0,
            packets_sent: 0,
            rx: ReceiveArray::new(window),
            since_ack: 0,
            delivered_bytes: 0,
            delivered_msgs: 0,
            duplicates: 0,
            msg_bytes_so_far: 0,
            first_send: None,
            last_delivery: Time::ZERO,
        }
    }

    pub fn post(&mut self, msg: u32, bytes: u64) {
        self.post_copied(msg, bytes, false);
    }

    /// Posts a message whose payload the application copies on both sides.
    pub fn post_copied(&mut self, msg: u32, bytes: u64, copy: bool) {
        self.pending.push_back((msg, bytes, copy));
        self.posted += 1;
    }

    pub fn posted_messages(&self) -> u32 {
        self.posted
    }

    /// Messages whose last packet has been taken (sent once).
    pub fn messages_taken(&self) -> u64 {
        self.taken
    }

    /// A packet can go now: a retransmission, or new data within the window.
    pub fn can_send(&self) -> bool {
        self.next_seq != self.next_new || (!self.pending.is_empty() && self.next_new.wrapping_sub(self.base) < self.window)
    }

    pub fn unacked(&self) -> bool {
        self.base != self.next_new
    }

    /// The next packet to send: (sequence number, what it carries). Call only when
    /// `can_send`.
    pub fn take_packet(&mut self, packet_bytes: u32, now: Time) -> (u32, SentPacket) {
        self.first_send.get_or_insert(now);
        self.packets_sent += 1;
        let w = self.window;
        if self.next_seq != self.next_new {
            let seq = self.next_seq;
            self.next_seq = seq.wrapping_add(1);
            self.retransmitted += 1;
            return (seq, self.sent[(seq % w) as usize]);
        }
        let &(msg, bytes, copy) = self.pending.front().expect("can_send checked");
        let payload = (bytes - self.offset).min(u64::from(packet_bytes)) as u32;
        self.offset += u64::from(payload);
        let last = self.offset == bytes;
        if last {
            self.pending.pop_front();
            self.offset = 0;
            self.taken += 1;
        }
        let seq = self.next_new;
        let p = SentPacket { msg, payload, last, copy };
        self.sent[(seq % w) as usize] = p;
        self.next_new = seq.wrapping_add(1);
        self.next_seq = self.next_new;
        (seq, p)
    }

    /// A cumulative acknowledgement: every packet before `ack` arrived. True when it moved
    /// the window.
    pub fn on_ack(&mut self, ack: u32) -> bool {
        let moved = ack.wrapping_sub(self.base);
        if moved == 0 || moved > self.next_new.wrapping_sub(self.base) {
            return false;
        }
        self.base = ack;
        if self.next_seq.wrapping_sub(self.base) > self.next_new.wrapping_sub(self.base) {
            self.next_seq = self.base; // was going back over packets now acknowledged
        }
        true
    }

    /// The timer expired with packets unacknowledged: send again from the oldest.
    pub fn on_timeout(&mut self) {
        self.timeouts += 1;
        self.next_seq = self.base;
    }

    /// A data packet arrived. Returns (packets now delivered in order, messages completed by
    /// them, whether to acknowledge now).
    pub fn on_data(&mut self, seq: u32, p: SentPacket, ack_every: u32, now: Time) -> (u32, u32, bool) {
        let tag = (p.payload + 1) | if p.last { LAST } else { 0 };
        match self.rx.arrive(seq, tag) {
            Arrival::Accepted => {}
            Arrival::Duplicate | Arrival::OutOfWindow => {
                self.duplicates += 1;
                return (0, 0, true);
            }
        }
        let (mut n, mut msgs, mut ack) = (0, 0, false);
        while let Some(tag) = self.rx.take_in_order() {
            let bytes = u64::from((tag & !LAST) - 1);
            n += 1;
            self.delivered_bytes += bytes;
            self.msg_bytes_so_far += bytes;
            self.since_ack += 1;
            if tag & LAST != 0 {
                msgs += 1;
                self.delivered_msgs += 1;
                self.msg_bytes_so_far = 0;
                ack = true;
            }
            self.last_delivery = now;
        }
        if self.since_ack >= ack_every {
            ack = true;
        }
        if ack {
            self.since_ack = 0;
        }
        (n, msgs, ack)
    }

    pub fn receive_array_bytes(&self) -> usize {
        self.rx.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_back_n_resends_from_the_oldest_unacked() {
        let mut c = Channel::new(0, 1, 4);
        c.post(0, 3 * 100);
        let seqs: Vec<u32> = (0..3).map(|_| c.take_packet(100, Time::ZERO).0).collect();
        assert_eq!(seqs, [0, 1, 2]);
        assert!(!c.can_send());
        assert!(c.on_ack(1));
        c.on_timeout();
        assert_eq!(c.take_packet(100, Time::ZERO).0, 1);
        assert_eq!(c.retransmitted, 1);
        assert!(c.on_ack(3));
        assert!(!c.can_send());
    }
}
