"""MPI trace capture (PMPI library, `rdmasim trace`) and replay on the MPI layer."""
from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import pytest

import rdmasim
from rdmasim import mpitrace
from rdmasim.errors import ScenarioError


def _need_mpi() -> None:
    if mpitrace.mpicc() and shutil.which("mpiexec"):
        return
    ci = os.environ.get("CI", "") not in ("", "0", "false")
    assert not ci, "mpicc/mpiexec missing but CI is set: CI must install mpich (apt-get install mpich libmpich-dev)"
    pytest.skip("mpicc/mpiexec not found (install with `apt-get install mpich libmpich-dev`)")


def replay(trace_dir: Path, ranks: int, rph: int = 1, **workload) -> rdmasim.Result:
    hosts = math.ceil(ranks / rph)
    return rdmasim.run({
        "hardware": {"profile": "cx3-fdr"},
        "topology": {"kind": "single-switch", "hosts": max(hosts, 2)},
        "workload": {"kind": "mpi", "trace": str(trace_dir), "ranks_per_host": rph, **workload},
    })


@pytest.mark.parametrize("prog,args,n,rph", [
    ("halo3d.c", ["6", "2048", "20000", "3"], 12, 2),
    ("sweep.c", ["2", "3", "1024", "20000"], 9, 1),
])
def test_traced_program_replays_with_the_recorded_messages(tmp_path, prog, args, n, rph):
    _need_mpi()
    exe = mpitrace.build_program(mpitrace.EXAMPLES / prog, tmp_path / Path(prog).stem)
    out = mpitrace.trace(n, [str(exe), *args], tmp_path / "trace", timeout=120)  # n > cores
    recorded = mpitrace.trace_counts(out)
    assert recorded["sends"] > 0
    res = replay(out, n, rph)
    assert res.finished, res.stop_reason
    m = res.table("mpi").iloc[0]
    assert m["finished_ranks"] == n
    assert m["errors"] == 0
    assert (m["delivered_messages"], m["delivered_bytes"]) == (recorded["sends"], recorded["bytes"])
    assert (m["recorded_sends"], m["recorded_send_bytes"]) == (recorded["sends"], recorded["bytes"])
    # Compute gaps come from recorded CPU time: the replay takes at least the busiest rank's.
    assert m["run_time_us"] >= m["mean_compute_us"]


def test_cli_trace_writes_one_file_per_rank(tmp_path):
    _need_mpi()
    exe = mpitrace.build_program(mpitrace.EXAMPLES / "halo3d.c", tmp_path / "halo3d")
    from rdmasim.cli import main

    assert main(["trace", "-n", "4", "-o", str(tmp_path / "t"), "--", str(exe), "2", "512", "1000", "0"]) == 0
    files = sorted(p.name for p in (tmp_path / "t").glob("rank.*.trace"))
    assert files == [f"rank.{r}.trace" for r in range(4)]
    first = (tmp_path / "t" / "rank.0.trace").read_text().splitlines()
    assert first[0].startswith("#rdmasim-mpi-trace v1 rank=0 size=4")
    assert first[-1].startswith("finalize ")


def _write(d: Path, r: int, size: int, body: str) -> None:
    d.mkdir(exist_ok=True)
    (d / f"rank.{r}.trace").write_text(f"#rdmasim-mpi-trace v1 rank={r} size={size}\ninit start=0 end=1 cpu=0\n{body}")


def test_malformed_and_truncated_traces_name_file_and_line(tmp_path):
    d = tmp_path / "bad"
    _write(d, 0, 2, "send start=1 end=2 cpu=5 peer=1 bytes=64 tag=0\nfinalize start=3 end=4 cpu=0\n")
    _write(d, 1, 2, "recv start=1 end=2 cpu=5 peer=0 bytes=64 tag=0\nfinaliz")
    with pytest.raises(ScenarioError) as e:
        replay(d, 2)
    assert "rank.1.trace:4:" in str(e.value) and "finaliz" in str(e.value)
    _write(d, 1, 2, "recv start=1 end=2 cpu=5 peer=0 bytes=64 tag=0\n")
    with pytest.raises(ScenarioError) as e:
        replay(d, 2)
    assert "rank.1.trace:3:" in str(e.value) and "truncated" in str(e.value)
    _write(d, 1, 2, "recv start=1 end=2 cpu=-5 peer=0 bytes=64 tag=0\nfinalize start=3 end=4 cpu=0\n")
    with pytest.raises(ScenarioError) as e:
        replay(d, 2)
    assert "rank.1.trace:3: `cpu=-5` must be >= 0" in str(e.value)


