"""The figures of `rdmasim reproduce isolation` read from its runs, per seed: what the study's rows,
the other profile's rows (_isolation_other_profile.py) and the plots (_isolation_plots.py) share.

The shape figures of C1, C2, C4 and C8 (targets.md states shapes, not per-profile figures) are
computed here once for both profiles; the mouse figures read a case's runs through anything with
``seeded`` (isolation.Cases, or a test's stand-in).
"""
from __future__ import annotations

import statistics
from typing import Any, Dict, List, Protocol, Sequence, Tuple

from . import Samples
from ._isolation_settings import BASES_MB, CPU_SIZES, SIZE_RATIOS
from ._isolation_targets import C2_STEP, C4_CHARGE_US, C4_EVENT_HIGH, C4_EVENT_LOW


class Seeded(Protocol):
    """Runs by case key: each seed's rows of the case, in seed order."""

    def seeded(self, key: Tuple[Any, ...]) -> List[List[Dict[str, Any]]]: ...


def med(xs: Sequence[float]) -> float:
    return float(statistics.median(xs))


def same_over_seeds(*figures: Sequence[float]) -> str:
    """How the seeds moved a row's figures: 'the same for all N seeds', or their largest
    spread (a row of several figures shows each one's median over the seeds)."""
    spread = max(max(xs) - min(xs) for xs in figures)
    n = len(figures[0])
    if spread <= 1e-9 * max(1.0, max(abs(x) for xs in figures for x in xs)):
        return f"the same for all {n} seeds"
    return f"medians over {n} seeds, which move them by <= {spread:.2g}"


def fmt(xs: Sequence[float], digits: int = 2) -> str:
    return " / ".join(f"{x:.{digits}f}" for x in xs)


def rng(s: Samples, digits: int = 2) -> str:
    return f"{s.median:.{digits}f} [{s.lo:.{digits}f}-{s.hi:.{digits}f}]"


def c1_figures(matrix: Dict[Any, List[float]]) -> Dict[str, Any]:
    """Per seed: the largest ratio of equal-size cells of two different verbs, the smallest ratio
    (1 GB flow / 1 MB flow) of the 1 MB vs 1 GB cells; and the cell counts."""
    n = len(next(iter(matrix.values())))
    same = [x for x in matrix if x[0][1] == x[1][1] and x[0] != x[1]]
    twins = [x for x in matrix if x[0] == x[1]]
    mixed = [x for x in matrix if x[0][1] != x[1][1]]
    return {
        "same": Samples(max(matrix[x][i] for x in same) for i in range(n)),
        "twins": Samples(max(matrix[x][i] for x in twins) for i in range(n)),
        "mixed": Samples(min(matrix[x][i] for x in mixed) for i in range(n)),
        "mixed_max": max(max(matrix[x]) for x in mixed),
        "n_same": len(same), "n_twins": len(twins), "n_mixed": len(mixed),
    }


def c2_figures(curves: Dict[Any, List[float]]) -> Dict[str, Any]:
    """Per seed: event polling's ratio at size ratio 1 (largest over the bases) and base 1 MB at
    x1000, the smallest quotient of a curve point over the previous one, the largest quotient of
    a base's maximum over the next smaller base's; busy polling's largest ratio. Also the
    maxima per base and the step-downs of the seeds' median curves, for the rows' text."""
    n = len(next(iter(curves.values())))
    out: Dict[str, List[float]] = {k: [] for k in ("at1", "x1000", "grow", "less", "busy")}
    tops = []
    for i in range(n):
        ev = {b: [curves[("event", b, k)][i] for k in SIZE_RATIOS if ("event", b, k) in curves] for b in BASES_MB}
        top = [max(ev[b]) for b in BASES_MB]
        tops.append(top)
        out["at1"].append(max(v[0] for v in ev.values()))
        out["x1000"].append(curves[("event", 1, 1000)][i])
        out["grow"].append(min(y / x for v in ev.values() for x, y in zip(v, v[1:])))
        out["less"].append(max(y / x for x, y in zip(top, top[1:])))
        out["busy"].append(max(v[i] for (p, _, _), v in curves.items() if p == "busy"))
    fig: Dict[str, Any] = {k: Samples(v) for k, v in out.items()}
    fig["top"] = [med([t[j] for t in tops]) for j in range(len(BASES_MB))]
    medc = {pt: med(v) for pt, v in curves.items()}
    fig["dips"] = [(b, k) for b in BASES_MB for (k0, k) in zip(SIZE_RATIOS, SIZE_RATIOS[1:])
                   if ("event", b, k) in medc and medc[("event", b, k)] < medc[("event", b, k0)] * (1 - C2_STEP)]
    return fig


