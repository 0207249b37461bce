//! The traffic patterns the effective bisection bandwidth is taken over, as flows between the
//! endpoints of one rail in node order (ranks in node order, as the TSUBAME2.0 study places them:
//! seeds/004 §2). A flow is a (source, destination) pair of indices into that order.
//!
//! - [`PatternKind::Bisection`]: a random perfect matching, each pair sending both ways. This is
//!   ORCS's `bisect_fb_sym` (pairs 2i <-> 2i+1) over its shuffled host list, and Netgauge's `ebb`
//!   benchmark (`genptrn_bisect_fb`): Hoefler, Schneider, Lumsdaine, "Multistage Switches are not
//!   Crossbars", IEEE Cluster 2008, define the effective bisection bandwidth over these.
//! - [`PatternKind::RandomPair`]: the TSUBAME2.0 study's random-pair benchmark (seeds/004 §2.1):
//!   the first `hosts` nodes are paired at random and every pair does one MPI_Sendrecv, so it is
//!   the bisection pattern on a prefix of the nodes; the study reports the slowest pair.
//! - [`PatternKind::Permutation`]: ORCS's `rand`: every endpoint sends to one other and receives
//!   from one (a random permutation without fixed points).
//! - [`PatternKind::Shift`]: i -> i + k mod n.
//! - [`PatternKind::Alltoall`]: the n - 1 phases of a linear-shift Alltoall, shift 1 to n - 1
//!   (Open MPI's pairwise order; MVAPICH2's on sizes that are not a power of two, whose
//!   power-of-two order is [`alltoall_pairwise_partners`]'s XOR pairs).
use crate::engine::SimRng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum PatternKind {
    Bisection,
    RandomPair { hosts: usize },
    Permutation,
    Shift { k: usize },
    Alltoall,
}

impl PatternKind {
    /// Drawn at random (each draw a new pattern), as opposed to fixed by the node order.
    pub fn is_random(self) -> bool {
        matches!(self, PatternKind::Bisection | PatternKind::RandomPair { .. } | PatternKind::Permutation)
    }

    /// The phases one pattern has on `n` endpoints (an Alltoall's shifts; 1 for the others).
    pub fn phases(self, n: usize) -> usize {
        match self {
            PatternKind::Alltoall => n.saturating_sub(1),
            _ => 1,
        }
    }

    /// A random stream per kind, so adding a kind to a run never changes another kind's draws.
    pub fn stream(self, draw: usize) -> u64 {
        let tag: u64 = match self {
            PatternKind::Bisection => 1,
            PatternKind::RandomPair { hosts } => 2 | (hosts as u64) << 8,
            PatternKind::Permutation => 3,
            PatternKind::Shift { .. } | PatternKind::Alltoall => 0,
        };
        tag << 32 | draw as u64
    }

    /// The command-line form: `bisection`, `random-pair:1300`, `permutation`, `shift:16`,
    /// `alltoall`.
    pub fn parse(s: &str) -> Result<PatternKind, String> {
        let (name, arg) = s.trim().split_once(':').map_or((s.trim(), None), |(n, a)| (n, Some(a)));
        let number = |what: &str| -> Result<usize, String> {
            arg.and_then(|a| a.parse().ok()).filter(|&n| n > 0).ok_or_else(|| format!("pattern {s:?}: expected {name}:N with N the {what} (a positive integer)"))
        };
        let plain = |k: PatternKind| if arg.is_some() { Err(format!("pattern {s:?}: {name} takes no :N")) } else { Ok(k) };
        match name {
            "bisection" => plain(PatternKind::Bisection),
            "permutation" => plain(PatternKind::Permutation),
            "alltoall" => plain(PatternKind::Alltoall),
            "random-pair" => Ok(PatternKind::RandomPair { hosts: number("hosts paired")? }),
            "shift" => Ok(PatternKind::Shift { k: number("shift")? }),
            _ => Err(format!("unknown pattern {s:?}: expected bisection, random-pair:N, permutation, shift:K or alltoall")),
        }
    }

    pub fn label(self) -> String {
        match self {
            PatternKind::Bisection => "bisection".into(),
            PatternKind::RandomPair { hosts } => format!("random-pair {hosts}"),
            PatternKind::Permutation => "permutation".into(),
            PatternKind::Shift { k } => format!("shift {k}"),
            PatternKind::Alltoall => "alltoall".into(),
        }
    }
}

/// Reusable space for drawing patterns.
#[derive(Default)]
pub struct PatternScratch {
    order: Vec<u32>,
    pub flows: Vec<(u32, u32)>,
}

impl PatternScratch {
    /// Writes phase `phase` of a `kind` pattern on `n` endpoints into `self.flows`, drawing from
    /// `rng` when the kind is random.
    pub fn write(&mut self, kind: PatternKind, n: usize, phase: usize, rng: &mut SimRng) {
        self.flows.clear();
        match kind {
            PatternKind::Bisection => self.matching(n, rng),
            PatternKind::RandomPair { hosts } => self.matching(hosts.min(n), rng),
            PatternKind::Permutation => self.derangement(n, rng),
            PatternKind::Shift { k } => self.shift(n, k),
            PatternKind::Alltoall => self.shift(n, phase + 1),
        }
    }

    /// Pairs of a random perfect matching of 0..m, both directions (one idles when m is odd).
    fn matching(&mut self, m: usize, rng: &mut SimRng) {
        self.shuffle(m, rng);
        for pair in self.order.chunks_exact(2) {
            self.flows.push((pair[0], pair[1]));
            self.flows.push((pair[1], pair[0]));
        }
    }

