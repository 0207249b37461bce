"""Hardware profiles: every parameter with its value and the source it comes from; and the named
hosts (a test bed's host part, ``[hardware] host``) that a scenario lays over a profile."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pandas as pd

from . import _core

__all__ = ["profiles", "profile_names", "profile_rows", "link_data_bps", "host_rows", "host_names", "host_values"]


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


def host_rows() -> List[Dict[str, Any]]:
    """Every parameter a built-in named host sets, as rows: host, about, parameter, part, value,
    source, doc."""
    return json.loads(_core.hosts_json())


def host_names() -> List[str]:
    """Names of the built-in named hosts, in the core's order."""
    return list(dict.fromkeys(r["host"] for r in host_rows()))


def host_values(name: str) -> Dict[str, Any]:
    """The parameters a named host sets, by name.

    Raises:
        KeyError: ``name`` is not a built-in named host.
    """
    values = {r["parameter"]: r["value"] for r in host_rows() if r["host"] == name}
    if not values:
        raise KeyError(f"unknown host {name!r}, expected one of {', '.join(host_names())}")
    return values
