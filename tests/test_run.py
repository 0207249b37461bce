"""Running scenarios from Python: results, tables, files, determinism, progress, interrupts."""
from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys

import pandas as pd
import pytest

import rdmasim
from rdmasim.runner import RunInterrupted

from conftest import files_in


def test_run_from_a_dict_reports_one_perftest_row(write_bw):
    res = rdmasim.run(write_bw)
    assert res.finished and res.stop_reason
    assert res.profile == "cx4-edr" and res.seed == 3 and res.name == "write_bw small"
    assert res.events > 0 and res.sim_time_us > 0
    pt = res.perftest
    assert len(pt) == 1
    row = pt.iloc[0]
    assert row["bytes"] == 65536 and row["iterations"] == 200
    assert 0 < row["bw_avg_MBps"] <= row["bw_peak_MBps"]
    assert row["msg_rate_Mpps"] > 0
    # 100 Gb/s is 11920.9 MB/s in perftest's MB (2^20 B): nothing can beat the wire.
    assert row["bw_peak_MBps"] < 100e9 / 8 / 2**20


def test_run_from_a_toml_file_and_from_its_text_agree(write_bw_toml):
    by_path = rdmasim.run(write_bw_toml)
    by_text = rdmasim.run(write_bw_toml.read_text())
    assert by_path.summary == by_text.summary
    assert by_path.name == "write_bw 64KiB x200" and by_path.seed == 7
    pd.testing.assert_frame_equal(by_path.perftest, by_text.perftest)
    assert len(by_path.perftest) == 1


def test_results_carry_port_and_hca_counters_with_their_real_names(write_bw):
    res = rdmasim.run(write_bw)
    names = set(res.ports.columns) | set(res.ports.get("counter", pd.Series(dtype=str)))
    assert {"PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts"} <= names
    hca = set(res.hca_counters.columns) | set(res.hca_counters.get("counter", pd.Series(dtype=str)))
    assert {"local_ack_timeout_err", "out_of_sequence", "packet_seq_err"} <= hca


def test_latency_tests_report_ordered_statistics():
    res = rdmasim.run({
        "hardware": {"profile": "cx4-edr"},
        "workload": {"kind": "perftest", "test": "ib_write_lat", "size": 2, "iters": 200},
    })
    r = res.perftest.iloc[0]
    assert r["bytes"] == 2 and r["iterations"] == 200
    assert 0 < r["t_min_us"] <= r["t_typical_us"] <= r["t_max_us"]
    assert r["t_typical_us"] <= r["p99_us"] <= r["p99_9_us"] <= r["t_max_us"]
    assert r["t_stdev_us"] >= 0


def test_summary_has_the_run_level_facts(write_bw):
    s = rdmasim.run(write_bw).summary
    assert set(s) >= {"name", "seed", "profile", "finished", "stop_reason", "sim_time_us", "events",
                      "interrupted", "tables"}
    assert s["interrupted"] is False
    json.dumps(s)  # plain JSON


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_write_produces_summary_and_one_file_per_table_that_read_back(write_bw, tmp_path, fmt):
    res = rdmasim.run(write_bw)
    written = res.write(tmp_path / "out", format=fmt)
    names = {p.name for p in written}
    assert "summary.json" in names
    assert f"perftest.{fmt}" in names
    assert names == {p.name for p in (tmp_path / "out").iterdir()}
    assert {f"{t}.{fmt}" for t in res.tables} <= names
    assert json.loads((tmp_path / "out" / "summary.json").read_text()) == res.summary
    back = rdmasim.Result.read(tmp_path / "out")
    assert back.summary == res.summary
    for name, df in res.tables.items():
        if fmt == "parquet":
            pd.testing.assert_frame_equal(back.tables[name], df)
        else:  # CSV has no types: what reads back writes back to the very same text
            assert back.tables[name].to_csv(index=False) == (tmp_path / "out" / f"{name}.csv").read_text()