def test_open_mpi_traces_replay_too(tmp_path, monkeypatch):
    """Open MPI (when installed beside MPICH: Debian's mpicc.openmpi / mpirun.openmpi)."""
    if not (shutil.which("mpicc.openmpi") and shutil.which("mpirun.openmpi")):
        pytest.skip("Open MPI not installed (optional: apt-get install openmpi-bin libopenmpi-dev)")
    monkeypatch.setenv("MPICC", "mpicc.openmpi")
    monkeypatch.setenv("MPIEXEC", "mpirun.openmpi")
    monkeypatch.setenv("RDMASIM_CACHE", str(tmp_path / "cache"))
    exe = mpitrace.build_program(mpitrace.EXAMPLES / "halo3d.c", tmp_path / "halo3d")
    out = mpitrace.trace(6, [str(exe), "3", "1024", "1000", "2"], tmp_path / "trace", timeout=120)
    assert "Open_MPI" in (out / "rank.0.trace").read_text().splitlines()[0]
    recorded = mpitrace.trace_counts(out)
    res = replay(out, 6)
    assert res.finished, res.stop_reason
    m = res.table("mpi").iloc[0]
    assert (m["delivered_messages"], m["delivered_bytes"]) == (recorded["sends"], recorded["bytes"])


def test_cli_trace_bad_rank_count_is_an_input_error(capsys):
    from rdmasim.cli import main

    assert main(["trace", "-n", "0", "--", "true"]) == 2
    assert "-n 0: expected at least 1 rank" in capsys.readouterr().err


# ---- traces a run leaves incomplete; the cache directory --------------------------------------
NO_FINALIZE_C = r"""
#include <mpi.h>
#include <unistd.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r; char b[8] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (r == 0) MPI_Send(b, 8, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
    else MPI_Recv(b, 8, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* Every rank has opened its trace once past the barrier (else the first to exit may get the
       others killed before they do, and their files are missing rather than empty). */
    MPI_Barrier(MPI_COMM_WORLD);
    _exit(0);   /* no MPI_Finalize: the tracer never writes its buffer */
}
"""


def test_cli_trace_of_a_program_without_mpi_finalize_fails_naming_the_ranks(tmp_path, capsys):
    _need_mpi()
    src = tmp_path / "nofin.c"
    src.write_text(NO_FINALIZE_C)
    exe = mpitrace.build_program(src, tmp_path / "nofin")
    from rdmasim.cli import main

    assert main(["trace", "-n", "2", "-o", str(tmp_path / "t"), "--", str(exe)]) == 2
    err = capsys.readouterr().err
    assert "the traces of ranks [0, 1] in" in err and "are empty" in err
    assert "did not reach MPI_Finalize" in err


def _fake_mpiexec(tmp_path: Path, monkeypatch, body: str, written: str = "$1") -> None:
    """Stands in for mpiexec (and the PMPI build): writes `body` as the trace of ranks
    0..`written` (every rank by default), exits 0."""
    script = tmp_path / "fake_mpiexec"
    script.write_text(
        "#!/bin/sh\n[ \"$1\" = --version ] && exit 0\n"
        "for a; do case $a in RDMASIM_TRACE_DIR=*) d=${a#RDMASIM_TRACE_DIR=};; esac; done\n"
        f"shift; n={written}; r=0; while [ $r -lt $n ]; do printf '%s' '{body}' > \"$d/rank.$r.trace\"; r=$((r+1)); done\n")
    script.chmod(0o755)
    monkeypatch.setenv("MPIEXEC", str(script))
    monkeypatch.setattr(mpitrace, "build_library", lambda out=None: tmp_path / "libpmpi_trace.so")


