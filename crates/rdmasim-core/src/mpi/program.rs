//! What each MPI rank does, as a list of operations the replay engine executes in order:
//! compute gaps, nonblocking sends and receives, and waits. Blocking calls and collectives are
//! expanded into these when the program is built, so the engine knows only point-to-point.
//!
//! Collectives use the textbook algorithms over point-to-point (Thakur, Rabenseifner, Gropp,
//! "Optimization of Collective Communication Operations in MPICH", IJHPCA 2005): dissemination
//! barrier, binomial-tree broadcast and reduce, recursive-doubling allreduce (with the
//! non-power-of-two fold), pairwise-exchange alltoall, ring allgather; linear gather, scatter
//! and scan; reduce-scatter as reduce + scatter. Their messages carry tags from a reserved
//! negative range numbered by the collective's sequence on the communicator, so they never match
//! user messages and successive collectives never match each other.
use crate::traffic::patterns::alltoall_pairwise_partners;

/// Matches any source / any tag (MPI_ANY_SOURCE, MPI_ANY_TAG).
pub const ANY: i64 = -1;
/// Collective tags are `COLL_TAG_BASE - sequence`.
const COLL_TAG_BASE: i64 = -1_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// CPU time between two MPI calls (from the trace's recorded CPU time), ns.
    Compute { ns: u64 },
    Isend { peer: u32, bytes: u64, tag: i64, req: u32 },
    /// `peer` / `tag` may be [`ANY`].
    Irecv { peer: i64, bytes: u64, tag: i64, req: u32 },
    /// Wait for requests `reqs[first..first + n]` of the rank's request-list pool.
    Wait { first: u32, n: u32 },
    /// Reads the clock (MPI_Wtime) into the rank's marks: generated programs time their
    /// benchmark this way (`synthetic.rs`); traces never produce it.
    Mark,
}

/// One rank's operations and the pool of request lists its waits refer to.
#[derive(Clone, Debug, Default)]
pub struct RankProgram {
    pub ops: Vec<Op>,
    /// Trace line each op came from (parallel to `ops`), for errors found during replay.
    pub op_lines: Vec<u32>,
    /// The trace line whose record is being expanded (set by the parser; 0 = none).
    pub line: u32,
    pub req_lists: Vec<u32>,
    /// Requests allocated so far (request ids are dense per rank).
    pub nreqs: u32,
    /// Collectives issued so far (tags them).
    coll_seq: i64,
}

impl RankProgram {
    pub fn new_req(&mut self) -> u32 {
        self.nreqs += 1;
        self.nreqs - 1
    }
    fn push(&mut self, op: Op) {
        self.ops.push(op);
        self.op_lines.push(self.line);
    }
    pub fn compute(&mut self, ns: u64) {
        if ns > 0 {
            self.push(Op::Compute { ns });
        }
    }
    pub fn isend(&mut self, peer: u32, bytes: u64, tag: i64) -> u32 {
        let req = self.new_req();
        self.push(Op::Isend { peer, bytes, tag, req });
        req
    }
    pub fn irecv(&mut self, peer: i64, bytes: u64, tag: i64) -> u32 {
        let req = self.new_req();
        self.push(Op::Irecv { peer, bytes, tag, req });
        req
    }
    pub fn wait(&mut self, reqs: &[u32]) {
        if reqs.is_empty() {
            return;
        }
        let first = self.req_lists.len() as u32;
        self.req_lists.extend_from_slice(reqs);
        self.push(Op::Wait { first, n: reqs.len() as u32 });
    }
    pub fn send(&mut self, peer: u32, bytes: u64, tag: i64) {
        let r = self.isend(peer, bytes, tag);
        self.wait(&[r]);
    }
    pub fn recv(&mut self, peer: i64, bytes: u64, tag: i64) {
        let r = self.irecv(peer, bytes, tag);
        self.wait(&[r]);
    }
    pub fn sendrecv(&mut self, dest: u32, sbytes: u64, stag: i64, src: i64, rbytes: u64, rtag: i64) {
        let r = self.irecv(src, rbytes, rtag);
        let s = self.isend(dest, sbytes, stag);
        self.wait(&[r, s]);
    }

    pub fn mark(&mut self) {
        self.push(Op::Mark);
    }

    fn coll_tag(&mut self) -> i64 {
        self.coll_seq += 1;
        COLL_TAG_BASE - self.coll_seq
    }

    /// Dissemination barrier: round k exchanges a zero-byte message with rank ± 2^k.
    pub fn barrier(&mut self, rank: u32, size: u32) {
        let tag = self.coll_tag();
        let mut d = 1;
        while d < size {
            let to = (rank + d) % size;
            let from = (rank + size - d) % size;
            self.sendrecv(to, 0, tag, from as i64, 0, tag);
            d <<= 1;
        }
    }

