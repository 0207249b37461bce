//! Trunking: the packets of one message spread round-robin over a host's NICs of one
//! dimension (PM/Ethernet's network trunking, seeds/003 "複数のEthernet NICを用いて高いバンド
//! 幅性能を実現"). Lane k of one host reaches lane k of every host on the same switch.

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
