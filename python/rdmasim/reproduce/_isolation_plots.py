"""Plots of `rdmasim reproduce isolation` (matplotlib, Agg): one PNG per figure of seeds/002 and
profile (c1_matrix_<profile>, c2_c3_ratio_<profile>, c5_c6_mice_<profile>), or both profiles in one
(c4_cpu, c8_herd). Every figure is the median over the study's seeds; the 99.99th bars carry
their range over the seeds."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Optional

from ..plots import pyplot, save
from ._isolation_figures import mouse
from ._isolation_settings import BASES_MB, CPU_SIZES, GB, MB, MOUSE_SIZES, PROFILES, SIZE_RATIOS, STUDY_PROFILE, VERBS
from ._isolation_targets import C5_MEDIAN, C5_TAIL, C6_ALONE, C6_MEDIAN_10B, C6_TAIL_MAX


def plot_all(out: Path, matrix: Dict[str, Dict[Any, float]], curves: Dict[str, Dict[Any, float]],
             cpu: Dict[str, Dict[Any, float]], cases: Any, kv: Dict[str, Dict[Any, Dict[str, float]]]) -> List[Path]:
    """Writes the plots into ``out`` and returns those written (one that cannot be is named on
    stderr and skipped). Every argument but ``cases`` is keyed by profile first (_isolation_settings.PROFILES),
    each figure the median over the seeds (``kv``'s with its 99.99th's ``lat_p99_99_range``)."""
    plt = pyplot()
    if plt is None:
        return []
    written: List[Optional[Path]] = []

    for profile in PROFILES:
        written.append(_c1_matrix(plt, out, profile, matrix[profile]))
        written.append(_c2_c3_curves(plt, out, profile, curves[profile]))

    # C4: CPU usage, both profiles on one plot.
    fig, ax = plt.subplots(figsize=(6, 4))
    for profile, style in zip(PROFILES, ("-", "--")):
        for polling, label in (("event", "Event-triggered"), ("busy", "Busy-polling")):
            ax.plot(CPU_SIZES, [cpu[profile][(polling, s)] for s in CPU_SIZES], style, marker="o",
                    label=f"{label}, {profile}")
    ax.set_xscale("log")
    ax.set_xlabel("message size (B)")
    ax.set_ylabel("CPU usage (%)")
    ax.set_ylim(0, 105)
    ax.legend()
    ax.set_title("C4 CPU usage")
    fig.tight_layout()
    written.append(save(fig, out / "c4_cpu.png", dpi=110))

    # C5 / C6: mice.
    for profile in ("cx3-fdr", "cx4-edr"):
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        names, med, tail, span = [], [], [], []
        for m in MOUSE_SIZES:
            for against in [None, ("e", MB), ("e", GB)]:
                r = mouse(cases, profile, m, against)
                names.append(f"{m}B " + ("alone" if against is None else ("vs 1MB" if against[1] == MB else "vs 1GB")))
                med.append(r["lat_median_us"])
                tail.append(r["lat_p99_99_us"])
                span.append(r["lat_p99_99_range"])
        _bars(axes[0], names, med, tail, rotate=True, span=span)
        if profile == "cx3-fdr":  # the study's C6 profile: targets.md's figures for the 10 B mouse
            axes[0].plot([-0.2], [C6_ALONE[0]], "k_", markersize=14, mew=2, label="published median (targets.md)")
            axes[0].plot([0.8, 1.8], [C6_MEDIAN_10B] * 2, "k_", markersize=14, mew=2)
            axes[0].axhline(C6_TAIL_MAX, color="k", ls=":", lw=1, label=f"published 99.99th, up to {C6_TAIL_MAX}")
            axes[0].set_ylim(0, C6_TAIL_MAX * 1.35)
        axes[0].legend(loc="upper left", fontsize=8)
        axes[0].set_title(f"mouse vs elephant, {profile}")
        names2, med2, tail2, span2 = [], [], [], []
        for against in [None] + [("m", o) for o in MOUSE_SIZES]:
            r = mouse(cases, profile, 10, against)
            names2.append("10B alone" if against is None else f"10B vs {against[1]}B")
            med2.append(r["lat_median_us"])
            tail2.append(r["lat_p99_99_us"])
            span2.append(r["lat_p99_99_range"])
        _bars(axes[1], names2, med2, tail2, rotate=True, span=span2)
        if profile == "cx3-fdr":  # the study's C5 profile: targets.md's ranges for the three pairs
            for (lo, hi), label in ((C5_MEDIAN, "published median"), (C5_TAIL, "published 99.99th")):
                axes[1].fill_between([0.5, len(names2) - 0.5], lo, hi, color="k", alpha=0.15, label=f"{label} {lo}-{hi}")
            axes[1].set_ylim(0, C5_TAIL[1] * 1.45)
        axes[1].legend(loc="upper left", fontsize=8)
        axes[1].set_title(f"mouse vs mouse, {profile}")
        fig.tight_layout()
        written.append(save(fig, out / f"c5_c6_mice_{profile}.png", dpi=110))

    # C8: HERD, both profiles.
    fig, axes = plt.subplots(1, len(PROFILES), figsize=(12, 4), sharey=True)
    for ax, profile in zip(axes, PROFILES):
        names, med, tail, span = [], [], [], []
        for op in ("GET", "PUT"):
            for bg, label in ((None, "alone"), (MB, "vs 1MB"), (GB, "vs 1GB")):
                names.append(f"{op} {label}")
                med.append(kv[profile][(op, bg)]["lat_median_us"])
                tail.append(kv[profile][(op, bg)]["lat_p99_99_us"])
                span.append(kv[profile][(op, bg)].get("lat_p99_99_range"))
        _bars(ax, names, med, tail, rotate=True, span=span)
        if profile == STUDY_PROFILE["C8"]:  # targets.md: medians alone 2.9-3.4 us (GET, PUT)
            ax.errorbar([-0.2, 2.8], [3.15, 3.15], yerr=0.25, fmt="none", ecolor="k", capsize=6, lw=2,
                        label="published median alone, 2.9-3.4")
        ax.legend()
        study = " (the study's)" if profile == STUDY_PROFILE["C8"] else ""
        ax.set_title(f"C8 HERD vs elephant, {profile}{study}")
    fig.tight_layout()
    written.append(save(fig, out / "c8_herd.png", dpi=110))
    return [p for p in written if p is not None]


def _c1_matrix(plt: Any, out: Path, profile: str, matrix: Dict[Any, float]) -> Optional[Path]:
    """C1: ratio matrix (larger / smaller; equal sizes max / min)."""
    labels = [(v, s) for v in VERBS for s in (MB, GB)]
    grid = [[matrix.get((a, b), matrix.get((b, a), math.nan)) for b in labels] for a in labels]
    fig, ax = plt.subplots(figsize=(7, 6))
    im = ax.imshow(grid, cmap="RdYlGn_r", vmin=1.0, vmax=1.6)
    names = [f"{v.upper()} {'1MB' if s == MB else '1GB'}" for v, s in labels]
    ax.set_xticks(range(len(names)), names, rotation=60, ha="right")
    ax.set_yticks(range(len(names)), names)
    for i, r in enumerate(grid):
        for j, x in enumerate(r):
            ax.text(j, i, f"{x:.2f}", ha="center", va="center", fontsize=7)
    fig.colorbar(im, label="bandwidth ratio (>= 1.10 unfair)")
    ax.set_title(f"C1 elephant vs elephant, {profile}, event polling")
    fig.tight_layout()
    return save(fig, out / f"c1_matrix_{profile}.png", dpi=110)


def _c2_c3_curves(plt: Any, out: Path, profile: str, curves: Dict[Any, float]) -> Optional[Path]:
    """C2 / C3: ratio vs size ratio, event and busy polling."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    top = max([1.5] + [v + 0.05 for v in curves.values() if v == v])  # the study's axis, or more
    for ax, polling, fid in ((axes[0], "event", "C2"), (axes[1], "busy", "C3")):
        for base in BASES_MB:
            pts = [(k, curves[(polling, base, k)]) for k in SIZE_RATIOS if (polling, base, k) in curves]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{base}MB")
        ax.set_xscale("log")
        ax.set_xlabel("message size ratio")
        ax.set_title(f"{fid}: {polling} polling, {profile}")
        ax.set_ylim(0.75, top)
        ax.grid(True, alpha=0.3)
        if fid == "C2" and profile == STUDY_PROFILE["C2"]:  # targets.md: 1.25-1.5 at ratio 1000
            ax.errorbar([1000], [1.375], yerr=[[0.125], [0.125]], fmt="none", ecolor="k", capsize=6, lw=2,
                        label="published, x1000: 1.25-1.5")
    axes[0].set_ylabel("throughput ratio")
    axes[0].legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return save(fig, out / f"c2_c3_ratio_{profile}.png", dpi=110)


def _bars(ax: Any, names: List[str], median: List[float], tail: List[float], rotate: bool,
          span: Optional[List[Any]] = None) -> None:
    """Median and 99.99th latency side by side for each case; ``span`` gives each 99.99th's
    (min, max) over the seeds, drawn as an error bar."""
    x = range(len(names))
    ax.bar([i - 0.2 for i in x], median, 0.4, label="median")
    yerr = None
    if span and all(s is not None for s in span):
        yerr = [[t - s[0] for t, s in zip(tail, span)], [s[1] - t for t, s in zip(tail, span)]]
    ax.bar([i + 0.2 for i in x], tail, 0.4, yerr=yerr, capsize=3 if yerr else 0,
           label="99.99th" + (" (range over seeds)" if yerr else ""))
    ax.set_xticks(list(x), names, rotation=45 if rotate else 0, ha="right" if rotate else "center")
    ax.set_ylabel("latency (us)")


