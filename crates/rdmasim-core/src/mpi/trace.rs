//! MPI traces: the text format written by `tools/pmpi_trace` (documented in `docs/srq.md`), and
//! its translation into a [`Program`].
//!
//! A trace is a directory with one file per rank, `rank.<r>.trace`. Each file starts with a
//! header line and has one line per MPI call, in call order:
//!
//! ```text
//! #rdmasim-mpi-trace v1 rank=3 size=16 lib=MPICH
//! init start=0 end=41230 cpu=0
//! irecv start=51000 end=51210 cpu=9650 peer=2 bytes=8192 tag=7 req=1
//! isend start=51400 end=51950 cpu=150 peer=4 bytes=8192 tag=7 req=2
//! waitall start=52000 end=80100 cpu=40 reqs=1,2
//! finalize start=90000 end=90500 cpu=9800
//! ```
//!
//! `start`/`end` are wall-clock ns of the call, `cpu` the process CPU time (ns) spent between the
//! end of the previous call and the start of this one: the compute gap the replay keeps (wall
//! time is distorted when ranks outnumber cores). `peer`/`tag` = -1 mean MPI_ANY_SOURCE /
//! MPI_ANY_TAG, `peer` = -2 MPI_PROC_NULL (the call does nothing; its request is complete at
//! once); `bytes` = count × datatype size. A file without its `finalize` line is
//! truncated and rejected; every error names the file and line.
use super::program::{Program, RankProgram, ANY};

/// `peer=-2`: MPI_PROC_NULL.
const PROC_NULL: i64 = -2;
/// Request id of a call to MPI_PROC_NULL: complete from the start, dropped from waits.
const NULL_REQ: u32 = u32::MAX;
/// Largest message a record may carry: 2^31 bytes, the largest message the IBTA transport
/// allows (HCAs report at most this, often 2^30, as `max_msg_sz` in ibv_query_port).
const MAX_BYTES: u64 = 1 << 31;
/// Most CPU time (after scaling) one rank's trace may add up to: 10^15 ns, about 11.6 days.
/// Keeps simulated time (u64 picoseconds, ~213 days) from overflowing on a corrupt `cpu=`.
const MAX_RANK_CPU_NS: u64 = 1_000_000_000_000_000;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub const HEADER: &str = "#rdmasim-mpi-trace";

/// Every call name a trace may hold.
const CALLS: &[&str] = &[
    "init", "finalize", "send", "ssend", "rsend", "bsend", "isend", "issend", "irsend", "ibsend", "recv", "irecv", "sendrecv", "wait",
    "waitall", "waitany", "waitsome", "test", "testall", "testany", "testsome", "barrier", "bcast", "reduce", "allreduce", "alltoall",
    "allgather", "gather", "scatter", "scan", "reduce_scatter",
];

#[derive(Debug, Clone, PartialEq)]
pub struct TraceError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// Counts of what a trace recorded (user point-to-point sends and their bytes, calls).
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceCounts {
    pub calls: u64,
    pub sends: u64,
    pub send_bytes: u64,
}

/// Reads every `rank.<r>.trace` of a directory into a program; `cpu_scale` multiplies the
/// recorded compute gaps.
pub fn read_dir(dir: &Path, cpu_scale: f64) -> Result<(Program, TraceCounts), TraceError> {
    let derr = |m: String| TraceError { file: dir.display().to_string(), line: None, message: m };
    let entries = std::fs::read_dir(dir).map_err(|e| derr(format!("cannot read the trace directory: {e}")))?;
    let mut files: Vec<(u32, PathBuf)> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if let Some(r) = name.strip_prefix("rank.").and_then(|s| s.strip_suffix(".trace")) {
            let r: u32 = r.parse().map_err(|_| derr(format!("{name}: expected rank.<number>.trace")))?;
            files.push((r, e.path()));
        }
    }
    if files.is_empty() {
        return Err(derr("no rank.<r>.trace files (write them with tools/pmpi_trace, see docs/srq.md)".into()));
    }
    files.sort();
    let size = files.len() as u32;
    for (i, (r, p)) in files.iter().enumerate() {
        if *r != i as u32 {
            return Err(derr(format!("rank files must be rank.0 .. rank.{} without gaps; {} is missing", size - 1, p.with_file_name(format!("rank.{i}.trace")).display())));
        }
    }
    let mut prog = Program::new(size, &dir.display().to_string());
    let mut counts = TraceCounts::default();
    let mut first: Option<(String, Vec<Collective>)> = None;
    for (r, path) in &files {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| TraceError { file: file.clone(), line: None, message: format!("cannot read: {e}") })?;
        let mut collectives = Vec::new();
        let c = parse_rank_collectives(&text, &file, *r, size, cpu_scale, &mut prog.ranks[*r as usize], &mut collectives)?;
        counts.calls += c.calls;
        counts.sends += c.sends;
        counts.send_bytes += c.send_bytes;
        match &first {
            None => first = Some((file, collectives)),
            Some((file0, c0)) => same_collectives(file0, c0, &file, &collectives)?,
        }
    }
    Ok((prog, counts))
}

