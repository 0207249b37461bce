"""What a reproduction row checks, as objects that can be re-applied to another value.

A row's ``ok`` is its check applied to its simulated value. Keeping the check as an object (not
a bool computed once) lets the tests perturb every reproduced row's value (halve it, double it,
flip it) and ask whether the check notices: a check that holds for the perturbed values too
cannot fail, and says nothing about the simulation (:func:`survives_perturbation`).

A value is a number, a bool, a tuple of them (an order, a pair to compare), or
:class:`Samples`: one figure measured over several seeds, reported as its median and range.
"""
from __future__ import annotations

import math
import statistics
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

__all__ = [
    "Samples", "FamilySamples", "Check", "Within", "Near", "AtLeast", "AtMost", "Between", "Is", "Increasing",
    "Claim", "InRange", "Most", "Every", "OnMedian", "ForFamilies", "perturbations", "survives_perturbation",
]


class Samples(tuple):
    """One figure over several seeds (or cabling families, or any set of unknown inputs), in the
    order they ran. Reported as the median with the range [min, max]."""

    def __new__(cls, values: Iterable[Any]) -> "Samples":
        return super().__new__(cls, tuple(values))

    def numbers(self) -> List[float]:
        return [float(v) for v in self if _is_number(v)]

    @property
    def median(self) -> Optional[float]:
        xs = self.numbers()
        return float(statistics.median(xs)) if xs else None

    @property
    def lo(self) -> Optional[float]:
        xs = self.numbers()
        return min(xs) if xs else None

    @property
    def hi(self) -> Optional[float]:
        xs = self.numbers()
        return max(xs) if xs else None

    def like(self, values: Iterable[Any]) -> "Samples":
        """Other values in this one's shape (a perturbation keeps the grouping of
        :class:`FamilySamples`)."""
        return Samples(values)


class FamilySamples(Samples):
    """One figure over several guesses at an unknown input (cabling families), each a value of
    its own over seeds (:class:`Samples`) or a single one (a count of seed sets). It reads as
    all their samples together, for the median and range; ``groups`` keeps each family's."""

    groups: Dict[str, Any]

    def __new__(cls, groups: Dict[str, Any]) -> "FamilySamples":
        flat = [x for g in groups.values() for x in (g if isinstance(g, Samples) else (g,))]
        self = super().__new__(cls, flat)
        self.groups = dict(groups)
        return self

    def like(self, values: Iterable[Any]) -> "FamilySamples":
        it = iter(list(values))
        return FamilySamples({k: g.like(next(it) for _ in g) if isinstance(g, Samples) else next(it)
                              for k, g in self.groups.items()})


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v)


def _missing(v: Any) -> bool:
    """No figure: None, NaN, an empty sample set or a tuple with a missing part."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return True
    if isinstance(v, tuple):
        return len(v) == 0 or any(_missing(x) for x in v)
    return False


class Check:
    """A condition on a row's simulated value; ``str()`` says it in words for the tables."""

    text = ""

    def holds(self, value: Any) -> bool:  # pragma: no cover - every check overrides it
        raise NotImplementedError

    def __call__(self, value: Any) -> bool:
        if _missing(value):
            return False
        try:
            return bool(self.holds(value))
        except (TypeError, ValueError, ZeroDivisionError):
            return False

    def __str__(self) -> str:
        return self.text


def _num(v: float) -> str:
    return f"{v:g}"


class Within(Check):
    """Within ``rel`` (a fraction) of ``target``."""

    def __init__(self, target: float, rel: float):
        self.target, self.rel = float(target), float(rel)
        self.text = f"within {100 * rel:g}% of {_num(target)}"

    def holds(self, v: float) -> bool:
        return abs(float(v) - self.target) <= self.rel * abs(self.target)


class Near(Check):
    """Within ``tol`` (in the row's unit) of ``target``."""

    def __init__(self, target: float, tol: float):
        self.target, self.tol = float(target), float(tol)
        self.text = f"{_num(target)} +- {_num(tol)}"

    def holds(self, v: float) -> bool:
        return abs(float(v) - self.target) <= self.tol


class AtLeast(Check):
    def __init__(self, bound: float):
        self.bound = float(bound)
        self.text = f">= {_num(bound)}"

    def holds(self, v: float) -> bool:
        return float(v) >= self.bound


class AtMost(Check):
    def __init__(self, bound: float):
        self.bound = float(bound)
        self.text = f"<= {_num(bound)}"

    def holds(self, v: float) -> bool:
        return float(v) <= self.bound


class Between(Check):
    def __init__(self, lo: float, hi: float):
        self.lo, self.hi = float(lo), float(hi)
        self.text = f"in [{_num(lo)}, {_num(hi)}]"

    def holds(self, v: float) -> bool:
        return self.lo <= float(v) <= self.hi


class Is(Check):
    """The value is this boolean."""

    def __init__(self, expected: bool = True):
        self.expected = bool(expected)
        self.text = "true" if expected else "false"

    def holds(self, v: Any) -> bool:
        return isinstance(v, bool) and v is self.expected


