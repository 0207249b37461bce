//! Moving packets across channels and through switches: serialisation, propagation, credits,
//! damage, and cut-through forwarding. Written over `Attachment` (fabric/attachment.rs): the
//! fabric's own state and the endpoints it hands packets to, never the world itself.
use crate::engine::{EventQueue, Time};
use crate::fabric::attachment::{Attachment, FabricEvent, FabricParts};
use crate::fabric::channel::{credit_blocks, NodeRef, NUM_VL};
use crate::fabric::net::Net;
use crate::fabric::switch::Queued;
use crate::ids::{ChannelId, HcaId, SwitchId};
use crate::wire::in_flight::Damage;
use crate::wire::in_flight::{Hop, PacketId};

/// Bytes a switch needs before it can forward (LRH + BTH): the cut-through decision point.
const CUT_THROUGH_BYTES: u32 = 20;

/// The fabric's entry points, for anything attached to it (the world: its event loop and its
/// HCAs' send engines).
pub trait Forwarding: Attachment + Sized {
    /// Puts a packet on a channel now. The caller has checked the channel is idle and has credits.
    fn transmit(&mut self, ch: ChannelId, pkt: PacketId) {
        let hop = self.packets().get(pkt).hop();
        transmit_hop(self, ch, pkt, hop);
    }

    /// Whether a TxDone will still pull the channel's sender. A TxDone left unscheduled
    /// (`Channel::idle_tx_done`) is scheduled now, at the place it took, if that has not
    /// passed; if it has, it would have run and found nothing to send.
    #[inline]
    fn tx_done_pending(&mut self, ch: ChannelId) -> bool {
        tx_done_pending(self, ch)
    }

    /// True when the channel's sender has the credits for `wire` bytes on `vl` now; otherwise
    /// it starts waiting (PortXmitWait) and is woken when the next credits come back.
    fn credits_or_wait(&mut self, ch: ChannelId, vl: u8, wire: u32) -> bool {
        let FabricParts { net, q, .. } = self.parts();
        credits_or_wait(net, q, ch, vl, wire)
    }

    /// Schedules every switch output's TxDone left unscheduled (`Channel::idle_tx_done`) whose
    /// place has not passed; true if there was one. For the end of a run that would otherwise
    /// stop with them unrun (sim.rs).
    #[cold]
    fn schedule_idle_switch_tx_dones(&mut self) -> bool {
        let mut any = false;
        for ch in (0..self.net().channels.len()).map(ChannelId::from) {
            let c = &self.net().channels[ch];
            if matches!(c.from, NodeRef::Switch { .. }) && c.idle_tx_done_pending {
                settle_idle_tx_done(self, ch);
                any |= self.net().channels[ch].wake_scheduled;
            }
        }
        any
    }

    /// The channel's sender may send its next packet.
    fn on_tx_done(&mut self, ch: ChannelId) {
        self.parts().net.channels[ch].wake_scheduled = false;
        pull(self, ch);
    }

    fn on_switch_kick(&mut self, ch: ChannelId) {
        self.parts().net.channels[ch].wake_scheduled = false;
        pull(self, ch);
    }

    fn on_credit_wake(&mut self, ch: ChannelId) {
        let FabricParts { net, q, .. } = self.parts();
        let now = q.now();
        let c = &mut net.channels[ch];
        if c.credit_wake == now {
            c.credit_wake = Time::MAX;
        }
        let c = &self.net().channels[ch];
        if c.wait_since != Time::MAX && c.busy_until <= now && !tx_done_pending(self, ch) {
            pull(self, ch);
        }
    }

    fn on_arrive(&mut self, ch: ChannelId, pkt: PacketId) {
        let (hop, damage) = {
            let p = self.packets().get(pkt);
            (p.hop(), p.damage)
        };
        let FabricParts { net, q, packets } = self.parts();
        let now = q.now();
        let c = &net.channels[ch];
        let (to, dst_port, prop) = (c.to, c.dst_port, c.prop);
        let (wire, vl) = (hop.wire_bytes, hop.vl);
        if damage == Damage::Discarded {
            // A down link: the sending port discards it; nothing reaches the far end, and its
            // buffer space is not taken.
            let src_port = c.src_port;
            net.ports[src_port].counters.PortXmitDiscards += 1;
            packets.release(pkt);
            return_credits(net, q, ch, now, vl, wire);
            return;
        }
        let pc = &mut net.ports[dst_port].counters;
        if damage != Damage::None {
            // The receiver discards it (CRC) and frees the buffer at once.
            pc.PortRcvErrors += 1;
            if damage == Damage::Corrupted {
                pc.SymbolErrorCounter += 1;
            }
            packets.release(pkt);
            return_credits(net, q, ch, now + prop, vl, wire);
            return;
        }
        match to {
            NodeRef::Hca(h) => hca_receive(self, ch, h, pkt, now),
            NodeRef::Switch { sw, .. } => switch_receive(self, ch, sw, pkt, hop, now),
        }
    }
}

