//! The fixed latencies of one message through an unloaded path, from a hardware profile's
//! parameters: the post before the first byte, the cables and switches, the receive side and
//! the completion. The flow engine puts them around each flow ([`super::run`]); the rank-by-rank
//! Alltoall builds its rendezvous handshake from them ([`super::rendezvous`]).
use crate::profile::HwProfile;
use crate::scenario::flows::FlowVerb;

/// A packet's way through `hops` links of `cable_m` metres in all: propagation, and each switch
/// it crosses (cut-through: the port-to-port latency), ns.
pub fn wire_one_way_ns(hw: &HwProfile, hops: usize, cable_m: f64) -> f64 {
    WireDelay::of(hw).one_way_ns(hops, cable_m)
}

/// A profile's delays along a path: per metre of cable and per switch crossed, ns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WireDelay {
    pub ns_per_m: f64,
    pub switch_ns: f64,
}

impl WireDelay {
    pub fn of(hw: &HwProfile) -> WireDelay {
        WireDelay { ns_per_m: hw.link.cable_ns_per_m, switch_ns: hw.switch.switch_latency_ns }
    }

    /// Through `hops` links (`hops - 1` switches) of `cable_m` metres in all, ns.
    pub fn one_way_ns(&self, hops: usize, cable_m: f64) -> f64 {
        cable_m * self.ns_per_m + hops.saturating_sub(1) as f64 * self.switch_ns
    }
}

/// From `ibv_post_send` until the first byte is on the wire: the WQE built, the doorbell, the
/// WQE and payload fetched over PCIe (not for inline data) and the send pipeline, ns.
pub fn post_ns(hw: &HwProfile, inline: bool) -> f64 {
    let (nic, host) = (&hw.nic, &hw.host);
    let fetch = if inline { 0.0 } else { nic.wqe_fetch_ns + nic.dma_read_ns };
    host.post_send_cpu_ns + nic.doorbell_ns + fetch + nic.tx_pipeline_ns
}

/// A completion written to host memory and polled, ns.
pub fn complete_ns(hw: &HwProfile) -> f64 {
    hw.nic.dma_write_ns + hw.host.poll_cq_ns
}

/// The fixed latencies of one `verb` message through an unloaded path whose one-way delay
/// (cables and switches) is `one_way_ns`: before its first byte leaves, and after its last
/// arrives until the requester has polled the completion; seconds: (head, tail). Each term is a
/// profile parameter the packet engine spends on the same step (profile/params.rs).
pub fn verb_latencies(hw: &HwProfile, verb: FlowVerb, inline: bool, one_way_ns: f64) -> (f64, f64) {
    let nic = &hw.nic;
    let post = post_ns(hw, inline);
    let complete = complete_ns(hw);
    let (head, tail) = match verb {
        // The request crosses, the responder reads the payload and sends it back.
        FlowVerb::Read => (post + one_way_ns + nic.rx_pipeline_ns + nic.dma_read_ns + nic.tx_pipeline_ns, one_way_ns + nic.rx_pipeline_ns + complete),
        // The last packet crosses, the responder ACKs it, the ACK crosses back.
        _ => (post, one_way_ns + nic.rx_pipeline_ns + nic.tx_pipeline_ns + one_way_ns + nic.rx_pipeline_ns + complete),
    };
    (head * 1e-9, tail * 1e-9)
}
