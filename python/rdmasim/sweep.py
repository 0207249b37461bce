"""Parameter sweeps: the cartesian product of a grid, run on any executor, as one table."""
from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import itertools
import json
import time
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

import pandas as pd

from .errors import ScenarioError, scenario_error
from .names import TABLES_MADE_WHILE_RUNNING
from .result import Result, order_columns
from .runner import RunInterrupted, as_integer, run, simulation, validate
from .scenario import ScenarioLike, anchor_paths, get_dotted, scenario_dict, set_dotted

__all__ = ["sweep", "grid_points", "run_point", "SweepInterrupted", "SweepRunFailed"]

#: Pseudo table name: one row per point with the run's summary (finished, sim_time_us, events...).
SUMMARY_TABLE = "summary"

Outcome = Tuple[Dict[str, Any], List[Dict[str, Any]]]


class SweepInterrupted(RunInterrupted):
    """Ctrl-C during :func:`sweep`: still a KeyboardInterrupt (and a :class:`RunInterrupted`),
    carrying what was computed so far.

    Attributes:
        table: the rows of every point that finished, as the DataFrame :func:`sweep` returns
            (grid columns, ``seed``, then the table's), in grid order.
        done, total: runs finished and runs in the sweep (a run is a grid point and a seed).
        result: the partial :class:`Result` of the run interrupted when the sweep ran here
            (``executor=None``); None with an executor.
    """

    def __init__(self, table: pd.DataFrame, done: int, total: int, result: Optional[Result]):
        KeyboardInterrupt.__init__(self, f"sweep interrupted: {done} of {total} runs finished (their rows are in .table)")
        self.table = table
        self.done = done
        self.total = total
        self.result = result  # type: ignore[assignment]


def grid_points(grid: Mapping[str, Sequence[Any]]) -> List[Dict[str, Any]]:
    """The cartesian product of ``grid`` in order: the last key varies fastest."""
    keys = list(grid)
    for k in keys:
        if isinstance(grid[k], (str, bytes)) or not isinstance(grid[k], Iterable):
            raise TypeError(f"grid[{k!r}] must be a list of values, not {type(grid[k]).__name__}")
    return [dict(zip(keys, combo)) for combo in itertools.product(*(list(grid[k]) for k in keys))]


def run_point(scenario: Dict[str, Any], table: str) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """Runs one point of a sweep; returns ``(summary, rows of table)`` as plain picklable data.

    Top-level so process pools and Dask workers can import it.
    """
    res = run(scenario)
    summary = res.summary
    if table == SUMMARY_TABLE:
        rows = [{k: v for k, v in summary.items() if k not in ("seed", "tables", "capture_bytes")}]
    else:
        rows = res.rows(table)
    return summary, rows


#: A scenario's largest seed: the core takes a u64, but every scenario reaches it as TOML, whose
#: integers are signed 64-bit (a dict is converted to TOML too).
MAX_SEED = 2**63 - 1


def _seeds(seeds: Sequence[Any]) -> List[Optional[int]]:
    """The seeds as ints, each checked here so the error names it (the core's would name only
    the grid point, and TOML)."""
    out: List[Optional[int]] = []
    for i, seed in enumerate(seeds):
        v = as_integer(seed)
        if v is None:
            raise scenario_error(f"sweep seeds[{i}]", "seed", None,
                                 f"expected an integer 0..={MAX_SEED}; found {type(seed).__name__} {seed!r}")
        if not 0 <= v <= MAX_SEED:
            raise scenario_error(f"sweep seeds[{i}]", "seed", None,
                                 f"seed = {v} is out of range; expected 0..={MAX_SEED} (scenarios are TOML, "
                                 "whose integers are signed 64-bit)")
        out.append(v)
    return out


def _where(point: Mapping[str, Any]) -> str:
    """A point as its grid values (``workload.size=4096, workload.iters=50``)."""
    return ", ".join(f"{k}={v!r}" for k, v in point.items()) or "(base scenario)"


def _check_point(spec: Dict[str, Any], point: Mapping[str, Any]) -> None:
    """Validates one point's scenario; an error names the point (``sweep point workload.size=0``)."""
    try:
        validate(spec)
    except ScenarioError as e:
        where = _where(point)
        raise scenario_error(f"sweep point {where}", getattr(e, "key", ""), None,
                             getattr(e, "message", str(e))) from None


