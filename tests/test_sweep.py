"""Sweeps: the grid's cartesian product on any executor, one table in grid order."""
from __future__ import annotations

import pickle
from pathlib import Path
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor

import pandas as pd
import pytest

import rdmasim
from rdmasim.sweep import grid_points, run_point

GRID = {"workload.size": [4096, 65536], "workload.iters": [50, 100]}


def test_grid_points_are_the_cartesian_product_last_key_fastest():
    assert grid_points(GRID) == [
        {"workload.size": 4096, "workload.iters": 50},
        {"workload.size": 4096, "workload.iters": 100},
        {"workload.size": 65536, "workload.iters": 50},
        {"workload.size": 65536, "workload.iters": 100},
    ]


def test_grid_values_must_be_lists():
    with pytest.raises(TypeError):
        grid_points({"workload.test": "ib_write_bw"})


def test_the_point_runner_pickles_for_process_pools_and_dask():
    assert pickle.loads(pickle.dumps(run_point)) is run_point


def test_sweep_summary_has_one_row_per_point_and_seed_in_grid_order(write_bw):
    df = rdmasim.sweep(write_bw, GRID, seeds=[5, 6], table="summary")
    assert list(df.columns[:3]) == ["workload.size", "workload.iters", "seed"]
    assert len(df) == 8
    assert list(df["workload.size"]) == [4096] * 4 + [65536] * 4
    assert list(df["workload.iters"]) == [50, 50, 100, 100] * 2
    assert list(df["seed"]) == [5, 6] * 4
    assert df["finished"].all()


def test_sweep_collects_the_perftest_rows_with_grid_columns(write_bw):
    df = rdmasim.sweep(write_bw, GRID)
    assert list(df.columns[:3]) == ["workload.size", "workload.iters", "seed"]
    assert len(df) == 4
    assert (df["bytes"] == df["workload.size"]).all()
    assert (df["iterations"] == df["workload.iters"]).all()
    assert (df["seed"] == write_bw["seed"]).all()
    assert (df["bw_avg_MBps"] > 0).all()


class ReverseExecutor:
    """Runs nothing until a result is asked for, then runs every job last-submitted-first:
    completion order is the reverse of submission order."""

    def __init__(self):
        self.jobs = []

    def submit(self, fn, *args):
        fut = Future()
        self.jobs.append((fut, fn, args))
        outer = self

        class _Lazy:
            def result(self_inner, timeout=None):
                outer._drain()
                return fut.result()

        return _Lazy()

    def _drain(self):
        while self.jobs:
            fut, fn, args = self.jobs.pop()
            fut.set_result(fn(*args))


def test_results_come_in_grid_order_whatever_the_completion_order(write_bw):
    df = rdmasim.sweep(write_bw, GRID, executor=ReverseExecutor(), table="summary")
    assert list(df["workload.size"]) == [4096, 4096, 65536, 65536]
    assert list(df["workload.iters"]) == [50, 100, 50, 100]


def _sequential(write_bw):
    return rdmasim.sweep(write_bw, GRID, seeds=[1, 2])


def test_thread_pool_gives_the_same_table_as_running_here(write_bw):
    expected = _sequential(write_bw)
    with ThreadPoolExecutor(max_workers=2) as pool:
        got = rdmasim.sweep(write_bw, GRID, executor=pool, seeds=[1, 2])
    pd.testing.assert_frame_equal(got, expected)
    assert len(got) == 8


def test_process_pool_gives_the_same_table_as_running_here(write_bw):
    expected = _sequential(write_bw)
    with ProcessPoolExecutor(max_workers=2) as pool:
        got = rdmasim.sweep(write_bw, GRID, executor=pool, seeds=[1, 2])
    pd.testing.assert_frame_equal(got, expected)
    assert len(got) == 8


def test_dask_client_gives_the_same_table_as_running_here(write_bw):
    distributed = pytest.importorskip("dask.distributed")
    expected = _sequential(write_bw)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        got = rdmasim.sweep(write_bw, GRID, executor=client, seeds=[1, 2])
    pd.testing.assert_frame_equal(got, expected)
    assert len(got) == 8


def test_a_bad_point_raises_the_scenario_error(write_bw):
    with ThreadPoolExecutor(max_workers=2) as pool:
        with pytest.raises(rdmasim.ScenarioError) as info:
            rdmasim.sweep(write_bw, {"hardware.profile": ["cx4-edr", "cx0-none"]}, executor=pool, table="summary")
    assert info.value.key == "hardware.profile" and info.value.source == "sweep point hardware.profile='cx0-none'"


