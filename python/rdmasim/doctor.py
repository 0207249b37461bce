"""``rdmasim doctor``: suspect links from what operators already collect, and what each costs a
workload kept or disabled::

    out = rdmasim.doctor.diagnose(linkinfo="iblinkinfo.txt",
                                  counters=["perfquery-before.txt", "perfquery-after.txt"], interval_s=600,
                                  design={"kind": "k-ary-n-tree", "k": 4, "n": 2})  # or topology="ibnetdiscover.txt"
    out.table                      # suspects by what disabling each gains, and the plan
    out.json["cost"]["plan"]       # which links to disable, first first

The work is the core's (``rdmasim_core::apps::doctor``, docs/doctor.md); this module builds
the request and draws the plot.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Union

from . import _core
from ._core import FabricError

__all__ = ["diagnose", "Diagnosis", "FabricError", "plot_injection"]

PathLike = Union[str, "os.PathLike[str]"]


@dataclass
class Diagnosis:
    """The doctor's answer: ``json`` (diagnosis, cost) and the ``table`` it prints."""

    json: Dict[str, Any]
    table: str


def diagnose(*, topology: Optional[PathLike] = None, design: Optional[Dict[str, Any]] = None,
             linkinfo: Optional[PathLike] = None, counters: Sequence[PathLike] = (),
             interval_s: Optional[float] = None, workload: str = "random-pairs", patterns: int = 20,
             seed: int = 0, route: str = "minhop", roots: Sequence[str] = (), greedy: bool = True,
             cost: bool = True, trust_could_be: bool = False, trace: Optional[PathLike] = None,
             profile: str = "cx3-fdr") -> Diagnosis:
    """Reads the files, names the suspect links and (``cost``) what each costs ``workload``
    kept or disabled, re-routed by ``route``. ``workload`` is ``"random-pairs"`` or
    ``"alltoall"`` (flow level), or ``"mpi-trace"``: the MPI trace in directory ``trace``
    (``rdmasim trace``) replayed on the packet engine with HCA ``profile``. Raises
    :class:`FabricError` naming the file and line (or the option)."""
    req: Dict[str, Any] = {
        "topology": None if topology is None else os.fspath(topology),
        "design": design,
        "linkinfo": None if linkinfo is None else os.fspath(linkinfo),
        "counters": [os.fspath(c) for c in counters],
        "interval_s": interval_s,
        "trust_could_be": trust_could_be,
        "no_cost": not cost,
        "cost": {"workload": workload, "patterns": patterns, "seed": seed, "engine": route,
                 "roots": list(roots), "greedy": greedy, "profile": profile,
                 "trace": None if trace is None else os.fspath(trace)},
    }
    text, table = _core.doctor(json.dumps(req))
    return Diagnosis(json.loads(text), table)


def plot_injection(d: Diagnosis, path: PathLike) -> Optional[Path]:
    """The slowest-pair (minimum injection) bandwidth of each pattern, as observed and with the
    plan's links disabled, as two histograms; None without matplotlib or a cost."""
    from .plots import pyplot, save

    plt = pyplot()
    cost = d.json.get("cost")
    if plt is None or cost is None:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    before, after = cost["kept"], cost["after_plan"]
    # A little room past the largest value, so that it falls inside the last bin.
    top = max(before + after + [1e-9]) * 1.05
    bins = [top * i / 42 for i in range(43)]
    ax.hist(before, bins=bins, alpha=0.6, label=f"as observed (mean {cost['kept_gbps']:.2f} Gb/s)")
    n = len(cost["plan"])
    ax.hist(after, bins=bins, alpha=0.6,
            label=f"{n} suspect(s) disabled (mean {cost['after_plan_gbps']:.2f} Gb/s)" if n else "nothing to disable")
    ax.set_xlabel("slowest-pair (minimum injection) bandwidth per pattern, Gb/s")
    ax.set_ylabel("patterns")
    ax.set_title(f"rdmasim doctor: {cost['options']['workload']}, {cost['patterns']} pattern(s), routed by {cost['routed_by']}")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return save(fig, Path(path))