def test_write_rejects_unknown_formats(write_bw, tmp_path):
    with pytest.raises(ValueError):
        rdmasim.run(write_bw).write(tmp_path, format="xlsx")


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_the_same_scenario_twice_gives_byte_identical_files(write_bw, tmp_path, fmt):
    rdmasim.run(write_bw).write(tmp_path / "a", format=fmt)
    rdmasim.run(write_bw).write(tmp_path / "b", format=fmt)
    a, b = files_in(tmp_path / "a"), files_in(tmp_path / "b")
    assert f"perftest.{fmt}" in a
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == b[name], f"{name} differs between two runs of the same scenario"


def test_a_different_seed_is_still_a_valid_run(write_bw):
    write_bw["seed"] = 99
    res = rdmasim.run(write_bw)
    assert res.seed == 99 and res.finished


def test_progress_callback_sees_fractions_up_to_one(write_bw):
    seen = []
    rdmasim.run(write_bw, progress=seen.append, max_events_per_step=500)
    assert seen and seen[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in seen)
    assert seen == sorted(seen)


def test_progress_bar_runs_without_a_terminal(write_bw, capsys):
    res = rdmasim.run(write_bw, progress=True)
    assert res.finished


def test_max_events_per_step_must_be_positive(write_bw):
    with pytest.raises(ValueError):
        rdmasim.run(write_bw, max_events_per_step=0)


@pytest.mark.parametrize("n,error,message", [
    (2**70, ValueError, "max_events_per_step = 1180591620717411303424 is out of range; expected 1..=18446744073709551615"),
    (2.5, TypeError, "max_events_per_step must be an integer, not float (2.5)"),
    (True, TypeError, "max_events_per_step must be an integer, not bool (True)"),
], ids=["2**70", "float", "bool"])
def test_max_events_per_step_out_of_the_cores_range_is_named(write_bw, n, error, message):
    with pytest.raises(error) as info:
        rdmasim.run(write_bw, max_events_per_step=n)
    assert str(info.value).startswith(message)


def test_max_events_per_step_takes_the_largest_u64_and_other_integer_types(write_bw):
    assert rdmasim.run(write_bw, max_events_per_step=2**64 - 1).finished
    np = pytest.importorskip("numpy")
    assert rdmasim.run(write_bw, max_events_per_step=np.int64(1000)).finished


def test_ctrl_c_keeps_what_was_computed(write_bw):
    def interrupt(_frac):
        raise KeyboardInterrupt

    with pytest.raises(RunInterrupted) as info:
        rdmasim.run(write_bw, progress=interrupt)
    assert isinstance(info.value, KeyboardInterrupt)
    res = info.value.result
    assert res.interrupted and not res.finished and res.stop_reason == "interrupted"
    assert res.summary["interrupted"] is True
    assert res.summary["stop_reason"] == "interrupted" and res.summary["finished"] is False


def test_a_limit_stops_the_run_and_flags_the_result(write_bw):
    write_bw["limits"] = {"max_events": 50}
    res = rdmasim.run(write_bw)
    assert not res.finished
    assert res.stop_reason != "completed"
    assert 0 < res.events <= 50