def _tables_before_running(spec: Dict[str, Any]) -> Set[str]:
    """The tables a scenario reports, read from a built (not run) simulation."""
    return set(simulation(spec).table_names())


def _check_table(table: str, specs: Sequence[Tuple[Mapping[str, Any], Dict[str, Any]]]) -> None:
    """Raises ValueError when no run of the sweep can have ``table`` (a misspelt name would
    otherwise give an empty DataFrame after every run)."""
    if table == SUMMARY_TABLE or table in TABLES_MADE_WHILE_RUNNING:
        return
    # The workload decides the tables (its kind, and within `flows` whether there are flows
    # beside the key-value store): one build per distinct workload until one has the table,
    # so a table that exists costs one build.
    available: Set[str] = set()
    seen = set()
    for _, spec in specs:
        workload = json.dumps(spec.get("workload"), sort_keys=True, default=str)
        if workload in seen:
            continue
        seen.add(workload)
        available |= _tables_before_running(spec)
        if table in available:
            return
    names = ", ".join(sorted(available | {SUMMARY_TABLE}))
    raise ValueError(f"table {table!r} is not a table of this sweep's runs; available: {names}")


def _records(point: Mapping[str, Any], spec: Mapping[str, Any], outcome: Outcome, table: str) -> List[Dict[str, Any]]:
    """One record per row of a run's table, led by the grid values and the seed."""
    summary, rows = outcome
    seed = summary.get("seed", get_dotted(spec, "seed"))
    records = []
    for row in rows:
        rec = dict(point)
        rec["seed"] = seed
        for k, v in row.items():
            rec[k if k not in rec else f"{table}.{k}"] = v
        records.append(rec)
    return records


def _frame(grid: Mapping[str, Any], table: str, specs: Sequence[Tuple[Mapping[str, Any], Dict[str, Any]]],
           outcomes: Sequence[Optional[Outcome]]) -> pd.DataFrame:
    """The sweep's DataFrame from the runs that finished (None: not finished), in grid order."""
    records = [rec for (point, spec), out in zip(specs, outcomes) if out is not None
               for rec in _records(point, spec, out, table)]
    columns = list(grid) + ["seed"]
    if not records:
        return pd.DataFrame(columns=columns)
    df = pd.DataFrame.from_records(records)
    return df[columns + order_columns(table, [c for c in df.columns if c not in columns])]


def _finished_futures(futures: Sequence[Any], outcomes: List[Optional[Outcome]]) -> None:
    """On Ctrl-C: keeps the outcome of every future already done and cancels the others."""
    for i, fut in enumerate(futures):
        if outcomes[i] is not None:
            continue
        done = getattr(fut, "done", None)
        if done is not None and done():
            try:
                outcomes[i] = fut.result()
            except BaseException:  # a failed or cancelled run has no rows to keep
                pass
        elif hasattr(fut, "cancel"):
            fut.cancel()


def _is_dask(executor: Any) -> bool:
    return type(executor).__module__.startswith("distributed")


def _submit(executor: Any, fn, *args):
    """Submits to a concurrent.futures.Executor or a dask.distributed.Client alike."""
    if _is_dask(executor):
        # Dask: every point is a distinct task even when two points are equal.
        return executor.submit(fn, *args, pure=False)
    return executor.submit(fn, *args)


