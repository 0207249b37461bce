"""Hardware profiles: every parameter with its value and the source it comes from."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pandas as pd

from . import _core

__all__ = ["profiles", "profile_names", "profile_rows", "link_data_bps"]


def profile_rows() -> List[Dict[str, Any]]:
    """All built-in profiles as rows: profile, parameter, part (nic, link, switch, host), value,
    overridden, source, doc."""
    return json.loads(_core.profiles_json())


def profile_names() -> List[str]:
    """Names of the built-in profiles, in the core's order."""
    seen: Dict[str, None] = {}
    for r in profile_rows():
        seen.setdefault(r["profile"], None)
    return list(seen)


def profiles(name: Optional[str] = None) -> pd.DataFrame:
    """The parameter table of one profile (or of all when ``name`` is None).

    Raises:
        KeyError: ``name`` is not a built-in profile.
    """
    rows = profile_rows()
    if name is not None:
        rows = [r for r in rows if r["profile"] == name]
        if not rows:
            raise KeyError(f"unknown profile {name!r}, expected one of {', '.join(profile_names())}")
    return pd.DataFrame.from_records(rows, columns=["profile", "parameter", "part", "value", "overridden", "source", "doc"])


def link_data_bps(profile: str) -> float:
    """The profile's link data rate after line encoding, bit/s (e.g. 100e9 for 4x EDR)."""
    v = _core.link_data_bps(profile)
    if v is None:
        raise KeyError(f"unknown profile {profile!r}, expected one of {', '.join(profile_names())}")
    return float(v)
