"""A study's rows over several guesses at an input the study does not give (cabling families),
as over seeds: each reproduced row is computed once per family, and the rows are joined into
one whose value is every family's samples (:class:`~._checks.FamilySamples`: median and range
over all of them) and whose check is the row's own check per family
(:class:`~._checks.ForFamilies`): a published figure counts when it holds in some family, a
claim without a figure when it holds in every one. The metric names the families the row holds
in, which is what the published figure needs (docs/reproduce.md).

Rows of other kinds (sensitivities) are taken from the reference family alone.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Sequence, Tuple

from . import Row, row
from ._checks import FamilySamples, ForFamilies, Samples


def _key(rows: Sequence[Row]) -> List[Tuple[str, int]]:
    """(id, occurrence) of each reproduced row: rows share an id until they are numbered."""
    seen: Dict[str, int] = {}
    keys = []
    for r in rows:
        if r["kind"] != "reproduced":
            keys.append(None)
            continue
        seen[r["id"]] = seen.get(r["id"], 0) + 1
        keys.append((r["id"], seen[r["id"]]))
    return keys


def _median(v: Any) -> str:
    m = v.median if isinstance(v, Samples) else v
    if m is None or (isinstance(m, float) and math.isnan(m)):
        return "-"
    return f"{m:.3g}" if isinstance(m, (int, float)) and not isinstance(m, bool) else str(m)


def over_families(per_family: Dict[str, List[Row]], reference: str) -> List[Row]:
    """The rows of `reference`, each reproduced one joined with the same row of every family
    (matched by id and place); every family must give the same reproduced rows."""
    ref = per_family[reference]
    if len(per_family) == 1:
        # The reference alone: its rows as they are, with no family to join.
        return list(ref)
    index = {f: dict(zip(_key(rows), rows)) for f, rows in per_family.items()}
    out: List[Row] = []
    for key, r in zip(_key(ref), ref):
        if key is None:
            out.append(r)
            continue
        missing = [f for f in per_family if key not in index[f]]
        if missing:
            raise ValueError(f"row {key[0]} #{key[1]} is missing in families {', '.join(missing)}")
        same = {f: index[f][key] for f in per_family}
        value = FamilySamples({f: x.value for f, x in same.items()})
        check = ForFamilies({f: x.check_fn for f, x in same.items()}, r["published"]) if r.check_fn is not None else None
        holds = check.holds_in(value) if check is not None else {f: bool(x["ok"]) for f, x in same.items()}
        needs = ", ".join(f for f, ok in holds.items() if ok) or "none"
        medians = ", ".join(f"{f} {_median(x.value)}" for f, x in same.items())
        metric = f"{r['metric']} || over the cabling families (median each: {medians}); holds in: {needs}"
        # A count of seed sets is of each family's own number of them.
        units: Dict[str, List[str]] = {}
        for f, x in same.items():
            units.setdefault(x["unit"], []).append(f)
        unit = r["unit"] if len(units) == 1 else "per family: " + "; ".join(f"{u} ({', '.join(fs)})" for u, fs in units.items())
        out.append(row(r["id"], metric, r["published"], value, unit, check if check is not None else all(holds.values()),
                       kind=r["kind"], basis=r["basis"]))
    return out
