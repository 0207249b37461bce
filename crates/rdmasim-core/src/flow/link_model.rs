//! The link model the flow engine shares with the packet engine: a link carries its data rate
//! after encoding (width × lane rate × encoding, fabric/rate.rs) in bytes on the wire, and a
//! message puts on the wire exactly the packets the packet engine builds for it
//! ([`ib_wire_bytes`]: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 per packet, RETH 16 on a WRITE's first
//! packet, AETH 4 on a READ response's first and last, ImmDt 4, pad to 4 bytes). So the payload
//! a flow gets is its wire rate × MTU / (MTU + headers) for full packets, as in the packet engine.
//!
//! Left out (docs/flow.md): the ACKs and READ requests going the other way (one 30 B ACK per 64
//! packets of 4 KiB, under 0.02 % of the reverse link), link-level flow-control packets, and the
//! credit stalls of the packet engine.
use crate::fabric::graph::{FabricGraph, LinkState};
use crate::fabric::rate::LinkSpeed;
use crate::wire::in_flight::{ib_wire_bytes, PktKind};
use crate::profile::NicParams;
use crate::ids::{PortId, TiVec};
use crate::scenario::flows::FlowVerb;

/// Bytes per second a link of `speed` carries in each direction.
pub fn link_bytes_per_s(speed: LinkSpeed) -> f64 {
    speed.data_bps_f64() / 8.0
}

/// What the link out of each port carries, bytes per second (0 for an uncabled port or a down
/// link).
pub fn capacities(g: &FabricGraph) -> TiVec<PortId, f64> {
    g.ports
        .iter()
        .map(|p| match p.link {
            Some(l) if g.links[l].state == LinkState::Up => link_bytes_per_s(g.links[l].speed),
            _ => 0.0,
        })
        .collect()
}

/// The kind of a data packet of `verb` at position (first, last) of its message.
fn data_packet(verb: FlowVerb, first: bool, last: bool) -> PktKind {
    match verb {
        FlowVerb::Write => PktKind::Write { first, last, imm: false },
        FlowVerb::WriteImm => PktKind::Write { first, last, imm: true },
        FlowVerb::Send => PktKind::Send { first, last, imm: false },
        FlowVerb::Read => PktKind::ReadResp { first, last },
    }
}

/// Bytes one message of `size` puts on the wire in the data direction at path MTU `mtu`, and
/// its number of packets.
pub fn message_wire_bytes(verb: FlowVerb, size: u64, mtu: u32) -> (u64, u64) {
    let mtu = u64::from(mtu.max(1));
    let packets = size.div_ceil(mtu).max(1);
    if packets == 1 {
        return (u64::from(ib_wire_bytes(data_packet(verb, true, true), size as u32)), 1);
    }
    let last = size - (packets - 1) * mtu;
    let m = mtu as u32;
    let first = u64::from(ib_wire_bytes(data_packet(verb, true, false), m));
    let middle = u64::from(ib_wire_bytes(data_packet(verb, false, false), m)) * (packets - 2);
    let end = u64::from(ib_wire_bytes(data_packet(verb, false, true), last as u32));
    (first + middle + end, packets)
}

/// The most a NIC of `hw` puts on the wire for a flow whose packets average `bytes_per_packet`:
/// its send engine is busy `tx_packet_ns` per packet (the profile's message-rate bound).
/// Its port's link is the first link of the flow's route, so the link rate is the solver's.
pub fn injection_cap(hw: &NicParams, bytes_per_packet: f64) -> f64 {
    if hw.tx_packet_ns > 0.0 {
        bytes_per_packet / (hw.tx_packet_ns * 1e-9)
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::rate::LinkGen;

    #[test]
    fn a_message_costs_the_packet_engine_s_headers() {
        // 1 MiB WRITE at 4 KiB MTU: 256 packets of 26 B headers, RETH 16 on the first.
        assert_eq!(message_wire_bytes(FlowVerb::Write, 1 << 20, 4096), ((1 << 20) + 256 * 26 + 16, 256));
        // READ: AETH on the first and last response.
        assert_eq!(message_wire_bytes(FlowVerb::Read, 8192, 4096), (8192 + 2 * 26 + 8, 2));
        // One short SEND, padded to 4 bytes.
        assert_eq!(message_wire_bytes(FlowVerb::Send, 5, 4096), (26 + 8, 1));
        // EDR 4x: 100 Gb/s of data, 12.5 GB/s.
        assert_eq!(link_bytes_per_s(LinkSpeed { gen: LinkGen::Edr, width: 4 }), 12.5e9);
    }
}
