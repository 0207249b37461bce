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
    """mpicc / mpiexec missing or failing, or the cache directory unusable; the message names
    what and where."""


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
    if missing:
        raise TraceToolError(f"no trace written for ranks {missing[:8]}: is {argv[0]} an MPI program that calls MPI_Init?")
    return out_dir


_FIELD = re.compile(r"(\w+)=(-?\d+)")


def trace_counts(directory: Path) -> Dict[str, int]:
    """Point-to-point sends recorded in a trace directory (to real ranks) and their bytes:
    counted here independently of the simulator, to check a replay against."""
    sends = 0
    nbytes = 0
    for f in sorted(Path(directory).glob("rank.*.trace")):
        for line in f.read_text().splitlines():
            call = line.split(" ", 1)[0]
            if call in ("send", "ssend", "rsend", "bsend", "isend", "issend", "irsend", "ibsend", "sendrecv"):
                kv = dict(_FIELD.findall(line))
                if int(kv["peer"]) >= 0:
                    sends += 1
                    nbytes += int(kv["bytes"])
    return {"sends": sends, "bytes": nbytes}