class Increasing(Check):
    """A tuple in order: ``ops`` gives "<" or "<=" between each neighbour pair (one op for all)."""

    def __init__(self, ops: Sequence[str] = ("<",), names: Optional[Sequence[str]] = None):
        self.ops = tuple(ops)
        if names:
            parts = [names[0]]
            for i, n in enumerate(names[1:]):
                parts += [self._op(i), n]
            self.text = " ".join(parts)
        else:
            self.text = {("<",): "increasing", ("<=",): "non-decreasing"}.get(self.ops, " ".join(self.ops))

    def _op(self, i: int) -> str:
        return self.ops[min(i, len(self.ops) - 1)]

    def holds(self, v: Sequence[float]) -> bool:
        xs = [float(x) for x in v]
        for i in range(len(xs) - 1):
            if not (xs[i] < xs[i + 1] if self._op(i) == "<" else xs[i] <= xs[i + 1]):
                return False
        return True


class Claim(Check):
    """A condition written as a function, with the words that say it."""

    def __init__(self, text: str, fn: Callable[[Any], bool]):
        self.text, self.fn = text, fn

    def holds(self, v: Any) -> bool:
        return self.fn(v)


class InRange(Check):
    """Samples: ``target`` lies inside [min, max] of the samples, widened by ``slack`` (a fraction)."""

    def __init__(self, target: float, slack: float = 0.0):
        self.target, self.slack = float(target), float(slack)
        self.text = f"{_num(target)} inside the range" + (f" (+-{100 * slack:g}%)" if slack else "")

    def holds(self, v: Samples) -> bool:
        lo, hi = v.lo, v.hi
        if lo is None or hi is None:
            return False
        return lo - self.slack * abs(lo) <= self.target <= hi + self.slack * abs(hi)


class Most(Check):
    """Samples: ``inner`` holds for more than half of them."""

    def __init__(self, inner: Check):
        self.inner = inner
        self.text = f"{inner} for most seeds"

    def holds(self, v: Samples) -> bool:
        return sum(1 for x in v if self.inner(x)) * 2 > len(v)


class Every(Check):
    """Samples: ``inner`` holds for each of them."""

    def __init__(self, inner: Check):
        self.inner = inner
        self.text = f"{inner} for every seed"

    def holds(self, v: Samples) -> bool:
        return len(v) > 0 and all(self.inner(x) for x in v)


class OnMedian(Check):
    """Samples: ``inner`` holds for their median."""

    def __init__(self, inner: Check):
        self.inner = inner
        self.text = f"median {inner}"

    def holds(self, v: Samples) -> bool:
        return self.inner(v.median)


class ForFamilies(Check):
    """FamilySamples, one group per guess at an unknown input (cabling family), each checked by
    its family's own row check over seeds (``checks``: a family may run fewer seed sets, and a
    count of seed sets is checked against its own number): a published figure is reproduced
    when it lies in the families' range, i.e. its check (with its tolerance) holds in at least
    one family, the family the figure needs; a claim without a figure must hold in every family.
    Which family is the machine's is unknown, so none is picked: the row names the families it
    holds in (docs/reproduce.md)."""

    def __init__(self, checks: Dict[str, Check], published: Any = None):
        self.checks = dict(checks)
        self.figure = _is_number(published)
        first = next(iter(self.checks.values()))
        self.text = f"{first}, in some family" if self.figure else f"{first}, in every family"

    def holds_in(self, v: Samples) -> Dict[str, bool]:
        """Each family's check on its group."""
        if not isinstance(v, FamilySamples) or set(v.groups) != set(self.checks):
            raise ValueError(f"expected samples of the families {', '.join(self.checks)}")
        return {k: self.checks[k](g) for k, g in v.groups.items()}

    def holds(self, v: Samples) -> bool:
        per = self.holds_in(v).values()
        return any(per) if self.figure else all(per)


def perturbations(value: Any) -> List[Any]:
    """The values a reproduced row's check must reject (at least one of): a number halved and
    doubled (0 moved to 1 and -1, which halving or doubling cannot move), a bool flipped,
    one element of a tuple perturbed at a time, and every sample of a :class:`Samples` at once.
    A value of none of these kinds (a string) has no perturbation."""
    if isinstance(value, bool):
        return [not value]
    if _is_number(value):
        return [value / 2, value * 2] if value != 0 else [1.0, -1.0]
    if isinstance(value, Samples):
        if value and all(isinstance(x, bool) for x in value):
            return [value.like(not x for x in value)]
        if value and all(_is_number(x) for x in value):
            return [value.like(x / 2 for x in value), value.like(x * 2 for x in value)] if any(value) else \
                [value.like(x + 1 for x in value), value.like(x - 1 for x in value)]
        return []
    if isinstance(value, tuple):
        out = []
        for i, x in enumerate(value):
            out += [value[:i] + (p,) + value[i + 1:] for p in perturbations(x)]
        return out
    return []


def survives_perturbation(check: Check, value: Any) -> bool:
    """True when ``check`` accepts ``value`` and every perturbation of it (or it has none): the
    check cannot tell this value from one half or twice as large, so it cannot fail."""
    return all(check(p) for p in perturbations(value))
