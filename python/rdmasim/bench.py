"""Simulator speed, measured by the core on its fixed, documented workload (``rdmasim_core::bench``)."""
from __future__ import annotations

import json
from typing import Any, Dict

from . import _core

__all__ = ["bench"]


def bench(iterations: int = 3) -> Dict[str, Any]:
    """Runs the core's bench workload ``iterations`` times and returns the best run's report:
    workload, events, packet_hops, wall_s, events_per_sec, packet_hops_per_sec, sim_time_us,
    iterations."""
    if iterations < 1:
        raise ValueError("iterations must be >= 1")
    return json.loads(_core.bench_run(json.dumps({"iterations": int(iterations)})))
