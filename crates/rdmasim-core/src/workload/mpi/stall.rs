//! Why a replay stopped before every rank finished: a trace whose calls do not pair up (a
//! receive nobody sends to, a send nobody receives, collectives that disagree) leaves ranks
//! blocked with no event left. The report names the trace file and line of the stuck call.
use super::program::{is_collective_tag, Op, ANY};
use super::{Mpi, RunState};

impl Mpi {
    /// The stuck call of the most telling blocked rank (one waiting on a rank that already
    /// finished, which can never answer; else the first), and what it waits for. None when
    /// every rank finished.
    pub fn stall(&self) -> Option<String> {
        let stuck: Vec<u32> = (0..self.ranks.len() as u32).filter(|&r| self.ranks[r as usize].state != RunState::Done).collect();
        let finished = |peer: i64| peer >= 0 && self.ranks.get(peer as usize).is_some_and(|p| p.state == RunState::Done);
        let r = stuck.iter().copied().find(|&r| self.awaited(r).is_some_and(|(_, op)| finished(peer_of(op)))).or(stuck.first().copied())?;
        let (rk, prog) = (&self.ranks[r as usize], &self.prog.ranks[r as usize]);
        let file = std::path::Path::new(&self.prog.origin).join(format!("rank.{r}.trace")).display().to_string();
        let at = |i: usize| prog.op_lines.get(i).copied().unwrap_or(0);
        let tag_s = |t: i64| if is_collective_tag(t) { "of a collective".to_string() } else if t == ANY { "any tag".into() } else { format!("tag {t}") };
        let what = match self.awaited(r) {
            Some((i, Op::Irecv { peer, tag, .. })) => {
                let from = if peer == ANY { "any rank".to_string() } else { format!("rank {peer}") };
                format!("waits for a receive from {from}, {} (line {}) that no send matched", tag_s(tag), at(i))
            }
            Some((i, Op::Isend { peer, tag, bytes, .. })) => format!(
                "waits for {} send to rank {peer}, {} (line {}) that rank {peer} never took{}",
                if bytes <= self.cfg.eager_threshold { "an eager" } else { "a rendezvous" },
                tag_s(tag),
                at(i),
                // A program whose blocking sends only worked thanks to its MPI's eager buffering.
                if bytes > self.cfg.eager_threshold { " (if the traced MPI sent it eagerly, raise workload.eager_threshold)" } else { "" }
            ),
            _ => format!("is {:?}", rk.state).to_lowercase(),
        };
        let done = if finished(self.awaited(r).map_or(-1, |(_, op)| peer_of(op))) { "; that rank has finished" } else { "" };
        let more = match stuck.len() - 1 {
            0 => String::new(),
            1 => " (1 more rank blocked)".into(),
            n => format!(" ({n} more ranks blocked)"),
        };
        Some(format!("{file}:{}: rank {r} {what}{done}{more}", at(rk.cursor.pc)))
    }

    /// The op (index, op) that started the first unfinished request rank `r` waits for.
    fn awaited(&self, r: u32) -> Option<(usize, Op)> {
        let (rk, prog) = (&self.ranks[r as usize], &self.prog.ranks[r as usize]);
        let Some(&Op::Wait { first, n }) = prog.ops.get(rk.cursor.pc) else { return None };
        let list = &prog.req_lists[first as usize..(first + n) as usize];
        let q = list.iter().copied().find(|&q| !rk.cursor.is_done(q))?;
        let i = prog.ops.iter().position(|o| matches!(*o, Op::Isend { req, .. } | Op::Irecv { req, .. } if req == q))?;
        Some((i, prog.ops[i]))
    }
}

/// The peer an Isend/Irecv names (-1 = any, or not a point-to-point op).
fn peer_of(op: Op) -> i64 {
    match op {
        Op::Isend { peer, .. } => peer as i64,
        Op::Irecv { peer, .. } => peer,
        _ => -1,
    }
}