impl<A: Attachment> Forwarding for A {}

/// `transmit`, for a sender that has the packet's `hop` at hand (a switch).
fn transmit_hop<A: Attachment>(w: &mut A, ch: ChannelId, pkt: PacketId, hop: Hop) {
    let FabricParts { net, q, .. } = w.parts();
    let now = q.now();
    let c = &mut net.channels[ch];
    let since = std::mem::replace(&mut c.wait_since, Time::MAX);
    let wait = if since == Time::MAX { 0 } else { c.wait_ticks(now - since) };
    c.wake_scheduled = true;
    put_on_wire(w, ch, pkt, hop, now, true, wait);
}

/// Serialises `pkt` (whose `hop` it is) on `ch` from `at` (now, or a departure already
/// decided by a switch output, fabric/switch_fifo.rs) and hands it to the far end. With
/// `tx_done` the sender is told when the channel frees; `wait` is the PortXmitWait it spent
/// without credits.
fn put_on_wire<A: Attachment>(w: &mut A, ch: ChannelId, pkt: PacketId, hop: Hop, at: Time, tx_done: bool, wait: u64) {
    let (wire, vl) = (hop.wire_bytes, hop.vl);
    let FabricParts { net, q, packets } = w.parts();
    let c = &mut net.channels[ch];
    let ser = c.ser_time(wire);
    // A faulty link may hold the packet (a retrain under way): it leaves later.
    let (damage, at) = if c.faulty { c.draw_damage(at, wire) } else { (Damage::None, at) };
    c.busy_until = at + ser;
    c.credits[vl as usize] -= credit_blocks(wire);
    let (from, to, prop) = (c.from, c.to, c.prop);
    let arrive_at = match to {
        NodeRef::Hca(_) => at + ser + prop,
        NodeRef::Switch { .. } => at + c.ser_time(CUT_THROUGH_BYTES.min(wire)) + prop,
    };
    let src_port = c.src_port;
    let now = q.now();
    if damage != Damage::Discarded {
        let n = &mut c.counts;
        n.xmit_pkts += 1;
        n.xmit_words += u64::from(wire / 4);
        n.xmit_wait += wait;
        if at > now {
            net.ahead.remember(now, at, src_port, true, wire / 4, wait);
        }
    }
    net.packet_hops += 1;
    if damage != Damage::None {
        packets.get_mut(pkt).damage = damage;
    }
    if let NodeRef::Hca(h) = from {
        w.sent(at, h, pkt);
    }
    if tx_done {
        let skip_idle = w.skip_idle_events();
        match from {
            NodeRef::Hca(h) if skip_idle => {
                // An HCA sends its next packet once both its port and its send engine are
                // free: a short packet leaves before the engine can start another one.
                // (With a staging buffer its engine is free at once: the port sends what the
                // engine already picked, hca/tx_staging.rs.)
                let (free, has_work) = w.next_send(h, at + ser);
                let FabricParts { net, q, .. } = w.parts();
                if has_work {
                    q.at(free, FabricEvent::TxDone { ch }.into());
                } else {
                    let k = q.reserve(free);
                    let c = &mut net.channels[ch];
                    c.idle_tx_done = k;
                    c.idle_tx_done_pending = true;
                }
            }
            // Likewise a switch output with nothing left to send: a packet queued there
            // before the end of this one schedules the TxDone (`switch_enqueue`).
            NodeRef::Switch { sw, port } if skip_idle && w.net().switches[sw].outputs[port as usize].is_empty() => {
                let FabricParts { net, q, .. } = w.parts();
                let k = q.reserve(at + ser);
                let c = &mut net.channels[ch];
                c.idle_tx_done = k;
                c.idle_tx_done_pending = true;
            }
            _ => w.parts().q.at(at + ser, FabricEvent::TxDone { ch }.into()),
        }
    }
    match to {
        NodeRef::Hca(h) if damage == Damage::None => hca_receive(w, ch, h, pkt, arrive_at),
        NodeRef::Switch { sw, .. } if damage == Damage::None && w.net().switches[sw].inputs_in_send_order => {
            switch_receive(w, ch, sw, pkt, hop, arrive_at)
        }
        _ => w.parts().q.at(arrive_at, FabricEvent::Arrive { ch, pkt }.into()),
    }
}

