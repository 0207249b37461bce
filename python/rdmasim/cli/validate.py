"""``rdmasim validate``: a scenario checked without running it."""
from __future__ import annotations

import argparse
from typing import Any

from ._common import EXIT_OK, _scenario_file


def cmd_validate(args: argparse.Namespace) -> int:
    from ..runner import validate
    from ..scenario import scenario_dict

    path = _scenario_file(args.scenario)
    validate(path)
    sc = scenario_dict(path)
    w = sc.get("workload") or {}
    what = " ".join(str(x) for x in (w.get("kind"), w.get("test")) if x)
    print(f"{path}: ok ({what or 'workload'}, profile {(sc.get('hardware') or {}).get('profile')})")
    return EXIT_OK


def add(sub: Any) -> None:
    v = sub.add_parser("validate", help="check a scenario file without running it")
    v.add_argument("scenario", help="scenario TOML file")
    v.set_defaults(func=cmd_validate)