class SweepRunFailed(RuntimeError):
    """A run of :func:`sweep` that Dask could not finish — its workers kept dying, or the cluster
    was left with no worker: names its point and seed, and keeps what the sweep had computed when
    it gave up.

    Attributes:
        table: the rows of every run that finished, as the DataFrame :func:`sweep` returns.
        done, total: runs finished and runs in the sweep.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.table: Optional[pd.DataFrame] = None
        self.done = 0
        self.total = 0


#: How many times :func:`sweep` submits a run again after Dask gave up on it with ``KilledWorker``
#: (its task was on a worker that died ``distributed.scheduler.allowed-failures`` + 1 times;
#: Dask reruns it by itself up to then). Bounded: a run that kills every worker it lands on
#: (a crash, or more memory than a worker has) must end the sweep, not take the cluster down.
WORKER_DEATH_RESUBMITS = 2


#: How long (s) a sweep on Dask waits for a result while the cluster has no worker at all before
#: it raises :class:`SweepRunFailed`: Dask keeps such tasks pending for ever (its own
#: ``distributed.scheduler.no-workers-timeout`` is off by default), and a sweep must not hang
#: when every worker has died or left. A cluster that restarts or adds workers within this time
#: goes on. The ``no_workers_timeout`` argument of :func:`sweep` overrides it.
NO_WORKERS_TIMEOUT_S = 60.0
#: How often (s) a sweep waiting on Dask checks that the cluster still has a worker.
_WORKER_CHECK_S = 1.0
#: What ``Future.result(timeout=...)`` raises on time-out, by Python and distributed version.
_RESULT_TIMEOUTS = (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError)


def _wait(executor: Any, future: Any, no_workers_timeout: float) -> Outcome:
    """``future.result()``; on Dask, gives up with :class:`_NoWorkers` once the cluster has had no
    worker for ``no_workers_timeout`` seconds."""
    if not _is_dask(executor):
        return future.result()
    alone_since: Optional[float] = None
    while True:
        try:
            return future.result(timeout=_WORKER_CHECK_S)
        except _RESULT_TIMEOUTS:
            pass
        if executor.nthreads():
            alone_since = None
            continue
        now = time.monotonic()
        if alone_since is None:
            alone_since = now
        elif now - alone_since >= no_workers_timeout:
            raise _NoWorkers(now - alone_since)


class _NoWorkers(Exception):
    def __init__(self, waited_s: float) -> None:
        super().__init__(waited_s)
        self.waited_s = waited_s


def _killed_worker(exc: BaseException) -> bool:
    """Whether ``exc`` is Dask's ``KilledWorker``, tested by name so that a sweep without Dask does
    not import it."""
    cls = type(exc)
    return cls.__name__ == "KilledWorker" and cls.__module__.startswith("distributed")


def _result(executor: Any, futures: List[Any], i: int, point: Mapping[str, Any], spec: Dict[str, Any],
            table: str, no_workers_timeout: float) -> Outcome:
    """Waits for run ``i``; submits it again (``futures[i]`` is then the new future) when Dask
    gave up on it because its workers died, at most :data:`WORKER_DEATH_RESUBMITS` times; raises
    :class:`SweepRunFailed` when the cluster has had no worker for ``no_workers_timeout`` s."""
    resubmits = 0
    seed = spec.get("seed")
    while True:
        try:
            return _wait(executor, futures[i], no_workers_timeout)
        except _NoWorkers as e:
            raise SweepRunFailed(
                f"sweep point {_where(point)}" + (f", seed={seed}" if seed is not None else "")
                + f": the Dask cluster has had no worker for {e.waited_s:.0f} s (every worker died or "
                "left and none came back); start workers or raise no_workers_timeout") from None
        except Exception as e:
            if not _killed_worker(e):
                raise
            if resubmits == WORKER_DEATH_RESUBMITS:
                raise SweepRunFailed(
                    f"sweep point {_where(point)}" + (f", seed={seed}" if seed is not None else "")
                    + f": every worker that ran it died (Dask gave up on it {resubmits + 1} time(s), "
                    "each after distributed.scheduler.allowed-failures + 1 worker deaths); the run may "
                    "crash its worker or need more memory than a worker has") from e
        resubmits += 1
        futures[i] = _submit(executor, run_point, spec, table)


def sweep(
    scenario: ScenarioLike,
    grid: Mapping[str, Sequence[Any]],
    executor: Any = None,
    seeds: Optional[Sequence[int]] = None,
    *,
    table: str = "perftest",
    no_workers_timeout: float = NO_WORKERS_TIMEOUT_S,
) -> pd.DataFrame:
    """Runs ``scenario`` at every point of ``grid`` and returns one table.

    Args:
        scenario: path, TOML string or dict (the base every point starts from).
        grid: dotted key -> list of values, e.g. ``{"workload.size": [4096, 65536],
            "faults.0.loss_rate": [0, 1e-4]}``; points are the cartesian product, last key
            varying fastest.
        executor: None (run here, one after another), any ``concurrent.futures.Executor``, or a
            ``dask.distributed.Client``: anything with ``submit(fn, *args)`` returning futures
            with ``.result()``.
        seeds: run every point once per seed (sets ``seed``, 0..=2**63-1); None keeps the
            scenario's seed.
        table: which result table to collect (``"perftest"``, ``"ports"``, ...), or
            ``"summary"`` for one row per run.
        no_workers_timeout: with Dask, seconds the sweep waits while the cluster has no worker
            at all before raising :class:`SweepRunFailed` (default
            :data:`NO_WORKERS_TIMEOUT_S`, 60 s).

    Returns:
        A DataFrame with the grid columns, ``seed``, then the table's columns; rows are in grid
        order (then seed order), whatever order the runs complete in.

    Raises:
        ScenarioError: a point's scenario is invalid (names the point); before any run.
        ValueError: ``table`` is not a table of the sweep's runs (lists those there are);
            before any run.
        SweepInterrupted: Ctrl-C; its ``.table`` holds the rows of the runs that finished.
        SweepRunFailed: with Dask, a run whose workers kept dying, or a cluster left with no
            worker for ``no_workers_timeout`` s (see below); names the point it was waiting
            for, and its ``.table`` holds the rows of the runs that finished.

    On a Dask cluster (``executor=Client(...)``), every run is one task (``run_point``). When a
    worker dies, Dask runs its tasks again elsewhere, both those it was running and those whose
    results the sweep had not collected yet; the table is the same as a sequential run's, no row lost or repeated (each
    run's outcome has one slot, in grid order). Dask gives up on a task after
    ``distributed.scheduler.allowed-failures`` (default 3) + 1 workers died running it, raising
    ``KilledWorker``; the sweep then submits the run again, at most
    :data:`WORKER_DEATH_RESUBMITS` (2) times, and after that raises :class:`SweepRunFailed`
    naming the point and seed, with the rows already computed. A cluster with no worker left
    (all died and none restarted, or all retired) would keep the tasks pending for ever: after
    ``no_workers_timeout`` seconds without a worker the sweep raises :class:`SweepRunFailed`
    too, with the rows already computed.
    """
    if not no_workers_timeout > 0:
        raise ValueError(f"no_workers_timeout = {no_workers_timeout!r}: expected a positive number of seconds")
    # Relative file paths are the scenario file's: anchored, they survive the trip to a dict.
    base = anchor_paths(scenario_dict(scenario), scenario)
    points = grid_points(grid)
    seed_list: List[Optional[int]] = _seeds(seeds) if seeds is not None else [None]
    specs = []
    for point in points:
        for seed in seed_list:
            spec = copy.deepcopy(base)
            for key, value in point.items():
                set_dotted(spec, key, value)
            if seed is not None:
                spec["seed"] = seed
            _check_point(spec, point)
            specs.append((point, spec))
    # Every point and the table are checked before any runs: a bad value late in the grid does
    # not cost the runs before it.
    _check_table(table, specs)

    # A run's outcome is kept as soon as it is in, so that Ctrl-C loses only the runs under way.
    outcomes: List[Optional[Outcome]] = [None] * len(specs)
    futures: List[Any] = []
    try:
        if executor is None:
            for i, (_, spec) in enumerate(specs):
                outcomes[i] = run_point(spec, table)
        else:
            futures = [_submit(executor, run_point, spec, table) for _, spec in specs]
            for i, (point, spec) in enumerate(specs):
                outcomes[i] = _result(executor, futures, i, point, spec, table, no_workers_timeout)
                # Drops the future once its outcome is here: Dask then frees the worker's copy,
                # and does not run the point again if that worker dies later.
                futures[i] = None
    except KeyboardInterrupt as e:
        _finished_futures(futures, outcomes)
        done = sum(out is not None for out in outcomes)
        raise SweepInterrupted(_frame(grid, table, specs, outcomes), done, len(specs),
                               getattr(e, "result", None)) from None
    except SweepRunFailed as e:
        # The runs that did finish are kept, as on Ctrl-C.
        _finished_futures(futures, outcomes)
        e.done = sum(out is not None for out in outcomes)
        e.total = len(specs)
        e.table = _frame(grid, table, specs, outcomes)
        raise
    return _frame(grid, table, specs, outcomes)
