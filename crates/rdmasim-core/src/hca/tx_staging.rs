//! A transmit staging buffer between the send engine and the port (`tx_staging_bytes`), an
//! opt-in sensitivity: the engine picks packets by the arbitration policy up to that many
//! bytes ahead of the wire, and the port sends them in the order picked. Another QP's packet
//! then waits for the bytes already staged whatever the phase of its post, so waits add up
//! (the isolation study's HERD beside an elephant ≈ HERD alone + the mouse's extra wait,
//! docs/isolation.md sec. 2.1). No public figure gives such a buffer for a ConnectX NIC, so it
//! is off (0) in every profile.
//!
//! Link credits are taken when a packet leaves the buffer for the wire, not when it is
//! staged: the buffer is the NIC's, the credits the receiver's. Transport control packets
//! (ACKs, NAKs) do not queue behind staged data; the port sends them first, as the engine
//! does without a buffer.
use crate::engine::Time;
use crate::ids::{ChannelId, HcaId};
use crate::fabric::forward::Forwarding;
use crate::world::World;

impl World {
    /// The port sends if it is free, then the engine picks if the buffer has room.
    #[inline(never)]
    pub(crate) fn staged_try_send(&mut self, h: HcaId) {
        let now = self.now();
        let ch = self.hcas[h].tx_ch;
        if !self.tx_done_pending(ch) && self.net.channel(ch).busy_until <= now {
            self.staged_port_send(h, ch);
        }
        self.staged_engine_pick(h, now);
    }

    /// Puts the next control packet or, failing that, the oldest staged packet on the wire,
    /// if the link has credits for it (otherwise the port waits, PortXmitWait).
    fn staged_port_send(&mut self, h: HcaId, ch: ChannelId) {
        let hca = &self.hcas[h];
        if !hca.control.is_empty() {
            if let Some(pkt) = self.take_control(h, ch) {
                self.transmit(ch, pkt);
            }
            return;
        }
        let Some(&pkt) = hca.staged.front() else { return };
        let (wire, vl) = {
            let p = self.packets.get(pkt);
            (p.wire_bytes, p.vl)
        };
        if !self.credits_or_wait(ch, vl, wire) {
            return;
        }
        let hca = &mut self.hcas[h];
        hca.staged.pop_front();
        hca.staged_bytes -= wire;
        self.transmit(ch, pkt);
    }

    /// The engine picks one packet into the buffer if it is free and the buffer has room, and
    /// comes back when it frees again (a full buffer is drained by the port's TxDone, which
    /// calls back here).
    fn staged_engine_pick(&mut self, h: HcaId, now: Time) {
        let limit = self.hcas[h].tx_staging_bytes;
        let hca = &self.hcas[h];
        if hca.sched.is_empty() || hca.staged_bytes >= limit {
            return;
        }
        if hca.staging_engine_free > now {
            let at = hca.staging_engine_free;
            self.kick_hca_at(h, at);
            return;
        }
        let Some(front_due) = self.due_or_kick(h, now) else { return };
        let Some(pkt) = self.pick_round_robin(h, now, front_due) else { return };
        let wire = self.packets.get(pkt).wire_bytes;
        let hca = &mut self.hcas[h];
        hca.staging_engine_free = now + hca.t.tx_packet;
        hca.staged.push_back(pkt);
        hca.staged_bytes += wire;
        let ch = hca.tx_ch;
        if !self.tx_done_pending(ch) && self.net.channel(ch).busy_until <= now {
            self.staged_port_send(h, ch);
        }
        let hca = &self.hcas[h];
        if hca.staged_bytes < limit && !hca.sched.is_empty() {
            let at = hca.staging_engine_free;
            self.kick_hca_at(h, at);
        }
    }
}
