"""Times `rdmasim run` in phases: how much of its wall time is the simulation (the core building
and running the world) and how much lies outside it (reading and checking the scenario,
importing the package, turning the result into tables, writing the files).

    python3 tools/bench/run_phases.py SCENARIO.toml -- --quiet -o DIR [--tables ...]

runs `rdmasim run SCENARIO.toml --quiet -o DIR ...` in this process, the installed package's own
code, with timers wrapped around the functions each phase goes through, and prints one JSON
object. Run it as `/usr/bin/time` would: the interpreter's start, before this file runs, is
counted by the `process_s` the script reads from /proc (Linux) and put outside the simulation.
The wrapped names exist in every version of the package since the result crossed as JSON, so
one script times a version before and after a change (docs/bench.md, "Results at 8192 hosts").
"""
from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from typing import Any, Callable, Dict

_START = time.perf_counter()
_PHASES: Dict[str, float] = defaultdict(float)


def _process_age_s() -> float:
    """Seconds since this process started (its start time in /proc, in clock ticks since boot)."""
    with open("/proc/self/stat") as f:
        start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as f:
        up = float(f.read().split()[0])
    return up - start_ticks / os.sysconf("SC_CLK_TCK")


def _timed(phase: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            _PHASES[phase] += time.perf_counter() - t
    return wrapper


class _TimedSimulation:
    """The core's Simulation, its steps timed as the simulation's run."""

    def __init__(self, inner: Any):
        self._inner = inner
        self.step = _timed("simulation: run", inner.step)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def main() -> int:
    before_main = _process_age_s() - (time.perf_counter() - _START)
    argv = sys.argv[1:]
    scenario, rest = argv[0], argv[2:] if argv[1:2] == ["--"] else argv[1:]
    t = time.perf_counter()
    from rdmasim import runner, scenario as scenario_mod
    from rdmasim.cli import main as cli_main
    from rdmasim.cli import run as cli_run
    _PHASES["import rdmasim"] = time.perf_counter() - t

    build = _timed("simulation: build", runner.simulation)
    runner.simulation = lambda spec: _TimedSimulation(build(spec))
    runner.validate = _timed("validate scenario", runner.validate)
    scenario_mod.scenario_dict = _timed("read scenario (perftest header)", scenario_mod.scenario_dict)
    runner._result = _timed("result to tables", runner._result)
    cli_run._write_results = _timed("write files", cli_run._write_results)

    t = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        try:
            code = cli_main(["run", scenario, *rest])
        finally:
            sys.stdout = stdout
    command_s = time.perf_counter() - t
    total = before_main + (time.perf_counter() - _START)
    simulation = _PHASES["simulation: build"] + _PHASES["simulation: run"]
    report = {
        "exit_code": code,
        "wall_s": round(total, 3),
        "simulation_s": round(simulation, 3),
        "outside_s": round(total - simulation, 3),
        "outside_fraction": round((total - simulation) / total, 3),
        "phases_s": {
            "interpreter start": round(before_main, 3),
            **{k: round(v, 3) for k, v in _PHASES.items()},
            "rest of the command": round(command_s - sum(v for k, v in _PHASES.items() if k != "import rdmasim"), 3),
        },
    }
    print(json.dumps(report, indent=2))
    return code


if __name__ == "__main__":
    sys.exit(main())
