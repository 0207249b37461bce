"""The rdmasim command: perftest layout, JSON output, exit codes, files written."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rdmasim import perftest as pt
from rdmasim.cli import main
from rdmasim.reproduce import ROW_KEYS, row, studies
from rdmasim.reproduce._checks import Within


def rdmasim(*args, timeout=300):
    """Runs `python -m rdmasim ...` as a user would, returning the completed process."""
    return subprocess.run([sys.executable, "-m", "rdmasim", *args], capture_output=True, text=True, timeout=timeout)


def test_perftest_bw_prints_perftests_header_and_column_line():
    p = rdmasim("perftest", "ib_write_bw", "-s", "65536", "-n", "100")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert "RDMA_Write BW Test" in p.stdout
    assert pt.RESULT_FMT in lines
    assert lines[-1] == pt.RESULT_LINE


def test_perftest_bw_prints_one_row_per_size_under_the_header():
    p = rdmasim("perftest", "ib_write_bw", "-s", "64K", "-n", "100")
    lines = p.stdout.splitlines()
    rows = lines[lines.index(pt.RESULT_FMT) + 1:-1]
    assert len(rows) == 1
    fields = rows[0].split()
    assert fields[:2] == ["65536", "100"]
    assert 0 < float(fields[3]) <= float(fields[2])


def test_perftest_gbits_and_latency_headers():
    assert pt.RESULT_FMT_G in rdmasim("perftest", "ib_read_bw", "-n", "20", "--report_gbits").stdout.splitlines()
    p = rdmasim("perftest", "ib_send_lat", "-n", "50")
    assert p.returncode == 0, p.stderr
    assert pt.RESULT_FMT_LAT in p.stdout.splitlines()
    assert "Send Latency Test" in p.stdout


def test_perftest_json_is_the_rows():
    p = rdmasim("perftest", "ib_read_lat", "-n", "50", "--json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert isinstance(rows, list)
    assert len(rows) == 1
    assert rows[0]["bytes"] == 2 and rows[0]["iterations"] == 50
    assert {"t_min_us", "t_typical_us", "p99_us", "p99_9_us"} <= set(rows[0])


def test_perftest_all_sizes_reports_every_power_of_two():
    rows = json.loads(rdmasim("perftest", "ib_write_bw", "-a", "-n", "5", "--json").stdout)
    assert [r["bytes"] for r in rows] == [2 ** k for k in range(1, 24)]


def test_perftest_rejects_unknown_tests_and_bad_sizes():
    assert rdmasim("perftest", "ib_atomic_bw").returncode == 2
    assert rdmasim("perftest", "ib_write_bw", "-s", "lots").returncode == 2


def test_a_bad_scenario_exits_2_naming_file_and_key_without_traceback(bad_toml, tmp_path):
    p = rdmasim("run", str(bad_toml), "-o", str(tmp_path / "out"), "--quiet")
    assert p.returncode == 2
    assert str(bad_toml) in p.stderr and "qp.timeout" in p.stderr and ":12:" in p.stderr
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "out").exists()
    v = rdmasim("validate", str(bad_toml))
    assert v.returncode == 2 and "qp.timeout" in v.stderr and "Traceback" not in v.stderr


def test_perftest_names_the_flag_of_a_bad_value_before_any_report(capsys):
    assert main(["perftest", "ib_write_bw", "-s", "0"]) == 2
    assert main(["perftest", "ib_write_lat", "-q", "2"]) == 2
    assert main(["perftest", "ib_write_bw", "-e"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no perftest header for a run that cannot start
    assert "ib_write_bw -s/--size: size = 0 is out of range; expected 1..=2147483648 bytes" in err
    assert "ib_write_lat -q/--qp: ib_write_lat uses one QP" in err
    assert 'ib_write_bw -e/--events: ib_write_bw cannot wait for completion events: perftest rejects -e for WRITE tests ("Events feature not available on WRITE verb")' in err


def test_a_directory_given_as_scenario_or_trace_output_is_named(tmp_path, capsys):
    a_file = tmp_path / "f"
    a_file.write_text("")
    assert main(["run", str(tmp_path)]) == 2
    assert main(["trace", "-n", "2", "-o", str(a_file), "--", "true"]) == 2
    err = capsys.readouterr().err
    assert f"cannot read scenario {tmp_path}: it is a directory, expected a TOML file" in err
    assert f"cannot write traces to {a_file}: it is a file, not a directory" in err


def test_a_scenario_that_is_not_utf8_names_the_line_and_byte(write_bw_toml, tmp_path, capsys):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(write_bw_toml.read_bytes() + b"# caf\xe9\n")
    lines = write_bw_toml.read_bytes().count(b"\n")
    for cmd in (["validate", str(bad)], ["run", str(bad), "-o", str(tmp_path / "o"), "--quiet"]):
        assert main(cmd) == 2
        err = capsys.readouterr().err
        assert f"latin1.toml:{lines + 1}: byte 0xe9 at column 6 is not UTF-8 text" in err and "Traceback" not in err


def test_validate_and_run_agree_on_a_scenario_with_a_byte_order_mark(write_bw_toml, tmp_path, capsys):
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + write_bw_toml.read_bytes())
    assert main(["validate", str(bom)]) == 0
    assert main(["run", str(bom), "-o", str(tmp_path / "o"), "--quiet"]) == 0


def test_a_scenario_path_that_is_not_a_readable_file_is_named(tmp_path, capsys):
    assert main(["validate", "/dev/null"]) == 2
    assert main(["validate", "a" * 5000 + ".toml"]) == 2
    err = capsys.readouterr().err
    assert "cannot read scenario /dev/null: not a regular file" in err
    assert "File name too long" in err and "Traceback" not in err


def test_a_missing_scenario_file_exits_2(tmp_path):
    p = rdmasim("run", str(tmp_path / "nope.toml"))
    assert p.returncode == 2 and "nope.toml" in p.stderr and "Traceback" not in p.stderr


def test_validate_accepts_a_good_scenario(write_bw_toml, capsys):
    assert main(["validate", str(write_bw_toml)]) == 0
    assert "ok" in capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_run_writes_results_and_prints_a_summary(write_bw_toml, tmp_path, capsys, fmt):
    out = tmp_path / "res"
    assert main(["run", str(write_bw_toml), "-o", str(out), "--format", fmt, "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "cx4-edr" in text and str(out) in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["finished"] is True
    assert (out / f"perftest.{fmt}").exists()
    assert pt.RESULT_FMT in text.splitlines()


def test_run_that_hits_a_limit_still_writes_and_says_so(tmp_path, capsys):
    sc = tmp_path / "limited.toml"
    sc.write_text('[hardware]\nprofile = "cx4-edr"\n[workload]\nkind = "perftest"\ntest = "ib_write_bw"\n'
                  '[limits]\nmax_events = 100\n')
    assert main(["run", str(sc), "-o", str(tmp_path / "o"), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "partial" in captured.err
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["finished"] is False


def test_an_output_path_that_cannot_hold_results_is_refused_before_the_run(write_bw_toml, tmp_path, capsys):
    a_file = tmp_path / "results"
    a_file.write_text("not a directory")
    assert main(["run", str(write_bw_toml), "-o", str(a_file), "--quiet"]) == 2
    assert main(["run", str(write_bw_toml), "-o", str(a_file / "sub"), "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # nothing was run
    assert f"cannot write results to {a_file}: it is a file, not a directory" in err
    assert f"cannot write results to {a_file / 'sub'}: " in err and "Traceback" not in err


def test_results_that_cannot_be_written_after_the_run_go_to_a_temporary_directory(write_bw_toml, tmp_path,
                                                                                  monkeypatch, capsys):
    from rdmasim.result import Result

    real_write = Result.write
    out = tmp_path / "o"

    def write_fails_in_out(self, directory, format="csv"):
        if Path(directory) == out:  # e.g. the disk filled up during the run
            raise OSError(28, "No space left on device")
        return real_write(self, directory, format=format)

    monkeypatch.setattr(Result, "write", write_fails_in_out)
    assert main(["run", str(write_bw_toml), "-o", str(out), "--quiet"]) == 3
    stdout, err = capsys.readouterr()
    assert f"cannot write results to {out}: No space left on device; writing them to " in err
    fallback = Path(err.split("writing them to ")[1].split(" instead")[0])
    assert f"files to {fallback}" in stdout
    saved = Result.read(fallback)
    assert saved.finished and len(saved.tables["perftest"]) > 0


def test_a_plot_that_cannot_be_written_is_skipped_with_a_warning(tmp_path, capsys):
    from rdmasim.plots import pyplot, save

    plt = pyplot()
    if plt is None:
        pytest.skip("matplotlib not installed")
    a_file = tmp_path / "plots"
    a_file.write_text("not a directory")
    fig, _ = plt.subplots()
    assert save(fig, a_file / "fig.png") is None
    assert f"cannot write {a_file / 'fig.png'}: {a_file} is a file, not a directory; skipped" in capsys.readouterr().err
    assert save(plt.subplots()[0], tmp_path / "ok" / "fig.png") == tmp_path / "ok" / "fig.png"
    assert (tmp_path / "ok" / "fig.png").stat().st_size > 0


def test_profiles_lists_parameters_with_values_and_sources(capsys):
    assert main(["profiles", "cx4-edr"]) == 0
    out = capsys.readouterr().out
    assert "profile cx4-edr" in out and "link_gen" in out and "edr" in out and "IBTA" in out
    assert main(["profiles", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["profile"] for r in rows} >= {"cx3-fdr", "cx4-edr", "cx5-edr"}
    assert set(rows[0]) == {"profile", "parameter", "part", "value", "overridden", "source", "doc"}
    # The named hosts come after the profiles, each parameter with its source.
    hosts = [r for r in rows if r["profile"] is None]
    assert hosts and rows[-len(hosts):] == hosts and {r["host"] for r in hosts} >= {"cloudlab-r320", "umich-conflux"}
    assert set(hosts[0]) == {"profile", "host", "about", "parameter", "part", "value", "source", "doc"}
    assert main(["profiles", "cloudlab-r320"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("host cloudlab-r320: ") and "sandybridge" in out and "CONFIG_HZ=250" in out and "profile " not in out
    assert main(["profiles", "nope"]) == 2


def test_reproduce_registry_has_the_perftest_study():
    assert "perftest" in studies()
    assert list(studies())[0] == "perftest"


def test_reproduce_perftest_json_rows_have_exactly_the_row_keys(tmp_path):
    p = rdmasim("reproduce", "perftest", "--json", "-o", str(tmp_path))
    rows = json.loads(p.stdout)
    assert [r["id"] for r in rows] == ["P1a", "P1b", "P1c", "P2"]
    for r in rows:
        assert tuple(r) == ROW_KEYS
        assert isinstance(r["ok"], bool)


def test_reproduce_perftest_rows_are_ok(tmp_path):
    p = rdmasim("reproduce", "perftest", "--json", "-o", str(tmp_path))
    rows = json.loads(p.stdout)
    assert all(r["ok"] for r in rows), rows
    assert p.returncode == 0


def test_ctrl_c_during_reproduce_all_still_writes_the_studies_done(monkeypatch, capsys, tmp_path):
    import rdmasim.reproduce as reproduce

    done = []

    def fake_run_study(name, progress=False):
        if name == "odp":  # the second study: Ctrl-C while it runs
            raise KeyboardInterrupt
        done.append(name)
        return [row(name.upper(), "m", 1.0, 1.0, "x", Within(1.0, 0.1))]

    monkeypatch.setattr(reproduce, "run_study", fake_run_study)
    assert main(["reproduce", "all", "--json", "-o", str(tmp_path)]) == 130
    out, err = capsys.readouterr()
    assert done == ["perftest"]
    assert "PERFTEST" in (tmp_path / "rows.csv").read_text()  # the rows file has the finished study
    assert list(json.loads(out)) == ["perftest"]  # valid JSON with the finished study
    names = list(studies())
    assert f"interrupted during study 'odp'; complete: perftest; not run: {', '.join(names[2:])}" in err


def test_a_study_that_fails_keeps_the_other_studies_rows(monkeypatch, capsys, tmp_path):
    import rdmasim.reproduce as reproduce

    def fake_run_study(name, progress=False):
        if name == "odp":  # the second study fails with an error, not an interrupt
            raise RuntimeError("case 7 did not complete")
        return [row(name.upper(), "m", 1.0, 1.0, "x", Within(1.0, 0.1))]

    monkeypatch.setattr(reproduce, "run_study", fake_run_study)
    assert main(["reproduce", "all", "--json", "-o", str(tmp_path)]) == 4
    out, err = capsys.readouterr()
    names = list(studies())
    assert list(json.loads(out)) == [n for n in names if n != "odp"]  # the later studies ran too
    assert "study 'odp' failed: RuntimeError: case 7 did not complete" in err and "Traceback" not in err


@pytest.mark.parametrize("var, value, named", [
    ("RDMASIM_ISOLATION_MICE", "abc", "RDMASIM_ISOLATION_MICE='abc': expected an integer >= 1"),
    ("RDMASIM_ISOLATION_KV", "0", "RDMASIM_ISOLATION_KV='0': expected an integer >= 1"),
    ("RDMASIM_ISOLATION_KV_PIPELINE", "yes", "RDMASIM_ISOLATION_KV_PIPELINE='yes': expected 1 (on) or 0 (off)"),
    ("RDMASIM_ISOLATION_TICK_HZ", "nan", "RDMASIM_ISOLATION_TICK_HZ='nan': expected a finite number >= 0"),
    # In range for the reader, rejected by the core: named as the variable all the same.
    ("RDMASIM_ISOLATION_KV_WINDOW", "100000", "RDMASIM_ISOLATION_KV_WINDOW='100000': the isolation cases they make are rejected: key `workload.kv.window`"),
])
def test_a_bad_study_variable_is_named_before_any_study_runs(monkeypatch, capsys, tmp_path, var, value, named):
    import rdmasim.reproduce as reproduce
    from rdmasim.reproduce import _isolation_settings as settings

    ran = []
    monkeypatch.setattr(reproduce, "run_study", lambda name, progress=False: ran.append(name) or [])
    monkeypatch.setenv(var, value)
    assert main(["reproduce", "all", "--json"]) == 2
    assert ran == []
    assert named in capsys.readouterr().err
    # Another study alone does not read the variable, so it is not stopped by it.
    assert main(["reproduce", "perftest", "--json", "-o", str(tmp_path)]) == 0 and ran == ["perftest"]
    # The check changed none of the study's settings.
    assert (settings.MOUSE_MESSAGES, settings.KV_REQUESTS, settings.HERD_WINDOW, settings.TICK_HZ_OVERRIDE,
            settings.TICK_ENTRY_EXIT_NS_OVERRIDE) == (1_000_000, 300_000, 4, None, None)


def test_reproduce_unknown_study_exits_2():
    p = rdmasim("reproduce", "nope")
    assert p.returncode == 2 and "perftest" in p.stderr


def test_bench_json_reports_speed():
    p = rdmasim("bench", "--json", "-n", "1", "--case", "perftest", "--case", "many_qps")
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    # Only the cases asked for run.
    assert not any(k.startswith(("fat_tree", "ebb", "routing", "flow", "import")) for k in report), report
    assert {"events_per_sec", "packet_hops_per_sec", "wall_s", "workload"} <= set(report)
    assert report["events_per_sec"] > 0 and report["packet_hops_per_sec"] > 0
    # The 4096-QP workload stops at its event limit: the same count on every machine.
    assert report["many_qps_events"] == 100000 and report["many_qps_events_per_sec"] > 0


def test_bench_names_the_cases_when_one_is_unknown():
    p = rdmasim("bench", "--case", "fat_tree_k64")
    assert p.returncode == 2 and "fat_tree_k64" in p.stderr and "fat_tree_k32" in p.stderr, p.stderr


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert "rdmasim" in capsys.readouterr().out


EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "scenarios").glob("*.toml"))


@pytest.mark.skipif(not EXAMPLES, reason="no example scenarios in this checkout")
def test_every_example_scenario_validates(capsys):
    for path in EXAMPLES:
        assert main(["validate", str(path)]) == 0, capsys.readouterr().err


def test_run_status_says_when_work_requests_failed(tmp_path):
    # READ 1 fails (rnr_retry = 0 against the responder's ODP fault); READ 2, posted to the QP
    # in error, is flushed: the run completes, and its status line says two WRs did not succeed.
    scenario = tmp_path / "err.toml"
    scenario.write_text('[hardware]\nprofile = "cx4-edr"\n[qp]\nrnr_retry = 0\n'
                        '[workload]\nkind = "odp-reads"\nreads = 2\ninterval_us = 3000.0\n')
    p = rdmasim("run", str(scenario), "-o", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr
    assert "status   : completed, with 2 work requests completed in error or flushed" in p.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["finished"] is True and summary["error_completions"] == 2


def test_a_real_perftest_command_line_runs_with_machine_flags_noted(capsys):
    # As typed on a real client: device, GID index, CPU-frequency check, the server's address last.
    assert main(["perftest", "ib_write_bw", "-d", "mlx5_0", "-x", "3", "-F", "-s", "64K", "-n", "50",
                 "-q", "2", "10.0.0.1"]) == 0
    out, err = capsys.readouterr()
    assert "rdmasim: ignoring -d mlx5_0, -x 3, -F, 10.0.0.1: the simulated hosts are cabled back to back" in err
    row = [l for l in out.splitlines() if l.startswith(" 65536")]
    assert len(row) == 1 and row[0].split()[1] == "100"  # perftest's #iterations: all QPs' (50 x 2)
    assert " TX depth        : 50" in out  # clamped to -n, as perftest does
    assert " CQ Moderation   : 1" in out


def test_perftest_flags_that_change_the_test_are_refused_by_name(capsys):
    assert main(["perftest", "ib_write_bw", "-l", "4"]) == 2
    assert main(["perftest", "ib_write_lat", "-Q", "10"]) == 2
    assert main(["perftest", "ib_send_bw", "-D", "10"]) == 2
    assert main(["perftest", "ib_write_bw", "-c", "UD"]) == 2
    assert main(["perftest", "ib_write_bw", "-r", "4"]) == 2
    assert main(["perftest", "ib_read_bw", "-o", "17"]) == 2
    assert main(["perftest", "ib_write_lat", "-n", "3"]) == 2
    assert main(["perftest", "ib_write_bw", "-t", "20000"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "ib_write_bw -l/--post_list: not modelled by the simulated perftest: one work request per post" in err
    assert "ib_write_lat -Q/--cq-mod: CQ moderation applies to BW tests only" in err
    assert "ib_send_bw -D/--duration: not modelled by the simulated perftest: runs are by iterations (-n)" in err
    assert "ib_write_bw -c/--connection UD: rdmasim models RC only" in err
    assert "ib_write_bw -r/--rx-depth: receive queue depth applies to SEND tests only" in err
    assert "ib_read_bw -o/--outs: max_rd_atomic = 17 is out of range; expected 1..=16" in err
    assert "ib_write_lat -n/--iters: 3 is outside perftest's range 5..100000000" in err
    assert "ib_write_bw -t/--tx-depth: 20000 is outside perftest's range 1..15000" in err


def test_perftest_rx_depth_and_outs_reach_the_scenario(capsys):
    # -r 1 with 64 SENDs in flight: the server runs out of receives and RNR-NAKs (the point of -r).
    assert main(["perftest", "ib_send_bw", "-r", "1", "-n", "200", "--json"]) == 0
    few = json.loads(capsys.readouterr().out)[0]
    assert main(["perftest", "ib_send_bw", "-n", "200", "--json"]) == 0
    many = json.loads(capsys.readouterr().out)[0]
    assert few["bw_avg_MBps"] < 0.5 * many["bw_avg_MBps"], (few, many)
    assert main(["perftest", "ib_read_bw", "-o", "1", "-s", "4096", "-n", "500", "--json"]) == 0
    one = json.loads(capsys.readouterr().out)[0]
    assert main(["perftest", "ib_read_bw", "-s", "4096", "-n", "500", "--json"]) == 0
    sixteen = json.loads(capsys.readouterr().out)[0]
    assert one["bw_avg_MBps"] < 0.5 * sixteen["bw_avg_MBps"], (one, sixteen)
