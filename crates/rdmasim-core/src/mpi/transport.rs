//! What a transport (verbs, workload/mpi; PM, ether/mpi) does for the core: the operations of a
//! rank's program, each its own way, and what it notes when a rank passes a Wait, blocks on one
//! or ends. [`advance`] walks a rank through its program with them: the one loop both run.
use super::cursor::{Cursor, Next};
use super::matching::Posted;
use super::program::{Op, RankProgram};

pub trait Transport {
    /// Rank `r`'s cursor and program; None while the rank cannot go on (it computes, or has
    /// ended).
    fn rank(&mut self, r: u32) -> Option<(&mut Cursor, &RankProgram)>;
    /// Rank `r` computes for `ns` (it goes on when the transport says so).
    fn compute(&mut self, r: u32, ns: u64);
    /// Rank `r` reads the clock (`MPI_Wtime`).
    fn mark(&mut self, r: u32);
    fn isend(&mut self, r: u32, peer: u32, bytes: u64, tag: i64, req: u32);
    fn irecv(&mut self, r: u32, p: Posted);
    /// Rank `r` passed a Wait whose requests were all done.
    fn wait_done(&mut self, r: u32);
    /// Rank `r` waits for a request not done yet.
    fn blocked(&mut self, r: u32);
    /// Rank `r` is at the end of its program.
    fn ended(&mut self, r: u32);
}

/// Runs rank `r`'s operations until it computes, blocks or ends.
pub fn advance<T: Transport>(t: &mut T, r: u32) {
    loop {
        let Some((cursor, prog)) = t.rank(r) else { return };
        match cursor.next(prog) {
            Next::End => return t.ended(r),
            Next::Blocked => return t.blocked(r),
            Next::WaitDone => t.wait_done(r),
            Next::Op(Op::Compute { ns }) => return t.compute(r, ns),
            Next::Op(Op::Mark) => t.mark(r),
            Next::Op(Op::Isend { peer, bytes, tag, req }) => t.isend(r, peer, bytes, tag, req),
            Next::Op(Op::Irecv { peer, tag, req, .. }) => t.irecv(r, Posted { req, peer, tag }),
            Next::Op(Op::Wait { .. }) => unreachable!("the cursor passes or blocks on a Wait"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transport that writes down what the core asks of it; sends complete at once.
    #[derive(Default)]
    struct Log {
        cursor: Cursor,
        prog: RankProgram,
        computing: bool,
        seen: Vec<String>,
    }

    impl Transport for Log {
        fn rank(&mut self, _r: u32) -> Option<(&mut Cursor, &RankProgram)> {
            (!self.computing).then_some((&mut self.cursor, &self.prog))
        }
        fn compute(&mut self, _r: u32, ns: u64) {
            self.computing = true;
            self.seen.push(format!("compute {ns}"));
        }
        fn mark(&mut self, _r: u32) {
            self.seen.push("mark".into());
        }
        fn isend(&mut self, _r: u32, peer: u32, bytes: u64, _tag: i64, req: u32) {
            self.cursor.complete(req);
            self.seen.push(format!("isend {peer} {bytes}"));
        }
        fn irecv(&mut self, _r: u32, p: Posted) {
            self.seen.push(format!("irecv {}", p.peer));
        }
        fn wait_done(&mut self, _r: u32) {
            self.seen.push("wait done".into());
        }
        fn blocked(&mut self, _r: u32) {
            self.seen.push("blocked".into());
        }
        fn ended(&mut self, _r: u32) {
            self.seen.push("ended".into());
        }
    }

    #[test]
    fn a_rank_runs_until_it_computes_blocks_or_ends() {
        let mut t = Log::default();
        t.prog.mark();
        let s = t.prog.isend(1, 64, 0);
        t.prog.wait(&[s]);
        t.prog.compute(7);
        let r = t.prog.irecv(1, 64, 0);
        t.prog.wait(&[r]);
        t.cursor = Cursor::new(t.prog.nreqs);
        advance(&mut t, 0);
        assert_eq!(t.seen, ["mark", "isend 1 64", "wait done", "compute 7"]);
        advance(&mut t, 0);
        assert_eq!(t.seen.len(), 4, "a computing rank does not go on");
        t.computing = false;
        advance(&mut t, 0);
        assert_eq!(t.seen[4..], ["irecv 1", "blocked"]);
        t.cursor.complete(r);
        advance(&mut t, 0);
        assert_eq!(t.seen[6..], ["wait done", "ended"]);
    }
}
