"""The TSUBAME2.0 study's figures, simulated: minimum injection bandwidth vs nodes (its figures 1,
7 and 8), Alltoall time over trials vs nodes (figures 2, 9 and 11), and the striping sensitivity
(E1s, E4s). Trials are drawn for the first seed set, best cases for every seed set; only the
configurations that ran are drawn."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ..plots import pyplot, save
from ._tsubame_runs import CONFIGS, LARGE, TABLE2, Runs, gbps, trial_times

PUB_STEPS = (7.5, 5.2, 3.9, 3.1, 2.6)


def _has(runs: Sequence[Runs], label: str, kind: str) -> bool:
    return bool(runs) and bool(runs[0].cases(label, kind))


def _trials(ax: Any, r: Runs, label: str, kind: str, name: str, y) -> None:
    cases = r.cases(label, kind)
    xs = [n for n, c in cases.items() for _ in trial_times(c)]
    ys = [y(c, t) for c in cases.values() for t in trial_times(c)]
    # One colour per configuration in every panel.
    color = f"C{list(CONFIGS).index(label) % 10}"
    ax.scatter(xs, ys, s=8, alpha=0.6, label=name, color=color)


def _legend(ax: Any) -> None:
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)


def write_plots(runs: Sequence[Runs], d: Path) -> None:
    plt = pyplot()
    if plt is None or not runs:
        return
    r0 = runs[0]
    bw = lambda c, t: gbps(c, t)  # noqa: E731
    if _has(runs, "updn", "random-pair"):
        fig, ax = plt.subplots(figsize=(7, 4))
        _trials(ax, r0, "updn", "random-pair", f"UpDn, bad links kept: trials (seed set {r0.seed})", bw)
        for i, r in enumerate(runs):
            best = r.cases("updn", "random-pair")
            ax.plot(list(best), [gbps(c, c["fluid_s"]) for c in best.values()], lw=1, color="k", alpha=1.0 if i == 0 else 0.3,
                    label="best trial per seed set" if i == 0 else None)
        for s in PUB_STEPS:
            ax.axhline(s, ls="--", lw=0.7, color="grey")
        ax.axhline(0.5, ls=":", lw=0.8, color="red", label="500 MB/s")
        ax.set_xlabel("nodes")
        ax.set_ylabel("minimum injection bandwidth [GB/s]")
        ax.set_title("E1/E2: random-pair Sendrecv 512 MiB (dashed: published steps)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        save(fig, d / "e1_injection_bandwidth.png")
    study = [k for k in TABLE2 if _has(runs, k, "random-pair")]
    if study:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
        for k in study:
            _trials(a1, r0, k, "random-pair", TABLE2[k], bw)
        for k in study:
            if CONFIGS[k].disable:
                _trials(a2, r0, k, "random-pair", TABLE2[k], bw)
        a1.set_title(f"E4 (fig. 7): Table 2, all trials, seed set {r0.seed}")
        a2.set_title("E4 (fig. 8): bad links disabled (hetero, UpDn2)")
        for a in (a1, a2):
            a.set_xlabel("nodes")
            _legend(a)
        a1.set_ylabel("minimum injection bandwidth [GB/s]")
        fig.tight_layout()
        save(fig, d / "e4_strategies.png")
    kept = [k for k in TABLE2 if not CONFIGS[k].disable and _has(runs, k, "alltoall")]
    dis = [k for k in TABLE2 if CONFIGS[k].disable and _has(runs, k, "alltoall")]
    if kept or dis:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
        sec = lambda c, t: t  # noqa: E731
        for k in kept:
            _trials(a1, r0, k, "alltoall", f"{TABLE2[k]}, bad links kept", sec)
        for k in dis:
            _trials(a2, r0, k, "alltoall", TABLE2[k], sec)
        a1.set_title(f"E3 (fig. 2/9): Alltoall 1 MiB, bad links kept, seed set {r0.seed}")
        a2.set_title("E6 (fig. 11): bad links disabled")
        for a in (a1, a2):
            a.set_xlabel("nodes")
            a.set_ylabel("Alltoall time [s]")
            _legend(a)
        fig.tight_layout()
        save(fig, d / "e3_e6_alltoall_time.png")
    write_striping_plot(runs, d)


def write_striping_plot(runs: Sequence[Runs], d: Path) -> None:
    """E1 (UpDn, bad links kept) and E4 (Table 2, beyond 600 nodes) best cases under both
    policies, first seed set."""
    plt = pyplot()
    if plt is None or not _has(runs, "updn", "rate-pair"):
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
