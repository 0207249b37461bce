//! A generation counter for "marked in this pass" stamps: a pass bumps the counter, and an
//! entry counts as marked when its stamp equals it, so starting a pass clears nothing. Only
//! when the counter reaches its limit are the stamps zeroed (by the caller's `reset`) and the
//! count starts again; 0 is never a live generation, so zeroed stamps mark nothing.

#[derive(Clone, Copy, Debug)]
pub struct Generation {
    value: u32,
    limit: u32,
}

impl Default for Generation {
    fn default() -> Self {
        Generation::below(u32::MAX)
    }
}

impl Generation {
    /// A counter whose generations stay at or below `limit` (a user that keeps a flag bit in
    /// its stamps passes a smaller one).
    pub const fn below(limit: u32) -> Generation {
        Generation { value: 0, limit }
    }

    /// The current generation.
    #[inline]
    pub fn get(&self) -> u32 {
        self.value
    }

    /// Starts a new pass; `reset` must zero every stamp array when the counter wraps.
    pub fn advance(&mut self, reset: impl FnOnce()) {
        if self.value >= self.limit {
            reset();
            self.value = 0;
        }
        self.value += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_resets_the_stamps_when_it_reaches_its_limit_and_never_reuses_zero() {
        let mut g = Generation::below(3);
        let mut resets = 0;
        let seen: Vec<u32> = (0..7).map(|_| { g.advance(|| resets += 1); g.get() }).collect();
        assert_eq!(seen, [1, 2, 3, 1, 2, 3, 1]);
        assert_eq!(resets, 2);
    }
}
