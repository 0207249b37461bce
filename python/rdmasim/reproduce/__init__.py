"""Reproductions: each study checks simulated figures against published ones or bounds.

A study is a module in this package (not starting with ``_``) that defines:

- ``TITLE``: one line saying what it reproduces and from where;
- ``ORDER`` (optional, default 100): position in ``rdmasim reproduce all``;
- ``run(progress: bool = False) -> list[dict]``: rows made with :func:`row`, i.e. with exactly
  the keys ``id, metric, published, simulated, unit, ok``.

Adding a study is adding a module; ``rdmasim reproduce <name>`` and ``reproduce all`` find it.
"""
from __future__ import annotations

import importlib
import math
import pkgutil
from types import ModuleType
from typing import Any, Dict, List, Optional, Sequence

__all__ = ["ROW_KEYS", "row", "studies", "study", "run_study", "format_table"]

#: The keys of every reproduction row, in order.
ROW_KEYS = ("id", "metric", "published", "simulated", "unit", "ok")


def row(id: str, metric: str, published: Any, simulated: Any, unit: str, ok: bool) -> Dict[str, Any]:
    """One reproduction row. ``simulated`` is a number (rounded for reading), a string, or None
    when the run produced no figure (then ``ok`` is False)."""
    if isinstance(simulated, float):
        simulated = None if math.isnan(simulated) else round(simulated, 4)
    return {"id": id, "metric": metric, "published": published, "simulated": simulated, "unit": unit,
            "ok": bool(ok) and simulated is not None}


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


def run_study(name: str, progress: bool = False) -> List[Dict[str, Any]]:
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
    return rows


def _cell(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) >= 1 else f"{v:.4g}"
    return str(v)


def format_table(rows: Sequence[Dict[str, Any]], title: Optional[str] = None) -> str:
    """The rows as an aligned text table (numbers right-aligned)."""
    cells = [[_cell(r[k]) for k in ROW_KEYS] for r in rows]
    widths = [max([len(k)] + [len(c[i]) for c in cells]) for i, k in enumerate(ROW_KEYS)]
    numeric = [i for i, k in enumerate(ROW_KEYS) if k == "simulated"]

    def line(vals: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if i in numeric else v.ljust(w) for i, (v, w) in enumerate(zip(vals, widths))).rstrip()

    out = [title] if title else []
    out.append(line(ROW_KEYS))
    out.append(line(["-" * w for w in widths]))
    out += [line(c) for c in cells]
    return "\n".join(out)
