"""``rdmasim run``: a scenario file, its results written, a summary printed."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ..errors import ScenarioError
from ..names import FORMATS
from ._common import (EXIT_INTERRUPTED, EXIT_OK, EXIT_OUTPUT, _InputError, _interactive, _output_dir, _scenario_file,
                      _write_results)

if TYPE_CHECKING:
    from ..result import Result


def _perftest_test(sc: Dict[str, Any]) -> Optional[str]:
    w = sc.get("workload") or {}
    return w.get("test") if w.get("kind") == "perftest" else None


def _print_summary(res: Result, source: str, out: Path, written: List[Path], test: Optional[str]) -> None:
    from .. import perftest as pt

    s = res.summary
    name = f" ({s['name']})" if s.get("name") else ""
    print(f"scenario : {source}{name}")
    print(f"profile  : {s.get('profile')}    seed: {s.get('seed')}")
    if res.interrupted:
        status = "INTERRUPTED: results are partial"
    elif not res.finished:
        status = f"STOPPED EARLY ({res.stop_reason}): results are partial"
    else:
        status = res.stop_reason or "completed"
        if res.error_completions:
            n = res.error_completions
            status += (f", with {n} work request{'s' if n != 1 else ''} completed in error or flushed"
                       " (hca_counters req_cqe_error / req_cqe_flush_error)")
    print(f"status   : {status}")
    # What importing [topology] file set aside or assumed (the import_warnings table).
    if "import_warnings" in s["tables"]:
        for w in res.table("import_warnings").to_dict("records"):
            lines = f" (line {', '.join(str(w['first_lines']).split())})" if w.get("first_lines") else ""
            print(f"warning  : {w['source']}: {w['count']} × {w['what']}{lines}")
    print(f"sim time : {res.sim_time_us:.3f} us    events: {res.events}")
    tables = ", ".join(f"{k} ({n} rows)" for k, n in sorted(s["tables"].items())) or "none"
    print(f"tables   : {tables}")
    if res.skipped_tables:
        print(f"left out : {', '.join(res.skipped_tables)} (--tables)")
    if res.capture_bytes is not None:
        run_row = res.table("run").to_dict("records")[0] if len(res.table("run")) else {}
        cut = run_row.get("capture_truncated") or 0
        why = run_row.get("capture_stopped_by") or ""
        kept = f", {cut} packets not kept ({why} reached)" if cut else ""
        print(f"capture  : capture.pcap ({res.capture_bytes} bytes{kept})")
    if test and len(res.perftest):
        print(pt.column_header(test))
        for line in pt.format_rows(test, json.loads(res.perftest.to_json(orient="records"))):
            print(line)
    print(f"wrote {len(written)} files to {out}")


# ---- sub-commands ----------------------------------------------------------------------------


def _perftest_of(path: Path) -> Optional[str]:
    from ..scenario import scenario_dict

    try:
        return _perftest_test(scenario_dict(path))
    except ScenarioError:
        return None


def cmd_run(args: argparse.Namespace) -> int:
    from ..runner import RunInterrupted, check_tables, run_simulation, simulation

    path = _scenario_file(args.scenario)
    # Built once, before anything else: a bad scenario (or --tables) is reported before any
    # directory is made.
    sim = simulation(path)
    try:
        check_tables(sim, args.tables)
    except ValueError as e:
        raise _InputError(f"--tables: {e}") from None
    out = _output_dir(Path(args.output) if args.output else Path("out") / path.stem)
    interrupted = False
    try:
        res = run_simulation(sim, progress=(not args.quiet) and _interactive(), desc=path.name, tables=args.tables)
    except RunInterrupted as e:
        res, interrupted = e.result, True
    del sim  # its memory, before the tables are written
    wanted = out
    out, written = _write_results(res, out, args.format)
    # perftest's header needs the test's name: the file is read again only when there is a
    # perftest table to print (a large scenario's TOML takes a while in Python).
    test = _perftest_of(path) if len(res.perftest) else None
    _print_summary(res, str(path), out, written, test)
    if interrupted:
        print(f"rdmasim: interrupted: partial results written to {out}", file=sys.stderr)
        return EXIT_INTERRUPTED
    if not res.finished:
        print(f"rdmasim: warning: run stopped early ({res.stop_reason}); partial results written to {out}",
              file=sys.stderr)
    return EXIT_OK if out == wanted else EXIT_OUTPUT


def add(sub: Any) -> None:
    r = sub.add_parser("run", help="run a scenario file and write its results")
    r.add_argument("scenario", help="scenario TOML file")
    r.add_argument("-o", "--output", metavar="DIR", help="output directory (default out/<scenario name>)")
    r.add_argument("--format", choices=FORMATS, default="csv", help="table file format (default csv)")
    r.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a terminal)")
    r.add_argument("--tables", metavar="NAMES",
                   help="the tables to build and write, comma-separated (default all); -NAME leaves NAME out, "
                        "as in --tables=-ports: the port counters are the large table, 49152 rows at 8192 hosts "
                        "(docs/bench.md)")
    r.set_defaults(func=cmd_run)
