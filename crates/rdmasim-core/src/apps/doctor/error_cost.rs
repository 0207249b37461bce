//! What an erroring link keeps of its rate: the share of each direction left for new data once
//! corrupt packets and the link's outages are paid for. Only rates count (two snapshots): a
//! count since the last clear says nothing of how often, so it costs nothing here.
//!
//! ASSUMPTION (the doctor's cost model, docs/doctor.md). The fabric runs RC traffic in full
//! packets of `mtu` bytes (4096: the IB MTU OpenSM and current HCAs use).
//! - A corrupt packet is dropped by the receiver (its ICRC/VCRC fails) and RC retransmits
//!   go-back-N: the packet and every packet sent after it until the NAK comes back, one round
//!   trip of the link's data (`rtt_s`, 5 µs: a few switch hops and the HCAs' pipelines). So a
//!   packet error rate `per` costs the direction `per × (1 + rate × rtt / packet)` of its time.
//!   The packet error rate is the larger of what the symbol errors give (each bit signalled is
//!   wrong with the measured BER: `1 - (1 - ber)^bits` per packet, a lower bound when errors
//!   come in bursts) and what the receive errors count (PortRcvErrors,
//!   LocalLinkIntegrityErrors, ExcessiveBufferOverrunErrors per second, over the packets per
//!   second of a fully loaded link: a lower bound when it was not fully loaded).
//! - A retrain (LinkErrorRecoveryCounter) or a drop (LinkDownedCounter) loses what was in flight,
//!   and the RC queue pairs whose last packets were lost wait for their local ACK timeout
//!   before resending (`outage_s`, 4.3 s: 4.096 µs × 2^20, the timeout Open MPI and MVAPICH2
//!   set by default). Each event costs both directions that long; events at both ends of a
//!   link are the same events (the larger count is taken).
//!
//! A fluid model spreads these costs evenly in time: a direction keeps `1 - lost` of its rate.
use super::suspect::Evidence;
use crate::fabric::graph::FabricGraph;
use crate::fabric::io::port_counters::Counter;
use crate::ids::LinkId;
use serde::{Deserialize, Serialize};

/// Bytes of headers per packet on the wire (LRH, BTH, ICRC, VCRC), as the packet engine
/// builds them.
const HEADER_BYTES: f64 = crate::wire::in_flight::LRH_BTH_CRC as f64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ErrorModel {
    /// Payload bytes of a full packet.
    pub mtu: u32,
    /// Round trip of a NAK: how long a direction keeps sending after a corrupt packet, seconds.
    pub rtt_s: f64,
    /// How long a retrain or a drop stalls the traffic through the link, seconds.
    pub outage_s: f64,
}

impl Default for ErrorModel {
    fn default() -> ErrorModel {
        ErrorModel { mtu: 4096, rtt_s: 5e-6, outage_s: crate::hca::timers::spec_ack_timeout(20).as_secs_f64() }
    }
}

/// Whether a counter at a port counts packets that port received corrupt or lost.
fn counts_lost_packets(c: Counter) -> bool {
    matches!(c, Counter::PortRcvErrors | Counter::LocalLinkIntegrityErrors | Counter::ExcessiveBufferOverrunErrors)
}

/// What a link's counters say of it: each direction's packet error rate, indexed like
/// `link.ends` by the receiving port, and its outage events (retrains, drops) per second.
pub struct LinkErrorRates {
    pub per_into: [f64; 2],
    pub outages_per_s: f64,
}

/// The packet error rates and outages of `link` from the counter evidence against it (the
/// model above): rates only, so a count since the last clear gives none.
pub fn error_rates(g: &FabricGraph, link: LinkId, evidence: &[Evidence], m: &ErrorModel) -> LinkErrorRates {
    let l = &g.links[link];
    let packet_bytes = f64::from(m.mtu) + HEADER_BYTES;
    let packets_per_s = l.speed.data_bps_f64() / 8.0 / packet_bytes;
    let signalled_bits = packet_bytes * 8.0 * l.speed.signalling_bps() as f64 / l.speed.data_bps_f64();
    let mut per = [0.0f64; 2];
    let mut events = [0.0f64; 2];
    for e in evidence {
        let Evidence::Counter { port, delta, ber, .. } = e else { continue };
        let (Some(rate), Some(at)) = (delta.per_second, l.ends.iter().position(|&p| g.port_name(p) == *port)) else { continue };
        match delta.counter {
            Counter::SymbolErrorCounter => per[at] = per[at].max(1.0 - (1.0 - ber.unwrap_or(0.0)).powf(signalled_bits)),
            c if counts_lost_packets(c) => per[at] = per[at].max(rate / packets_per_s),
            Counter::LinkErrorRecoveryCounter | Counter::LinkDownedCounter => events[at] += rate,
            _ => {}
        }
    }
    LinkErrorRates { per_into: per, outages_per_s: events[0].max(events[1]) }
}

