//! The world as the fabric sees it (fabric/attachment.rs): the fabric's state with the event
//! queue and the packets in flight, and the HCAs at the ends of its links.
use crate::engine::{EventQueue, Time};
use crate::fabric::attachment::{Attachment, FabricEvent, FabricParts};
use crate::fabric::net::Net;
use crate::ids::HcaId;
use crate::wire::in_flight::{PacketId, Packets};
use crate::world::{Event, World};

impl From<FabricEvent> for Event {
    #[inline(always)]
    fn from(ev: FabricEvent) -> Event {
        match ev {
            FabricEvent::TxDone { ch } => Event::TxDone { ch },
            FabricEvent::Arrive { ch, pkt } => Event::Arrive { ch, pkt },
            FabricEvent::CreditWake { ch } => Event::CreditWake { ch },
            FabricEvent::SwitchKick { ch } => Event::SwitchKick { ch },
        }
    }
}

impl Attachment for World {
    type Event = Event;

    #[inline(always)]
    fn parts(&mut self) -> FabricParts<'_, Event> {
        FabricParts { net: &mut self.net, q: &mut self.q, packets: &mut self.packets }
    }

    #[inline(always)]
    fn net(&self) -> &Net {
        &self.net
    }

    #[inline(always)]
    fn queue(&self) -> &EventQueue<Event> {
        &self.q
    }

    #[inline(always)]
    fn packets(&self) -> &Packets {
        &self.packets
    }

    #[inline(always)]
    fn skip_idle_events(&self) -> bool {
        self.skip_idle_events
    }

    #[inline(always)]
    fn admit(&mut self, h: HcaId, pkt: PacketId, arrive_at: Time) -> (Time, Time) {
        self.hca_admit(h, pkt, arrive_at)
    }

    #[inline(always)]
    fn process_at(&mut self, h: HcaId, pkt: PacketId, ready: Time) {
        self.hca_process_at(h, pkt, ready)
    }

    #[inline(always)]
    fn pull(&mut self, h: HcaId) {
        self.hca_try_send(h)
    }

    #[inline(always)]
    fn sent(&mut self, at: Time, h: HcaId, pkt: PacketId) {
        if let Some(cap) = self.capture.as_mut() {
            let p = self.packets.get(pkt);
            let dst = self.lid_hca.get(p.dlid as usize).copied().flatten().map(|d| self.hcas[d].host);
            cap.record(at, self.hcas[h].host, dst, p);
        }
    }

    /// (With a staging buffer `engine_free` stays zero: the port sends what the engine
    /// already picked, hca/tx_staging.rs.)
    #[inline(always)]
    fn next_send(&self, h: HcaId, port_free: Time) -> (Time, bool) {
        let hca = &self.hcas[h];
        (port_free.max(hca.engine_free), !hca.has_no_work())
    }
}
