//! MPI over PM: the ranks of an MPI program (`crate::mpi::program`, the same programs the
//! verbs-side MPI layer replays: generated benchmarks or mpich traces) run one per host over PM
//! channels, through a library profile (`profile.rs`: MPICH or YAMPII).
//!
//! Point-to-point follows the library (the MPI core's `protocol.rs`, with the library's limits):
//! a message up to the eager limit is one PM message of envelope and data; a longer one sends an
//! RTS (with some data under a pipelined profile), the receiver answers with a CTS once the
//! receive is matched, and the sender then sends the rest. Matching is MPI's (the core's
//! `matching.rs`); each rank walks its program with the core's `cursor.rs`. A send request completes when its last
//! data packet has been copied into PM's buffer (the user's buffer is free again), a receive
//! when its data has been copied out.
//!
//! The copies are CPU time on the host's one CPU (`host.rs` charges a packet's copy with its
//! PM work); the extra copy of an unexpected eager message is charged when its receive matches.
//! Beyond the copies, a library spends its own time on each packet of its data
//! (`packet_cost.rs`: an input relative to MPICH's, whose own is inside the fitted copy rate);
//! matching and request handling per message cost nothing (ASSUMPTION: small against a
//! message's 8 KB copies).
pub mod packet_cost;
pub mod profile;
pub mod wire;

use crate::ids::{HostId, PmChannelId};
use super::world::{EtherWorld, Ev, PmApp};
use crate::engine::Time;
use crate::mpi::cursor::Cursor;
use crate::mpi::matching::{Envelope, Matching, Posted};
use crate::mpi::program::{Program, RankProgram};
use crate::mpi::transport::{advance, Transport};
use crate::mpi::protocol::Send;
use crate::mpi::synthetic::ProgramSpec;
use profile::{MpiLibrary, MpiProfile};
use std::collections::VecDeque;
use wire::Wire;

/// Where the ranks' operations come from.
pub enum Source {
    Generated(ProgramSpec),
    Trace(Program),
}

/// An arrival no receive was posted for.
#[derive(Clone, Copy, Debug)]
struct Unexpected {
    src: u32,
    wire: Wire,
}

impl Envelope for Unexpected {
    fn src(&self) -> u32 {
        self.src
    }
    fn tag(&self) -> i64 {
        tag_of(&self.wire)
    }
}

struct Rank {
    cursor: Cursor,
    matching: Matching<Unexpected>,
    /// Inside MPI_Wait: advanced when a request completes.
    blocked: bool,
    /// In a compute gap: advanced when it ends (`Ev::MpiResume`).
    computing: bool,
}

/// Per PM channel: the protocol messages posted on it in order, what the receiver still has to
/// read (`inbox`), and the send requests that complete as each one's last packet is taken.
#[derive(Default)]
struct ChannelLog {
    inbox: VecDeque<Wire>,
    completes: VecDeque<Option<u32>>,
    /// Messages of this channel whose last packet the sender had taken, as last seen.
    taken: u64,
}

pub struct MpiRun {
    pub library: MpiLibrary,
    pub profile: MpiProfile,
    /// The generated benchmark, whose figures `mpi_trials` reports (none for a trace).
    pub spec: Option<ProgramSpec>,
    /// When each rank ended its program.
    pub ended: Vec<Option<Time>>,
    program: Program,
    ranks: Vec<Rank>,
    log: Vec<ChannelLog>,
    pub marks: Vec<Vec<Time>>,
    pub finished: u32,
    /// Eager messages that arrived before their receive (each copied twice).
    pub unexpected_eager: u64,
    pub rendezvous: u64,
}

fn tag_of(w: &Wire) -> i64 {
    match *w {
        Wire::Eager { tag, .. } | Wire::Rts { tag, .. } => tag,
        _ => unreachable!("only eager messages and RTSs are matched"),
    }
}

impl MpiRun {
    /// `hosts`: the world's host count; rank r runs on host r.
    pub fn new(library: MpiLibrary, source: Source, hosts: u32) -> Result<MpiRun, String> {
        if hosts < 2 {
            return Err(format!("{hosts} host: expected at least 2 (one rank per host)"));
        }
        let (program, spec) = match source {
            Source::Generated(spec) => (spec.build(hosts), Some(spec)),
            Source::Trace(p) => (p, None),
        };
        if program.size() > hosts {
            return Err(format!("the trace has {} ranks; the topology has {hosts} hosts (one rank per host)", program.size()));
        }
        let ranks = program.ranks.iter().map(|r| Rank { cursor: Cursor::new(r.nreqs), matching: Matching::default(), blocked: false, computing: false }).collect();
        let n = program.size() as usize;
        Ok(MpiRun { library, profile: library.profile(), spec, ended: vec![None; n], program, ranks, log: Vec::new(), marks: vec![Vec::new(); n], finished: 0, unexpected_eager: 0, rendezvous: 0 })
    }