@pytest.mark.parametrize("body,expect", [
    ("", "the trace of rank 0 in "),
    ("#rdmasim-mpi-trace v1 rank=0 size=1 lib=x\ninit start=0 end=1 cpu=0\nsend start=2 end=3 cpu=1 pe",
     "rank.0.trace:3: the trace is cut off inside a record (`send start=2 end=3 cpu=1 pe`)"),
    ("#rdmasim-mpi-trace v1 rank=0 size=1 lib=x\ninit start=0 end=1 cpu=0\n",
     "rank.0.trace:2: the trace ends after `init`, without `finalize`"),
], ids=["empty", "cut-inside-a-record", "no-finalize"])
def test_cli_trace_left_empty_or_cut_off_is_an_error_naming_file_and_line(tmp_path, monkeypatch, capsys, body, expect):
    _fake_mpiexec(tmp_path, monkeypatch, body)
    from rdmasim.cli import main

    assert main(["trace", "-n", "1", "-o", str(tmp_path / "t"), "--", "prog"]) == 2
    err = capsys.readouterr().err
    assert expect in err, err
    assert "rank 0 of prog did not reach MPI_Finalize" in err and "Traceback" not in err


def test_cli_trace_names_ranks_killed_before_writing_beside_an_empty_trace(tmp_path, monkeypatch, capsys):
    # Ranks 0 and 1 of 3 open their files; rank 2 "is killed" before it opens its own.
    _fake_mpiexec(tmp_path, monkeypatch, "", written="2")
    from rdmasim.cli import main

    assert main(["trace", "-n", "3", "-o", str(tmp_path / "t"), "--", "prog"]) == 2
    err = capsys.readouterr().err
    assert "rank 2 wrote no trace; the traces of ranks [0, 1] in" in err, err
    assert "ranks [0, 1, 2] of prog did not reach MPI_Finalize" in err


def test_trace_counts_names_the_file_and_line_of_a_cut_off_or_malformed_record(tmp_path):
    d = tmp_path / "t"
    _write(d, 0, 1, "send start=2 end=3 cpu=1 pe")
    with pytest.raises(mpitrace.TraceToolError, match=r"rank\.0\.trace:3: the trace is cut off inside a record"):
        mpitrace.trace_counts(d)
    _write(d, 0, 1, "send start=2 end=3 cpu=1 bytes=8 tag=0\nfinalize start=4 end=5 cpu=0\n")
    with pytest.raises(mpitrace.TraceToolError, match=r"rank\.0\.trace:3: `send` record without an integer `peer=`"):
        mpitrace.trace_counts(d)
    _write(d, 0, 1, "send start=2 end=3 cpu=1 peer=0 bytes=8 tag=0\nfinalize start=4 end=5 cpu=0\n")
    assert mpitrace.trace_counts(d) == {"sends": 1, "bytes": 8}


@pytest.mark.parametrize("cache", ["file", "/proc/nope"])
def test_an_unusable_cache_directory_is_named_with_its_variable(tmp_path, monkeypatch, capsys, cache):
    if cache == "file":
        cache = str(tmp_path / "afile")
        Path(cache).write_text("")
    monkeypatch.setenv("RDMASIM_CACHE", cache)
    with pytest.raises(mpitrace.TraceToolError) as e:
        mpitrace._cache_dir()
    assert f"cannot use {cache} (RDMASIM_CACHE={cache}) as the cache" in str(e.value)
    # The CLI reaches the cache right after finding mpicc: a stand-in compiler is enough here.
    monkeypatch.setattr(mpitrace, "mpicc", lambda: "/bin/true")
    from rdmasim.cli import main

    assert main(["trace", "-n", "1", "-o", str(tmp_path / "t"), "--", "prog"]) == 2
    assert f"RDMASIM_CACHE={cache}" in capsys.readouterr().err
