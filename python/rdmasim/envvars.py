"""Environment variables that tune a reproduction, read with a type and a range.

A study reads its variables when it runs, not when it is imported, so a bad value in one
study's variable cannot break another study; and the CLI checks every selected study's
variables before running any, so a typo fails at once instead of after minutes of results.
"""
from __future__ import annotations

import math
import os
from typing import Optional


class EnvVarError(ValueError):
    """An environment variable whose value rdmasim cannot use; the message names it."""


def _bad(name: str, raw: str, expected: str) -> EnvVarError:
    return EnvVarError(f"environment variable {name}={raw!r}: expected {expected}")


def env_int(name: str, default: int, lo: int = 0) -> int:
    """``name`` as an integer >= ``lo`` (digits, optionally with ``_`` separators), or ``default``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise _bad(name, raw, f"an integer >= {lo}") from None
    if value < lo:
        raise _bad(name, raw, f"an integer >= {lo}")
    return value


def env_float(name: str, default: float, lo: float = 0.0, hi: Optional[float] = None) -> float:
    """``name`` as a finite number in ``[lo, hi]``, or ``default``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    want = f"a finite number >= {lo:g}" + (f" and <= {hi:g}" if hi is not None else "")
    try:
        value = float(raw.strip())
    except ValueError:
        raise _bad(name, raw, want) from None
    if not math.isfinite(value) or value < lo or (hi is not None and value > hi):
        raise _bad(name, raw, want)
    return value


def env_switch(name: str, default: bool) -> bool:
    """``name`` as ``1`` (on) or ``0`` (off), or ``default``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    if raw.strip() not in ("0", "1"):
        raise _bad(name, raw, "1 (on) or 0 (off)")
    return raw.strip() == "1"