/// An intact packet reaching HCA `h` at `arrive_at`. Called when the packet goes on the
/// wire, not on an arrival event: an HCA is fed by one link, whose packets arrive in the
/// order they are sent, so its receive path (hca/rx_dma.rs) can admit each one then, with
/// its arrival time. That fixes when the buffer frees and when the packet is processed,
/// and saves an event per packet. Its port counts it ahead (fabric/port.rs `AheadCount`).
fn hca_receive<A: Attachment>(w: &mut A, ch: ChannelId, h: HcaId, pkt: PacketId, arrive_at: Time) {
    let (wire, vl) = {
        let p = w.packets().get(pkt);
        (p.wire_bytes, p.vl)
    };
    // The HCA takes the packet into its receive buffer; its credits return when it leaves
    // that buffer (hca/rx_dma.rs), and the HCA processes it when its pipeline is done.
    let (freed, ready) = w.admit(h, pkt, arrive_at);
    let FabricParts { net, q, .. } = w.parts();
    let prop = net.count_rcv(ch, q.now(), arrive_at, wire);
    return_credits(net, q, ch, freed + prop, vl, wire);
    w.process_at(h, pkt, ready);
}

impl Net {
    /// Counts a packet of `wire` bytes that `ch` brings to its receiving port at `arrive_at`
    /// (now or later); returns the channel's propagation delay, which the caller needs next.
    #[inline]
    fn count_rcv(&mut self, ch: ChannelId, now: Time, arrive_at: Time, wire: u32) -> Time {
        let c = &mut self.channels[ch];
        c.counts.rcv_pkts += 1;
        c.counts.rcv_words += u64::from(wire / 4);
        if arrive_at > now {
            self.ahead.remember(now, arrive_at, c.dst_port, false, wire / 4, 0);
        }
        c.prop
    }
}

#[inline]
fn tx_done_pending<A: Attachment>(w: &mut A, ch: ChannelId) -> bool {
    if w.net().channels[ch].idle_tx_done_pending {
        settle_idle_tx_done(w, ch);
    }
    w.net().channels[ch].wake_scheduled
}

#[inline(never)]
fn settle_idle_tx_done<A: Attachment>(w: &mut A, ch: ChannelId) {
    let FabricParts { net, q, .. } = w.parts();
    let c = &mut net.channels[ch];
    if !c.idle_tx_done_pending {
        return;
    }
    c.idle_tx_done_pending = false;
    let k = c.idle_tx_done;
    if q.has_passed(k) {
        c.wake_scheduled = false;
    } else {
        q.at_key(k, FabricEvent::TxDone { ch }.into());
    }
}

/// Asks the channel's sender for its next packet.
fn pull<A: Attachment>(w: &mut A, ch: ChannelId) {
    match w.net().channels[ch].from {
        NodeRef::Hca(h) => w.pull(h),
        NodeRef::Switch { sw, port } => switch_try_send(w, sw, port),
    }
}

/// The receiver frees `wire` bytes of buffer on `vl`; the credits reach the sender at `at`.
fn return_credits<E: From<FabricEvent> + Copy>(net: &mut Net, q: &mut EventQueue<E>, ch: ChannelId, at: Time, vl: u8, wire: u32) {
    let c = &mut net.channels[ch];
    c.queue_return(at, vl, credit_blocks(wire));
    if c.wait_since != Time::MAX {
        wake_for_credits(net, q, ch);
    }
}

