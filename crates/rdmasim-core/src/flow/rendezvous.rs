//! The rendezvous handshake of one large MPI message at flow level: what the path's latencies
//! add to a transfer, and when its data moves. It is MVAPICH2's RDMA-write rendezvous (RPUT)
//! as the packet engine's MPI layer runs it (`workload/mpi`): the sender posts an RTS (an
//! inline SEND), the receiver answers with a CTS once it has matched the RTS to a posted
//! receive, the sender WRITEs the data with an immediate, and each side's request completes
//! when it polls its completion (the receiver the immediate, the sender the WRITE's, which
//! waits for the ACK).
//!
//! The rank-by-rank Alltoall ([`super::rank_by_rank`], [`super::rank_by_rank_steps`]) runs each
//! transfer through these rules, so ranks whose paths cross more switches reach their next step
//! later, and XOR partners drift apart as the packet engine's do.
//!
//! ASSUMPTION: the CTS's path back has the latency of the data's path out (a fat tree's
//! up*/down* routes cross as many switches each way; the cables of a level are alike).
use super::latency::{complete_ns, post_ns, WireDelay};
use crate::profile::HwProfile;

/// What a path adds to one rendezvous transfer on it, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PathLatency {
    /// An RTS or a CTS, from its post to the peer's poll of it.
    pub ctrl_s: f64,
    /// An RTS, a CTS or a header-only eager SEND, from its post to its sender's poll of its
    /// completion (the ACK back).
    pub ctrl_done_s: f64,
    /// The data WRITE's post until its first byte is on the wire.
    pub head_s: f64,
    /// The last byte on the wire until the receiver polls the immediate.
    pub recv_tail_s: f64,
    /// The last byte on the wire until the sender polls the WRITE's completion (the ACK back).
    pub send_tail_s: f64,
}

/// A hardware profile's part of every path's latency (the NICs' and hosts'), ns; a path adds
/// its cables and switches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Handshake {
    pub wire: WireDelay,
    /// [`PathLatency`]'s terms without the path's cables and switches.
    pub ctrl_ns: f64,
    pub ctrl_done_ns: f64,
    pub head_ns: f64,
    pub recv_tail_ns: f64,
    pub send_tail_ns: f64,
}

impl Handshake {
    pub fn of(hw: &HwProfile) -> Handshake {
        let nic = &hw.nic;
        // The receiving NIC takes the packet in and fetches the receive WQE (SENDs only), then
        // the completion lands and is polled.
        let land_ns = nic.rx_pipeline_ns + complete_ns(hw);
        // The responder's ACK goes back: its own send pipeline, the way, the requester's
        // receive pipeline, then the completion.
        let send_tail_ns = nic.rx_pipeline_ns + nic.tx_pipeline_ns + land_ns;
        Handshake {
            wire: WireDelay::of(hw),
            ctrl_ns: post_ns(hw, true) + land_ns + nic.recv_wqe_fetch_ns,
            ctrl_done_ns: post_ns(hw, true) + send_tail_ns,
            head_ns: post_ns(hw, false),
            recv_tail_ns: land_ns,
            send_tail_ns,
        }
    }

    /// No latencies anywhere: transfers start the instant both ranks are ready.
    pub fn none() -> Handshake {
        Handshake { wire: WireDelay { ns_per_m: 0.0, switch_ns: 0.0 }, ctrl_ns: 0.0, ctrl_done_ns: 0.0, head_ns: 0.0, recv_tail_ns: 0.0, send_tail_ns: 0.0 }
    }

    /// The cables' and switches' part of a path of `hops` links and `cable_m` metres, ns.
    pub fn way_ns(&self, hops: usize, cable_m: f64) -> f64 {
        self.wire.one_way_ns(hops, cable_m)
    }

    /// A path whose cables and switches take `way_ns` one way.
    pub fn through(&self, way_ns: f64) -> PathLatency {
        PathLatency {
            ctrl_s: (self.ctrl_ns + way_ns) * 1e-9,
            ctrl_done_s: (self.ctrl_done_ns + 2.0 * way_ns) * 1e-9,
            head_s: self.head_ns * 1e-9,
            recv_tail_s: (self.recv_tail_ns + way_ns) * 1e-9,
            send_tail_s: (self.send_tail_ns + 2.0 * way_ns) * 1e-9,
        }
    }