def test_a_bad_value_late_in_the_grid_is_named_before_any_point_runs(write_bw, monkeypatch):
    import importlib

    sweep_module = importlib.import_module("rdmasim.sweep")  # `rdmasim.sweep` is the function

    ran = []
    monkeypatch.setattr(sweep_module, "run_point", lambda spec, table: ran.append(spec) or ({}, []))
    with pytest.raises(rdmasim.ScenarioError) as info:
        rdmasim.sweep(write_bw, {"workload.size": [4096, 65536, 0]})
    assert ran == []  # the first two points did not run only to be lost
    e = info.value
    assert e.source == "sweep point workload.size=0" and e.key == "workload.size"
    assert str(e).startswith("sweep point workload.size=0: key `workload.size`: size = 0 is out of range")


def _sweep_module():
    import importlib

    return importlib.import_module("rdmasim.sweep")  # `rdmasim.sweep` is the function


def test_ctrl_c_keeps_the_rows_of_the_runs_already_finished(write_bw, monkeypatch):
    sweep_module = _sweep_module()
    real = sweep_module.run_point
    calls = []

    def interrupt(_frac):
        raise KeyboardInterrupt

    def run_point(spec, table):
        calls.append(spec)
        if len(calls) == 3:  # Ctrl-C during the third run
            rdmasim.run(spec, progress=interrupt)
        return real(spec, table)

    monkeypatch.setattr(sweep_module, "run_point", run_point)
    sizes = {"workload.size": [4096, 65536, 1024, 2048]}
    with pytest.raises(rdmasim.SweepInterrupted) as info:
        rdmasim.sweep(write_bw, sizes)
    e = info.value
    assert isinstance(e, KeyboardInterrupt) and isinstance(e, rdmasim.RunInterrupted)
    assert (e.done, e.total) == (2, 4) and len(calls) == 3  # the fourth never started
    monkeypatch.setattr(sweep_module, "run_point", real)
    pd.testing.assert_frame_equal(e.table, rdmasim.sweep(write_bw, {"workload.size": [4096, 65536]}))
    assert e.result is not None and not e.result.finished and e.result.interrupted


class InterruptedWhileWaiting:
    """Job 0 is done, waiting for job 1 is interrupted (Ctrl-C in the main thread), job 2 is
    done already (out of order), job 3 is still queued."""

    def __init__(self):
        self.submitted = 0
        self.cancelled = []

    def submit(self, fn, *args):
        i, self.submitted = self.submitted, self.submitted + 1
        fut = Future()
        if i in (0, 2):
            fut.set_result(fn(*args))
        elif i == 1:
            fut.result = lambda timeout=None: (_ for _ in ()).throw(KeyboardInterrupt())
        else:
            fut.cancel = lambda: self.cancelled.append(i) or True
        return fut


def test_ctrl_c_with_an_executor_keeps_every_run_already_done_in_grid_order(write_bw):
    pool = InterruptedWhileWaiting()
    with pytest.raises(rdmasim.SweepInterrupted) as info:
        rdmasim.sweep(write_bw, {"workload.size": [4096, 65536, 1024, 2048]}, executor=pool, table="summary")
    e = info.value
    assert (e.done, e.total) == (2, 4) and e.result is None
    assert list(e.table["workload.size"]) == [4096, 1024] and e.table["finished"].all()
    assert pool.cancelled == [3]


def test_an_unknown_table_is_named_with_the_available_ones_before_any_run(write_bw, monkeypatch):
    sweep_module = _sweep_module()
    ran = []
    monkeypatch.setattr(sweep_module, "run_point", lambda spec, table: ran.append(spec) or ({}, []))
    for table in ("nope", "flows"):  # a typo; a table of another workload kind
        with pytest.raises(ValueError) as info:
            rdmasim.sweep(write_bw, {"workload.size": [4096]}, table=table)
        assert str(info.value) == (f"table {table!r} is not a table of this sweep's runs; available: "
                                   "hca_counters, host_cpu, latency, perftest, ports, qps, run, summary")
    assert ran == []
    rdmasim.sweep(write_bw, {"workload.size": [4096]}, table="ports")  # a real one still runs
    assert len(ran) == 1