fn credits_or_wait<E: From<FabricEvent> + Copy>(net: &mut Net, q: &mut EventQueue<E>, ch: ChannelId, vl: u8, wire: u32) -> bool {
    let now = q.now();
    let c = &mut net.channels[ch];
    c.absorb(now);
    if c.has_credits(vl, wire) {
        return true;
    }
    if c.wait_since == Time::MAX {
        c.wait_since = now;
    }
    wake_for_credits(net, q, ch);
    false
}

/// Makes sure a waiting sender is woken when the earliest queued credits arrive. They may
/// be due already and not yet taken: a wake that found the sender still transmitting
/// leaves them queued (its next packet's end will pull), so the wake is at `now` at the
/// earliest.
fn wake_for_credits<E: From<FabricEvent> + Copy>(net: &mut Net, q: &mut EventQueue<E>, ch: ChannelId) {
    let now = q.now();
    let c = &mut net.channels[ch];
    let Some(next) = c.returns.front().map(|r| r.at.max(now)) else { return };
    if next < c.credit_wake {
        c.credit_wake = next;
        q.at(next, FabricEvent::CreditWake { ch }.into());
    }
}

/// An intact packet reaching switch `sw` at `arrive_at` on channel `in_ch`. When the
/// switch's inputs are alike (`inputs_in_send_order`) this is called as the packet goes on
/// the wire: arrivals then come in send order, so queueing each one then, ready at its
/// arrival plus the traversal latency, keeps every output queue in arrival order and saves
/// an event per packet. Otherwise it is called on the arrival event.
fn switch_receive<A: Attachment>(w: &mut A, in_ch: ChannelId, sw: SwitchId, pkt: PacketId, hop: Hop, arrive_at: Time) {
    let FabricParts { net, q, .. } = w.parts();
    net.count_rcv(in_ch, q.now(), arrive_at, hop.wire_bytes);
    switch_enqueue(w, sw, in_ch, pkt, hop, arrive_at);
}

fn switch_enqueue<A: Attachment>(w: &mut A, sw: SwitchId, in_ch: ChannelId, pkt: PacketId, hop: Hop, arrive_at: Time) {
    let (dlid, vl) = (hop.dlid, hop.vl);
    let FabricParts { net, q, packets } = w.parts();
    let s = &net.switches[sw];
    let Some(out) = s.route(dlid) else {
        // No route (no LFT entry, or one naming a port without a cable): the switch relay
        // discards it, counted at the port it came in on (PMA PortRcvSwitchRelayErrors).
        net.unroutable_packets += 1;
        let in_port = net.channels[in_ch].dst_port;
        net.ports[in_port].counters.PortRcvSwitchRelayErrors += 1;
        packets.release(pkt);
        let prop = net.channels[in_ch].prop;
        return_credits(net, q, in_ch, arrive_at + prop, vl, hop.wire_bytes);
        return;
    };
    let ready_at = arrive_at + s.latency;
    let link = s.links[out as usize];
    // The channel's sender line is read next, whichever way: ask for it now, alongside
    // the output's queue (`OutLink`).
    crate::engine::prefetch_line(&net.channels[link.ch]);
    if link.departs_on_arrival {
        // Its departure is decided now (fabric/switch_fifo.rs).
        let queued = Queued { pkt, in_ch, ready_at, hop };
        let (out_ch, depart, wait) = net.depart_in_order(sw, out, &queued);
        debug_assert!(packets.get(pkt).damage == Damage::None);
        let (wire, vl) = (hop.wire_bytes, hop.vl);
        let in_prop = net.channels[in_ch].prop;
        let ser = net.channels[out_ch].ser_time(wire);
        // The input buffer frees as the packet drains out of the switch.
        return_credits(net, q, in_ch, depart + ser + in_prop, vl, wire);
        put_on_wire(w, out_ch, pkt, hop, depart, false, wait);
        return;
    }
    net.switches[sw].outputs[out as usize].push(vl, Queued { pkt, in_ch, ready_at, hop });
    let out_ch = link.ch;
    if !tx_done_pending(w, out_ch) {
        switch_try_send(w, sw, out);
    }
}