/// The share of its rate each direction of `link` keeps, indexed like `link.ends` by the
/// sending port, from the counter evidence against it.
pub fn useful_shares(g: &FabricGraph, link: LinkId, evidence: &[Evidence], m: &ErrorModel) -> [f64; 2] {
    let bytes_per_s = g.links[link].speed.data_bps_f64() / 8.0;
    let resent = 1.0 + bytes_per_s * m.rtt_s / (f64::from(m.mtu) + HEADER_BYTES);
    let r = error_rates(g, link, evidence, m);
    let outage = r.outages_per_s * m.outage_s;
    // What is corrupt on arrival at end i was sent by the other end.
    let keep = |into: usize| (1.0 - r.per_into[into] * resent - outage).clamp(0.0, 1.0);
    [keep(1), keep(0)]
}

/// The bit error rate that corrupts a full packet (`mtu` + headers, in data bits) with
/// probability `per`: how a packet-level run carries a measured packet error rate on a link
/// (the packet engine draws corruption per bit sent, fabric/channel.rs).
pub fn equivalent_ber(per: f64, m: &ErrorModel) -> f64 {
    let bits = (f64::from(m.mtu) + HEADER_BYTES) * 8.0;
    if per <= 0.0 {
        0.0
    } else {
        1.0 - (1.0 - per.min(1.0 - 1e-12)).powf(1.0 / bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::doctor::deltas::CounterDelta;
    use crate::apps::doctor::Severity;
    use crate::fabric::graph::LinkProps;
    use crate::fabric::rate::{LinkGen, LinkSpeed};

    fn counter(port: &str, counter: Counter, delta: u64, ber: Option<f64>) -> Evidence {
        let d = CounterDelta { counter, before: Some(0), after: delta, delta, interval_s: Some(600.0), per_second: Some(delta as f64 / 600.0), saturated: false, reset: false };
        Evidence::Counter { port: port.into(), delta: d, ber, severity: Severity::High }
    }

    #[test]
    fn a_bad_lane_costs_the_direction_into_it_and_a_flapping_link_both() {
        let qdr = LinkSpeed { gen: LinkGen::Qdr, width: 4 };
        let mut g = FabricGraph::new();
        let a = g.add_switch("a", 1, 1, qdr).unwrap();
        let b = g.add_switch("b", 2, 1, qdr).unwrap();
        let (pa, pb) = (g.port_of(a, 1).unwrap(), g.port_of(b, 1).unwrap());
        let link = g.connect(pa, pb, LinkProps::new(qdr, 1.0)).unwrap();
        let m = ErrorModel::default();
        // BER 2.5e-9 into b: 4122 B packets are 41220 bits at 10/8: PER 1.03e-4; 4 GB/s × 5 µs
        // is 4.85 packets in flight: 6.0e-4 of a's direction lost.
        let [from_a, from_b] = useful_shares(&g, link, &[counter("\"b\"[1]", Counter::SymbolErrorCounter, 60000, Some(2.5e-9))], &m);
        assert!((1.0 - from_a - 6.05e-4).abs() < 0.05e-4, "{from_a}");
        assert_eq!(from_b, 1.0);
        // 8 retrains or drops in 600 s, 4.3 s each: 5.7 % of both directions.
        let flap = [counter("\"a\"[1]", Counter::LinkErrorRecoveryCounter, 6, None), counter("\"a\"[1]", Counter::LinkDownedCounter, 2, None)];
        let [x, y] = useful_shares(&g, link, &flap, &m);
        assert!((x - (1.0 - 8.0 / 600.0 * 4.294967296)).abs() < 1e-9 && x == y, "{x} {y}");
    }
}
