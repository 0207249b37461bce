"""Reproductions: each study checks simulated figures against published ones or bounds.

A study is a module in this package (not starting with ``_``) that defines:

- ``TITLE``: one line saying what it reproduces and from where;
- ``ORDER`` (optional, default 100): position in ``rdmasim reproduce all``;
- ``run(progress: bool = False) -> list[Row]``: rows made with :func:`row`, each with exactly
  :data:`ROW_KEYS`, a kind (:data:`KINDS`) and a check that can be re-applied.

Adding a study is adding a module; ``rdmasim reproduce <name>`` and ``reproduce all`` find it.
"""
from __future__ import annotations

import importlib
import math
import pkgutil
from types import ModuleType
from typing import Any, Dict, List, Optional, Sequence, Union

from ._checks import Check, Samples, _missing

__all__ = ["ROW_KEYS", "KINDS", "Row", "row", "number_ids", "studies", "study", "run_study", "format_table", "Samples"]

#: The keys of every reproduction row, in order. ``simulated`` is the figure (the median when it
#: ran over several seeds, then ``range`` is [min, max] and ``seeds`` their number); ``kind`` says
#: how it was obtained (:data:`KINDS`); ``basis`` names, for a ``fit``, the parameter derived from
#: this row's published figure and, for a ``sensitivity``, the assumption; ``check`` says in words
#: what ``ok`` tested.
ROW_KEYS = ("id", "metric", "published", "simulated", "range", "seeds", "unit", "kind", "basis", "check", "ok")

#: How a row's simulated figure was obtained. Only ``reproduced`` rows count:
#: ``reproduced``: a simulated mechanism produced it and no parameter was derived from this row's
#: published figure; ``fit``: a parameter (or the cost function read back) was derived from it,
#: so agreement is by construction; ``arithmetic``: no simulation ran; ``sensitivity``: a what-if
#: under a stated assumption, not a claim of the seed.
KINDS = ("reproduced", "fit", "arithmetic", "sensitivity")


class Row(dict):
    """A reproduction row: a dict with exactly :data:`ROW_KEYS` (what JSON and CSV carry), plus
    the raw simulated ``value`` and the :class:`~._checks.Check` that gave ``ok``, kept so the
    tests can re-apply the check to perturbed values."""

    value: Any
    check_fn: Optional[Check]


def _shown(v: Any) -> Any:
    """The JSON form of a simulated value: numbers rounded for reading, tuples as lists."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, float):
        return None if math.isnan(v) else round(v, 4)
    if isinstance(v, int):
        return v
    if isinstance(v, tuple):
        return [_shown(x) for x in v]
    return v


def row(id: str, metric: str, published: Any, simulated: Any, unit: str, check: Union[Check, bool], *,
        kind: str = "reproduced", basis: Optional[str] = None) -> Row:
    """One reproduction row.

    ``simulated`` is a number, a bool, a string, a tuple (an order, a pair), :class:`Samples`
    (one figure over seeds: the row shows the median and range), or None when the run produced
    no figure (then ``ok`` is False). ``check`` is a :class:`~._checks.Check` applied to it; a
    plain bool is accepted for a row whose condition cannot be re-applied (a tautology to the
    perturbation test if its kind is ``reproduced``). A ``fit`` must name the parameter it fixed
    and a ``sensitivity`` its assumption in ``basis``."""
    if kind not in KINDS:
        raise ValueError(f"row {id!r}: kind {kind!r}, expected one of {', '.join(KINDS)}")
    if kind in ("fit", "sensitivity") and not basis:
        raise ValueError(f"row {id!r}: a {kind} row names its " + ("parameter" if kind == "fit" else "assumption") + " in basis")
    if isinstance(check, Check):
        ok, check_fn, said = check(simulated), check, str(check)
    else:
        ok, check_fn, said = bool(check) and not _missing(simulated), None, None
    if isinstance(simulated, Samples):
        shown, rng, seeds = _shown(simulated.median), [_shown(simulated.lo), _shown(simulated.hi)], len(simulated)
    else:
        shown, rng, seeds = _shown(simulated), None, None
    r = Row(id=id, metric=metric, published=published, simulated=shown, range=rng, seeds=seeds, unit=unit,
            kind=kind, basis=basis, check=said, ok=bool(ok) and shown is not None)
    r.value, r.check_fn = simulated, check_fn
    return r


def studies() -> Dict[str, ModuleType]:
    """Every registered study by name, in run order."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if callable(getattr(mod, "run", None)):
            found.append((getattr(mod, "ORDER", 100), info.name, mod))
    return {name: mod for _, name, mod in sorted(found, key=lambda t: (t[0], t[1]))}


