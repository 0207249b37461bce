"""MPI trace capture: build the PMPI interposition library and trace any MPI program.

``rdmasim trace -n 16 -o traces/halo -- ./halo3d 20`` compiles ``pmpi/pmpi_trace.c`` with
``mpicc`` (once, cached), runs the program under ``mpiexec -n 16`` with the library preloaded,
and leaves one ``rank.<r>.trace`` per rank in the output directory (format: ``docs/srq.md``).
Works with MPICH and Open MPI from Debian's packages, with more ranks than cores (Open MPI gets
``--oversubscribe``); ``MPICC`` / ``MPIEXEC`` choose among installed MPIs (Debian:
``mpicc.openmpi`` / ``mpirun.openmpi``). Replay a trace with a scenario whose workload is
``{kind = "mpi", trace = "<dir>"}``.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

__all__ = ["PMPI_SOURCE", "EXAMPLES", "mpicc", "build_library", "build_program", "trace", "trace_counts"]

HERE = Path(__file__).parent / "pmpi"
#: The interposition library's source.
PMPI_SOURCE = HERE / "pmpi_trace.c"
#: MPI programs written for the tests and studies (halo3d.c, sweep.c, adi.c).
EXAMPLES = HERE / "examples"


class TraceToolError(RuntimeError):
    """mpicc / mpiexec missing or failing, the cache directory unusable, or the traces a run
    left incomplete (a rank that did not reach MPI_Finalize); the message names what and where."""


def mpicc() -> Optional[str]:
    return shutil.which(os.environ.get("MPICC", "mpicc"))


def _cache_dir() -> Path:
    # An empty variable counts as unset (an empty XDG_CACHE_HOME would otherwise make the cache
    # a relative `rdmasim` directory wherever the command runs).
    if os.environ.get("RDMASIM_CACHE"):
        var, p = "RDMASIM_CACHE", Path(os.environ["RDMASIM_CACHE"])
    elif os.environ.get("XDG_CACHE_HOME"):
        var, p = "XDG_CACHE_HOME", Path(os.environ["XDG_CACHE_HOME"]) / "rdmasim"
    else:
        var, p = "", Path.home() / ".cache" / "rdmasim"
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        why = "it is a file, not a directory" if p.is_file() else f"cannot create it: {e.strerror or e}"
        where = f"{var}={os.environ[var]}" if var else "the default cache directory"
        raise TraceToolError(f"cannot use {p} ({where}) as the cache for the PMPI library: {why}; "
                             "set RDMASIM_CACHE to a writable directory") from None
    return p


def _run(cmd: Sequence[str], **kw) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(list(cmd), check=True, capture_output=True, text=True, **kw)
    except FileNotFoundError as e:
        raise TraceToolError(f"{cmd[0]} not found: install MPI (Debian: apt-get install mpich libmpich-dev)") from e
    except subprocess.CalledProcessError as e:
        raise TraceToolError(f"{' '.join(cmd)} failed ({e.returncode}):\n{e.stdout}{e.stderr}") from e
    except subprocess.TimeoutExpired as e:
        raise TraceToolError(f"{' '.join(cmd)} did not finish within {e.timeout:g} s") from e


def build_library(out: Optional[Path] = None) -> Path:
    """Compiles the PMPI library with mpicc (cached by source and compiler); returns its path."""
    cc = mpicc()
    if cc is None:
        raise TraceToolError("mpicc not found: install MPI (Debian: apt-get install mpich libmpich-dev)")
    show = _run([cc, "-show"]).stdout if cc else ""
    key = hashlib.sha256(PMPI_SOURCE.read_bytes() + show.encode()).hexdigest()[:16]
    lib = out or _cache_dir() / f"libpmpi_trace-{key}.so"
    if not lib.exists():
        tmp = lib.with_suffix(f".tmp{os.getpid()}")
        _run([cc, "-shared", "-fPIC", "-O2", "-o", str(tmp), str(PMPI_SOURCE)])
        tmp.replace(lib)
    return lib


def build_program(source: Path, out: Path) -> Path:
    """Compiles an MPI C program with mpicc."""
    cc = mpicc()
    if cc is None:
        raise TraceToolError("mpicc not found: install MPI (Debian: apt-get install mpich libmpich-dev)")
    _run([cc, "-O2", "-o", str(out), str(source)])
    return out


def _mpiexec() -> Tuple[str, List[str]]:
    exe = shutil.which(os.environ.get("MPIEXEC", "mpiexec")) or shutil.which("mpirun")
    if exe is None:
        raise TraceToolError("mpiexec not found: install MPI (Debian: apt-get install mpich)")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    extra: List[str] = []
    if "Open MPI" in version or "OpenRTE" in version:
        extra.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            extra.append("--allow-run-as-root")
    return exe, extra


def trace(n: int, argv: Sequence[str], out_dir: Path, timeout: Optional[float] = None) -> Path:
    """Runs ``argv`` on ``n`` ranks under the PMPI library; returns the trace directory."""
    if n < 1:
        raise ValueError("n must be >= 1")
    out_dir = Path(out_dir).resolve()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        kind = "it is a file, not a directory" if out_dir.is_file() else (e.strerror or str(e))
        raise TraceToolError(f"cannot write traces to {out_dir}: {kind}") from None
    lib = build_library()
    for old in out_dir.glob("rank.*.trace"):
        old.unlink()
    exe, extra = _mpiexec()
    cmd = [exe, *extra, "-n", str(n), "env", f"LD_PRELOAD={lib}", f"RDMASIM_TRACE_DIR={out_dir}", *argv]
    _run(cmd, timeout=timeout)
    missing = [r for r in range(n) if not (out_dir / f"rank.{r}.trace").exists()]
    if len(missing) == n:
        raise TraceToolError(f"no trace written for ranks {missing[:8]}: is {argv[0]} an MPI program that calls MPI_Init?")
    # mpiexec exits 0 when every rank exits 0, with or without MPI_Finalize: only the files
    # tell whether the traces are whole (replay rejects them, but much later and less clearly).
    # When one rank exits early, mpiexec may kill the others before they open their files.
    _check_complete([out_dir / f"rank.{r}.trace" for r in range(n) if r not in missing], argv[0], missing)
    return out_dir


def _ranks(ranks: List[int]) -> str:
    return f"{ranks}" if len(ranks) <= 8 else f"[{', '.join(map(str, ranks[:8]))}, ...] ({len(ranks)} in all)"


def _cut_off(path: Path, text: str) -> Optional[str]:
    """Why a non-empty trace is not whole, naming its file and line; None when it is.

    The tracer ends every record with a newline and the file with `finalize`, so a missing
    newline is a record cut in two, and a last record other than `finalize` a rank that stopped.
    """
    lines = text.split("\n")
    if lines[-1] != "":
        return f"{path}:{len(lines)}: the trace is cut off inside a record (`{lines[-1][:60]}`)"
    last = lines[-2] if len(lines) > 1 else ""
    if not last.startswith("finalize"):
        return f"{path}:{len(lines) - 1}: the trace ends after `{last.split(' ', 1)[0][:40]}`, without `finalize`"
    return None


#: Why a rank's trace is empty or cut off: the tracer buffers its records (1 MiB at a time) and
#: writes the rest when the rank calls MPI_Finalize.
_NO_FINALIZE = ("did not reach MPI_Finalize: the program exited without calling it, crashed or was "
                "killed (the tracer writes a rank's records at MPI_Finalize, and in 1 MiB blocks before)")


def _read_trace(f: Path) -> str:
    return f.read_bytes().decode("utf-8", errors="replace")


def _check_complete(files: Sequence[Path], program: str = "the program", missing: Sequence[int] = (),
                    texts: Optional[Sequence[str]] = None) -> None:
    """Raises TraceToolError naming the ranks whose traces are missing, empty or cut off.
    ``texts``: the files' contents when the caller has read them already."""
    empty: List[int] = []
    cut: List[str] = []
    stopped: List[int] = list(missing)
    for i, f in enumerate(files):
        text = texts[i] if texts is not None else _read_trace(f)
        problem = _cut_off(f, text) if text else None
        if text and not problem:
            continue
        m = re.fullmatch(r"rank\.(\d+)\.trace", f.name)
        stopped.append(int(m.group(1)) if m else -1)
        if problem:
            cut.append(problem)
        else:
            empty.append(stopped[-1])
    if not stopped:
        return
    parts = []
    if missing:
        parts.append(f"rank {missing[0]} wrote no trace" if len(missing) == 1 else f"ranks {_ranks(list(missing))} wrote no trace")
    if empty:
        parts.append(f"the trace of rank {empty[0]} in {files[0].parent} is empty" if len(empty) == 1
                     else f"the traces of ranks {_ranks(empty)} in {files[0].parent} are empty")
    parts.extend(cut[:8])
    if len(cut) > 8:
        parts.append(f"... ({len(cut)} cut-off traces in all)")
    who = f"rank {stopped[0]}" if len(stopped) == 1 else f"ranks {_ranks(sorted(stopped))}"
    raise TraceToolError("; ".join(parts) + f": {who} of {program} {_NO_FINALIZE}")


_FIELD = re.compile(r"(\w+)=(-?\d+)")


def trace_counts(directory: Path) -> Dict[str, int]:
    """Point-to-point sends recorded in a trace directory (to real ranks) and their bytes:
    counted here independently of the simulator, to check a replay against.

    Raises TraceToolError naming the file and line of an empty, cut-off or malformed trace.
    """
    sends = 0
    nbytes = 0
    files = sorted(Path(directory).glob("rank.*.trace"))
    texts = [_read_trace(f) for f in files]  # each file read once, for the check and the count
    _check_complete(files, texts=texts)
    for f, text in zip(files, texts):
        for ln, line in enumerate(text.splitlines(), 1):
            call = line.split(" ", 1)[0]
            if call in ("send", "ssend", "rsend", "bsend", "isend", "issend", "irsend", "ibsend", "sendrecv"):
                kv = dict(_FIELD.findall(line))
                absent = [k for k in ("peer", "bytes") if k not in kv]
                if absent:
                    raise TraceToolError(f"{f}:{ln}: `{call}` record without an integer `{absent[0]}=`: {line[:80]}")
                if int(kv["peer"]) >= 0:
                    sends += 1
                    nbytes += int(kv["bytes"])
    return {"sends": sends, "bytes": nbytes}