def dips_text(dips: List[Tuple[int, int]]) -> str:
    return "none" if not dips else ", ".join(f"{b} MB x{k}" for b, k in dips)


def c4_figures(cpu: Dict[Any, List[float]]) -> Dict[str, Any]:
    """Event polling's CPU % at 10 B and at 1 GB and its largest rise from one size to the next
    (percentage points), per seed; busy polling's smallest CPU %."""
    n = len(cpu[("event", CPU_SIZES[0])])
    return {
        "ev10": Samples(cpu[("event", CPU_SIZES[0])]),
        "ev1g": Samples(cpu[("event", CPU_SIZES[-1])]),
        "rise": Samples(max(cpu[("event", b)][i] - cpu[("event", a)][i] for a, b in zip(CPU_SIZES, CPU_SIZES[1:]))
                        for i in range(n)),
        "busy": min(min(cpu[("busy", s)]) for s in CPU_SIZES),
    }


def c4_event_bases(period_10b_us: float, period_1g_us: float) -> Tuple[str, str, str]:
    """The assumptions the event-polling CPU rows rest on, with the periods they were measured at."""
    return (
        f"event_cpu_ns = 4 us per completion event is an unsourced assumption: the share is a fixed "
        f"{C4_CHARGE_US:.1f} us per message over the simulated {period_10b_us:.2f} us message period, so >= "
        f"{C4_EVENT_HIGH:.0f} % holds for any charge above {C4_EVENT_HIGH / 100 * period_10b_us:.1f} us",
        f"a fixed per-message charge over a 1 GB message's {period_1g_us / 1000:.0f} ms period: below "
        f"{C4_EVENT_LOW:.0f} % for any charge under {C4_EVENT_LOW / 100 * period_1g_us / 1000:.1f} ms",
        "a fixed CPU charge per message over a period that grows with the message size falls with the size, "
        "whatever the charge",
    )


def mouse_runs(c: Seeded, profile: str, size: int, against: Any) -> List[Dict[str, Any]]:
    """The mouse's row of each seed's run."""
    return [r[0] for r in c.seeded(("mouse", profile, size, against))]


def mfig(c: Seeded, profile: str, size: int, against: Any, name: str) -> List[float]:
    """One figure of the mouse, per seed."""
    return [float(r[name]) for r in mouse_runs(c, profile, size, against)]


def mouse(c: Seeded, profile: str, size: int, against: Any) -> Dict[str, Any]:
    """The mouse's median latency, 99.99th and message rate, each the median over the seeds, and
    the 99.99th's range over them (for the plots)."""
    runs = mouse_runs(c, profile, size, against)
    out: Dict[str, Any] = {k: med([r[k] for r in runs]) for k in ("lat_median_us", "lat_p99_99_us", "msg_rate_Mps")}
    tails = [r["lat_p99_99_us"] for r in runs]
    out["lat_p99_99_range"] = (min(tails), max(tails))
    return out


def kv_medians(kv: Dict[Any, List[Dict[str, Any]]]) -> Dict[Any, Dict[str, Any]]:
    """HERD's median and 99.99th per case, each the median over the seeds, with the 99.99th's range."""
    out = {}
    for k, runs in kv.items():
        tails = [r["lat_p99_99_us"] for r in runs]
        out[k] = {"lat_median_us": med([r["lat_median_us"] for r in runs]), "lat_p99_99_us": med(tails),
                  "lat_p99_99_range": (min(tails), max(tails))}
    return out


def c8_growth(kv: Dict[Any, List[Dict[str, Any]]], op: str, bg: int) -> Tuple[Samples, Samples]:
    """HERD's median and 99.99th with a background over alone, per seed."""
    a, b = kv[(op, None)], kv[(op, bg)]
    return (Samples(y["lat_median_us"] / x["lat_median_us"] for x, y in zip(a, b)),
            Samples(y["lat_p99_99_us"] / x["lat_p99_99_us"] for x, y in zip(a, b)))


def c8_growth_text(kv: Dict[Any, List[Dict[str, Any]]], op: str, bg: int) -> str:
    g_med, g_tail = c8_growth(kv, op, bg)
    a, b = kv_medians(kv)[(op, None)], kv_medians(kv)[(op, bg)]
    return (f"median {a['lat_median_us']:.2f} -> {b['lat_median_us']:.2f} us, x{rng(g_med)}; 99.99th "
            f"{a['lat_p99_99_us']:.2f} -> {b['lat_p99_99_us']:.2f} us, x{rng(g_tail)}")


def c8_least_growth(kv: Dict[Any, List[Dict[str, Any]]], op: str, bg: int) -> Samples:
    """Per seed, the smaller of the median's and the 99.99th's growth."""
    g_med, g_tail = c8_growth(kv, op, bg)
    return Samples(min(x, y) for x, y in zip(g_med, g_tail))
