"""Rows of `rdmasim reproduce isolation` for the profile the study did not run a case family on.

Issue #5 asks for every family on both ConnectX-3 FDR and ConnectX-4 EDR. The study ran C1-C4
on cx3-fdr and HERD (C8) on cx4-edr; mouse vs mouse and mouse vs elephant already run on both
(C5/C6 on cx3-fdr, C7 on cx4-edr). targets.md states C1-C4 and C8 as shapes, so the other
profile's rows apply the same shape test as the study's rows (the functions are shared with
isolation.py) and their published column names the profile the study's figure comes from. These
rows come after the study's rows, so the study's rows keep their order.
"""
from __future__ import annotations

from typing import Any, Dict, List

from . import row
from . import isolation as iso


def _label(family: str, profile: str) -> str:
    return f"{profile} (the study ran {family} on {iso.STUDY_PROFILE[family]}; same shape test): "


def other_profile_rows(matrices: Dict[str, Dict[Any, float]], curves: Dict[str, Dict[Any, float]],
                       cpu: Dict[str, Dict[Any, float]], kv: Dict[str, Dict[Any, Dict[str, Any]]]) -> List[Dict[str, Any]]:
    rows: List[Dict[str, Any]] = []
    # C1: elephant vs elephant matrix.
    study = iso.STUDY_PROFILE["C1"]
    p = iso.other(study)
    fair_same, n_same, big_wins, n_mixed = iso.c1_shape(matrices[p])
    mixed = [r for (a, b), r in matrices[p].items() if a[1] != b[1]]
    rows.append(row("C1", _label("C1", p) + "equal-size cells (1 MB vs 1 MB, 1 GB vs 1 GB, any verbs): fair (ratio < 1.10)",
                    f"fair (study: {study})", f"{fair_same}/{n_same} fair", "cells", fair_same == n_same))
    rows.append(row("C1", _label("C1", p) + f"1 MB vs 1 GB cells: the 1 GB flow wins (ratio >= 1.10; ratios {min(mixed):.2f}-{max(mixed):.2f})",
                    f"unfair, larger wins (study: {study})", f"{big_wins}/{n_mixed} unfair", "cells", big_wins == n_mixed))
    # C2 / C3: ratio vs size ratio.
    study = iso.STUDY_PROFILE["C2"]
    p = iso.other(study)
    sh = iso.c2_shape(curves[p])
    at1000 = curves[p].get(("event", 1, 1000), float("nan"))
    rows.append(row("C2", _label("C2", p) + "event polling: ratio at size ratio 1 (all bases)", f"1.0 (study: {study})",
                    f"{min(sh['at1']):.3f}-{max(sh['at1']):.3f}", "x", all(r < 1.05 for r in sh["at1"])))
    rows.append(row("C2", _label("C2", p) + f"event polling: ratio grows with the size ratio (no step down > 0.02, every base; "
                    f"base 1 MB at x1000: {at1000:.2f})", f"grows (study: {study})", iso.dips_text(sh["dips"]), "", not sh["dips"]))
    rows.append(row("C2", _label("C2", p) + "larger base flows suffer less: max ratio for base 1/2/5/10/100 MB",
                    f"decreasing (study: {study})", " / ".join(f"{x:.2f}" for x in sh["top"]), "x", sh["less"]))
    rows.append(row("C3", _label("C3", p) + "busy polling: max ratio over every base and size ratio", f"close to 1 (study: {study})",
                    sh["busy"], "x", sh["busy"] < iso.FAIR_RATIO))
    # C4: CPU by message size.
    study = iso.STUDY_PROFILE["C4"]
    p = iso.other(study)
    ev, busy, falling = iso.c4_shape(cpu[p])
    rows.append(row("C4", _label("C4", p) + "busy polling CPU, 10 B .. 1 GB (by construction)", f"100% (study: {study})",
                    f"{min(busy):.0f}-{max(busy):.0f}", "%", min(busy) == 100.0))
    rows.append(row("C4", _label("C4", p) + f"event polling CPU at 10 B (>= {iso.C4_EVENT_HIGH:.0f}%) / at 1 GB "
                    f"(< {iso.C4_EVENT_LOW:.0f}%) / falls with message size", f"high / toward 0 / falling (study: {study})",
                    f"{ev[0]:.1f} / {ev[-1]:.4f} / {'yes' if falling else 'no'}", "%",
                    ev[0] >= iso.C4_EVENT_HIGH and ev[-1] < iso.C4_EVENT_LOW and falling))
    # C8: HERD beside an elephant.
    study = iso.STUDY_PROFILE["C8"]
    p = iso.other(study)
    for op in ("GET", "PUT"):
        a = kv[p][(op, None)]
        for bg, label in ((iso.MB, "1 MB"), (iso.GB, "1 GB")):
            med, tail = iso.c8_growth(kv[p], op, bg)
            b = kv[p][(op, bg)]
            rows.append(row("C8", f"{p} (the study ran HERD on {study}; ok = the same shape, median and 99.99th >= "
                            f"{iso.C8_SEVERAL_FOLD:.0f}x): HERD {op} with a {label} background: median / 99.99th growth over "
                            f"alone (median {a['lat_median_us']:.2f} -> {b['lat_median_us']:.2f} us, 99.99th "
                            f"{a['lat_p99_99_us']:.2f} -> {b['lat_p99_99_us']:.2f} us)",
                            f"n/a (study ran it on {study}); several-fold", f"{med:.2f}x / {tail:.2f}x", "x",
                            med >= iso.C8_SEVERAL_FOLD and tail >= iso.C8_SEVERAL_FOLD))
    return rows
