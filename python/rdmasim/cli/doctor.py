"""``rdmasim doctor``: suspect links from the operators' files, and what each costs."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..names import GENERATOR_KINDS
from ._common import EXIT_OK, _generator_params, _InputError, _readable


def cmd_doctor(args: argparse.Namespace) -> int:
    from ..doctor import FabricError, diagnose, plot_injection

    counters_only = args.topology is None and args.design is None and bool(args.counters)
    if counters_only and not args.no_cost:
        raise _InputError("--counters without --topology: add --no-cost to rank the ports the counters name "
                          "(the cost needs the fabric), or give --topology FILE")
    if (args.topology is None) == (args.design is None) and not counters_only:
        raise _InputError("expected one of --topology FILE (the fabric as discovered) or --design KIND (a generator's design), "
                          "or --counters FILE --no-cost alone")
    if args.param and args.design is None:
        raise _InputError("-p is a parameter of --design KIND")
    counters = [_readable("--counters", c) for c in args.counters]
    if len(counters) > 2:
        raise _InputError(f"--counters given {len(counters)} times: expected one snapshot, or two (earlier first)")
    if len(counters) == 2 and args.interval is None:
        raise _InputError("two --counters snapshots: expected --interval S, the seconds between them (the tools print no time)")
    if args.interval is not None and not args.interval > 0:
        raise _InputError(f"--interval {args.interval}: expected the seconds between the snapshots, a positive number")
    if args.interval is not None and len(counters) != 2:
        raise _InputError("--interval is the time between two --counters snapshots: expected two")
    if args.patterns < 1:
        raise _InputError(f"--patterns {args.patterns}: expected at least 1")
    if (args.workload == "mpi-trace") != (args.trace is not None):
        raise _InputError("--workload mpi-trace replays the MPI trace --trace DIR names: expected both or neither")
    if args.trace is not None and not Path(args.trace).is_dir():
        raise _InputError(f"--trace {args.trace}: expected a directory of rank.<r>.trace files (rdmasim trace)")
    design = None
    if args.design is not None:
        design = {"kind": args.design, **_generator_params(args.design, args.param)}
    try:
        d = diagnose(topology=None if args.topology is None else _readable("--topology", args.topology), design=design,
                     linkinfo=None if args.linkinfo is None else _readable("--linkinfo", args.linkinfo),
                     counters=counters, interval_s=args.interval, workload=args.workload, patterns=args.patterns,
                     seed=args.seed, route=args.route, roots=[r for r in (args.roots or "").split(",") if r],
                     greedy=not args.first_only, cost=not args.no_cost, trust_could_be=args.trust_could_be,
                     trace=args.trace, profile=args.profile)
    except FabricError as e:
        raise _InputError(f"doctor: {e}") from None
    written = []
    if args.plot:
        if args.no_cost:
            raise _InputError(f"--plot {args.plot}: the plot is of the cost simulation, which --no-cost skips")
        made = plot_injection(d, args.plot)
        if made is None:
            raise _InputError(f"--plot {args.plot}: cannot write the plot (is matplotlib installed?)")
        written.append(str(made))
    if args.json:
        print(json.dumps({**d.json, "written": written}, indent=2))
        return EXIT_OK
    print(d.table, end="")
    for w in written:
        print(f"wrote {w}")
    return EXIT_OK


def add(sub: Any) -> None:
    d = sub.add_parser("doctor", help="suspect links from iblinkinfo / perfquery / ibqueryerrors, and what each costs",
                       description="Flag degraded links (below what both ends support) and erroring links "
                                   "(counter rates between two snapshots), then simulate a workload at flow level "
                                   "with each suspect kept or disabled and say which to disable first "
                                   "(docs/doctor.md).")
    src = d.add_mutually_exclusive_group()
    src.add_argument("--topology", metavar="FILE", help="the fabric as discovered: ibnetdiscover or iblinkinfo output (or ibsim net, opensm-subnet.lst)")
    src.add_argument("--design", metavar="KIND", help=f"or the fabric as designed, a generator ({', '.join(GENERATOR_KINDS)}) "
                                                      "with -p parameters: says what each port supports")
    d.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE", help="a --design parameter, as in 'fabric build'")
    d.add_argument("--linkinfo", metavar="FILE", help="iblinkinfo output (either layout): the links' trained width and speed, ports down")
    d.add_argument("--counters", action="append", default=[], metavar="FILE",
                   help="perfquery or ibqueryerrors output; twice (earlier first, with --interval) for rates")
    d.add_argument("--interval", type=float, metavar="S", help="seconds between the two --counters snapshots")
    d.add_argument("--workload", choices=("random-pairs", "alltoall", "mpi-trace"), default="random-pairs",
                   help="traffic the cost is measured on (default random-pairs, at flow level; mpi-trace: --trace "
                        "replayed on the packet engine)")
    d.add_argument("--trace", metavar="DIR", help="--workload mpi-trace: the trace directory (rdmasim trace)")
    d.add_argument("--profile", default="cx3-fdr", help="--workload mpi-trace: the hosts' HCA profile (rdmasim profiles; default cx3-fdr)")
    d.add_argument("--patterns", type=int, default=20, metavar="N", help="random patterns drawn (default 20; alltoall: its phases)")
    d.add_argument("--seed", type=int, default=0, help="seed of the random patterns (default 0)")
    d.add_argument("--route", default="minhop", metavar="ENGINE",
                   help="OpenSM's engine that re-routes with a link disabled (default minhop, OpenSM's default)")
    d.add_argument("--roots", metavar="SW[,SW]", help="root switches for updn and ftree")
    d.add_argument("--first-only", action="store_true", help="plan one link to disable, not one after another")
    d.add_argument("--no-cost", action="store_true", help="the diagnosis alone, no simulation")
    d.add_argument("--trust-could-be", action="store_true",
                   help="take iblinkinfo's 'Could be' as what the ends support (real hardware; not over ibsim)")
    d.add_argument("--json", action="store_true", help="print the diagnosis and costs as JSON")
    d.add_argument("--plot", metavar="F", help="histogram of each pattern's slowest-pair bandwidth before and after the plan")
    d.set_defaults(func=cmd_doctor)
