"""``rdmasim profiles``: every hardware parameter, its value and its source; then the named hosts'
(``[hardware] host``) parameters."""
from __future__ import annotations

import argparse
import json
from typing import Any, Dict, List

from ._common import EXIT_OK, _InputError


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def cmd_profiles(args: argparse.Namespace) -> int:
    from ..profiles import host_names, host_rows, profile_names, profiles

    hosts = host_names()
    if args.name is not None and args.name not in hosts and args.name not in profile_names():
        raise _InputError(f"unknown profile or host {args.name!r}, expected one of {', '.join(profile_names() + hosts)}")
    # A name is a profile's or a named host's; without one, every profile, then every host.
    rows = [] if args.name in hosts else json.loads(profiles(args.name).to_json(orient="records"))
    # A named host's rows say `profile: null`, so every row has the key a reader filters on.
    extra = [{"profile": None, **r} for r in host_rows() if args.name in (None, r["host"])]
    if args.json:
        print(json.dumps(rows + extra, indent=2))
        return EXIT_OK
    blocks = [(f"profile {n}", sub) for n, sub in _grouped(rows, "profile").items()]
    blocks += [(f"host {n}: {sub[0]['about']}", sub) for n, sub in _grouped(extra, "host").items()]
    for i, (title, sub) in enumerate(blocks):
        if i:
            print()
        _print_block(title, sub)
    return EXIT_OK


def _grouped(rows: List[Dict[str, Any]], key: str) -> Dict[str, List[Dict[str, Any]]]:
    """The rows by their ``key``, in the order the names first come."""
    out: Dict[str, List[Dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r[key], []).append(r)
    return out


def _print_block(title: str, sub: List[Dict[str, Any]]) -> None:
    """One profile's or named host's parameters: name, part, value and source, aligned."""
    wp = max(len("parameter"), *(len(r["parameter"]) for r in sub))
    wv = max(len("value"), *(len(_value(r["value"])) for r in sub))
    print(title)
    print(f"  {'parameter'.ljust(wp)}  {'part'.ljust(6)}  {'value'.ljust(wv)}  source")
    for r in sub:
        mark = " (overridden)" if r.get("overridden") else ""
        part = str(r.get("part", ""))
        print(f"  {r['parameter'].ljust(wp)}  {part.ljust(6)}  {_value(r['value']).ljust(wv)}  {r['source']}{mark}")


def add(sub: Any) -> None:
    pr = sub.add_parser("profiles", help="hardware profiles and named hosts: parameters, values and sources")
    pr.add_argument("name", nargs="?", help="one profile or named host (default: all)")
    pr.add_argument("--json", action="store_true", help="print rows as JSON")
    pr.set_defaults(func=cmd_profiles)
