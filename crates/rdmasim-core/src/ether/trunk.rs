//! Trunking: the packets of one message spread round-robin over a host's NICs of one
//! dimension (PM/Ethernet's network trunking, seeds/003 "複数のEthernet NICを用いて高いバンド
//! 幅性能を実現"). By default lane k of one host reaches lane k of every host on the same
//! switch; `[pm] lanes = "random"` addresses each frame to one of the peer's NICs of that
//! dimension drawn uniformly and independently of the sending lane (a sensitivity, docs/pm.md
//! D6: how PM/Ethernet picks the peer's NIC is not published — ASSUMPTION either way).
use serde::{Deserialize, Serialize};

/// How the destination NIC of a trunked frame is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LaneChoice {
    /// Lane k of the sender reaches lane k of the peer (ASSUMPTION, the default): in an
    /// all-to-all on one switch each output then has one input per peer at most.
    #[default]
    Same,
    /// The peer's lane is drawn per frame, uniformly, independently of the sending lane
    /// (ASSUMPTION, a sensitivity): two of a sender's NICs, or two senders, can converge on
    /// one output.
    Random,
}

/// A host's round-robin position in each dimension.
#[derive(Clone, Copy, Debug, Default)]
pub struct Trunk {
    next: [u8; 3],
}

impl Trunk {
    /// The lane for the next packet in dimension `dim` over `lanes` NICs.
    pub fn next_lane(&mut self, dim: u8, lanes: u8) -> u8 {
        let d = usize::from(dim);
        let lane = self.next[d] % lanes.max(1);
        self.next[d] = (lane + 1) % lanes.max(1);
        lane
    }
}
