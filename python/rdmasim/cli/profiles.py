"""``rdmasim profiles``: every hardware parameter, its value and its source."""
from __future__ import annotations

import argparse
import json
from typing import Any

from ._common import EXIT_OK, _InputError


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def cmd_profiles(args: argparse.Namespace) -> int:
    from ..profiles import profile_names, profiles

    try:
        df = profiles(args.name)
    except KeyError as e:
        raise _InputError(e.args[0]) from None
    rows = json.loads(df.to_json(orient="records"))
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    names = [args.name] if args.name else profile_names()
    for i, name in enumerate(names):
        sub = [r for r in rows if r["profile"] == name]
        wp = max(len("parameter"), *(len(r["parameter"]) for r in sub))
        wv = max(len("value"), *(len(_value(r["value"])) for r in sub))
        if i:
            print()
        print(f"profile {name}")
        print(f"  {'parameter'.ljust(wp)}  {'part'.ljust(6)}  {'value'.ljust(wv)}  source")
        for r in sub:
            mark = " (overridden)" if r.get("overridden") else ""
            part = str(r.get("part", ""))
            print(f"  {r['parameter'].ljust(wp)}  {part.ljust(6)}  {_value(r['value']).ljust(wv)}  {r['source']}{mark}")
    return EXIT_OK


def add(sub: Any) -> None:
    pr = sub.add_parser("profiles", help="hardware profiles: parameters, values and sources")
    pr.add_argument("name", nargs="?", help="one profile (default: all)")
    pr.add_argument("--json", action="store_true", help="print rows as JSON")
    pr.set_defaults(func=cmd_profiles)