    /// Binomial-tree broadcast from `root`.
    pub fn bcast(&mut self, rank: u32, size: u32, root: u32, bytes: u64) {
        let tag = self.coll_tag();
        let vr = (rank + size - root) % size;
        let mut mask = 1;
        while mask < size {
            if vr & mask != 0 {
                let parent = (vr - mask + root) % size;
                self.recv(parent as i64, bytes, tag);
                break;
            }
            mask <<= 1;
        }
        mask >>= 1;
        while mask > 0 {
            if vr + mask < size {
                let child = (vr + mask + root) % size;
                self.send(child, bytes, tag);
            }
            mask >>= 1;
        }
    }

    /// Binomial-tree reduce to `root` (the combining arithmetic is in the compute gaps).
    pub fn reduce(&mut self, rank: u32, size: u32, root: u32, bytes: u64) {
        let tag = self.coll_tag();
        let vr = (rank + size - root) % size;
        let mut mask = 1;
        while mask < size {
            if vr & mask != 0 {
                let parent = (vr - mask + root) % size;
                self.send(parent, bytes, tag);
                break;
            }
            if vr + mask < size {
                let child = (vr + mask + root) % size;
                self.recv(child as i64, bytes, tag);
            }
            mask <<= 1;
        }
    }

    /// Recursive-doubling allreduce; with a non-power-of-two size the first ranks fold their
    /// data into a partner first and get the result back at the end.
    pub fn allreduce(&mut self, rank: u32, size: u32, bytes: u64) {
        let tag = self.coll_tag();
        let pof2 = if size.is_power_of_two() { size } else { size.next_power_of_two() / 2 };
        let rem = size - pof2;
        // Ranks < 2*rem pair up: the even one sends its data to the odd one and sits out.
        let newrank: i64 = if rank < 2 * rem {
            if rank.is_multiple_of(2) {
                self.send(rank + 1, bytes, tag);
                -1
            } else {
                self.recv((rank - 1) as i64, bytes, tag);
                (rank / 2) as i64
            }
        } else {
            (rank - rem) as i64
        };
        if newrank >= 0 {
            let nr = newrank as u32;
            let mut mask = 1;
            while mask < pof2 {
                let np = nr ^ mask;
                let peer = if np < rem { np * 2 + 1 } else { np + rem };
                self.sendrecv(peer, bytes, tag, peer as i64, bytes, tag);
                mask <<= 1;
            }
        }
        if rank < 2 * rem {
            if rank % 2 == 1 {
                self.send(rank - 1, bytes, tag);
            } else {
                self.recv((rank + 1) as i64, bytes, tag);
            }
        }
    }

    /// Ring allgather: size - 1 steps, each passing one rank's block of `bytes` along.
    pub fn allgather(&mut self, rank: u32, size: u32, bytes: u64) {
        let tag = self.coll_tag();
        let (to, from) = ((rank + 1) % size, (rank + size - 1) % size);
        for _ in 1..size {
            self.sendrecv(to, bytes, tag, from as i64, bytes, tag);
        }
    }

    /// Linear gather of `bytes` per rank to `root`.
    pub fn gather(&mut self, rank: u32, size: u32, root: u32, bytes: u64) {
        let tag = self.coll_tag();
        if rank == root {
            let reqs: Vec<u32> = (0..size).filter(|&r| r != root).map(|r| self.irecv(r as i64, bytes, tag)).collect();
            self.wait(&reqs);
        } else {
            self.send(root, bytes, tag);
        }
    }

    /// Linear scatter of `bytes` per rank from `root`.
    pub fn scatter(&mut self, rank: u32, size: u32, root: u32, bytes: u64) {
        let tag = self.coll_tag();
        if rank == root {
            let reqs: Vec<u32> = (0..size).filter(|&r| r != root).map(|r| self.isend(r, bytes, tag)).collect();
            self.wait(&reqs);
        } else {
            self.recv(root as i64, bytes, tag);
        }
    }

    /// Linear scan: rank r waits for r - 1's prefix, then passes its own on.
    pub fn scan(&mut self, rank: u32, size: u32, bytes: u64) {
        let tag = self.coll_tag();
        if rank > 0 {
            self.recv((rank - 1) as i64, bytes, tag);
        }
        if rank + 1 < size {
            self.send(rank + 1, bytes, tag);
        }
    }

    /// Reduce-scatter as a reduce of the whole vector to rank 0 and a scatter of `bytes` each.
    pub fn reduce_scatter(&mut self, rank: u32, size: u32, bytes: u64) {
        self.reduce(rank, size, 0, bytes * size as u64);
        self.scatter(rank, size, 0, bytes);
    }

    /// Pairwise-exchange alltoall: `bytes` to and from every other rank, step i with rank ± i.
    pub fn alltoall(&mut self, rank: u32, size: u32, bytes: u64) {
        let tag = self.coll_tag();
        for i in 1..size {
            let (to, from) = alltoall_pairwise_partners(rank, size, i, false);
            self.sendrecv(to, bytes, tag, from as i64, bytes, tag);
        }
    }
}

