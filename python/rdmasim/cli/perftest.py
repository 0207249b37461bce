"""``rdmasim perftest``: perftest's flags and report layout on simulated hosts."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .. import perftest_flags
from ..errors import ScenarioError
from ..names import DEFAULT_PROFILE, PERFTEST_TESTS
from ._common import EXIT_INTERRUPTED, EXIT_OK, _InputError, _interactive


#: The perftest flag that sets each scenario key, so that bad values are named as typed.
_PERFTEST_FLAGS = {
    "workload.size": "-s/--size", "workload.all_sizes": "-a/--all", "workload.iters": "-n/--iters",
    "workload.inline_size": "-I/--inline_size", "workload.tx_depth": "-t/--tx-depth", "workload.qps": "-q/--qp",
    "qp.timeout": "-u/--qp-timeout", "qp.mtu": "-m/--mtu", "hardware.profile": "--profile", "seed": "--seed",
    "workload.events": "-e/--events", "workload.rx_depth": "-r/--rx-depth", "qp.max_rd_atomic": "-o/--outs",
    "workload.cq_mod": "-Q/--cq-mod",
}


def cmd_perftest(args: argparse.Namespace) -> int:
    from .. import perftest as pt
    from ..runner import RunInterrupted, run, validate

    problem = perftest_flags.refused(args.test, args)
    if problem:
        raise _InputError(problem)
    sc = pt.scenario(
        args.test, size=args.size, all_sizes=args.all, iters=args.iters, inline_size=args.inline_size,
        tx_depth=args.tx_depth, rx_depth=args.rx_depth, cq_mod=args.cq_mod, qps=args.qps, events=args.events,
        qp_timeout=args.qp_timeout, mtu=args.mtu, max_rd_atomic=args.outs, profile=args.profile, seed=args.seed,
    )
    ignored = perftest_flags.ignored(args)
    if ignored:
        print(f"rdmasim: ignoring {', '.join(ignored)}: the simulated hosts are cabled back to back",
              file=sys.stderr)
    try:  # before the header, and in the terms of the command line, not of the scenario built
        validate(sc)
    except ScenarioError as e:
        flag = _PERFTEST_FLAGS.get(getattr(e, "key", ""))
        if flag is None:
            raise
        raise _InputError(f"{args.test} {flag}: {e.message}") from None
    if not args.json:
        print(pt.header(args.test, sc), flush=True)
    interrupted = False
    try:
        res = run(sc, progress=(not args.json) and _interactive(), desc=args.test)
    except RunInterrupted as e:
        res, interrupted = e.result, True
    rows = json.loads(res.perftest.to_json(orient="records")) if len(res.perftest) else []
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(pt.column_header(args.test, args.report_gbits))
        for line in pt.format_rows(args.test, rows, args.report_gbits):
            print(line)
        print(pt.RESULT_LINE)
    if interrupted:
        print("rdmasim: interrupted: the report covers the iterations done so far", file=sys.stderr)
        return EXIT_INTERRUPTED
    if not res.finished:
        print(f"rdmasim: warning: run stopped early ({res.stop_reason}); the report is partial", file=sys.stderr)
    return EXIT_OK


def add(sub: Any) -> None:
    t = sub.add_parser("perftest", help="run a perftest benchmark (ib_write_bw, ib_read_lat, ...)",
                       description="Simulated perftest: the same flags and report layout.")
    t.add_argument("test", choices=PERFTEST_TESTS)
    perftest_flags.add_arguments(t)
    t.add_argument("--profile", default=DEFAULT_PROFILE, help=f"hardware profile (default {DEFAULT_PROFILE})")
    t.add_argument("--seed", type=int, help="random seed (default 1)")
    t.add_argument("--json", action="store_true", help="print the report rows as JSON")
    t.set_defaults(func=cmd_perftest)
