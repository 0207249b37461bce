"""`rdmasim doctor` on the real tools' output of a generated fabric with planted faults
(crates/rdmasim-core/tests/data/doctor/README.md): the planted links and no other, ranked by
what disabling each gains; bad input is one line naming the file or flag, exit 2."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "crates" / "rdmasim-core" / "tests" / "data" / "doctor"
DESIGN = ["--design", "k-ary-n-tree", "-p", "k=4", "-p", "n=2"]
INPUTS = [*DESIGN, "--linkinfo", DATA / "iblinkinfo.txt",
          "--counters", DATA / "perfquery-before.txt", "--counters", DATA / "perfquery-after.txt", "--interval", "600"]

#: The planted links (switch end first), by what disabling each gains on random pairs.
PLANTED = [
    '"r0-L1-s1"[6] <-> "r0-L2-s1"[2]',  # 1x QDR
    '"r0-L1-s0"[5] <-> "r0-L2-s0"[1]',  # bad lane
    '"r0-L1-s3"[5] <-> "r0-L2-s0"[4]',  # flapping
    '"r0-L1-s3"[8] <-> "r0-L2-s3"[4]',  # DDR
    '"r0-L1-s2"[3] <-> "h10 mlx4_0"[1]',  # SDR, h10's only link
    '"r0-L1-s1"[2] <-> "h5 mlx4_0"[1]',  # corrupt packets, h5's only link
]


def rdmasim_cli(*args):
    return subprocess.run([sys.executable, "-m", "rdmasim", *map(str, args)], capture_output=True, text=True, timeout=120)


def test_json_names_every_planted_link_ranked_by_gain_and_the_plan():
    p = rdmasim_cli("doctor", *INPUTS, "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert sorted(s["label"] for s in out["diagnosis"]["suspects"]) == sorted(PLANTED)
    cost = out["cost"]
    assert [s["label"] for s in cost["suspects"]] == PLANTED
    gains = [s["gain_gbps"] for s in cost["suspects"]]
    assert gains == sorted(gains, reverse=True)
    assert [s["label"] for s in cost["plan"]] == PLANTED[:1]
    assert cost["after_plan_gbps"] == pytest.approx(8.0), "h10's 4X SDR link: 8 Gb/s"
    assert (cost["patterns"], cost["routed_by"], len(cost["kept"])) == (20, "minhop", 20)


def test_table_and_plot(tmp_path):
    plot = tmp_path / "injection.png"
    p = rdmasim_cli("doctor", *INPUTS, "--plot", plot)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "6 suspect link(s) of 32 (counters over 600 s)"
    assert "kept Gb/s" in lines[2] and "disabled Gb/s" in lines[2] and "gain" in lines[2]
    assert PLANTED[0] in lines[3] and "1X QDR, expected 4X QDR" in lines[3]
    assert 'disable first: "r0-L1-s1"[6] <-> "r0-L2-s1"[2]' in p.stdout
    assert 'disabling cuts off "h10 mlx4_0"[1]' in p.stdout
    assert plot.stat().st_size > 1000 and f"wrote {plot}" in p.stdout


def test_ibqueryerrors_snapshots_and_alltoall_find_the_same_links():
    p = rdmasim_cli("doctor", *DESIGN, "--linkinfo", DATA / "iblinkinfo-l.txt", "--counters", DATA / "ibqueryerrors-before.txt",
                    "--counters", DATA / "ibqueryerrors-after.txt", "--interval", "600", "--workload", "alltoall", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert sorted(s["label"] for s in out["cost"]["suspects"]) == sorted(PLANTED)
    assert out["cost"]["patterns"] == 15


@pytest.mark.parametrize("args, words", [
    (["--linkinfo", "missing.txt"], "rdmasim: error: --linkinfo missing.txt: no such file"),
    (["--counters", DATA / "perfquery-before.txt", "--counters", DATA / "perfquery-after.txt"], "expected --interval S"),
    (["--counters", DATA / "perfquery-before.txt", "--counters", DATA / "perfquery-after.txt", "--interval", "0"], "--interval 0.0: expected"),
    (["--route", "nosuch"], 'unknown routing engine "nosuch"'),
])
def test_bad_flags_exit_2_in_one_line(args, words):
    p = rdmasim_cli("doctor", *DESIGN, *args)
    assert p.returncode == 2, p.stdout
    assert words in p.stderr and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr


def test_a_bad_file_names_its_line(tmp_path):
    bad = tmp_path / "perfquery-after.txt"
    bad.write_text((DATA / "perfquery-after.txt").read_text().replace("SymbolErrorCounter:..............0", "SymbolErrorCounter:..............lots", 1))
    p = rdmasim_cli("doctor", *DESIGN, "--counters", DATA / "perfquery-before.txt", "--counters", bad, "--interval", "600")
    assert p.returncode == 2
    assert p.stderr.strip() == f'rdmasim: error: doctor: {bad}:4: SymbolErrorCounter "lots": expected a decimal count', p.stderr
    p = rdmasim_cli("doctor", "--topology", DATA / "perfquery-after.txt")
    assert p.returncode == 2 and f"{DATA / 'perfquery-after.txt'}:2:" in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_iblinkinfo_is_a_topology_and_counters_alone_rank_ports():
    # iblinkinfo describes every link with both ends: the doctor takes it as the topology.
    p = rdmasim_cli("doctor", "--topology", DATA / "iblinkinfo.txt", "--no-cost")
    assert p.returncode == 0 and "suspect link(s) of 32" in p.stdout, p.stdout + p.stderr
    # Counters with no topology: the ports ranked, the cost refused without --no-cost.
    p = rdmasim_cli("doctor", "--counters", DATA / "ibqueryerrors-after.txt", "--no-cost", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["diagnosis"] is None and len(out["ports"]["erroring"]) > 0
    p = rdmasim_cli("doctor", "--counters", DATA / "ibqueryerrors-after.txt")
    assert p.returncode == 2 and "add --no-cost" in p.stderr, p.stderr


def test_a_replayed_mpi_trace_is_costed_on_the_packet_engine(tmp_path):
    # 8 ranks on h0..h7 exchange 2 MB with the rank 4 on (the other leaf): the 1x link is on the
    # way, h5's link is its only one (tests/doctor_cost.rs has the same case in Rust).
    for r in range(8):
        peer = (r + 4) % 8
        (tmp_path / f"rank.{r}.trace").write_text(
            f"#rdmasim-mpi-trace v1 rank={r} size=8 lib=test\ninit start=0 end=0 cpu=0\n"
            f"sendrecv start=0 end=0 cpu=0 peer={peer} bytes=2000000 tag=1 src={peer} rbytes=2000000 rtag=1\n"
            "finalize start=0 end=0 cpu=0\n")
    p = rdmasim_cli("doctor", *INPUTS, "--workload", "mpi-trace", "--trace", tmp_path, "--json")
    assert p.returncode == 0, p.stderr
    cost = json.loads(p.stdout)["cost"]
    assert (cost["patterns"], cost["flows_per_pattern"]) == (1, 8)
    first = cost["plan"][0]
    assert first["label"] == PLANTED[0] and first["gbps"] > 1.5 * cost["kept_gbps"], cost["plan"]
    h5 = next(s for s in cost["suspects"] if "h5 mlx4_0" in s["label"])
    assert h5["disabled_gbps"] == 0.0 and h5["unroutable_flows"] == 1
    p = rdmasim_cli("doctor", *INPUTS, "--workload", "mpi-trace")
    assert p.returncode == 2 and "--trace DIR" in p.stderr, p.stderr