/// A collective call of a trace: what every rank must call in the same order (MPI-4.0 sec.
/// 6.1: "all processes ... call the collective routines in the same order", with the same
/// root), or the program is erroneous and would hang or mismatch on a real machine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collective {
    pub call: &'static str,
    pub root: Option<u32>,
    pub line: usize,
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.root {
            Some(r) => write!(f, "`{} root={r}`", self.call),
            None => write!(f, "`{}`", self.call),
        }
    }
}

/// Rank `file`'s collectives against rank 0's (`file0`): the first that differs in call or
/// root, or a missing one, is an error naming both files and lines. Sizes are not compared:
/// the v-variants are recorded with their average block, which may differ between ranks.
fn same_collectives(file0: &str, c0: &[Collective], file: &str, c: &[Collective]) -> Result<(), TraceError> {
    let at = |k: usize| format!("collective #{}", k + 1);
    for k in 0..c0.len().max(c.len()) {
        let message = match (c0.get(k), c.get(k)) {
            (Some(a), Some(b)) if (a.call, a.root) == (b.call, b.root) => continue,
            (Some(a), Some(b)) => (Some(b.line), format!("{} is {b}, but {file0}:{} has {a}", at(k), a.line)),
            (Some(a), None) => (None, format!("has {k} collectives; {file0}:{} has a {}: {a}", a.line, at(k))),
            (None, Some(b)) => (Some(b.line), format!("{} is {b}, but {file0} has only {k}", at(k))),
            (None, None) => continue, // not reached: k is below the longer length
        };
        return Err(TraceError {
            file: file.into(),
            line: message.0,
            message: format!("{}: every rank must call MPI_COMM_WORLD's collectives in the same order with the same root", message.1),
        });
    }
    Ok(())
}

/// One record's `key=value` fields.
struct Fields<'a> {
    kv: Vec<(&'a str, &'a str)>,
    file: &'a str,
    line: usize,
    call: &'a str,
}

impl<'a> Fields<'a> {
    fn err(&self, m: String) -> TraceError {
        TraceError { file: self.file.into(), line: Some(self.line), message: m }
    }
    fn raw(&self, key: &str) -> Result<&'a str, TraceError> {
        self.kv.iter().find(|(k, _)| *k == key).map(|(_, v)| *v).ok_or_else(|| self.err(format!("`{}` record without `{key}=`", self.call)))
    }
    fn int(&self, key: &str) -> Result<i64, TraceError> {
        let v = self.raw(key)?;
        v.parse().map_err(|_| self.err(format!("`{key}={v}` is not an integer")))
    }
    fn uint(&self, key: &str) -> Result<u64, TraceError> {
        let v = self.int(key)?;
        u64::try_from(v).map_err(|_| self.err(format!("`{key}={v}` must be >= 0")))
    }
    /// A message size: at most one RDMA message.
    fn bytes(&self, key: &str) -> Result<u64, TraceError> {
        let b = self.uint(key)?;
        if b > MAX_BYTES {
            return Err(self.err(format!("`{key}={b}` exceeds {MAX_BYTES} bytes, the largest RDMA message")));
        }
        Ok(b)
    }
    /// A send's tag: MPI tags are >= 0 (negative ones are reserved for collectives here).
    fn send_tag(&self, key: &str) -> Result<i64, TraceError> {
        let t = self.int(key)?;
        if !(0..=i32::MAX as i64).contains(&t) {
            return Err(self.err(format!("`{key}={t}`: a send's tag must be in 0..={}", i32::MAX)));
        }
        Ok(t)
    }
    /// A receive's tag: >= 0, or -1 for MPI_ANY_TAG.
    fn recv_tag(&self, key: &str) -> Result<i64, TraceError> {
        let t = self.int(key)?;
        if !(ANY..=i32::MAX as i64).contains(&t) {
            return Err(self.err(format!("`{key}={t}`: a receive's tag must be in 0..={} or -1 (any)", i32::MAX)));
        }
        Ok(t)
    }
    fn list(&self, key: &str) -> Result<Vec<i64>, TraceError> {
        let v = self.raw(key)?;
        if v.is_empty() {
            return Ok(vec![]);
        }
        v.split(',').map(|x| x.parse().map_err(|_| self.err(format!("`{key}={v}`: `{x}` is not an integer")))).collect()
    }
    fn peer(&self, key: &str, size: u32) -> Result<i64, TraceError> {
        let p = self.int(key)?;
        if p != ANY && p != PROC_NULL && !(0..size as i64).contains(&p) {
            return Err(self.err(format!("`{key}={p}` is not a rank of a {size}-rank run (or -1 for any)")));
        }
        Ok(p)
    }
    /// A destination rank, or None for MPI_PROC_NULL.
    fn dest_or_null(&self, key: &str, size: u32) -> Result<Option<u32>, TraceError> {
        if self.int(key)? == PROC_NULL {
            return Ok(None);
        }
        self.dest(key, size).map(Some)
    }
    fn dest(&self, key: &str, size: u32) -> Result<u32, TraceError> {
        let p = self.int(key)?;
        if !(0..size as i64).contains(&p) {
            return Err(self.err(format!("`{key}={p}` is not a rank of a {size}-rank run")));
        }
        Ok(p as u32)
    }
}

