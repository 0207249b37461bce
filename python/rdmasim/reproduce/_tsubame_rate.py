"""Sensitivity: would the TSUBAME2.0 study's E1 steps and E4 hetero gain come out if a pair's two
rails added their rates? Each pair's payload split over its rails in proportion to the max-min
rate each gives it (``striping = "rate"``, crates/rdmasim-core/src/flow/rail_share.rs), where
MVAPICH2 by default splits every chunk evenly (``ibv_rndv.c``) and a pair is as slow as its
slower rail. The study's main rows keep the even split; these rows (ids ``E1s``, ``E4s``) put the
hypothesis to the same published figures and tolerances (docs/tsubame.md, "Sensitivity")."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

from . import row
from ._plots import pyplot, save
from ._tsubame_runs import DISABLED, Runs

SENS = "sensitivity: rails add their rates (not what MVAPICH2 does by default)"


def _has(runs: Runs, label: str) -> bool:
    return label in runs.out and bool(runs.cases(label, "rate-pair"))


def e1s_rows(runs: Runs) -> List[Dict[str, Any]]:
    from .tsubame import PUB_FLAT, PUB_FLAT_NODES, STEP_TOL, best_bw, step_rows

    if not _has(runs, "updn"):
        return []
    bws = best_bw(runs, "updn", "rate-pair")
    small = [v for n, v in bws.items() if n <= PUB_FLAT_NODES]
    off = [abs(v / PUB_FLAT - 1) for v in small]
    rows = [row("E1s", f"{SENS}; UpDn, bad links kept: best minimum injection bandwidth at <= {PUB_FLAT_NODES} nodes "
                f"({', '.join(f'{n}: {v:.2f}' for n, v in bws.items() if n <= PUB_FLAT_NODES)})", PUB_FLAT,
                f"{min(small):.2f}-{max(small):.2f}", "GB/s", bool(small) and max(off) <= STEP_TOL)]
    return rows + step_rows("E1s", bws, f"{SENS}: a pair gets its two rails' max-min rates added")


def e4s_rows(runs: Runs) -> List[Dict[str, Any]]:
    from .tsubame import GAIN_TOL, LARGE, PUB_GAIN, hetero_gains

    if not all(_has(runs, label) for label in DISABLED):
        return []
    means, gains = hetero_gains(runs, "rate-pair")
    detail = ", ".join(f"{k} {v:.2f}" for k, v in means.items())
    gtxt = ", ".join(f"{k} {v:+.1f}%" for k, v in gains.items())
    lo, hi = min(gains.values()), max(gains.values())
    return [
        row("E4s", f"{SENS}; bad links disabled, > {LARGE} nodes: mean minimum injection bandwidth ({detail} GB/s); "
            f"hetero's gain ({gtxt}): the smallest", PUB_GAIN[0], lo, "%", abs(lo - PUB_GAIN[0]) <= GAIN_TOL),
        row("E4s", f"{SENS}: hetero's largest gain", PUB_GAIN[1], hi, "%", abs(hi - PUB_GAIN[1]) <= GAIN_TOL),
    ]


def write_plot(runs: Runs, d: Path) -> None:
    """E1 (UpDn, bad links kept) and E4 (bad links disabled) best cases under both policies."""
    from ._tsubame_plots import PUB_STEPS
    from ._tsubame_runs import gbps

    plt = pyplot()
    if plt is None or not _has(runs, "updn"):
        return
    labels = [k for k in DISABLED if _has(runs, k)]
    fig, axes = plt.subplots(1, 2 if labels else 1, figsize=(11 if labels else 7, 4), squeeze=False)
    a1 = axes[0][0]
    for kind, name in (("random-pair", "even (MVAPICH2's default)"), ("rate-pair", "rate (rails add their rates)")):
        cases = runs.cases("updn", kind)
        a1.plot(list(cases), [gbps(c, c["fluid_s"]) for c in cases.values()], marker=".", lw=1, label=name)
    for s in PUB_STEPS:
        a1.axhline(s, ls="--", lw=0.7, color="grey")
    a1.set_title("E1: UpDn, bad links kept, best trial (dashed: published steps)", fontsize=9)
    a1.set_ylabel("minimum injection bandwidth [GB/s]")
    if labels:
        a2 = axes[0][1]
        for i, k in enumerate(labels):
            for kind, ls in (("random-pair", ":"), ("rate-pair", "-")):
                cases = runs.cases(k, kind)
                a2.plot(list(cases), [gbps(c, c["fluid_s"]) for c in cases.values()], ls=ls, lw=1, color=f"C{i}",
                        label=f"{DISABLED[k]} ({'rate' if kind == 'rate-pair' else 'even'})")
        a2.set_title("E4: bad links disabled (solid: rate, dotted: even)", fontsize=9)
    for a in axes[0]:
        a.set_xlabel("nodes")
        a.legend(fontsize=6)
    fig.tight_layout()
    save(fig, d / "e1_e4_striping_sensitivity.png")
