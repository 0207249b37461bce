//! Requests waiting for several verbs completions: a striped rendezvous payload is one WRITE
//! with immediate per rail. Each stripe's immediate takes a receive WQE at the receiver, and
//! RC delivers a WRITE's data before its immediate's completion, so the receive is complete
//! when it has counted one immediate per stripe; the send is complete when every stripe's
//! WRITE is acknowledged. (MVAPICH2 sends an RPUT_FINISH on every rail after the data and the
//! receiver completes at `rdma_num_rails` of them, `ch3_rndvtransfer.c`; the model folds each
//! rail's finish into its last WRITE's immediate, as it does on one rail.)

/// Requests of one rank with completions still to come: (request, completions left).
#[derive(Clone, Debug, Default)]
pub struct Countdown {
    /// Few at a time (the striped messages in flight), so a list searched from the front.
    left: Vec<(u32, u16)>,
}

impl Countdown {
    /// One of `parts` completions of `req` arrived: true when it was the last.
    pub fn complete_one(&mut self, req: u32, parts: u16) -> bool {
        if parts <= 1 {
            return true;
        }
        match self.left.iter().position(|&(r, _)| r == req) {
            Some(i) => {
                self.left[i].1 -= 1;
                if self.left[i].1 == 0 {
                    self.left.swap_remove(i);
                    true
                } else {
                    false
                }
            }
            None => {
                self.left.push((req, parts - 1));
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Countdown;

    #[test]
    fn a_request_completes_with_its_last_part() {
        let mut c = Countdown::default();
        assert!(c.complete_one(7, 1));
        assert!(!c.complete_one(3, 3));
        assert!(!c.complete_one(4, 2));
        assert!(!c.complete_one(3, 3));
        assert!(c.complete_one(4, 2));
        assert!(c.complete_one(3, 3));
        assert!(c.left.is_empty());
    }
}
