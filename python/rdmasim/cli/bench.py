"""``rdmasim bench``: the simulator's speed on fixed cases."""
from __future__ import annotations

import argparse
import json
from typing import Any

from ._common import EXIT_OK, _InputError


def cmd_bench(args: argparse.Namespace) -> int:
    from ..bench import bench

    if args.iterations < 1:
        raise _InputError("--iterations must be >= 1")
    try:
        report = bench(args.iterations, args.case)
    except ValueError as e:
        raise _InputError(f"--case: {e}") from None
    if args.json:
        print(json.dumps(report, indent=2))
        return EXIT_OK
    width = max(len(k) for k in report)
    for k, v in report.items():
        if isinstance(v, float):
            v = f"{v:,.6g}" if abs(v) < 1e6 else f"{v:,.0f}"
        print(f"{k.ljust(width)} : {v}")
    return EXIT_OK


def add(sub: Any) -> None:
    b = sub.add_parser("bench", help="measure simulator speed")
    b.add_argument("--json", action="store_true", help="print the report as JSON")
    b.add_argument("-n", "--iterations", type=int, default=3, help="runs of the bench workload; the best is reported (default 3)")
    b.add_argument("--case", action="append", metavar="NAME",
                   help="run this case alone (repeatable): perftest, many_qps, fat_tree, fat_tree_k32, ebb, routing, "
                        "flow, import (default: all; docs/bench.md)")
    b.set_defaults(func=cmd_bench)
