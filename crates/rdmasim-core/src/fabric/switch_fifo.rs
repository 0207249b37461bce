//! A switch output whose departures are decided as packets are queued, without events.
//!
//! An output port is a FIFO served at line rate when it meets three conditions, checked once
//! when the world is built (`plan_switch_outputs`):
//! - its switch's inputs are alike (`Switch::inputs_in_send_order`), so packets are queued in
//!   arrival order, at the time they are sent upstream (fabric/forward.rs `switch_receive`);
//! - it leads to an HCA, which admits each packet as it is sent and so queues the packet's
//!   credit return at once (fabric/forward.rs `hca_receive`): every credit the port will get
//!   back before a queued packet's departure is already known when that packet is queued;
//! - its link has no loss or bit errors and is up (a damaged or discarded packet frees its
//!   credits on an arrival event, which would come too late for the decision).
//!
//! It also needs all traffic on one VL (every QP of the run on SLs of one VL: `vls_in_use`),
//! so there is one FIFO and no VL arbitration. A packet then leaves at the latest of its ready time (arrival + traversal
//! latency), the end of the packet ahead of it, and the first credit return that makes room
//! for it, which are exactly the times at which the event-driven path (`switch_try_send` on
//! `TxDone`, `SwitchKick` and `CreditWake`) would send it. Results are byte-identical to that
//! path; a packet through such a port costs no event at the switch. Its departure is counted
//! ahead (fabric/port.rs `AheadCount`), so a run that stops with packets inside the switch
//! reports them as not yet sent.
use crate::engine::Time;
use crate::fabric::channel::NodeRef;
use crate::fabric::net::Net;
use crate::fabric::switch::Queued;
use crate::ids::{ChannelId, SwitchId};

impl Net {
    /// Marks the switch outputs that meet the conditions above (after faults are applied).
    /// `one_vl`: all traffic is on one VL (the world knows its QPs' VLs: `vls_in_use`), so
    /// each output is one FIFO.
    pub fn plan_switch_outputs(&mut self, one_vl: bool) {
        for c in self.channels.iter_mut() {
            c.faulty = c.can_damage();
        }
        for sw in &mut self.switches {
            let alike = sw.inputs_in_send_order;
            for link in &mut sw.links {
                // A faulty link (loss, bit errors, drop_nth, or down) frees a damaged or
                // discarded packet's credits on its arrival event, too late for the decision.
                let c = &self.channels[link.ch];
                link.departs_on_arrival = one_vl && alike && !c.faulty && matches!(c.to, NodeRef::Hca(_));
            }
        }
    }
}

impl Net {
    /// When `q`, queued at switch `sw`'s output `out`, leaves (decided now), on which channel,
    /// and the PortXmitWait it spends there without credits. fabric/forward.rs
    /// `switch_enqueue` sends it then.
    pub(super) fn depart_in_order(&mut self, sw: SwitchId, out: u16, q: &Queued) -> (ChannelId, Time, u64) {
        let out_ch = self.switches[sw].links[out as usize].ch;
        let (wire, vl) = (q.hop.wire_bytes, q.hop.vl);
        let c = &mut self.channels[out_ch];
        let mut depart = q.ready_at.max(c.busy_until);
        // Credits: every return due before the departure is already queued (module doc).
        c.absorb(depart);
        let waiting_from = depart;
        while !c.has_credits(vl, wire) {
            let Some(next) = c.returns.front().map(|r| r.at) else {
                // Cannot happen: each credit taken has its return queued. Send anyway rather
                // than lose the packet; a test would show the overdraft.
                debug_assert!(false, "switch output {out_ch} out of credits with none to come");
                break;
            };
            depart = next;
            c.absorb(depart);
        }
        (out_ch, depart, c.wait_ticks(depart - waiting_from))
    }
}