    /// A path of `hops` links and `cable_m` metres of cable.
    pub fn path(&self, hops: usize, cable_m: f64) -> PathLatency {
        self.through(self.way_ns(hops, cable_m))
    }

    /// A route given as its hops' cable lengths, metres.
    pub fn route(&self, lengths_m: impl Iterator<Item = f64>) -> PathLatency {
        self.through(self.route_way_ns(lengths_m))
    }

    /// The cables' and switches' part of a route given as its hops' cable lengths, ns.
    pub fn route_way_ns(&self, lengths_m: impl Iterator<Item = f64>) -> f64 {
        let (mut hops, mut cable_m) = (0usize, 0.0);
        for m in lengths_m {
            hops += 1;
            cable_m += m;
        }
        self.way_ns(hops, cable_m)
    }
}

/// When the data of a transfer starts: its sender reached the step at `sender_s` and sent the
/// RTS; its receiver posted the receive at `receiver_s` and answers the RTS once both are
/// there; the CTS crosses back and the sender posts the WRITE.
pub fn data_start(sender_s: f64, receiver_s: f64, p: &PathLatency) -> f64 {
    (sender_s + p.ctrl_s).max(receiver_s) + p.ctrl_s + p.head_s
}

/// Whether two XOR partners that reach their step `gap_s` apart run their transfers one after
/// the other. The late one finds the early one's RTS there (its flight on the path `p` is
/// over), matches it at once and answers with a CTS before it sends its own RTS. The early
/// rank's WRITE then goes ahead of its CTS to the late one on their one RC queue pair, so the
/// late rank's data waits for the early rank's ([`second_start`]).
pub fn one_after_the_other(gap_s: f64, p: &PathLatency) -> bool {
    gap_s > p.ctrl_s
}

/// When the late partner's data starts, the early one's data having left at `first_end_s` on
/// `first`'s path: the CTS that queued behind it crosses, then the late rank posts its WRITE.
pub fn second_start(first_end_s: f64, first: &PathLatency, second: &PathLatency) -> f64 {
    first_end_s + first.ctrl_s + second.head_s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::latency::wire_one_way_ns;
    use crate::profile::by_name;

    #[test]
    fn a_path_adds_its_switches_and_cables_to_the_profiles_nic_terms() {
        let (hw, _) = by_name("cx3-fdr").unwrap();
        let hs = Handshake::of(&hw);
        let one = hs.path(2, 4.0);
        let three = hs.path(4, 4.0);
        // Two more switches: 2 × 170 ns on every crossing, twice on the ACK's round trip.
        assert!((three.ctrl_s - one.ctrl_s - 340e-9).abs() < 1e-15);
        assert!((three.recv_tail_s - one.recv_tail_s - 340e-9).abs() < 1e-15);
        assert!((three.send_tail_s - one.send_tail_s - 680e-9).abs() < 1e-15);
        assert_eq!(three.head_s, one.head_s);
        // The wire part is the flow engine's own.
        let way = wire_one_way_ns(&hw, 4, 4.0) - wire_one_way_ns(&hw, 2, 4.0);
        assert!((way - 340.0).abs() < 1e-9);
        // An inline RTS posts faster than the WRITE that fetches its payload.
        assert!(one.head_s > post_ns(&hw, true) * 1e-9);
    }

    #[test]
    fn data_moves_after_the_rts_and_the_cts_whichever_rank_came_first() {
        let p = PathLatency { ctrl_s: 1.0, ctrl_done_s: 0.0, head_s: 0.5, recv_tail_s: 0.0, send_tail_s: 0.0 };
        // The receiver was there first: the RTS's flight, the CTS's, the post.
        assert_eq!(data_start(10.0, 0.0, &p), 12.5);
        // The receiver came after the RTS: from its arrival, the CTS and the post.
        assert_eq!(data_start(10.0, 20.0, &p), 21.5);
        assert!(one_after_the_other(1.5, &p) && !one_after_the_other(1.0, &p));
        assert_eq!(second_start(30.0, &p, &p), 31.5);
        assert_eq!(data_start(3.0, 4.0, &Handshake::none().path(5, 9.0)), 4.0);
    }
}
