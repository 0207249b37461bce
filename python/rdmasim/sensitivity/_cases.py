"""The isolation reproduction's mouse and HERD cases with extra hardware overrides, run in
parallel, and their plot and report: what the sensitivities of docs/isolation.md share.

A case is ``(what, profile, overrides, beside)``: ``what`` is ``"mouse"`` (a busy 10 B inline
WRITE mouse) or ``"kv"`` (HERD, read as its GETs); ``overrides`` is a tuple of
``(key, value)`` pairs laid over the reproduction's own (``rdmasim.reproduce.isolation``:
chunk arbitration, fetch on schedule, idle states, scheduler tick, one switch, MTU 2048);
``beside`` puts a 1 GB event-polled elephant on the same NIC and link.
"""
from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from rdmasim.envvars import env_int
from rdmasim.reproduce import isolation as iso
from rdmasim.plots import artifact, pyplot, save
from rdmasim.sweep import run_point

Overrides = Tuple[Tuple[str, Any], ...]
Case = Tuple[str, str, Overrides, bool]


def case_scenario(case: Case, mice: int, kv: int) -> Dict[str, Any]:
    what, profile, overrides, beside = case
    if what == "mouse":
        sc = iso.mouse_case(profile, 10, (iso.GB, "event") if beside else None, count=mice)
    else:
        sc = iso.kv_case(profile, 1.0, iso.GB if beside else None, requests=kv)
    sc["hardware"]["overrides"].update(dict(overrides))
    return sc


def counts(prefix: str, mice: Optional[int], kv: Optional[int]) -> Tuple[int, int]:
    """Mouse messages and HERD requests per case: as given, else ``<prefix>_MICE`` /
    ``<prefix>_KV`` from the environment, else 200 000 / 100 000."""
    return (mice if mice is not None else env_int(f"{prefix}_MICE", 200_000, lo=1),
            kv if kv is not None else env_int(f"{prefix}_KV", 100_000, lo=1))


def scenario_latencies(sc: Dict[str, Any], what: str) -> Tuple[float, float]:
    """Runs a case's scenario (``what`` as in a case): its median and 99.99th latency in us."""
    summary, rows = run_point(sc, "flows" if what == "mouse" else "kv")
    if not summary.get("finished"):
        raise RuntimeError(f"a {what} case did not complete: {summary.get('stop_reason')}")
    row = rows[0] if what == "mouse" else next(r for r in rows if r["op"] == "GET")
    return float(row["lat_median_us"]), float(row["lat_p99_99_us"])


def latencies(args: Tuple[Case, int, int]) -> Tuple[float, float]:
    """A case's median and 99.99th latency in us."""
    case, mice, kv = args
    return scenario_latencies(case_scenario(case, mice, kv), case[0])


def measure(cases: Iterable[Case], mice: int, kv: int) -> Dict[Case, Tuple[float, float]]:
    """Each distinct case's (median, 99.99th), run on every core."""
    todo: List[Case] = list(dict.fromkeys(cases))
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip(todo, pool.map(latencies, [(c, mice, kv) for c in todo])))


#: A published figure drawn as a band: (low us, high us, colour, label).
Band = Tuple[float, float, str, str]


def plot_medians(result: Dict[str, Any], path: Path, x_key: str, xlabel: str, bands: Sequence[Band], title: str) -> Optional[Path]:
    """One panel per arbitration: the EDR mouse, EDR HERD GET and FDR mouse medians beside a
    1 GB elephant against ``x_key``, over the published figures' bands."""
    plt = pyplot()
    if plt is None:
        return None
    modes = list(dict.fromkeys(r["arbitration"] for r in result["rows"]))
    fig, axes = plt.subplots(1, len(modes), figsize=(5 * len(modes), 4), sharey=True, squeeze=False)
    for ax, mode in zip(axes[0], modes):
        rows = [r for r in result["rows"] if r["arbitration"] == mode]
        x = [r[x_key] for r in rows]
        ax.plot(x, [r["edr_mouse_median_us"] for r in rows], "o-", label="EDR 10 B mouse")
        ax.plot(x, [r["edr_herd_get_median_us"] for r in rows], "s-", label="EDR HERD GET")
        ax.plot(x, [r["fdr_mouse_median_us"] for r in rows], "^--", label="FDR 10 B mouse")
        for lo, hi, colour, label in bands:
            ax.axhspan(lo, hi, color=colour, alpha=0.15, label=label)
        ax.set_title(mode)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("median beside a 1 GB elephant (us)")
    axes[0][-1].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return save(fig, path)


def main_for(name: str, sweep: Callable[[], Dict[str, Any]], table: Callable[[Dict[str, Any]], str],
             plot: Callable[[Dict[str, Any], Path], Optional[Path]], argv: List[str]) -> int:
    """Runs a sensitivity: prints its table, writes ``OUT_DIR/<name>.json`` and the plot."""
    out = Path(argv[1]) if len(argv) > 1 else Path("out/sensitivity")
    result = sweep()
    print(table(result))
    artifact(out / f"{name}.json", lambda p: p.write_text(json.dumps(result, indent=1)))
    png = plot(result, out / f"{name}.png")
    if png:
        print(f"plot: {png}")
    return 0