/// Parses one rank's trace text into `out`.
pub fn parse_rank(text: &str, file: &str, rank: u32, size: u32, cpu_scale: f64, out: &mut RankProgram) -> Result<TraceCounts, TraceError> {
    parse_rank_collectives(text, file, rank, size, cpu_scale, out, &mut Vec::new())
}

/// [`parse_rank`], also listing the rank's collective calls in order (for the check that every
/// rank calls the same ones).
fn parse_rank_collectives(
    text: &str,
    file: &str,
    rank: u32,
    size: u32,
    cpu_scale: f64,
    out: &mut RankProgram,
    collectives: &mut Vec<Collective>,
) -> Result<TraceCounts, TraceError> {
    let err = |line: usize, m: String| TraceError { file: file.into(), line: Some(line), message: m };
    // The tracer ends every record with a newline: a last line without one was cut short,
    // possibly inside a number that would still parse.
    if !text.is_empty() && !text.ends_with('\n') {
        let (n, last) = text.lines().enumerate().last().map(|(i, l)| (i + 1, l)).unwrap_or((1, ""));
        return Err(err(n, format!("the last line `{last}` does not end with a newline: the file is truncated")));
    }
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty());
    let Some((hl, header)) = lines.next() else {
        return Err(TraceError { file: file.into(), line: None, message: "empty trace file".into() });
    };
    let mut hw = header.split_whitespace();
    if hw.next() != Some(HEADER) || hw.next() != Some("v1") {
        return Err(err(hl, format!("expected the header `{HEADER} v1 rank=<r> size=<n>`, found `{header}`")));
    }
    for tok in hw {
        match tok.split_once('=') {
            Some(("rank", v)) if v.parse::<u32>().ok() != Some(rank) => return Err(err(hl, format!("header says rank={v}, the file name says {rank}"))),
            Some(("size", v)) if v.parse::<u32>().ok() != Some(size) => return Err(err(hl, format!("header says size={v}, but the directory has {size} rank files"))),
            _ => {}
        }
    }
    let mut reqs: HashMap<i64, u32> = HashMap::new();
    let mut counts = TraceCounts::default();
    let mut finalized = false;
    let mut cpu_total: u64 = 0;
    let mut last_line = hl;
    for (ln, line) in lines {
        last_line = ln;
        if line.starts_with('#') {
            continue;
        }
        if finalized {
            return Err(err(ln, "record after `finalize`".into()));
        }
        let mut toks = line.split_whitespace();
        let call = toks.next().unwrap_or_default();
        let mut kv: Vec<(&str, &str)> = Vec::new();
        for t in toks {
            let Some(p) = t.split_once('=') else { return Err(err(ln, format!("`{t}` is not key=value"))) };
            if kv.iter().any(|(k, _)| *k == p.0) {
                return Err(err(ln, format!("`{}=` appears twice", p.0)));
            }
            kv.push(p);
        }
        if !CALLS.contains(&call) {
            return Err(err(ln, format!("unknown call `{call}`; expected one of {}", CALLS.join(", "))));
        }
        let f = Fields { kv, file, line: ln, call };
        counts.calls += 1;
        out.line = ln as u32;
        let cpu = f.uint("cpu")?;
        f.uint("start")?;
        f.uint("end")?;
        let gap = (cpu as f64 * cpu_scale).round();
        cpu_total = cpu_total.saturating_add(gap.min(u64::MAX as f64) as u64);
        if cpu_total > MAX_RANK_CPU_NS {
            return Err(f.err(format!("`cpu={cpu}` brings the rank's CPU time past {MAX_RANK_CPU_NS} ns (scaled): not a plausible trace")));
        }
        out.compute(gap as u64);
        let req_of = |f: &Fields, id: i64, reqs: &HashMap<i64, u32>| -> Result<u32, TraceError> {
            reqs.get(&id).copied().ok_or_else(|| f.err(format!("request {id} was never started by an isend/irecv of this rank")))
        };
        match call {
            "init" => {}
            "finalize" => finalized = true,
            "send" | "ssend" | "rsend" | "bsend" => {
                let (p, b, t) = (f.dest_or_null("peer", size)?, f.bytes("bytes")?, f.send_tag("tag")?);
                if let Some(p) = p {
                    counts.sends += 1;
                    counts.send_bytes += b;
                    out.send(p, b, t);
                }
            }
            "isend" | "issend" | "irsend" | "ibsend" => {
                let (p, b, t, id) = (f.dest_or_null("peer", size)?, f.bytes("bytes")?, f.send_tag("tag")?, f.int("req")?);
                let r = match p {
                    Some(p) => {
                        counts.sends += 1;
                        counts.send_bytes += b;
                        out.isend(p, b, t)
                    }
                    None => NULL_REQ,
                };
                reqs.insert(id, r);
            }
            "recv" => {
                let p = f.peer("peer", size)?;
                if p != PROC_NULL {
                    out.recv(p, f.bytes("bytes")?, f.recv_tag("tag")?);
                }
            }
            "irecv" => {
                let (p, b, t, id) = (f.peer("peer", size)?, f.bytes("bytes")?, f.recv_tag("tag")?, f.int("req")?);
                let r = if p == PROC_NULL { NULL_REQ } else { out.irecv(p, b, t) };
                reqs.insert(id, r);
            }
            "sendrecv" => {
                let (d, b, t) = (f.dest_or_null("peer", size)?, f.bytes("bytes")?, f.send_tag("tag")?);
                let (s, rb, rt) = (f.peer("src", size)?, f.bytes("rbytes")?, f.recv_tag("rtag")?);
                let r = if s == PROC_NULL { None } else { Some(out.irecv(s, rb, rt)) };
                let sr = d.map(|d| {
                    counts.sends += 1;
                    counts.send_bytes += b;
                    out.isend(d, b, t)
                });
                let both: Vec<u32> = r.into_iter().chain(sr).collect();
                out.wait(&both);
            }
            "wait" => {
                let id = f.int("req")?;
                if id < 0 {
                    continue; // MPI_Wait on MPI_REQUEST_NULL returns at once
                }
                let r = req_of(&f, id, &reqs)?;
                if r != NULL_REQ {
                    out.wait(&[r]);
                }
            }
            // Waitany/waitsome and the tests wait for what actually completed (`done=`);
            // a test that found nothing complete is only a compute gap.
            "waitall" | "waitany" | "waitsome" | "testall" | "testany" | "testsome" | "test" => {
                let key = if matches!(call, "waitall" | "testall") { "reqs" } else if call == "test" { "req" } else { "done" };
                let flag = if call.starts_with("test") { f.int("flag")? != 0 } else { true };
                if flag {
                    let ids = f.list(key)?;
                    let rs = ids.iter().filter(|&&i| i >= 0).map(|&i| req_of(&f, i, &reqs)).collect::<Result<Vec<_>, _>>()?;
                    let rs: Vec<u32> = rs.into_iter().filter(|&r| r != NULL_REQ).collect();
                    out.wait(&rs);
                }
            }
            "barrier" | "bcast" | "reduce" | "allreduce" | "alltoall" | "allgather" | "gather" | "scatter" | "scan" | "reduce_scatter" => {
                if let Ok(c) = f.raw("comm") {
                    if c != "world" {
                        return Err(f.err(format!("`{call}` on communicator {c}: only MPI_COMM_WORLD collectives can be replayed")));
                    }
                }
                let rooted = matches!(call, "bcast" | "reduce" | "gather" | "scatter");
                let root = if rooted { Some(f.dest("root", size)?) } else { None };
                let name = CALLS.iter().copied().find(|&c| c == call).unwrap_or("collective");
                collectives.push(Collective { call: name, root, line: ln });
                let root = root.unwrap_or(0);
                match call {
                    "barrier" => out.barrier(rank, size),
                    "bcast" => out.bcast(rank, size, root, f.bytes("bytes")?),
                    "reduce" => out.reduce(rank, size, root, f.bytes("bytes")?),
                    "allreduce" => out.allreduce(rank, size, f.bytes("bytes")?),
                    "allgather" => out.allgather(rank, size, f.bytes("bytes")?),
                    "gather" => out.gather(rank, size, root, f.bytes("bytes")?),
                    "scatter" => out.scatter(rank, size, root, f.bytes("bytes")?),
                    "scan" => out.scan(rank, size, f.bytes("bytes")?),
                    "reduce_scatter" => out.reduce_scatter(rank, size, f.bytes("bytes")?),
                    _ => out.alltoall(rank, size, f.bytes("bytes")?),
                }
            }
            other => return Err(err(ln, format!("unknown call `{other}`"))),
        }
    }
    if !finalized {
        return Err(err(last_line, "trace ends without `finalize`: the file is truncated (or the program did not call MPI_Finalize)".into()));
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RankProgram, TraceError> {
        let mut p = RankProgram::default();
        parse_rank(text, "rank.0.trace", 0, 2, 1.0, &mut p).map(|_| p)
    }

    const H: &str = "#rdmasim-mpi-trace v1 rank=0 size=2 lib=test\n";

    #[test]
    fn a_small_trace_parses_into_ops() {
        let p = parse(&format!(
            "{H}init start=0 end=5 cpu=0\nisend start=10 end=11 cpu=100 peer=1 bytes=64 tag=3 req=7\nirecv start=12 end=13 cpu=0 peer=-1 bytes=64 tag=-1 req=8\nwaitall start=14 end=20 cpu=0 reqs=7,8\nbarrier start=21 end=30 cpu=5\nfinalize start=40 end=41 cpu=1000\n"
        ))
        .unwrap();
        assert_eq!(p.nreqs, 2 + 2); // isend, irecv, the barrier's sendrecv pair
        assert!(matches!(p.ops[0], super::super::program::Op::Compute { ns: 100 }));
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = parse(&format!("{H}init start=0 end=5 cpu=0\nisend start=1 end=2 cpu=0 peer=9 bytes=1 tag=0 req=1\n")).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.to_string().starts_with("rank.0.trace:3: `peer=9` is not a rank"), "{e}");
        let e = parse(&format!("{H}init start=0 end=5 cpu=0\nwait start=1 end=2 cpu=0 req=4\n")).unwrap_err();
        assert!(e.message.contains("request 4 was never started"), "{e}");
        let e = parse(&format!("{H}init start=0 end=5 cpu=0\nisend start=1 end=2 cpu=0 peer=1 bytes=64\n")).unwrap_err();
        assert!(e.to_string().contains(":3: `isend` record without `tag=`"), "{e}");
        let e = parse(&format!("{H}init start=0 end=5 cpu=0\nbcast start=1 end=2 cpu=x root=0 bytes=4\n")).unwrap_err();
        assert!(e.message.contains("`cpu=x` is not an integer"), "{e}");
        let e = parse("hello\n").unwrap_err();
        assert_eq!(e.line, Some(1));
    }

    /// A trace using every kind of field, for the fuzz tests below.
    const FULL: &str = "#rdmasim-mpi-trace v1 rank=0 size=2 lib=test\n\
init start=0 end=5 cpu=0\n\
irecv start=6 end=7 cpu=10 peer=1 bytes=64 tag=3 req=1\n\
isend start=8 end=9 cpu=20 peer=1 bytes=40000 tag=3 req=2\n\
waitall start=10 end=11 cpu=0 reqs=1,2\n\
sendrecv start=12 end=13 cpu=5 peer=1 bytes=8 tag=4 src=-1 rbytes=8 rtag=-1\n\
test start=14 end=15 cpu=0 req=2 flag=1\n\
waitsome start=16 end=17 cpu=0 done=\n\
bcast start=18 end=19 cpu=7 root=1 bytes=4096 comm=world\n\
allreduce start=20 end=21 cpu=7 bytes=8 comm=world\n\
send start=22 end=23 cpu=1 peer=-2 bytes=8 tag=0\n\
recv start=24 end=25 cpu=1 peer=1 bytes=8 tag=0\n\
finalize start=26 end=27 cpu=3\n";

    #[test]
    fn every_cut_of_a_trace_is_an_error_with_a_line() {
        assert!(parse(FULL).is_ok());
        for k in 0..FULL.len() {
            match parse(&FULL[..k]) {
                Ok(_) => panic!("a trace cut at byte {k} of {} parsed", FULL.len()),
                Err(e) => assert!(k == 0 || e.line.is_some(), "cut at {k}: {e}"),
            }
        }
    }

    #[test]
    fn corrupt_fields_are_errors_never_panics() {
        // Swap every pair of values on a line, and replace every value with junk: the result
        // parses or is an error naming a line, never a panic (nor an overflow later on).
        let junk = ["", "x", "-3", "-1", "-2", "1e3", "0x10", "2147483648", "2147483649", "9223372036854775807", "99999999999999999999", "1,2", "3,,4"];
        let lines: Vec<&str> = FULL.lines().collect();
        let mut variants = 0;
        for (i, line) in lines.iter().enumerate().skip(1) {
            let toks: Vec<&str> = line.split(' ').collect();
            let mut mutated = Vec::new();
            for a in 1..toks.len() {
                let (ka, va) = toks[a].split_once('=').unwrap();
                for v in junk {
                    let mut t = toks.clone();
                    let tok = format!("{ka}={v}");
                    t[a] = &tok;
                    mutated.push(t.join(" "));
                }
                for b in a + 1..toks.len() {
                    let (kb, vb) = toks[b].split_once('=').unwrap();
                    let (ta, tb) = (format!("{ka}={vb}"), format!("{kb}={va}"));
                    let mut t = toks.clone();
                    t[a] = &ta;
                    t[b] = &tb;
                    mutated.push(t.join(" "));
                }
                let mut t = toks.clone();
                t.remove(a);
                mutated.push(t.join(" "));
                mutated.push(format!("{line} {}", toks[a]));
            }
            for m in mutated {
                let mut l = lines.clone();
                l[i] = &m;
                let text = l.join("\n") + "\n";
                variants += 1;
                if let Err(e) = parse(&text) {
                    assert!(e.line.is_some_and(|n| n > i), "{m}: {e}");
                }
            }
        }
        assert!(variants > 500);
    }

    #[test]
    fn implausible_values_are_rejected_with_the_line() {
        let e = parse(&format!("{H}init start=0 end=5 cpu=0\nsend start=0 end=1 cpu=0 peer=1 bytes=4294967296 tag=0\nfinalize start=2 end=3 cpu=0\n")).unwrap_err();
        assert!(e.to_string().contains(":3: `bytes=4294967296` exceeds"), "{e}");
        let e = parse(&format!("{H}init start=0 end=5 cpu=0\nsend start=0 end=1 cpu=0 peer=1 bytes=8 tag=-1001\nfinalize start=2 end=3 cpu=0\n")).unwrap_err();
        assert!(e.to_string().contains(":3: `tag=-1001`: a send's tag"), "{e}");
        // Two gaps that each fit but together would overflow simulated time.
        let big = MAX_RANK_CPU_NS / 2 + 1;
        let e = parse(&format!("{H}init start=0 end=5 cpu={big}\nbarrier start=0 end=1 cpu={big}\nfinalize start=2 end=3 cpu=0\n")).unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
        let e = parse(&format!("{H}init start=0 end=5 cpu=0 cpu=1\nfinalize start=2 end=3 cpu=0\n")).unwrap_err();
        assert!(e.message.contains("`cpu=` appears twice"), "{e}");
        // Cut inside the last number: still whole-looking, but no final newline.
        let e = parse(&format!("{H}init start=0 end=5 cpu=0\nfinalize start=2 end=3 cpu=10")).unwrap_err();
        assert!(e.to_string().contains(":3: the last line `finalize start=2 end=3 cpu=10` does not end with a newline"), "{e}");
    }

    #[test]
    fn a_truncated_trace_is_rejected() {
        let e = parse(&format!("{H}init start=0 end=5 cpu=0\nisend start=1 end=2 cpu=0 peer=1 bytes=64 tag=0 req=1\nwai")).unwrap_err();
        assert!(e.message.contains("unknown call `wai`") || e.message.contains("truncated"), "{e}");
        let e = parse(&format!("{H}init start=0 end=5 cpu=0\nisend start=1 end=2 cpu=0 peer=1 bytes=64 tag=0 req=1\n")).unwrap_err();
        assert!(e.message.contains("truncated"), "{e}");
        assert_eq!(e.line, Some(3));
    }
}
