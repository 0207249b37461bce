"""Rows of `rdmasim reproduce isolation` for the profile the study did not run a case family on.

Issue #5 asks for every family on both ConnectX-3 FDR and ConnectX-4 EDR. The study ran C1-C4
on cx3-fdr and HERD (C8) on cx4-edr; mouse vs mouse and mouse vs elephant already run on both
(C5/C6 on cx3-fdr, C7 on cx4-edr). targets.md states C1-C4 and C8 as shapes, so the other
profile's rows apply the same shape test as the study's rows (the functions are shared with
isolation.py through _isolation_figures.py) and their published column names the profile the
study's figure comes from.

None of them is a claim of the seed: they are ``sensitivity`` rows (what the model gives on a
profile the study did not measure), whose basis names that assumption. They come after the
study's rows, so the study's rows keep their order.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from . import row
from ._checks import AtLeast, AtMost, Between, Claim, Every, Most, Near
from ._isolation_figures import (c1_figures, c2_figures, c4_event_bases, c4_figures, c8_growth_text, c8_least_growth,
                                 dips_text, fmt, med)
from ._isolation_settings import GB, MB, STUDY_PROFILE, other
from ._isolation_targets import (C2_STEP, C2_TWINS, C4_BUSY_BASIS, C4_EVENT_HIGH, C4_EVENT_LOW, C4_RISE, C8_SEVERAL_FOLD,
                                 FAIR_RATIO)


def _label(family: str, profile: str) -> str:
    return f"{profile} (the study ran {family} on {STUDY_PROFILE[family]}): "


def _basis(family: str, profile: str) -> str:
    extra = ("; the EDR hosts' idle states are the Haswell stand-in (docs/isolation.md 2.2)"
             if profile == "cx4-edr" and family in ("C1", "C2", "C4") else "")
    return (f"not a figure of the seed: the study ran {family} on {STUDY_PROFILE[family]} only; "
            f"the same shape test on {profile} is a what-if{extra}")


def other_profile_rows(matrices: Dict[str, Dict[Any, List[float]]], curves: Dict[str, Dict[Any, List[float]]],
                       cpu: Dict[str, Dict[Any, List[float]]], kv: Dict[str, Dict[Any, List[Dict[str, Any]]]],
                       periods: Dict[str, Tuple[float, float]]) -> List[Dict[str, Any]]:
    """Every argument is keyed by profile, each figure per seed, as isolation.run builds them;
    ``periods`` gives the event-polled C4 flow's message period at 10 B and 1 GB (us)."""
    rows: List[Dict[str, Any]] = []
    # C1: elephant vs elephant matrix.
    study = STUDY_PROFILE["C1"]
    p = other(study)
    f = c1_figures(matrices[p])
    b = _basis("C1", p)
    rows.append(row("C1", _label("C1", p) + f"equal-size cells of two different verbs ({f['n_same']} cells): largest ratio "
                    f"(twins: largest {f['twins'].hi:.3f})", f"fair (study: {study})", f["same"], "x",
                    Every(Between(1.0, FAIR_RATIO)), kind="sensitivity", basis=b))
    rows.append(row("C1", _label("C1", p) + f"1 MB vs 1 GB cells ({f['n_mixed']}): smallest ratio 1 GB flow / 1 MB flow "
                    f"(largest {f['mixed_max']:.2f})", f"unfair, larger wins (study: {study})", f["mixed"], "x",
                    Every(AtLeast(FAIR_RATIO)), kind="sensitivity", basis=b))
    # C2 / C3: ratio vs size ratio.
    study = STUDY_PROFILE["C2"]
    p = other(study)
    f = c2_figures(curves[p])
    b = _basis("C2", p)
    x1000 = med(curves[p][("event", 1, 1000)])
    rows.append(row("C2", _label("C2", p) + "event polling: ratio at size ratio 1, largest over the bases (a flow against its twin)",
                    f"1.0 (study: {study})", f["at1"], "x", Every(Between(1.0, 1.05)), kind="sensitivity", basis=C2_TWINS))
    rows.append(row("C2", _label("C2", p) + f"event polling: ratio grows with the size ratio: smallest quotient of a point over "
                    f"the previous one (>= {1 - C2_STEP:.2f}; step-downs of the median curves: {dips_text(f['dips'])}; "
                    f"base 1 MB at x1000: {x1000:.2f})", f"grows (study: {study})", f["grow"], "x",
                    Every(AtLeast(1 - C2_STEP)), kind="sensitivity", basis=b))
    rows.append(row("C2", _label("C2", p) + f"larger base flows suffer less: largest quotient of a base's maximum over the next "
                    f"smaller base's (<= {1 + C2_STEP:.2f}); maxima for base 1/2/5/10/100 MB: {fmt(f['top'])}",
                    f"decreasing (study: {study})", f["less"], "x", Every(AtMost(1 + C2_STEP)), kind="sensitivity", basis=b))
    rows.append(row("C3", _label("C3", p) + "busy polling: largest ratio over every base and size ratio",
                    f"close to 1 (study: {study})", f["busy"], "x", Every(Between(1.0, FAIR_RATIO)),
                    kind="sensitivity", basis=_basis("C3", p)))
    # C4: CPU by message size.
    study = STUDY_PROFILE["C4"]
    p = other(study)
    f = c4_figures(cpu[p])
    rows.append(row("C4", _label("C4", p) + "busy polling CPU, 10 B .. 1 GB (smallest)", f"100% (study: {study})",
                    f["busy"], "%", Near(100.0, 0.1), kind="arithmetic", basis=C4_BUSY_BASIS))
    hi_, lo_, rise = med(f["ev10"]), med(f["ev1g"]), med(f["rise"])
    bases = c4_event_bases(*periods[p])
    rows.append(row("C4", _label("C4", p) + f"event polling CPU at 10 B / at 1 GB / largest rise from one size to the next "
                    f"(medians over {len(f['ev10'])} seeds)", f"high / toward 0 / falling (study: {study})",
                    (hi_, lo_, rise), "% / % / points",
                    Claim(f">= {C4_EVENT_HIGH:.0f} / < {C4_EVENT_LOW:.0f} / <= {C4_RISE:.0f}",
                          lambda v: v[0] >= C4_EVENT_HIGH and v[1] < C4_EVENT_LOW and v[2] <= C4_RISE),
                    kind="sensitivity", basis=_basis("C4", p) + "; and " + bases[0]))
    # C8: HERD beside an elephant.
    study = STUDY_PROFILE["C8"]
    p = other(study)
    for op in ("GET", "PUT"):
        for bg, label in ((MB, "1 MB"), (GB, "1 GB")):
            rows.append(row("C8", f"{p} (the study ran HERD on {study}): HERD {op} with a {label} background: the smaller of the "
                            f"median's and the 99.99th's growth over alone ({c8_growth_text(kv[p], op, bg)})",
                            f"n/a (study ran it on {study}); several-fold", c8_least_growth(kv[p], op, bg), "x",
                            Most(AtLeast(C8_SEVERAL_FOLD)), kind="sensitivity", basis=_basis("C8", p)))
    return rows