    pub fn size(&self) -> u32 {
        self.program.size()
    }

    /// `mpi_trials` (the benchmark's figures, as the verbs-side MPI layer writes them) and
    /// `mpi_pm` (what the library did).
    pub fn tables(&self, out: &mut crate::report::tables::Tables) {
        if let Some(spec) = &self.spec {
            let hosts: Vec<crate::ids::HostId> = (0..self.size()).map(crate::ids::HostId).collect();
            crate::mpi::results::tables(spec, &self.marks, &hosts, out);
        }
        for (r, end) in self.ended.iter().enumerate() {
            out.push("mpi_ranks", crate::report::tables::row(serde_json::json!({ "rank": r, "host": r, "ended_us": end.map(|t| t.as_us_f64()) })));
        }
        out.push("mpi_pm", crate::report::tables::row(serde_json::json!({
            "program": self.program.origin, "library": self.library, "eager_limit": self.profile.protocol.eager_limit, "rts_data": self.profile.protocol.rts_data,
            "packet_us": self.profile.packet_us, "ranks_finished": self.finished, "rendezvous": self.rendezvous, "unexpected_eager": self.unexpected_eager,
        })));
    }
}

impl MpiRun {
    /// Starts every rank.
    pub fn start(&mut self, w: &mut EtherWorld) {
        let mut pm = Pm { m: self, w };
        for r in 0..pm.m.size() {
            pm.advance(r);
        }
    }
}

/// The MPI program as PM's app: the world hands it deliveries, taken packets and the ends of
/// compute gaps.
impl PmApp for MpiRun {
    fn resume(&mut self, w: &mut EtherWorld, r: u32) {
        self.ranks[r as usize].computing = false;
        Pm { m: self, w }.advance(r);
    }

    fn messages(&mut self, w: &mut EtherWorld, c: PmChannelId, msgs: u32) {
        Pm { m: self, w }.delivered(c, msgs)
    }

    fn taken(&mut self, w: &mut EtherWorld, c: PmChannelId) {
        Pm { m: self, w }.taken(c)
    }

    fn tables(&self, out: &mut crate::report::tables::Tables) {
        MpiRun::tables(self, out)
    }
}

/// The MPI core's transport over PM: the run and the world it drives, for one event.
struct Pm<'a> {
    m: &'a mut MpiRun,
    w: &'a mut EtherWorld,
}