def study(name: str) -> ModuleType:
    all_ = studies()
    if name not in all_:
        raise KeyError(f"unknown study {name!r}, expected one of: {', '.join(all_) or '(none)'}, all")
    return all_[name]


def run_study(name: str, progress: bool = False) -> List[Row]:
    """Runs one study and returns its rows (each with exactly :data:`ROW_KEYS`).

    ``name`` may select a sub-study as ``study:part`` when the study defines ``PARTS`` (its
    ``run`` then takes ``part=``)."""
    name, _, part = name.partition(":")
    mod = study(name)
    if part:
        parts = getattr(mod, "PARTS", ())
        if part not in parts:
            raise KeyError(f"unknown part {part!r} of study {name!r}, expected one of: {', '.join(parts) or '(none)'}")
        rows = mod.run(progress=progress, part=part)
    else:
        rows = mod.run(progress=progress)
    for r in rows:
        if tuple(r) != ROW_KEYS:
            raise ValueError(f"study {name!r} returned a row with keys {list(r)}, expected {list(ROW_KEYS)}")
    return number_ids(rows)


def number_ids(rows: List[Row]) -> List[Row]:
    """Makes every row id unique within its study: a study names a figure (``C8``) and may give
    it several rows; those become ``C8.1``, ``C8.2``, ... in the order they come, so rows.csv,
    the page and ``--json`` can name each row."""
    seen: Dict[str, int] = {}
    for r in rows:
        seen[r["id"]] = seen.get(r["id"], 0) + 1
    k: Dict[str, int] = {}
    for r in rows:
        if seen[r["id"]] > 1:
            base = r["id"]
            k[base] = k.get(base, 0) + 1
            r["id"] = f"{base}.{k[base]}"
    return rows


def _cell(v: Any) -> str:
    """A value as the terminal table shows it: 0 is 0, a missing figure is '-'."""
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) >= 1 else f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return " / ".join(_cell(x) for x in v)
    return str(v)


def range_cell(r: Dict[str, Any]) -> str:
    """'[min, max] over N seeds', or '' for a row measured once."""
    if r.get("range") is None:
        return ""
    lo, hi = r["range"]
    return f"[{_cell(lo)}, {_cell(hi)}] n={r['seeds']}"


#: The columns of the terminal table (CSV and JSON carry every key of :data:`ROW_KEYS`).
TABLE_COLUMNS = ("id", "kind", "metric", "published", "simulated", "range", "unit", "ok")


def format_table(rows: Sequence[Dict[str, Any]], title: Optional[str] = None) -> str:
    """The rows as an aligned text table (numbers right-aligned)."""
    cells = [[range_cell(r) if k == "range" else _cell(r[k]) for k in TABLE_COLUMNS] for r in rows]
    widths = [max([len(k)] + [len(c[i]) for c in cells]) for i, k in enumerate(TABLE_COLUMNS)]
    numeric = [i for i, k in enumerate(TABLE_COLUMNS) if k == "simulated"]

    def line(vals: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if i in numeric else v.ljust(w) for i, (v, w) in enumerate(zip(vals, widths))).rstrip()

    out = [title] if title else []
    out.append(line(TABLE_COLUMNS))
    out.append(line(["-" * w for w in widths]))
    out += [line(c) for c in cells]
    return "\n".join(out)
