//! The PM protocol over Ethernet (PMv2, seeds/003 "信頼性と順序性を確保したデータグラム通信"):
//! reliable, ordered datagrams between processes. Each (source, destination) pair is a
//! channel with its own sequence numbers; the receiver keeps them in the sequence-indexed
//! receive array (pm_receive_array.rs) and acknowledges cumulatively; the sender keeps at most
//! `window` packets unacknowledged and, when its timer expires, sends again from the oldest
//! one: every packet from there on (go-back-N: the receive array drops what it already has),
//! or, under `resend = "selective"`, only the lost ones (pm_resend.rs).
//!
//! Its knobs (window, acknowledgement interval, timer, scheme) and their sources: pm_config.rs.
use super::pm_receive_array::{Arrival, ReceiveArray};
pub use super::pm_config::PmConfig;
pub use super::pm_resend::Resend;
use super::pm_resend::SACK_BITS;
use super::pm_resender::Resender;
pub use super::trunk::LaneChoice;
use crate::engine::Time;
use crate::ids::HostId;
use std::collections::VecDeque;

/// What the sender remembers of a packet it may have to send again.
#[derive(Clone, Copy, Debug, Default)]
pub struct SentPacket {
    pub msg: u32,
    pub payload: u32,
    pub last: bool,
    /// The application copies the payload into PM's buffer and out of it (an MPI library).
    pub copy: bool,
    /// This copy is a retransmission (the PM header's flag: a selective receiver answers it at
    /// once, pm_resend.rs).
    pub resent: bool,
}

/// One direction of a pair: the sender's state at `src`, the receiver's at `dst`.
pub struct Channel {
    pub src: HostId,
    pub dst: HostId,
    window: u32,
    scheme: Resend,
    /// Messages queued to send: (message number, bytes, copied by the application).
    pending: VecDeque<(u32, u64, bool)>,
    /// Messages ever posted, and those whose last packet has been taken.
    posted: u32,
    taken: u64,
    /// Bytes of the front pending message already packetised.
    offset: u64,
    /// Next sequence number never sent.
    pub next_new: u32,
    /// Oldest unacknowledged.
    pub base: u32,
    sent: Vec<SentPacket>,
    /// What goes again after an expiry, as the scheme says.
    resend: Resender,
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
    pub fn new(src: HostId, dst: HostId, window: u32, scheme: Resend) -> Channel {
        Channel {
            src,
            dst,
            window,
            scheme,
            pending: VecDeque::new(),
            posted: 0,
            taken: 0,
            offset: 0,
            next_new: 0,
            base: 0,
            sent: vec![SentPacket::default(); window as usize],
            resend: Resender::new(scheme, window),
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
        self.resend.pending() || (!self.pending.is_empty() && self.next_new.wrapping_sub(self.base) < self.window)
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
        if self.resend.pending() {
            let seq = self.resend.take();
            self.retransmitted += 1;
            return (seq, SentPacket { resent: true, ..self.sent[(seq % w) as usize] });
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
        let p = SentPacket { msg, payload, last, copy, resent: false };
        self.sent[(seq % w) as usize] = p;
        self.resend.sent_new(seq);
        self.next_new = seq.wrapping_add(1);
        (seq, p)
    }

    /// An acknowledgement: every packet before `ack` arrived, and (selective only) bit i of
    /// `held` says the receiver holds `ack + 1 + i`. True when it moved the window.
    pub fn on_ack(&mut self, ack: u32, held: u32) -> bool {
        let moved = ack.wrapping_sub(self.base);
        if moved > self.next_new.wrapping_sub(self.base) {
            return false; // behind what an earlier acknowledgement said
        }
        self.base = ack;
        self.resend.on_ack(ack, held, self.next_new);
        moved != 0
    }

    /// The timer expired with packets unacknowledged: send again from the oldest, as the
    /// scheme says.
    pub fn on_timeout(&mut self) {
        self.timeouts += 1;
        self.resend.on_timeout(self.base, self.next_new);
    }

    /// What the receiver's acknowledgement carries now: the cumulative acknowledgement and,
    /// under selective resend, the map of the packets its array holds past the hole.
    pub fn ack_fields(&self) -> (u32, u32) {
        let held = match self.scheme {
            Resend::GoBackN => 0,
            Resend::Selective => self.rx.held_after_expected(SACK_BITS),
        };
        (self.rx.expected, held)
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
        // A selective sender waits for this answer to a packet sent again (pm_resend.rs).
        if self.scheme == Resend::Selective && p.resent {
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
        let mut c = Channel::new(HostId(0), HostId(1), 4, Resend::GoBackN);
        c.post(0, 3 * 100);
        let seqs: Vec<u32> = (0..3).map(|_| c.take_packet(100, Time::ZERO).0).collect();
        assert_eq!(seqs, [0, 1, 2]);
        assert!(!c.can_send());
        assert!(c.on_ack(1, 0));
        c.on_timeout();
        assert_eq!(c.take_packet(100, Time::ZERO).0, 1);
        assert_eq!(c.retransmitted, 1);
        assert!(c.on_ack(3, 0));
        assert!(!c.can_send());
    }
}