impl Pm<'_> {
    /// Runs rank `r`'s operations until one blocks (the core's loop over this transport).
    fn advance(&mut self, r: u32) {
        advance(self, r)
    }

    /// A request of rank `r` completed: if it was waiting, it tries again.
    fn wake(&mut self, r: u32) {
        let rank = &mut self.m.ranks[r as usize];
        if rank.blocked && !rank.computing {
            rank.blocked = false;
            self.advance(r);
        }
    }

    fn complete(&mut self, r: u32, req: u32) {
        self.m.ranks[r as usize].cursor.complete(req);
        self.wake(r);
    }

    /// Posts protocol message `wire` from `src` to `dst` as one PM message; `sreq` completes
    /// when its last packet has been taken.
    fn post(&mut self, src: u32, dst: u32, wire: Wire, sreq: Option<u32>) {
        let c = self.w.channel(host(src), host(dst));
        let m = &mut *self.m;
        if m.log.len() <= c.idx() {
            m.log.resize_with(c.idx() + 1, ChannelLog::default);
        }
        let log = &mut m.log[c.idx()];
        log.inbox.push_back(wire);
        log.completes.push_back(sreq);
        let bytes = m.profile.header_bytes + wire.data();
        let ch = &mut self.w.chans[c];
        let msg = ch.posted_messages();
        ch.post_copied(msg, bytes, wire.data() > 0);
        self.w.cpu_kick(host(src));
    }

    fn isend(&mut self, r: u32, peer: u32, bytes: u64, tag: i64, req: u32) {
        let Send::Rendezvous { early } = self.m.profile.protocol.send(bytes) else {
            self.post(r, peer, Wire::Eager { tag, bytes }, Some(req));
            return;
        };
        self.m.rendezvous += 1;
        // With all the data in the RTS, the send is done when the RTS is.
        let done = (early == bytes).then_some(req);
        self.post(r, peer, Wire::Rts { tag, bytes, early, sreq: req }, done);
    }

    fn irecv(&mut self, r: u32, p: Posted) {
        let Some(u) = self.m.ranks[r as usize].matching.post(p) else { return };
        // The data that came early waits in the library's buffer: copied again now.
        let copy = u.wire.data();
        if copy > 0 {
            let h = &mut self.w.hosts[host(r)];
            h.mpi_work += Time(copy * h.cost.copy_ps_per_byte);
            self.w.cpu_kick(host(r));
        }
        self.matched(r, u.src, u.wire, p.req);
    }

    /// Receive `rreq` of rank `r` matched `wire` from `src`.
    fn matched(&mut self, r: u32, src: u32, wire: Wire, rreq: u32) {
        match wire {
            Wire::Eager { .. } => self.complete(r, rreq),
            Wire::Rts { bytes, early, sreq, .. } if early < bytes => {
                self.post(r, src, Wire::Cts { sreq, rreq, rest: bytes - early }, None);
            }
            Wire::Rts { .. } => self.complete(r, rreq),
            _ => unreachable!("only eager messages and RTSs are matched"),
        }
    }

    /// Channel `c` delivered its next `msgs` PM messages to their rank.
    fn delivered(&mut self, c: PmChannelId, msgs: u32) {
        let (src, dst) = (self.w.chans[c].src.0, self.w.chans[c].dst.0);
        for _ in 0..msgs {
            let m = &mut *self.m;
            let wire = m.log[c.idx()].inbox.pop_front().expect("PM delivers only what was posted");
            match wire {
                Wire::Eager { .. } | Wire::Rts { .. } => match m.ranks[dst as usize].matching.arrive(Unexpected { src, wire }) {
                    Some((p, _)) => self.matched(dst, src, wire, p.req),
                    None => m.unexpected_eager += u64::from(matches!(wire, Wire::Eager { .. })),
                },
                Wire::Cts { sreq, rreq, rest } => self.post(dst, src, Wire::Data { rreq, bytes: rest }, Some(sreq)),
                Wire::Data { rreq, .. } => self.complete(dst, rreq),
            }
        }
    }

    /// The sender of channel `c` took packets: send requests whose message is wholly taken
    /// complete.
    fn taken(&mut self, c: PmChannelId) {
        let taken = self.w.chans[c].messages_taken();
        let src = self.w.chans[c].src.0;
        loop {
            let log = &mut self.m.log[c.idx()];
            if log.taken >= taken {
                return;
            }
            log.taken += 1;
            if let Some(req) = log.completes.pop_front().flatten() {
                self.complete(src, req);
            }
        }
    }
}

/// The host rank `r` runs on (one rank per host, in order).
fn host(r: u32) -> HostId {
    HostId(r)
}

impl Transport for Pm<'_> {
    fn rank(&mut self, r: u32) -> Option<(&mut Cursor, &RankProgram)> {
        let m = &mut *self.m;
        Some((&mut m.ranks[r as usize].cursor, &m.program.ranks[r as usize]))
    }

    fn compute(&mut self, r: u32, ns: u64) {
        self.m.ranks[r as usize].computing = true;
        let now = self.w.q.now();
        self.w.q.at(now + Time::ns(ns), Ev::MpiResume(r));
    }

    fn mark(&mut self, r: u32) {
        let now = self.w.q.now();
        self.m.marks[r as usize].push(now);
    }

    fn isend(&mut self, r: u32, peer: u32, bytes: u64, tag: i64, req: u32) {
        Pm::isend(self, r, peer, bytes, tag, req)
    }

    fn irecv(&mut self, r: u32, p: Posted) {
        Pm::irecv(self, r, p)
    }

    fn wait_done(&mut self, _r: u32) {}

    fn blocked(&mut self, r: u32) {
        self.m.ranks[r as usize].blocked = true;
    }

    fn ended(&mut self, r: u32) {
        let now = self.w.q.now();
        let m = &mut *self.m;
        if m.ended[r as usize].is_none() {
            m.ended[r as usize] = Some(now);
            m.finished += 1;
            if m.finished == m.size() {
                self.w.done = true;
            }
        }
    }
}
