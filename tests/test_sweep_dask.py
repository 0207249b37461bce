"""A sweep on a real Dask cluster survives a worker process killed in the middle of it (issue #24)."""
from __future__ import annotations

import importlib
import time
import os
import signal

import pandas as pd
import pytest

import rdmasim

distributed = pytest.importorskip("dask.distributed")
SchedulerPlugin = pytest.importorskip("distributed.diagnostics.plugin").SchedulerPlugin

#: 12 runs of 0.05-0.25 s each (one idle core): long enough that runs are under way when the kill
#: comes, short enough for the whole test to take seconds.
SCENARIO = {
    "name": "dask worker kill",
    "seed": 1,
    "hardware": {"profile": "cx4-edr"},
    "workload": {"kind": "perftest", "test": "ib_write_bw", "size": 65536, "iters": 100_000},
}
GRID = {"workload.size": [32768, 65536], "workload.iters": [60_000, 90_000, 120_000]}
SEEDS = [1, 2]
RUNS = 12
#: The kill comes when this many runs have finished.
KILL_AFTER = 3


class KillAWorkerMidSweep(SchedulerPlugin):
    """Scheduler plugin: when the ``KILL_AFTER``-th task finishes, SIGKILLs a worker that has tasks
    (the one that holds that result if it has), and counts the tasks that start on a worker.

    The scheduler of a ``LocalCluster`` is in this process, so the plugin sees its state as it
    changes: the kill is timed by the scheduler's own event, not by a sleep.
    """

    def __init__(self, scheduler):
        self.scheduler = scheduler
        self.finished = 0
        self.started = 0
        self.at_kill = None

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "processing":
            self.started += 1
        elif finish == "memory":
            self.finished += 1
            if self.finished == KILL_AFTER:
                self._kill(self.scheduler.tasks[key])

    def _kill(self, ts):
        busy = sorted((ws for ws in self.scheduler.workers.values() if ws.processing),
                      key=lambda ws: ws not in ts.who_has)
        assert busy, "no worker had a task when the kill was due"
        ws = busy[0]
        self.at_kill = {
            "finished": self.finished,
            "processing_on_victim": len(ws.processing),
            "results_on_victim": len(ws.has_what),
            # neither finished nor on a worker: queued on the scheduler
            "not_sent": RUNS - self.finished - sum(len(w.processing) for w in self.scheduler.workers.values()),
        }
        os.kill(ws.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def sequential():
    return rdmasim.sweep(SCENARIO, GRID, seeds=SEEDS)


@pytest.mark.parametrize("allowed_failures", [3, 0], ids=["dask-reruns", "sweep-resubmits"])
def test_a_worker_killed_mid_sweep_loses_no_row(sequential, allowed_failures, monkeypatch):
    # allowed_failures=3 (Dask's default): the scheduler reruns the dead worker's tasks by itself.
    # allowed_failures=0: those tasks fail with KilledWorker at once and the sweep submits them again.
    sweep_module = importlib.import_module("rdmasim.sweep")  # `rdmasim.sweep` is the function
    real_submit = sweep_module._submit
    submitted = []
    monkeypatch.setattr(sweep_module, "_submit", lambda *a: submitted.append(a) or real_submit(*a))

    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                                  scheduler_kwargs={"allowed_failures": allowed_failures}) as cluster, \
            distributed.Client(cluster) as client:
        killer = KillAWorkerMidSweep(cluster.scheduler)
        cluster.scheduler.add_plugin(killer)
        got = rdmasim.sweep(SCENARIO, GRID, executor=client, seeds=SEEDS)

    # The kill came mid-sweep: runs done, runs on the killed worker, runs not yet sent to one.
    k = killer.at_kill
    assert k is not None and k["finished"] == KILL_AFTER, k
    assert k["processing_on_victim"] >= 1 and k["not_sent"] >= 1, k

    # No row lost, none repeated, the same values in the same order as running here.
    runs = ["workload.size", "workload.iters", "seed"]
    want = set(sequential[runs].itertuples(index=False, name=None))
    have = list(got[runs].itertuples(index=False, name=None))
    assert not want - set(have), f"rows lost: {sorted(want - set(have))}"
    assert len(have) == len(set(have)) == RUNS, f"rows repeated: {have}"
    pd.testing.assert_frame_equal(got, sequential)

    # The kill took work with it (some run started twice), and the right party ran it again.
    assert killer.started > RUNS, (killer.started, k)
    if allowed_failures == 0:
        assert len(submitted) > RUNS  # the sweep, not Dask
    else:
        assert len(submitted) == RUNS


class RetireEveryWorker(SchedulerPlugin):
    """Scheduler plugin: when the ``KILL_AFTER``-th task finishes, scales the cluster to no worker
    at all (its workers close and none replaces them), as when every worker of a cluster died."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.finished = 0

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "memory":
            self.finished += 1
            if self.finished == KILL_AFTER:
                # Non-blocking here: SpecCluster.scale only schedules the change on this loop.
                self.cluster.scale(0)


def test_a_cluster_left_without_workers_ends_the_sweep_with_its_rows(sequential):
    # Dask keeps the remaining tasks pending for ever; the sweep must give up, naming why, and keep
    # the rows of the runs that had finished.
    with distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        cluster.scheduler.add_plugin(RetireEveryWorker(cluster))
        started = time.monotonic()
        with pytest.raises(rdmasim.SweepRunFailed, match="no worker for") as failed:
            rdmasim.sweep(SCENARIO, GRID, executor=client, seeds=SEEDS, no_workers_timeout=2)
        waited = time.monotonic() - started
    e = failed.value
    # The KILL_AFTER-th result may still be on the worker when it closes (the scheduler saw the task
    # finish; the client had not fetched it yet): that run is lost with its worker, not finished.
    assert e.total == RUNS and KILL_AFTER - 1 <= e.done < RUNS, (e.done, e.total)
    # The rows kept are those of a sequential run, for the runs that finished.
    runs = ["workload.size", "workload.iters", "seed"]
    assert len(e.table) == e.done and set(e.table[runs].itertuples(index=False, name=None)) <= \
        set(sequential[runs].itertuples(index=False, name=None))
    assert waited < 60, waited


def test_no_workers_timeout_must_be_positive():
    with pytest.raises(ValueError, match="no_workers_timeout"):
        rdmasim.sweep(SCENARIO, GRID, executor=None, no_workers_timeout=0)
