"""``rdmasim trace``: an MPI program traced with the PMPI library."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._common import EXIT_OK, _InputError


def cmd_trace(args: argparse.Namespace) -> int:
    from ..mpitrace import TraceToolError, trace, trace_counts

    # Only the first `--` separates our options from the program's (it may take `--` itself).
    prog = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not prog:
        raise _InputError("no program given: rdmasim trace -n N [-o DIR] -- prog args")
    if args.n < 1:
        raise _InputError(f"-n {args.n}: expected at least 1 rank")
    try:
        out = trace(args.n, prog, Path(args.output))
    except TraceToolError as e:
        raise _InputError(str(e)) from None
    c = trace_counts(out)
    print(f"{args.n} rank traces in {out}: {c['sends']} point-to-point sends, {c['bytes']} bytes")
    return EXIT_OK


def add(sub: Any) -> None:
    tr = sub.add_parser("trace", help="trace an MPI program with the PMPI library (replay: workload kind 'mpi')")
    tr.add_argument("-n", type=int, required=True, help="MPI ranks (may exceed the cores)")
    tr.add_argument("-o", "--output", default="trace", help="directory for rank.<r>.trace files (default ./trace)")
    tr.add_argument("program", nargs=argparse.REMAINDER, help="-- program and its arguments")
    tr.set_defaults(func=cmd_trace)
