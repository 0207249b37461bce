//! Where a rank is in its program: the next operation, and which of its requests are done.
//! A Wait passes once every request it names is done, and blocks the rank until then; each
//! transport (verbs, workload/mpi; PM, ether/mpi) walks its ranks through this and does the
//! operations its own way.
use super::program::{Op, RankProgram};

/// A rank's position in its program and its requests' completion.
#[derive(Clone, Debug, Default)]
pub struct Cursor {
    pub pc: usize,
    done: Vec<bool>,
}

/// What the rank does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// An operation other than a Wait, stepped past.
    Op(Op),
    /// A Wait whose requests are all done, stepped past.
    WaitDone,
    /// A Wait with a request not done: the rank blocks on it (the cursor stays on it).
    Blocked,
    /// The program is over.
    End,
}

impl Cursor {
    /// At the start of a program that uses `nreqs` requests.
    pub fn new(nreqs: u32) -> Cursor {
        Cursor { pc: 0, done: vec![false; nreqs as usize] }
    }

    /// The next step of `prog` from here.
    pub fn next(&mut self, prog: &RankProgram) -> Next {
        let Some(&op) = prog.ops.get(self.pc) else { return Next::End };
        if let Op::Wait { first, n } = op {
            if !prog.req_lists[first as usize..(first + n) as usize].iter().all(|&q| self.done[q as usize]) {
                return Next::Blocked;
            }
            self.pc += 1;
            return Next::WaitDone;
        }
        self.pc += 1;
        Next::Op(op)
    }

    /// Request `req` completed.
    pub fn complete(&mut self, req: u32) {
        self.done[req as usize] = true;
    }

    pub fn is_done(&self, req: u32) -> bool {
        self.done[req as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_blocks_until_its_requests_are_done() {
        let mut p = RankProgram::default();
        let a = p.isend(1, 8, 0);
        let b = p.irecv(1, 8, 0);
        p.wait(&[a, b]);
        p.compute(5);
        let mut c = Cursor::new(p.nreqs);
        assert!(matches!(c.next(&p), Next::Op(Op::Isend { .. })));
        assert!(matches!(c.next(&p), Next::Op(Op::Irecv { .. })));
        assert_eq!(c.next(&p), Next::Blocked);
        c.complete(b);
        assert_eq!(c.next(&p), Next::Blocked, "one request of two is not a wait done");
        c.complete(a);
        assert_eq!(c.next(&p), Next::WaitDone);
        assert_eq!(c.next(&p), Next::Op(Op::Compute { ns: 5 }));
        assert_eq!(c.next(&p), Next::End);
        assert_eq!(c.pc, 4);
    }
}
