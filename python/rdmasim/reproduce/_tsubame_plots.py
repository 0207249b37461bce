"""The TSUBAME2.0 study's figures, simulated: minimum injection bandwidth vs nodes (its figures 1,
7 and 8) and Alltoall time over trials vs nodes (figures 2, 9 and 11). Only the configurations
that ran are drawn."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

from ._plots import pyplot, save
from ._tsubame_runs import CONFIGS, DISABLED, Runs, gbps

PUB_STEPS = (7.5, 5.2, 3.9, 3.1, 2.6)


def _has(runs: Runs, label: str, kind: str) -> bool:
    return label in runs.out and bool(runs.cases(label, kind))


def _trials(ax: Any, runs: Runs, label: str, kind: str, name: str, y) -> None:
    cases = runs.cases(label, kind)
    xs = [n for n, c in cases.items() for _ in c["trial_s"]]
    ys = [y(c, t) for c in cases.values() for t in c["trial_s"]]
    ax.scatter(xs, ys, s=8, alpha=0.6, label=name)


def _legend(ax: Any) -> None:
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)


def write_plots(runs: Runs, d: Path) -> None:
    plt = pyplot()
    if plt is None:
        return
    bw = lambda c, t: gbps(c, t)  # noqa: E731
    if _has(runs, "updn", "random-pair"):
        fig, ax = plt.subplots(figsize=(7, 4))
        _trials(ax, runs, "updn", "random-pair", "UpDn, bad links kept: trials", bw)
        best = runs.cases("updn", "random-pair")
        ax.plot(list(best), [gbps(c, c["fluid_s"]) for c in best.values()], lw=1, color="k", label="best trial")
        for s in PUB_STEPS:
            ax.axhline(s, ls="--", lw=0.7, color="grey")
        ax.axhline(0.5, ls=":", lw=0.8, color="red", label="500 MB/s")
        ax.set_xlabel("nodes")
        ax.set_ylabel("minimum injection bandwidth [GB/s]")
        ax.set_title("E1/E2: random-pair Sendrecv 512 MiB (dashed: published steps)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        save(fig, d / "e1_injection_bandwidth.png")
    study = [k for k, c in CONFIGS.items() if c.in_study and _has(runs, k, "random-pair")]
    disabled = [k for k in DISABLED if _has(runs, k, "random-pair")]
    if study or disabled:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
        for k in study:
            _trials(a1, runs, k, "random-pair", k, bw)
        for k in disabled:
            cases = runs.cases(k, "random-pair")
            a2.plot(list(cases), [gbps(c, c["fluid_s"]) for c in cases.values()], marker=".", lw=1, label=DISABLED[k])
        a1.set_title("E4 (fig. 7): Table 2 conditions, all trials")
        a2.set_title("E4 (fig. 8): bad links disabled")
        for a in (a1, a2):
            a.set_xlabel("nodes")
            _legend(a)
        a1.set_ylabel("minimum injection bandwidth [GB/s]")
        fig.tight_layout()
        save(fig, d / "e4_strategies.png")
    kept = [k for k in ("updn",) if _has(runs, k, "alltoall")]
    dis = [k for k in DISABLED if _has(runs, k, "alltoall")]
    if kept or dis:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
        sec = lambda c, t: t  # noqa: E731
        for k in kept:
            _trials(a1, runs, k, "alltoall", "UpDn, bad links kept", sec)
        for k in dis:
            _trials(a2, runs, k, "alltoall", DISABLED[k], sec)
        a1.set_title("E3 (fig. 2/9): Alltoall 1 MiB, bad links kept")
        a2.set_title("E6 (fig. 11): bad links disabled")
        for a in (a1, a2):
            a.set_xlabel("nodes")
            a.set_ylabel("Alltoall time [s]")
            _legend(a)
        fig.tight_layout()
        save(fig, d / "e3_e6_alltoall_time.png")
    from ._tsubame_rate import write_plot

    write_plot(runs, d)