/// Sends the output's next packet: the first VL, round robin from the one after the last
/// served, whose head packet is ready and has credits downstream. A VL out of credits does
/// not hold up the others (each VL has its own buffer); if none can go, the port waits for
/// the first blocked VL's credits and/or is kicked when the earliest head becomes ready.
fn switch_try_send<A: Attachment>(w: &mut A, sw: SwitchId, port: u16) {
    let FabricParts { net, q, .. } = w.parts();
    let now = q.now();
    let s = &net.switches[sw];
    let (op, out_ch) = (&s.outputs[port as usize], s.links[port as usize].ch);
    let Some(first) = op.pick_vl() else { return };
    let c = &mut net.channels[out_ch];
    if c.wake_scheduled || c.busy_until > now {
        return;
    }
    // A link retraining carries nothing: what is queued for it stays in the switch (its
    // input buffers stay full) until the retrain ends.
    if let Some(end) = c.faulty.then(|| c.retrain_end(now)).flatten() {
        c.wake_scheduled = true;
        q.at(end, FabricEvent::SwitchKick { ch: out_ch }.into());
        return;
    }
    // No head ready (a packet just queued at an idle output): only a kick for the first
    // to be, without reading the credits, which are the channel's next cache line and
    // its returns' (no credit return is pending a wake then: a port waits for credits
    // only with a ready head, which stays at the front until it goes).
    let earliest = op.earliest_ready();
    if earliest > now {
        net.channels[out_ch].wake_scheduled = true;
        q.at(earliest, FabricEvent::SwitchKick { ch: out_ch }.into());
        return;
    }
    net.channels[out_ch].absorb(now);
    let op = &net.switches[sw].outputs[port as usize];
    let c = &net.channels[out_ch];
    let mut earliest_ready = Time::MAX;
    let mut blocked: Option<(u8, u32)> = None;
    let mut chosen = None;
    for i in 0..NUM_VL as u8 {
        let vl = (first + i) % NUM_VL as u8;
        let Some(head) = op.front(vl) else { continue };
        if head.ready_at > now {
            earliest_ready = earliest_ready.min(head.ready_at);
            continue;
        }
        let wire = head.hop.wire_bytes;
        if !c.has_credits(vl, wire) {
            blocked.get_or_insert((vl, wire));
            continue;
        }
        chosen = Some((vl, *head, wire));
        break;
    }
    if let Some((_, head, _)) = chosen.filter(|_| q.is_large()) {
        net.prefetch_next_hop(out_ch, &head);
    }
    let Some((vl, head, wire)) = chosen else {
        let mut kick_at = earliest_ready;
        if let Some((vl, wire)) = blocked {
            // Starts PortXmitWait and the wake for credits (it finds none).
            credits_or_wait(net, q, out_ch, vl, wire);
            // A kick pending for another VL's head makes the credit wake pass (the port
            // looks woken): the kick comes at the first credit return then, if earlier.
            if kick_at != Time::MAX {
                if let Some(r) = net.channels[out_ch].returns.front() {
                    kick_at = kick_at.min(r.at.max(now));
                }
            }
        }
        if kick_at != Time::MAX {
            net.channels[out_ch].wake_scheduled = true;
            q.at(kick_at, FabricEvent::SwitchKick { ch: out_ch }.into());
        }
        return;
    };
    let op = &mut net.switches[sw].outputs[port as usize];
    op.pop(vl);
    // The input buffer frees as the packet drains out of the switch.
    let ser = net.channels[out_ch].ser_time(wire);
    let in_prop = net.channels[head.in_ch].prop;
    return_credits(net, q, head.in_ch, now + ser + in_prop, vl, wire);
    transmit_hop(w, out_ch, head.pkt, head.hop);
}

impl Net {
    /// Asks for the lines sending `head` on `out_ch` reads last, so that their misses overlap
    /// with the work before them rather than follow it: the input channel's credit returns
    /// and propagation delay, where the head's credits go back, and the entry of the next
    /// switch's forwarding table that it reads there. A hint: nothing changes. Only for a
    /// large run (`EventQueue::is_large`): a small one stays in cache.
    #[inline(always)]
    fn prefetch_next_hop(&self, out_ch: ChannelId, head: &Queued) {
        use crate::engine::prefetch_line;
        let input = &self.channels[head.in_ch];
        prefetch_line(&input.returns);
        prefetch_line(&input.prop);
        if let NodeRef::Switch { sw, .. } = self.channels[out_ch].to {
            if let Some(entry) = self.switches[sw].lft.get(usize::from(head.hop.dlid)) {
                prefetch_line(entry);
            }
        }
    }
}
