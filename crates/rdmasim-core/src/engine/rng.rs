//! Seeded random streams. Every component that draws random numbers owns its own stream,
//! derived from the scenario seed and a stable stream id, so adding a component elsewhere never
//! shifts another component's draws and the same seed gives the same run on every machine.
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Mixes the scenario seed with a stream id (SplitMix64 finaliser) into an independent seed.
pub fn stream_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A component's private random stream (PCG64 MCG: fast, small, portable).
#[derive(Clone, Debug)]
pub struct SimRng(Pcg64Mcg);

impl SimRng {
    pub fn new(seed: u64, stream: u64) -> SimRng {
        SimRng(Pcg64Mcg::seed_from_u64(stream_seed(seed, stream)))
    }
    /// True with probability `p` (0 ≤ p ≤ 1). `p == 0` draws nothing, so lossless links cost nothing.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.0.gen::<f64>() < p
    }
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.gen_range(0..n.max(1))
    }
    #[inline]
    pub fn unit(&mut self) -> f64 {
        self.0.gen::<f64>()
    }
}
