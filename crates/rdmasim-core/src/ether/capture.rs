//! A capture of the frames hosts send (a tap at each sending NIC, before any loss): Ethernet II
//! frames with the PM header (framing.rs, an ASSUMPTION layout) under EtherType 0x88B5 (IEEE
//! Std 802a-2003 Local Experimental Ethertype 1, framing.rs) and the payload as zeros,
//! written as pcap (LINKTYPE_ETHERNET, no FCS).
use crate::ids::{HostId};
use super::frame::{Frame, FrameKind};
use super::framing::{mac_of, PmHeader, ETHERTYPE_PM, FCS, MIN_FRAME};
use super::world::{EtherWorld, Owner};
use crate::engine::Time;
use crate::wire::PcapWriter;

impl EtherWorld {
    fn mac(&self, p: crate::ids::PortId) -> [u8; 6] {
        match self.ports[p].owner {
            Owner::Nic(n) => {
                let nic = &self.nics[n];
                mac_of(nic.host, nic.dim, nic.lane)
            }
            _ => [0x02, 0, 0, 0, 0xff, 0xff],
        }
    }

    /// One captured frame's bytes, destination MAC to the end of the payload.
    fn frame_bytes(&self, f: &Frame, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&self.mac(f.to_port));
        out.extend_from_slice(&self.mac(f.from_port));
        out.extend_from_slice(&ETHERTYPE_PM.to_be_bytes());
        let coords = |h: HostId| self.hosts[h].coords.map(|c| c as u8);
        let (kind, seq, len) = match f.kind {
            FrameKind::Data => (PmHeader::DATA, f.seq, f.payload),
            _ => (PmHeader::ACK, 0, 0),
        };
        PmHeader { kind, flags: u8::from(f.last) | u8::from(f.resent) << 1, src: coords(f.src), dst: coords(f.dst), seq, ack: f.ack, held: f.held, msg: f.msg, len }.emit(out);
        out.resize(out.len() + len as usize, 0);
        // Padded to the minimum frame (64 B with the FCS, which pcap leaves out).
        let min = (MIN_FRAME - FCS) as usize;
        if out.len() < min {
            out.resize(min, 0);
        }
    }

    /// The capture as a pcap file, or None when the scenario asked for none.
    pub fn pcap(&self) -> Option<Vec<u8>> {
        let cap = self.capture.as_ref()?;
        let mut w = PcapWriter::new();
        let mut buf = Vec::new();
        for (t, f) in cap {
            self.frame_bytes(f, &mut buf);
            w.write_frame(Time::as_ps(*t), &buf);
        }
        Some(w.into_bytes())
    }
}
