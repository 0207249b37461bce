"""Simulator speed, measured by the core on its fixed, documented workload (``rdmasim_core::bench``)."""
from __future__ import annotations

import json
from typing import Any, Dict, Optional, Sequence

from . import _core

__all__ = ["bench"]


def bench(iterations: int = 3, cases: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """Runs the core's bench cases (``cases``, default all: perftest, many_qps, fat_tree,
    fat_tree_k32, ebb, routing, flow, import; docs/bench.md) and returns their report, the best
    of ``iterations`` runs where a case repeats. An unknown case is a ValueError naming them."""
    if iterations < 1:
        raise ValueError("iterations must be >= 1")
    options: Dict[str, Any] = {"iterations": int(iterations)}
    if cases is not None:
        options["cases"] = list(cases)
    return json.loads(_core.bench_run(json.dumps(options)))
