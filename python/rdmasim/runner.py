"""Running one scenario to completion (or to a limit, or to Ctrl-C)."""
from __future__ import annotations

import operator
from typing import Callable, List, Optional, Sequence, Tuple, Union

from . import _core
from .names import TABLES_MADE_WHILE_RUNNING
from .result import Result
from .scenario import ScenarioLike, scenario_text

__all__ = ["run", "run_simulation", "simulation", "validate", "table_choice", "check_tables", "RunInterrupted",
           "DEFAULT_EVENTS_PER_STEP"]

#: Events the core runs per call while Python polls progress and Ctrl-C between calls.
DEFAULT_EVENTS_PER_STEP = 200_000
#: The core counts a step's events in a u64.
MAX_EVENTS_PER_STEP = 2**64 - 1

ProgressArg = Union[bool, Callable[[float], None]]
#: Which tables a run builds: None for all, or names (a string: comma-separated); a name with a
#: leading ``-`` is left out (``"-ports"``: every table but the port counters).
TablesArg = Union[None, str, Sequence[str]]


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run`: still a KeyboardInterrupt, carrying what was computed so far
    as ``.result`` (a :class:`Result` whose ``finished`` is False)."""

    def __init__(self, result: Result):
        super().__init__("run interrupted")
        self.result = result


def simulation(scenario: ScenarioLike) -> _core.Simulation:
    """Builds (but does not run) the core simulation; raises ``ScenarioError`` on bad input."""
    text, source = scenario_text(scenario)
    return _core.Simulation(text, source)


def validate(scenario: ScenarioLike) -> None:
    """Checks a scenario without running it; raises ``ScenarioError`` naming file, key, line."""
    text, source = scenario_text(scenario)
    _core.validate(text, source)


def table_choice(tables: TablesArg) -> Tuple[Optional[List[str]], List[str]]:
    """``tables=`` of :func:`run` as (only, skip): the tables to build (None: all) and those to
    leave out. Names that only leave tables out keep all the others."""
    if tables is None:
        return None, []
    items = tables.split(",") if isinstance(tables, str) else list(tables)
    names = [str(i).strip() for i in items if str(i).strip()]
    skip = [n[1:] for n in names if n.startswith("-")]
    only = [n for n in names if not n.startswith("-")]
    return (None if skip and not only else only), skip


def check_tables(sim: _core.Simulation, tables: TablesArg) -> None:
    """Raises ValueError for a name in ``tables`` that no table of this run has; checked before
    the run (a misspelt name would otherwise leave out a table, or write none, after it)."""
    only, skip = table_choice(tables)
    asked = set(only or ()) | set(skip)
    if not asked:
        return
    known = set(sim.table_names()) | set(TABLES_MADE_WHILE_RUNNING)
    unknown = sorted(asked - known)
    if unknown:
        raise ValueError(f"this run has no table {', '.join(unknown)}; its tables are {', '.join(sorted(known))}")


def _result(sim: _core.Simulation, interrupted: bool = False, tables: TablesArg = None) -> Result:
    # The capture is handed over, not copied: the pcap is made when it is written or read. A PM
    # run (engine = "pm") keeps Ethernet frames, not IB packets, and gives its pcap as bytes.
    capture = sim.take_capture()
    pcap = sim.pcap() if capture is None else None
    # The tables cross as columns (Arrow), not as JSON rows: rdmasim.columns.
    only, skip = table_choice(tables)
    summary, streams, offered = sim.result_tables(only, skip)
    return Result.from_columns(summary, streams, offered, pcap, interrupted=interrupted, capture=capture)


def as_integer(x: object) -> Optional[int]:
    """``x`` as an int when it is an integer of any type (numpy's too), else None: not a bool,
    a float or a string."""
    if isinstance(x, bool):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def _events_per_step(n: object) -> int:
    """``n`` as an int, checked here: the binding would raise a bare OverflowError (or
    TypeError) at the first step, after the scenario was built."""
    v = as_integer(n)
    if v is None:
        raise TypeError(f"max_events_per_step must be an integer, not {type(n).__name__} ({n!r})")
    if not 1 <= v <= MAX_EVENTS_PER_STEP:
        raise ValueError(f"max_events_per_step = {v} is out of range; expected 1..={MAX_EVENTS_PER_STEP} "
                         "(events the core runs between two looks at progress and Ctrl-C)")
    return v


def run(
    scenario: ScenarioLike,
    *,
    progress: ProgressArg = False,
    max_events_per_step: int = DEFAULT_EVENTS_PER_STEP,
    desc: Optional[str] = None,
    tables: TablesArg = None,
) -> Result:
    """Runs a scenario and returns its :class:`Result`.

    Args:
        scenario: a path to a TOML file, TOML text, or a dict with the same structure.
        progress: True for a tqdm bar on stderr, or a callable given the fraction done (0..1)
            after every step.
        max_events_per_step: events per core call, 1..=2**64-1; between calls Python updates
            progress and notices Ctrl-C (the GIL is released while the core runs).
        desc: label of the progress bar.
        tables: the tables to build, None for all: names, or one string of them separated by
            commas; ``-NAME`` leaves NAME out (``"-ports"``). A table left out is not built at
            all, and is listed in the result's ``skipped_tables``. The port counters (``ports``)
            are the large one: 49 152 rows at 8192 hosts (docs/bench.md).

    Raises:
        ScenarioError: the scenario is invalid (names the file, the key and the line).
        ValueError, TypeError: ``max_events_per_step`` is out of range or not an integer, or
            ``tables`` names a table this run does not have.
        RunInterrupted: Ctrl-C; its ``.result`` holds the partial result.
    """
    max_events_per_step = _events_per_step(max_events_per_step)
    return run_simulation(simulation(scenario), progress=progress, max_events_per_step=max_events_per_step,
                          desc=desc, tables=tables)


def run_simulation(
    sim: _core.Simulation,
    *,
    progress: ProgressArg = False,
    max_events_per_step: int = DEFAULT_EVENTS_PER_STEP,
    desc: Optional[str] = None,
    tables: TablesArg = None,
) -> Result:
    """:func:`run` on a simulation already built (:func:`simulation`): a caller that builds it
    first learns of a bad scenario before doing anything else, without reading it twice."""
    max_events_per_step = _events_per_step(max_events_per_step)
    check_tables(sim, tables)
    bar = None
    callback: Optional[Callable[[float], None]] = None
    if progress is True:
        from tqdm.auto import tqdm

        bar = tqdm(total=100.0, desc=desc or sim.source, unit="%", leave=False,
                   bar_format="{l_bar}{bar}| {n:.1f}/100% [{elapsed}<{remaining}]")

        def callback(frac: float, _bar=bar) -> None:  # type: ignore[misc]
            _bar.update(max(0.0, min(100.0, 100.0 * frac)) - _bar.n)

    elif callable(progress):
        callback = progress
    try:
        while not sim.step(max_events_per_step):
            if callback is not None:
                callback(sim.progress())
        if callback is not None:
            callback(sim.progress())
    except KeyboardInterrupt:
        raise RunInterrupted(_result(sim, interrupted=True, tables=tables)) from None
    finally:
        if bar is not None:
            bar.close()
    return _result(sim, tables=tables)
