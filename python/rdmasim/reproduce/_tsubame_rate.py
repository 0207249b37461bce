"""Sensitivity: would the TSUBAME2.0 study's E1 steps and E4 hetero gain come out if a pair's two
rails added their rates? Each pair's payload split over its rails in proportion to the max-min
rate each gives it (``striping = "rate"``, crates/rdmasim-core/src/flow/rail_share.rs), where
MVAPICH2 by default splits every chunk evenly (``ibv_rndv.c``) and a pair is as slow as its
slower rail. The study's main rows keep the even split; these rows (ids ``E1s``, ``E4s``) put the
hypothesis to the same published figures, tolerances and seed sets (docs/tsubame.md,
"Sensitivity"). One trial per node count: the sensitivity's best case is its stall-free time;
E4s runs the rate split at every other node count beyond 600 nodes only (its means are there;
``_tsubame_runs.rate_large_nodes``)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Sequence

from ..plots import pyplot, save
from ._tsubame_runs import LARGE, TABLE2, Runs

SENS = "rails add their rates (striping = rate), where MVAPICH2 splits each chunk evenly by default"


def _has(runs: Sequence[Runs], label: str) -> bool:
    return bool(runs) and all(r.cases(label, "rate-pair") for r in runs)


def e1s_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:
    from .tsubame import e1_family

    if not _has(runs, "updn"):
        return []
    return e1_family(runs, "E1s", "rate-pair", "sensitivity, rails add their rates; UpDn, bad links kept", "sensitivity", SENS)


def e4s_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:
    from .tsubame import best_bw, gain_rows, mean

    if not all(_has(runs, label) for label in TABLE2):
        return []
    # The counts every Table 2 configuration ran striped by rate (UpDn ran every count, for E1s).
    common = set.intersection(*(set(r.cases(label, "rate-pair")) for r in runs for label in TABLE2))

    def large_mean(r: Runs, label: str) -> float:
        return mean([v for n, v in best_bw(r, label, "rate-pair").items() if n > LARGE and n in common])

    return gain_rows("E4s", runs, large_mean, TABLE2,
                     "sensitivity, rails add their rates; Table 2, best case", "sensitivity", SENS)


def write_plot(runs: Sequence[Runs], d: Path) -> None:
    """E1 (UpDn, bad links kept) and E4 (Table 2, beyond 600 nodes) best cases under both
    policies, first seed set."""
    from ._tsubame_plots import PUB_STEPS
    from ._tsubame_runs import gbps

    plt = pyplot()
    if plt is None or not _has(runs, "updn"):
        return
    r = runs[0]
    labels = [k for k in TABLE2 if r.cases(k, "rate-pair")]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), squeeze=False)
    a1 = axes[0][0]
    for kind, name in (("random-pair", "even (MVAPICH2's default)"), ("rate-pair", "rate (rails add their rates)")):
        cases = r.cases("updn", kind)
        a1.plot(list(cases), [gbps(c, c["fluid_s"]) for c in cases.values()], marker=".", lw=1, label=name)
    for s in PUB_STEPS:
        a1.axhline(s, ls="--", lw=0.7, color="grey")
    a1.set_title(f"E1: UpDn, bad links kept, best trial, seed set {r.seed} (dashed: published)", fontsize=9)
    a1.set_ylabel("minimum injection bandwidth [GB/s]")
    a2 = axes[0][1]
    for i, k in enumerate(labels):
        for kind, ls in (("random-pair", ":"), ("rate-pair", "-")):
            cases = {n: c for n, c in r.cases(k, kind).items() if n > LARGE}
            a2.plot(list(cases), [gbps(c, c["fluid_s"]) for c in cases.values()], ls=ls, lw=1, color=f"C{i}",
                    label=f"{TABLE2[k]} ({'rate' if kind == 'rate-pair' else 'even'})")
    a2.set_title(f"E4: Table 2 beyond {LARGE} nodes (solid: rate, dotted: even)", fontsize=9)
    for a in axes[0]:
        a.set_xlabel("nodes")
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=6)
    fig.tight_layout()
    save(fig, d / "e1_e4_striping_sensitivity.png")