def test_a_capture_is_a_pcap_that_tshark_reads(write_bw, tmp_path):
    write_bw["workload"]["iters"] = 5
    write_bw["output"] = {"capture": True}
    res = rdmasim.run(write_bw)
    assert res.pcap is not None
    magic = struct.unpack("<I", res.pcap[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D)
    res.write(tmp_path)
    assert (tmp_path / "capture.pcap").read_bytes() == res.pcap
    if shutil.which("tshark") is None:
        pytest.skip("tshark not installed")
    out = subprocess.run(["tshark", "-r", str(tmp_path / "capture.pcap"), "-c", "5"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "RoCE" in out.stdout or "InfiniBand" in out.stdout


def test_a_capture_is_handed_over_and_streamed_to_its_file_after_the_tables(write_bw, tmp_path):
    """The run hands the captured packets over instead of copying the pcap: ``write`` writes the
    summary and tables first, then streams the capture to its file without making the bytes;
    ``pcap`` makes them (once) only when read."""
    write_bw["workload"]["iters"] = 5
    write_bw["output"] = {"capture": True}
    res = rdmasim.run(write_bw)
    size = res.capture_bytes
    assert size and res.summary["capture_bytes"] == size and res._pcap is None
    res.write(tmp_path)
    assert res._pcap is None, "writing streamed the capture; it did not make the bytes"
    assert (tmp_path / "capture.pcap").stat().st_size == size
    assert (tmp_path / "capture.pcap").read_bytes() == res.pcap and len(res.pcap) == size


def test_a_capture_that_cannot_be_written_loses_no_table(write_bw, tmp_path):
    write_bw["workload"]["iters"] = 5
    write_bw["output"] = {"capture": True}
    res = rdmasim.run(write_bw)

    class Full:
        nbytes = res.capture_bytes

        def write(self, path):
            raise OSError(28, "No space left on device")

    res._capture = Full()
    with pytest.raises(OSError):
        res.write(tmp_path)
    assert json.loads((tmp_path / "summary.json").read_text())["capture_bytes"] == Full.nbytes
    assert (tmp_path / "perftest.csv").exists() and (tmp_path / "run.csv").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc and RLIMIT_AS")
def test_a_capture_larger_than_the_memory_left_is_written_with_the_tables(tmp_path):
    """QA F9: a capture of 131 k full frames (0.55 GB) under an address-space limit of what the
    same run needs with a 10-packet capture plus 200 MB. The capture used to be built whole in
    memory and copied into a Python bytes object (peak address space +0.55 GB, resident +1.1
    GB, measured): past the limit the allocation failed, the process aborted (exit 134) and no
    file was written, tables included. Now it is streamed to its file (+10 MB)."""
    import resource

    probe = ("import runpy, sys\nsys.argv = ['rdmasim'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('rdmasim', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "print([l for l in open('/proc/self/status') if l.startswith('VmPeak')][0].split()[1], file=sys.stderr)\n")
    small = tmp_path / "small.toml"
    small.write_text('[hardware]\nprofile = "cx4-edr"\n[workload]\nkind = "perftest"\ntest = "ib_write_bw"\n'
                     'size = 268435456\niters = 2\n[output]\ncapture = true\ncapture_max_packets = 10\n')
    base = subprocess.run([sys.executable, "-c", probe, "run", str(small), "-o", str(tmp_path / "small"), "--quiet"],
                          capture_output=True, text=True, timeout=300)
    assert base.returncode == 0, base.stderr
    limit = (int(base.stderr.split()[-1]) + 200_000) * 1024
    big = tmp_path / "big.toml"
    big.write_text(small.read_text().replace("capture_max_packets = 10", "capture_max_packets = 1000000"))
    out = tmp_path / "big"
    r = subprocess.run([sys.executable, "-m", "rdmasim", "run", str(big), "-o", str(out), "--quiet"],
                       capture_output=True, text=True, timeout=600,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    assert r.returncode == 0, r.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["finished"] and (out / "perftest.csv").exists()
    assert (out / "capture.pcap").stat().st_size == summary["capture_bytes"] > 500_000_000


def test_no_capture_unless_asked(write_bw, tmp_path):
    res = rdmasim.run(write_bw)
    assert res.pcap is None
    res.write(tmp_path)
    assert not (tmp_path / "capture.pcap").exists()


def test_the_simulation_can_be_stepped_by_hand(write_bw_toml):
    sim = rdmasim.simulation(write_bw_toml)
    assert sim.source == str(write_bw_toml)
    steps = 0
    while not sim.step(1000):
        steps += 1
        assert steps < 1_000_000
    assert sim.progress() == 1.0
    assert json.loads(sim.result_json())["finished"] is True
