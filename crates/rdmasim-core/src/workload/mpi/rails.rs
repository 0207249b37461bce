//! Which rails a rank's messages take: MVAPICH2's multi-rail policy (`MV2_NUM_HCAS`).
//!
//! Source: MVAPICH2 2.3.7's source release (`src/mpid/ch3/channels/mrail/src/gen2/`; the
//! user guide, mvapich.cse.ohio-state.edu/static/media/mvapich/mvapich2-userguide.html, names
//! the same run-time variables, but its text could not be read here, so every default below is
//! the code's); `docs/srq.md` "Multi-rail" has the whole mapping. In short:
//! - a rank uses `num_hcas` rails, one RC connection per (peer, rail);
//! - small messages, the rendezvous handshake and unstriped rendezvous data go on ONE rail,
//!   chosen per message by `MRAILI_Send_select_rail` (`ibv_priv.c`) under the rail sharing
//!   policy;
//! - the data of a rendezvous message above the striping threshold is cut evenly over every
//!   rail (`MPIDI_CH3I_MRAILI_Rendezvous_rput_push`, `ibv_rndv.c`: `inc = nbytes /
//!   rdma_num_rails` on each rail, the last rail also takes the remainder).

/// A rail of a host, as `World::hca_on_rail` numbers them (0 = each host's first HCA port).
/// Every rail is a subnet of its own, so a connection joins two HCAs on the same rail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rail(pub u16);

pub use crate::scenario::mpi::RailSharingPolicy;

/// The rails one rank uses and how it shares them.
#[derive(Clone, Copy, Debug)]
pub struct RailPlan {
    /// The first rail (the `rail` key); the rank uses `first .. first + n`.
    pub first: Rail,
    /// `MV2_NUM_HCAS` (MV2_NUM_PORTS and MV2_NUM_QP_PER_PORT are 1: one QP per HCA port).
    pub n: u16,
    pub policy: RailSharingPolicy,
    /// Rendezvous data longer than this is striped over all `n` rails.
    pub striping_threshold: u64,
}

/// One piece of a striped (or whole) rendezvous payload: which of the rank's rails (0..n),
/// and how many bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stripe {
    pub rail: u16,
    pub bytes: u64,
}

impl RailPlan {
    /// The host rail of the rank's `i`-th rail.
    pub fn rail(&self, i: u16) -> Rail {
        Rail(self.first.0 + i)
    }

    /// The rail (0..n) of the next unstriped message of the rank whose index on its host is
    /// `local` and whose round-robin counter is `rr` (advanced here).
    pub fn pick(&self, rr: &mut u16, local: u32) -> u16 {
        if self.n <= 1 {
            return 0;
        }
        match self.policy {
            RailSharingPolicy::UseFirst => 0,
            RailSharingPolicy::RoundRobin => {
                *rr = (*rr + 1) % self.n;
                *rr
            }
            RailSharingPolicy::FixedMapping => (local % u32::from(self.n)) as u16,
        }
    }

    /// Whether rendezvous data of `bytes` is striped.
    pub fn stripes_payload(&self, bytes: u64) -> bool {
        self.n > 1 && bytes > self.striping_threshold
    }

    /// The even split of `bytes` over the rails: `bytes / n` on each, the last rail also the
    /// remainder (ibv_rndv.c). MVAPICH2 first cuts the payload into `MV2_MAX_RDMA_SIZE`
    /// (4 MiB) chunks and splits each; the bytes per rail are the same, the model posts one
    /// WRITE per rail (as it posts one WRITE for an unstriped payload).
    pub fn split(&self, bytes: u64) -> impl Iterator<Item = Stripe> + '_ {
        let n = u64::from(self.n.max(1));
        let inc = bytes / n;
        (0..self.n.max(1)).map(move |i| Stripe { rail: i, bytes: if u64::from(i) + 1 == n { bytes - inc * (n - 1) } else { inc } })
    }
}

/// `MV2_STRIPING_THRESHOLD`'s default: `rdma_vbuf_total_size × MV2_NUM_PORTS ×
/// MV2_NUM_QP_PER_PORT × MV2_NUM_HCAS` (ibv_param.c, "increase the striping threshold"
/// with the rails), where the vbuf size is also the eager threshold (`rdma_iba_eager_threshold
/// = VBUF_BUFFER_SIZE`); here the vbuf is the `eager_threshold` and ports × QPs = 1.
pub fn default_striping_threshold(eager_threshold: u64, num_hcas: u16) -> u64 {
    eager_threshold.saturating_mul(u64::from(num_hcas.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(n: u16, policy: RailSharingPolicy) -> RailPlan {
        RailPlan { first: Rail(0), n, policy, striping_threshold: 100 }
    }

    #[test]
    fn the_split_is_even_and_the_last_rail_takes_the_remainder() {
        let s: Vec<_> = plan(3, RailSharingPolicy::FixedMapping).split(1001).collect();
        assert_eq!(s, vec![Stripe { rail: 0, bytes: 333 }, Stripe { rail: 1, bytes: 333 }, Stripe { rail: 2, bytes: 335 }]);
        assert_eq!(plan(1, RailSharingPolicy::FixedMapping).split(7).collect::<Vec<_>>(), vec![Stripe { rail: 0, bytes: 7 }]);
    }

    #[test]
    fn policies_pick_as_mvapich2_does() {
        let mut rr = 0;
        let p = plan(2, RailSharingPolicy::RoundRobin);
        assert_eq!([p.pick(&mut rr, 0), p.pick(&mut rr, 0), p.pick(&mut rr, 0)], [1, 0, 1], "pre-increment");
        let f = plan(2, RailSharingPolicy::FixedMapping);
        assert_eq!([f.pick(&mut rr, 0), f.pick(&mut rr, 1), f.pick(&mut rr, 2)], [0, 1, 0]);
        assert_eq!(plan(2, RailSharingPolicy::UseFirst).pick(&mut rr, 1), 0);
        assert_eq!(plan(1, RailSharingPolicy::RoundRobin).pick(&mut rr, 1), 0, "one rail: always it");
        assert!(!plan(2, RailSharingPolicy::UseFirst).stripes_payload(100) && plan(2, RailSharingPolicy::UseFirst).stripes_payload(101));
        assert!(!plan(1, RailSharingPolicy::UseFirst).stripes_payload(1 << 30));
    }
}