impl RankProgram {
    /// MVAPICH2's pairwise-exchange alltoall (`MPIR_Alltoall_pairwise_MV2`, alltoall_osu.c):
    /// n - 1 steps; with a power-of-two size and `xor` (its `MV2_USE_XOR_ALLTOALL`, default 1)
    /// step i exchanges with rank ^ i, otherwise it sends to rank + i and receives from rank - i.
    /// [`RankProgram::alltoall`] (the trace path's) keeps the shift form whatever the size.
    pub fn pairwise_alltoall(&mut self, rank: u32, size: u32, bytes: u64, xor: bool) {
        let tag = self.coll_tag();
        for i in 1..size {
            let (to, from) = alltoall_pairwise_partners(rank, size, i, xor);
            self.sendrecv(to, bytes, tag, from as i64, bytes, tag);
        }
    }
}

/// Every rank's program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub ranks: Vec<RankProgram>,
    /// Where it came from (a trace directory, a generator), for the result.
    pub origin: String,
}

impl Program {
    pub fn new(size: u32, origin: &str) -> Program {
        Program { ranks: (0..size).map(|_| RankProgram::default()).collect(), origin: origin.into() }
    }
    pub fn size(&self) -> u32 {
        self.ranks.len() as u32
    }
    /// User-level (non-collective) point-to-point messages and their bytes, summed over ranks'
    /// sends; a traced program's totals are compared with these after replay.
    pub fn user_sends(&self) -> (u64, u64) {
        let mut n = 0;
        let mut b = 0;
        for r in &self.ranks {
            for op in &r.ops {
                if let Op::Isend { bytes, tag, .. } = *op {
                    if tag > COLL_TAG_BASE {
                        n += 1;
                        b += bytes;
                    }
                }
            }
        }
        (n, b)
    }
}

/// True for a tag of the reserved collective range.
pub fn is_collective_tag(tag: i64) -> bool {
    tag <= COLL_TAG_BASE
}

/// MPI's matching rule: a receive posted for (`peer`, `want`) takes a message from `src` with
/// `tag`. [`ANY`] matches any source, and any user tag: a wildcard receive never takes a
/// collective's message.
pub fn envelope_matches(peer: i64, want: i64, src: u32, tag: i64) -> bool {
    (peer == ANY || peer == i64::from(src)) && (want == tag || (want == ANY && !is_collective_tag(tag)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends and receives of a collective must pair up exactly (same peer, tag, count).
    fn balanced(build: impl Fn(&mut RankProgram, u32, u32), size: u32) {
        let mut p = Program::new(size, "test");
        for r in 0..size {
            build(&mut p.ranks[r as usize], r, size);
        }
        let mut sends = std::collections::BTreeMap::<(u32, u32, i64), i32>::new();
        for (r, rp) in p.ranks.iter().enumerate() {
            for op in &rp.ops {
                match *op {
                    Op::Isend { peer, tag, .. } => *sends.entry((r as u32, peer, tag)).or_default() += 1,
                    Op::Irecv { peer, tag, .. } => *sends.entry((peer as u32, r as u32, tag)).or_default() -= 1,
                    _ => {}
                }
            }
        }
        assert!(sends.values().all(|&v| v == 0), "size {size}: unmatched {sends:?}");
    }

    #[test]
    fn collectives_pair_every_send_with_a_receive() {
        for size in [1, 2, 3, 5, 8, 12] {
            balanced(|p, r, s| p.barrier(r, s), size);
            balanced(|p, r, s| p.bcast(r, s, 1 % s, 100), size);
            balanced(|p, r, s| p.reduce(r, s, 0, 100), size);
            balanced(|p, r, s| p.allreduce(r, s, 8), size);
            balanced(|p, r, s| p.alltoall(r, s, 64), size);
            balanced(|p, r, s| p.pairwise_alltoall(r, s, 64, true), size);
            balanced(|p, r, s| p.allgather(r, s, 64), size);
            balanced(|p, r, s| p.gather(r, s, s / 2, 64), size);
            balanced(|p, r, s| p.scatter(r, s, s - 1, 64), size);
            balanced(|p, r, s| p.scan(r, s, 8), size);
            balanced(|p, r, s| p.reduce_scatter(r, s, 8), size);
        }
    }

    #[test]
    fn binomial_bcast_reaches_everyone_once() {
        let size = 11;
        let mut recvs = vec![0; size as usize];
        for r in 0..size {
            let mut p = RankProgram::default();
            p.bcast(r, size, 3, 10);
            recvs[r as usize] = p.ops.iter().filter(|o| matches!(o, Op::Irecv { .. })).count();
        }
        assert_eq!(recvs[3], 0);
        assert!(recvs.iter().enumerate().all(|(r, &n)| r == 3 || n == 1));
    }
}
