//! Small MPI traces written by the tests (`docs/srq.md` has the format).
use std::path::PathBuf;

/// A fresh trace directory with one file per rank (records without header/finalize).
pub fn trace_dir(name: &str, ranks: &[Vec<String>]) -> PathBuf {
    // Unique per call: tests run in parallel and may write traces of the same name.
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("rdmasim-mpi-{}-{n}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (r, lines) in ranks.iter().enumerate() {
        let mut text = format!("#rdmasim-mpi-trace v1 rank={r} size={} lib=test\ninit start=0 end=0 cpu=0\n", ranks.len());
        for l in lines {
            text += l;
            text += "\n";
        }
        text += "finalize start=0 end=0 cpu=0\n";
        std::fs::write(dir.join(format!("rank.{r}.trace")), text).unwrap();
    }
    dir
}

/// One trace record with zero wall times: `call`, the CPU time before it, and its fields.
pub fn rec(call: &str, cpu_ns: u64, rest: &str) -> String {
    format!("{call} start=0 end=0 cpu={cpu_ns} {rest}")
}
