"""The ``rdmasim`` command: run, validate, perftest, profiles, reproduce, bench, fabric, doctor.

Exit codes: 0 success; 1 a reproduction row did not match; 2 bad input (scenario error,
missing file, unknown name, an output directory that cannot be written); 3 the results could
not be written where asked and went to a temporary directory (named on stderr); 130
interrupted (partial results are still written); 4 a reproduction study failed with an error
(the other studies still ran and their rows are printed; the error is named on stderr).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from . import __version__
from . import perftest_flags
from .envvars import EnvVarError
from .errors import ScenarioError
from .names import DEFAULT_PROFILE, FORMATS, GENERATOR_KINDS, PERFTEST_TESTS

# The modules below import pandas (a third of a second): each command imports what it uses
# when it runs, so that `rdmasim --help`, `--version` and bad arguments answer at once.
if TYPE_CHECKING:
    from .result import Result

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_OUTPUT, EXIT_STUDY_FAILED, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130


class _InputError(Exception):
    """Bad input reported as one line on stderr and exit code 2 (never a traceback)."""


def _err(msg: str) -> None:
    print(f"rdmasim: error: {msg}", file=sys.stderr)


def _interactive() -> bool:
    return sys.stderr.isatty()


def _scenario_file(path: str) -> Path:
    p = Path(path)
    try:
        if p.is_dir():
            raise _InputError(f"cannot read scenario {path}: it is a directory, expected a TOML file")
        if not p.exists():
            raise _InputError(f"cannot read scenario {path}: no such file")
        if not p.is_file():
            raise _InputError(f"cannot read scenario {path}: not a regular file (a device or a pipe), expected a TOML file")
        with p.open("rb"):  # readable? (permissions)
            pass
    except OSError as e:  # a name too long, a permission, a loop of links
        raise _InputError(f"cannot read scenario {path}: {e.strerror or e}") from None
    return p


def _perftest_test(sc: Dict[str, Any]) -> Optional[str]:
    w = sc.get("workload") or {}
    return w.get("test") if w.get("kind") == "perftest" else None


def _print_summary(res: Result, source: str, out: Path, written: List[Path], test: Optional[str]) -> None:
    from . import perftest as pt

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
def _output_dir(out: Path) -> Path:
    """Creates the results directory before a run, so a path that cannot hold them is reported
    before any simulating rather than after."""
    if out.exists() and not out.is_dir():
        raise _InputError(f"cannot write results to {out}: it is a file, not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _InputError(f"cannot write results to {out}: {e.strerror or e}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise _InputError(f"cannot write results to {out}: permission denied")
    return out


def _write_results(res: Result, out: Path, fmt: str) -> Tuple[Path, List[Path]]:
    """Writes ``res`` to ``out``; when that fails after the run (disk full, directory removed),
    to a fresh temporary directory instead, so the run is not lost."""
    try:
        return out, res.write(out, format=fmt)
    except OSError as e:
        fallback = Path(tempfile.mkdtemp(prefix="rdmasim-results-"))
        print(f"rdmasim: error: cannot write results to {out}: {e.strerror or e}; "
              f"writing them to {fallback} instead", file=sys.stderr)
        return fallback, res.write(fallback, format=fmt)


def cmd_run(args: argparse.Namespace) -> int:
    from .runner import RunInterrupted, run, validate
    from .scenario import scenario_dict

    path = _scenario_file(args.scenario)
    validate(path)  # a bad scenario is reported before any directory is made
    out = _output_dir(Path(args.output) if args.output else Path("out") / path.stem)
    try:
        test = _perftest_test(scenario_dict(path))
    except ScenarioError:
        test = None  # the core reports the error below, with its own wording
    interrupted = False
    try:
        res = run(path, progress=(not args.quiet) and _interactive(), desc=path.name)
    except RunInterrupted as e:
        res, interrupted = e.result, True
    wanted = out
    out, written = _write_results(res, out, args.format)
    _print_summary(res, str(path), out, written, test)
    if interrupted:
        print(f"rdmasim: interrupted: partial results written to {out}", file=sys.stderr)
        return EXIT_INTERRUPTED
    if not res.finished:
        print(f"rdmasim: warning: run stopped early ({res.stop_reason}); partial results written to {out}",
              file=sys.stderr)
    return EXIT_OK if out == wanted else EXIT_OUTPUT


def cmd_validate(args: argparse.Namespace) -> int:
    from .runner import validate
    from .scenario import scenario_dict

    path = _scenario_file(args.scenario)
    validate(path)
    sc = scenario_dict(path)
    w = sc.get("workload") or {}
    what = " ".join(str(x) for x in (w.get("kind"), w.get("test")) if x)
    print(f"{path}: ok ({what or 'workload'}, profile {(sc.get('hardware') or {}).get('profile')})")
    return EXIT_OK


#: The perftest flag that sets each scenario key, so that bad values are named as typed.
_PERFTEST_FLAGS = {
    "workload.size": "-s/--size", "workload.all_sizes": "-a/--all", "workload.iters": "-n/--iters",
    "workload.inline_size": "-I/--inline_size", "workload.tx_depth": "-t/--tx-depth", "workload.qps": "-q/--qp",
    "qp.timeout": "-u/--qp-timeout", "qp.mtu": "-m/--mtu", "hardware.profile": "--profile", "seed": "--seed",
    "workload.events": "-e/--events", "workload.rx_depth": "-r/--rx-depth", "qp.max_rd_atomic": "-o/--outs",
    "workload.cq_mod": "-Q/--cq-mod",
}


def cmd_perftest(args: argparse.Namespace) -> int:
    from . import perftest as pt
    from .runner import RunInterrupted, run, validate

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


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def cmd_profiles(args: argparse.Namespace) -> int:
    from .profiles import profile_names, profiles

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


def cmd_reproduce(args: argparse.Namespace) -> int:
    from . import reproduce

    registry = reproduce.studies()
    names = list(registry) if args.study == "all" else [args.study]
    for n in names:
        base, _, part = n.partition(":")
        if base not in registry or (part and part not in getattr(registry[base], "PARTS", ())):
            parts = getattr(registry[base], "PARTS", ()) if base in registry else ()
            raise _InputError(f"unknown study {n!r}, expected one of: {', '.join(registry)}, all"
                              + (f" (parts of {base}: {', '.join(parts)})" if parts else
                                 f" ({base} has no parts)" if base in registry and part else ""))
    # Every selected study's environment variables are checked before any study runs: a typo
    # fails at once, not after minutes of other studies' results.
    for base in dict.fromkeys(n.partition(":")[0] for n in names):
        check_env = getattr(registry[base], "check_env", None)
        if check_env is not None:
            try:
                check_env()
            except EnvVarError as e:
                raise _InputError(f"reproduce {base}: {e}") from None
    from .reproduce._report import reproduce_outputs
    from .reproduce._plots import collecting

    results: Dict[str, List[Dict[str, Any]]] = {}
    artifacts: Dict[str, List[Path]] = {}
    failed: Dict[str, str] = {}
    interrupted = None
    for n in names:
        if not args.json:
            print(f"== {n}: {getattr(registry[n.partition(':')[0]], 'TITLE', '')}", flush=True)
        try:
            with collecting() as written:
                rows = reproduce.run_study(n, progress=(not args.json) and _interactive())
        except KeyboardInterrupt:
            interrupted = n
            break
        except Exception as e:  # noqa: BLE001 - one study's error must not lose the others' rows
            failed[n] = f"{type(e).__name__}: {e}"
            _err(f"study {n!r} failed: {failed[n]}" + ("; the other studies go on" if n != names[-1] else ""))
            continue
        results[n], artifacts[n] = rows, list(written)
        if not args.json:
            print(reproduce.format_table(rows) if args.rows else _study_line(rows))
            print()
    titles = {n: getattr(registry[n.partition(":")[0]], "TITLE", "") for n in results}
    # Written whatever happens next (a Ctrl-C, a failed study): the rows already computed are kept.
    written_to = reproduce_outputs(results, titles, artifacts, Path(args.out)) if results else []
    all_rows = [r for rows in results.values() for r in rows]
    if args.json:
        # On Ctrl-C the studies already done are still written, as valid JSON.
        print(json.dumps(results if args.study == "all" else all_rows, indent=2))
    if interrupted is not None:
        left = names[names.index(interrupted) + 1:]
        done = ", ".join(results) or "none"
        print(f"rdmasim: interrupted during study {interrupted!r}; complete: {done}"
              + (f"; not run: {', '.join(left)}" if left else ""), file=sys.stderr)
        return EXIT_INTERRUPTED
    missed = [r["id"] for r in all_rows if r["kind"] == "reproduced" and not r["ok"]]
    if not args.json:
        from .reproduce._report import format_summary

        print(format_summary(results))
        print()
        print("only reproduced rows count; " + ("every reproduced row is ok" if not missed else
              f"reproduced rows not ok: {', '.join(missed)}"))
        if written_to:
            print(f"rows and page: {', '.join(str(p) for p in written_to)}" + ("" if args.rows else " (--rows prints every row here)"))
    if failed:
        _err(f"{len(failed)} of {len(names)} studies failed: {', '.join(failed)}; complete: {', '.join(results) or 'none'}")
        return EXIT_STUDY_FAILED
    return EXIT_OK if not missed else EXIT_MISMATCH


def _study_line(rows: List[Dict[str, Any]]) -> str:
    """A study's result in two lines: its count, and the reproduced rows that missed."""
    from .reproduce._report import summary

    s = summary({"": rows})[0]
    line = (f"reproduced {s['reproduced_ok']} / {s['reproduced']} ok; fit {s['fit']}, arithmetic {s['arithmetic']}, "
            f"sensitivity {s['sensitivity']}")
    missed = [r["id"] for r in rows if r["kind"] == "reproduced" and not r["ok"]]
    return line + (f"\nnot ok: {', '.join(missed)}" if missed else "")


