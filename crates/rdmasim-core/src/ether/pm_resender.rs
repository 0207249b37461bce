//! The sender's side of PM's retransmission (pm_resend.rs says what each scheme does and why
//! it is an assumption): which sequence numbers go again after the timer expires, and, under
//! selective resend, what the receiver's map of held packets leaves to send.
use super::pm_resend::{Resend, SACK_BITS};

/// The sender's side of retransmission: which sequence numbers go again, and when.
pub struct Resender {
    scheme: Resend,
    window: u32,
    /// Packets [next, end) are to be sent again (none when equal).
    next: u32,
    end: u32,
    /// By slot (sequence number % window): the receiver reported holding it (selective only).
    reported: Vec<bool>,
    /// Selective, after an expiry: the packets sent before it, beyond the one sent alone,
    /// whose fate the next acknowledgement's map tells.
    recovering: Option<(u32, u32)>,
}

/// `seq` lies in [from, to) of the sequence space (which wraps).
fn within(seq: u32, from: u32, to: u32) -> bool {
    seq.wrapping_sub(from) < to.wrapping_sub(from)
}

impl Resender {
    pub fn new(scheme: Resend, window: u32) -> Resender {
        Resender { scheme, window, next: 0, end: 0, reported: vec![false; window as usize], recovering: None }
    }

    /// A packet waits to be sent again.
    pub fn pending(&self) -> bool {
        self.next != self.end
    }

    /// The next sequence number to send again. Call only when `pending`.
    pub fn take(&mut self) -> u32 {
        let seq = self.next;
        self.next = seq.wrapping_add(1);
        self.skip_reported();
        seq
    }

    /// Packet `seq` is sent for the first time: whatever its slot said of an older one is void.
    pub fn sent_new(&mut self, seq: u32) {
        self.reported[(seq % self.window) as usize] = false;
    }

    /// The timer expired with [base, next_new) unacknowledged.
    pub fn on_timeout(&mut self, base: u32, next_new: u32) {
        self.next = base;
        match self.scheme {
            Resend::GoBackN => self.end = next_new,
            Resend::Selective => {
                self.end = base.wrapping_add(1);
                self.recovering = Some((self.end, next_new));
            }
        }
    }

    /// An acknowledgement moved the oldest unacknowledged to `base` (or left it) with [base,
    /// next_new) still out; bit i of `held` says the receiver holds `base + 1 + i`.
    pub fn on_ack(&mut self, base: u32, held: u32, next_new: u32) {
        for i in (0..SACK_BITS).filter(|i| held & (1 << i) != 0) {
            let seq = base.wrapping_add(1 + i);
            if within(seq, base, next_new) {
                self.reported[(seq % self.window) as usize] = true;
            }
        }
        // What is acknowledged now need not go again.
        for at in [&mut self.next, &mut self.end] {
            if !within(*at, base, next_new.wrapping_add(1)) {
                *at = base;
            }
        }
        if let Some((from, to)) = self.recovering.take() {
            // The answer to the packet the expiry sent: every packet sent before the expiry
            // and not in the map was lost.
            self.next = if within(from, base, next_new.wrapping_add(1)) { from } else { base };
            self.end = if within(to, base, next_new.wrapping_add(1)) { to } else { base };
            if !within(self.next, base, self.end.wrapping_add(1)) {
                self.next = self.end;
            }
        }
        self.skip_reported();
    }

    fn skip_reported(&mut self) {
        while self.next != self.end && self.reported[(self.next % self.window) as usize] {
            self.next = self.next.wrapping_add(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sequence numbers wrap: a selective recovery across u32::MAX resends exactly the hole.
    #[test]
    fn selective_recovery_across_the_wrap_of_sequence_numbers() {
        let base = u32::MAX - 2; // packets MAX-2 .. 4 out (8 of them); MAX-2 and 1 lost
        let next_new = base.wrapping_add(8);
        let mut r = Resender::new(Resend::Selective, 8);
        (0..8).for_each(|i| r.sent_new(base.wrapping_add(i)));
        r.on_timeout(base, next_new);
        assert_eq!(r.take(), base);
        assert!(!r.pending(), "the expiry sends the oldest alone");
        // The answer: the receiver delivered MAX-2 .. 0 and holds 2, 3, 4 past its hole at 1.
        let hole = 1u32;
        r.on_ack(hole, 0b111, next_new);
        assert_eq!(r.take(), hole);
        assert!(!r.pending());
        assert!(within(0, u32::MAX, 2) && !within(2, u32::MAX, 2));
    }
}