@pytest.mark.parametrize("seeds,message", [
    ([1, 2**63], "sweep seeds[1]: key `seed`: seed = 9223372036854775808 is out of range; expected 0..=9223372036854775807"),
    ([-1], "sweep seeds[0]: key `seed`: seed = -1 is out of range; expected 0..=9223372036854775807"),
    (["x"], "sweep seeds[0]: key `seed`: expected an integer 0..=9223372036854775807; found str 'x'"),
], ids=["2**63", "negative", "string"])
def test_a_bad_seed_is_named_by_its_position_in_seeds(write_bw, seeds, message):
    with pytest.raises(rdmasim.ScenarioError) as info:
        rdmasim.sweep(write_bw, {"workload.size": [4096]}, seeds=seeds)
    assert str(info.value).startswith(message), str(info.value)


def test_the_largest_seed_docs_scenario_md_gives_runs(write_bw):
    np = pytest.importorskip("numpy")
    df = rdmasim.sweep(write_bw, {"workload.iters": [10]}, seeds=[np.uint64(2**63 - 1)], table="summary")
    assert list(df["seed"]) == [2**63 - 1] and df["finished"].all()


def test_a_sweep_keeps_relative_fabric_paths_relative_to_the_scenario_file(tmp_path, monkeypatch):
    # The scenario imports a fabric by a path relative to its own directory; the sweep runs
    # from elsewhere and must still find it (a dict built from the file loses its directory).
    fixtures = Path(__file__).resolve().parents[1] / "crates/rdmasim-core/tests/data/fabric"
    d = tmp_path / "study"
    (d / "fabric").mkdir(parents=True)
    for name in ("ibnetdiscover.txt", "opensm-lfts.dump"):
        (d / "fabric" / name).write_text((fixtures / name).read_text())
    sc = d / "s.toml"
    sc.write_text('[hardware]\nprofile = "cx3-fdr"\n[topology]\nfile = "fabric/ibnetdiscover.txt"\n'
                  'lfts = "fabric/opensm-lfts.dump"\n[workload]\nkind = "perftest"\ntest = "ib_write_bw"\n'
                  'client = 2\nserver = 0\niters = 100\n')
    monkeypatch.chdir(tmp_path)
    df = rdmasim.sweep(str(sc), {"workload.size": [4096, 65536]}, table="perftest")
    assert len(df) == 2 and (df["bw_avg_Gbps"] > 0).all()


class WorkersKeepDying:
    """A Dask-like executor whose futures for runs of ``size`` fail with Dask's KilledWorker (the
    run's workers all died); the others run here."""

    def __init__(self, size, error):
        self.size, self.error, self.submitted = size, error, []

    def submit(self, fn, *args):
        self.submitted.append(args[0]["workload"]["size"])
        fut = Future()
        if args[0]["workload"]["size"] == self.size:
            fut.set_exception(self.error)
        else:
            fut.set_result(fn(*args))
        return fut


def test_a_run_whose_dask_workers_keep_dying_is_resubmitted_then_named(write_bw):
    scheduler = pytest.importorskip("distributed.scheduler")
    sweep_module = _sweep_module()
    pool = WorkersKeepDying(65536, scheduler.KilledWorker("run_point-1", None, 3))
    with pytest.raises(sweep_module.SweepRunFailed) as info:
        rdmasim.sweep(write_bw, {"workload.size": [4096, 8192, 65536]}, executor=pool, seeds=[7], table="summary")
    assert str(info.value).startswith("sweep point workload.size=65536, seed=7: every worker that ran it died "
                                      "(Dask gave up on it 3 time(s)")
    assert isinstance(info.value.__cause__, scheduler.KilledWorker)
    assert pool.submitted == [4096, 8192, 65536] + [65536] * sweep_module.WORKER_DEATH_RESUBMITS
    # Nothing computed is lost: the two runs that finished are in the error's table.
    assert (info.value.done, info.value.total) == (2, 3)
    assert list(info.value.table["workload.size"]) == [4096, 8192]


def test_a_run_that_fails_otherwise_is_not_resubmitted(write_bw):
    pool = WorkersKeepDying(65536, ValueError("boom"))
    with pytest.raises(ValueError, match="boom"):
        rdmasim.sweep(write_bw, {"workload.size": [4096, 65536]}, executor=pool, table="summary")
    assert pool.submitted == [4096, 65536]