def cmd_trace(args: argparse.Namespace) -> int:
    from .mpitrace import TraceToolError, trace, trace_counts

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


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import bench

    if args.iterations < 1:
        raise _InputError("--iterations must be >= 1")
    report = bench(args.iterations)
    if args.json:
        print(json.dumps(report, indent=2))
        return EXIT_OK
    width = max(len(k) for k in report)
    for k, v in report.items():
        if isinstance(v, float):
            v = f"{v:,.6g}" if abs(v) < 1e6 else f"{v:,.0f}"
        print(f"{k.ljust(width)} : {v}")
    return EXIT_OK


def _param_value(text: str) -> Any:
    """A ``-p`` value: JSON when it parses (numbers, true/false, [4, 4, 4]), a comma list of
    numbers as a list (``dims=4,4,4``), else the text itself (``speed.gen=edr``)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    parts = text.split(",")
    if len(parts) > 1:
        try:
            return [json.loads(x) for x in parts]
        except ValueError:
            pass
    return text


def _generator_params(kind: str, items: Sequence[str]) -> Dict[str, Any]:
    """``-p k=16 -p speed.gen=edr`` as ``{"k": 16, "speed": {"gen": "edr"}}``."""
    params: Dict[str, Any] = {}
    for item in items:
        key, eq, text = item.partition("=")
        if not eq or not key:
            raise _InputError(f"fabric build {kind}: -p {item!r}: expected KEY=VALUE, e.g. -p k=16")
        *parents, leaf = key.split(".")
        at = params
        for part in parents:
            at = at.setdefault(part, {})
            if not isinstance(at, dict):
                raise _InputError(f"fabric build {kind}: -p {item!r}: {part} was given a value, not a table")
        at[leaf] = _param_value(text)
    return params


#: The engines ``--compare-engines`` puts side by side when none are named.
COMPARE_DEFAULT = ("minhop", "updn", "ftree", "sssp", "dfsssp", "dmodk")


def cmd_fabric(args: argparse.Namespace) -> int:
    from .fabric import Fabric, FabricError

    if args.top < 0:
        raise _InputError(f"--top {args.top}: expected 0 or more busiest links")
    bar = None
    if (not args.quiet) and _interactive():
        from tqdm.auto import tqdm

        # delay: a bar only when a step takes long enough to wait for (a large fabric).
        bar = tqdm(total=3, desc=f"fabric {args.action}", unit="step", leave=False, delay=0.5,
                   bar_format="{desc}: {n}/{total} steps done [{elapsed}]")

    def step(starting: str) -> None:
        """One step done; names the one starting (set last: it redraws the bar)."""
        if bar is not None:
            bar.update(1)
            bar.set_description_str(starting)

    try:
        try:
            if args.action == "build":
                fab = Fabric.build(args.kind, **_generator_params(args.kind, args.param))
            else:
                fab = Fabric.import_file(args.file, lfts=args.lfts, default_speed=args.default_speed)
        except FabricError as e:
            raise _InputError(f"fabric {args.action}: {e}") from None
        roots = [r for r in (args.roots or "").split(",") if r]
        if args.lids:
            try:
                fab.set_lids(args.lids)
            except FabricError as e:
                raise _InputError(f"--lids {args.lids}: {e}") from None
        if args.route:
            try:
                fab.route(args.route, roots=roots, max_vls=args.max_vls)
            except FabricError as e:
                raise _InputError(f"--route {args.route}: {e}") from None
        comparison = None
        if args.compare_engines:
            engines = args.compare_engines.split(";") if ";" in args.compare_engines else args.compare_engines.split(",")
            if args.compare_engines == "all":
                engines = list(COMPARE_DEFAULT)
            try:
                comparison = fab.compare_engines(engines, roots=roots, max_vls=args.max_vls, top=args.top,
                                                 ebb_patterns=args.patterns, ebb_seed=args.seed)
                comparison_text = fab.compare_engines_text(engines, roots=roots, max_vls=args.max_vls, top=args.top,
                                                           ebb_patterns=args.patterns, ebb_seed=args.seed)
            except FabricError as e:
                raise _InputError(f"--compare-engines {args.compare_engines}: {e}") from None
        written = []
        for flag, path, write in (("--write-net", args.write_net, fab.write_net),
                                  ("--write-lfts", args.write_lfts, fab.write_lfts),
                                  ("--write-dot", args.write_dot, fab.write_dot)):
            if path is None:
                continue
            try:
                written.append(str(write(path)))
            except FabricError as e:
                raise _InputError(f"{flag} {path}: {e}") from None
            except OSError as e:
                raise _InputError(f"{flag} {path}: cannot write: {e.strerror or e}") from None
        if args.plot:
            from .fabric import plot_engine_histograms

            made = (plot_engine_histograms(comparison, args.plot, title=f"{fab.source}: route counts by engine")
                    if comparison is not None else fab.plot_route_histogram(args.plot, args.top))
            if made is None:
                raise _InputError(f"--plot {args.plot}: cannot write the plot (is matplotlib installed?)")
            written.append(str(made))
        ebb = ebb_text = None
        if args.ebb:
            kinds = args.ebb.split(",")
            try:
                ebb = fab.ebb(args.patterns, args.seed, kinds, args.weighting)
                ebb_text = fab.ebb_text(args.patterns, args.seed, kinds, args.weighting)
            except FabricError as e:
                raise _InputError(f"--ebb {args.ebb}: {e}") from None
        step("summary: every pair's route")
        summary = fab.summary if args.json else fab.summary_text()
        step("routes per link")
        loads = fab.link_loads(args.top) if args.json else fab.loads_text(args.top)
        step("done")
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        out = {"source": fab.source, "routing": fab.routing, "subnets": fab.subnets, "summary": summary,
               "loads": loads, "written": written}
        if comparison is not None:
            out["comparison"] = json.loads(comparison.to_json(orient="records"))
        if ebb is not None:
            out["ebb"] = ebb
        print(json.dumps(out, indent=2))
        return EXIT_OK
    print(f"fabric   : {fab.source}    routing: {fab.routing}")
    for sub in fab.subnets:
        if sub.get("fallback"):
            print(f"rail {sub['rail']}: {sub['asked']} fell back to {sub['used']}: {sub['fallback']['reason']}")
    print(summary)
    print(loads, end="")
    if ebb_text is not None:
        print()
        print(ebb_text, end="")
    if comparison is not None:
        print()
        print(comparison_text, end="")
    for w in written:
        print(f"wrote {w}")
    return EXIT_OK


def _readable(flag: str, path: str) -> str:
    """``path`` if it is a readable file, else an input error naming ``flag``."""
    p = Path(path)
    if not p.exists():
        raise _InputError(f"{flag} {path}: no such file")
    if p.is_dir():
        raise _InputError(f"{flag} {path}: it is a directory, expected the tool's output")
    return path


def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import FabricError, diagnose, plot_injection

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


# ---- parser ----------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rdmasim", description="Deterministic packet-level RDMA fabric simulator.")
    p.add_argument("--version", action="version", version=f"rdmasim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    r = sub.add_parser("run", help="run a scenario file and write its results")
    r.add_argument("scenario", help="scenario TOML file")
    r.add_argument("-o", "--output", metavar="DIR", help="output directory (default out/<scenario name>)")
    r.add_argument("--format", choices=FORMATS, default="csv", help="table file format (default csv)")
    r.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a terminal)")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario file without running it")
    v.add_argument("scenario", help="scenario TOML file")
    v.set_defaults(func=cmd_validate)

    t = sub.add_parser("perftest", help="run a perftest benchmark (ib_write_bw, ib_read_lat, ...)",
                       description="Simulated perftest: the same flags and report layout.")
    t.add_argument("test", choices=PERFTEST_TESTS)
    perftest_flags.add_arguments(t)
    t.add_argument("--profile", default=DEFAULT_PROFILE, help=f"hardware profile (default {DEFAULT_PROFILE})")
    t.add_argument("--seed", type=int, help="random seed (default 1)")
    t.add_argument("--json", action="store_true", help="print the report rows as JSON")
    t.set_defaults(func=cmd_perftest)

    pr = sub.add_parser("profiles", help="hardware profiles: parameters, values and sources")
    pr.add_argument("name", nargs="?", help="one profile (default: all)")
    pr.add_argument("--json", action="store_true", help="print rows as JSON")
    pr.set_defaults(func=cmd_profiles)

    rp = sub.add_parser("reproduce", help="reproduce a study's figures ('all' for every study)")
    rp.add_argument("study", help="study name, 'study:part' for a sub-study (e.g. odp:damming), or 'all'")
    rp.add_argument("--json", action="store_true", help="print rows as JSON")
    rp.add_argument("--rows", action="store_true", help="print every row in the terminal (always in DIR/rows.csv)")
    rp.add_argument("-o", "--out", default="out/reproduce", metavar="DIR",
                    help="where rows.csv and index.html go (default out/reproduce)")
    rp.set_defaults(func=cmd_reproduce)

    tr = sub.add_parser("trace", help="trace an MPI program with the PMPI library (replay: workload kind 'mpi')")
    tr.add_argument("-n", type=int, required=True, help="MPI ranks (may exceed the cores)")
    tr.add_argument("-o", "--output", default="trace", help="directory for rank.<r>.trace files (default ./trace)")
    tr.add_argument("program", nargs=argparse.REMAINDER, help="-- program and its arguments")
    tr.set_defaults(func=cmd_trace)

    b = sub.add_parser("bench", help="measure simulator speed")
    b.add_argument("--json", action="store_true", help="print the report as JSON")
    b.add_argument("-n", "--iterations", type=int, default=3, help="runs of the bench workload; the best is reported (default 3)")
    b.set_defaults(func=cmd_bench)

    f = sub.add_parser("fabric", help="a fabric without simulating: summary, routes per link, files",
                       description="Build a fabric from a generator or import the files operators have, "
                                   "and print what it is and how its routes load the links "
                                   "(all-to-all, no simulation).")
    fsub = f.add_subparsers(dest="action", metavar="ACTION")
    fsub.required = True
    fb = fsub.add_parser("build", help="generate a fabric (kinds and parameters: docs/fabric.md)",
                         description="Generate and route a fabric; parameters as in a scenario's "
                                     "[topology] generator, e.g. rdmasim fabric build fat-tree-k -p k=16 "
                                     "-p speed.gen=edr; rails: -p rails=2 -p of.kind=fat-tree-k -p of.k=4.")

    fb.add_argument("kind", metavar="KIND", help=f"generator: {', '.join(GENERATOR_KINDS)}")
    fb.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                    help="a generator parameter; dotted keys nest (speed.gen=edr); values are numbers, "
                         "true/false, lists ([4,4,4] or 4,4,4) or text")
    fi = fsub.add_parser("import", help="read ibnetdiscover / iblinkinfo / ibsim net / opensm-subnet.lst (+ LFTs)",
                         description="Read a topology (ibnetdiscover, ibnetdiscover -p, ibdiagnet's copy of it, "
                                     "iblinkinfo, ibsim net, opensm-subnet.lst) as the tools print it and optional "
                                     "forwarding tables (opensm-lfts.dump, ibroute); without them the fabric is "
                                     "routed by minhop. What is skipped or assumed is printed as warnings.")
    fi.add_argument("file", metavar="FILE", help="topology file")
    fi.add_argument("--lfts", metavar="FILE_OR_DIR", help="opensm-lfts.dump, ibroute output, or a directory of it")
    fi.add_argument("--default-speed", metavar="WxSPEED",
                    help="width and speed of links the file gives none for (old ibnetdiscover, '??'/'???'); "
                         "default 4xSDR, as ibsim reads them")
    for sp in (fb, fi):
        sp.add_argument("--json", action="store_true", help="print source, routing, summary and loads as JSON")
        sp.add_argument("--top", type=int, default=10, metavar="N", help="busiest links to name (default 10)")
        sp.add_argument("--write-net", metavar="F", help="write the topology as an ibsim net file")
        sp.add_argument("--write-lfts", metavar="F", help="write the LFTs as opensm-lfts.dump")
        sp.add_argument("--write-dot", metavar="F", help="write a Graphviz picture")
        sp.add_argument("--quiet", action="store_true", help="no progress bar")
        sp.add_argument("--route", metavar="ENGINE[,ENGINE]",
                        help="route with OpenSM's engines (minhop, updn, ftree, sssp, dfsssp, dor; ours: "
                             "dmodk, minhop-mod), one for all rails or one per rail: ftree,dfsssp")
        sp.add_argument("--lids", metavar="opensm|FILE",
                        help="new LIDs before routing: 'opensm' (as OpenSM assigns them) or an OpenSM guid2lid file")
        sp.add_argument("--roots", metavar="SW[,SW]", help="root switches (names or GUIDs) for updn and ftree")
        sp.add_argument("--max-vls", type=int, metavar="N", help="virtual lanes dfsssp may use (default 8)")
        sp.add_argument("--compare-engines", nargs="?", const="all", metavar="LIST",
                        help="a table of engines side by side (default: "
                             + ", ".join(COMPARE_DEFAULT) + "); per-rail lists separated by ';': "
                             "'ftree;ftree,dfsssp'")
        sp.add_argument("--ebb", nargs="?", const="bisection", metavar="KINDS",
                        help="effective bisection bandwidth (ORCS): pattern kinds bisection (default), "
                             "random-pair:N, permutation, shift:K, alltoall, comma separated")
        sp.add_argument("--patterns", type=int, default=1000, metavar="N",
                        help="random patterns per kind for --ebb and --compare-engines (default 1000; 0: no EBB in the comparison)")
        sp.add_argument("--seed", type=int, default=0, help="seed of the random patterns (default 0)")
        sp.add_argument("--weighting", choices=("flows", "rate"), default="flows",
                        help="EBB share per link: by flows (ORCS) or by the link's rate too (degraded links)")
        sp.add_argument("--plot", metavar="F", help="route-count histogram (per engine with --compare-engines)")
        sp.set_defaults(func=cmd_fabric)

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
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and hasattr(args, "trailing_server_host"):
        extra = args.trailing_server_host(args, extra)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args.func(args))
    except ScenarioError as e:
        _err(str(e))
        return EXIT_USAGE
    except _InputError as e:
        _err(str(e))
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("rdmasim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `rdmasim profiles | head`
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