    /// i -> p(i) for a random permutation p of 0..n with no fixed point.
    fn derangement(&mut self, n: usize, rng: &mut SimRng) {
        if n < 2 {
            return;
        }
        derange_into(&mut self.order, n, rng);
        self.flows.extend(self.order.iter().enumerate().map(|(i, &d)| (i as u32, d)));
    }

    fn shift(&mut self, n: usize, k: usize) {
        if n == 0 || k.is_multiple_of(n) {
            return;
        }
        self.flows.extend((0..n).map(|i| (i as u32, ((i + k) % n) as u32)));
    }

    fn shuffle(&mut self, m: usize, rng: &mut SimRng) {
        shuffle_into(&mut self.order, m, rng);
    }
}

/// A uniformly random permutation of 0..n (n >= 2) with no fixed point, as the image of each i.
pub fn derangement(n: usize, rng: &mut SimRng) -> Vec<u32> {
    let mut order = Vec::with_capacity(n);
    derange_into(&mut order, n, rng);
    order
}

/// `order` = a random permutation of 0..n without fixed point: shuffles are redrawn until one
/// has none (about e draws on average), so every such permutation is equally likely.
fn derange_into(order: &mut Vec<u32>, n: usize, rng: &mut SimRng) {
    loop {
        shuffle_into(order, n, rng);
        if order.iter().enumerate().all(|(i, &d)| i as u32 != d) {
            return;
        }
    }
}

/// `order` = a uniformly random permutation of 0..m (Fisher-Yates, last position first).
pub fn shuffle_into(order: &mut Vec<u32>, m: usize, rng: &mut SimRng) {
    order.clear();
    order.extend(0..m as u32);
    for i in (1..m).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
}

/// The pairs of one random-pair round on `n` ranks: [`PatternKind::RandomPair`]'s matching
/// drawn from `SimRng::new(seed, stream(0))`, each pair once (lower index first as drawn).
pub fn random_pairs(n: u32, seed: u64) -> Vec<(u32, u32)> {
    let kind = PatternKind::RandomPair { hosts: n as usize };
    let mut s = PatternScratch::default();
    s.write(kind, n as usize, 0, &mut SimRng::new(seed, kind.stream(0)));
    // The pattern lists each pair both ways; the first of each two is the pair.
    s.flows.iter().step_by(2).copied().collect()
}

/// The partner of `rank` at `step` (1..size) of a pairwise-exchange Alltoall: (to, from). With a
/// power-of-two size and `xor` set, the XOR pairs of MVAPICH2's `MPIR_Alltoall_pairwise_MV2`
/// (its `MV2_USE_XOR_ALLTOALL`, default 1: to = from = rank ^ step); otherwise the linear
/// shift, to rank + step and from rank - step (MVAPICH2 and MPICH on other sizes, Open MPI's
/// `ompi_coll_base_alltoall_intra_pairwise` on every size).
pub fn alltoall_pairwise_partners(rank: u32, size: u32, step: u32, xor: bool) -> (u32, u32) {
    if xor && size.is_power_of_two() {
        (rank ^ step, rank ^ step)
    } else {
        ((rank + step) % size, (rank + size - step) % size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(kind: PatternKind, n: usize, seed: u64) -> Vec<(u32, u32)> {
        let mut s = PatternScratch::default();
        s.write(kind, n, 0, &mut SimRng::new(seed, kind.stream(0)));
        s.flows
    }

    #[test]
    fn a_bisection_pairs_every_endpoint_once_both_ways() {
        let flows = draw(PatternKind::Bisection, 10, 7);
        assert_eq!(flows.len(), 10);
        let mut out = [0; 10];
        let mut into = [0; 10];
        for &(s, d) in &flows {
            assert_ne!(s, d);
            assert!(flows.contains(&(d, s)), "{s} -> {d} has its reply");
            out[s as usize] += 1;
            into[d as usize] += 1;
        }
        assert_eq!((out, into), ([1; 10], [1; 10]));
        assert_eq!(draw(PatternKind::RandomPair { hosts: 5 }, 10, 7).len(), 4, "5 hosts: two pairs, one idles");
    }

    #[test]
    fn a_permutation_has_no_fixed_point_and_a_shift_wraps() {
        for seed in 0..20 {
            let flows = draw(PatternKind::Permutation, 5, seed);
            let mut dst: Vec<u32> = flows.iter().map(|f| f.1).collect();
            assert!(flows.iter().all(|&(s, d)| s != d));
            dst.sort_unstable();
            assert_eq!(dst, [0, 1, 2, 3, 4]);
        }
        assert_eq!(draw(PatternKind::Shift { k: 3 }, 4, 0), [(0, 3), (1, 0), (2, 1), (3, 2)]);
        assert!(draw(PatternKind::Shift { k: 4 }, 4, 0).is_empty());
    }

    #[test]
    fn random_pairs_pair_every_rank_once_and_leave_one_idle_when_odd() {
        for n in [2, 7, 16] {
            let pairs = random_pairs(n, 3);
            let mut seen = vec![0; n as usize];
            for (a, b) in &pairs {
                seen[*a as usize] += 1;
                seen[*b as usize] += 1;
            }
            assert_eq!(pairs.len() as u32, n / 2);
            assert_eq!(seen.iter().filter(|&&c| c == 0).count() as u32, n % 2, "n = {n}");
        }
    }
}
