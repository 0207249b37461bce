"""``rdmasim reproduce``: the studies' rows, their per-study count, rows.csv and the page."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List

from ..envvars import EnvVarError
from ._common import EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_OK, EXIT_STUDY_FAILED, _err, _InputError, _interactive


def cmd_reproduce(args: argparse.Namespace) -> int:
    from .. import reproduce

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
    from ..reproduce._report import reproduce_outputs
    from ..plots import collecting

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
        from ..reproduce._report import format_summary

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
    from ..reproduce._report import summary

    s = summary({"": rows})[0]
    line = (f"reproduced {s['reproduced_ok']} / {s['reproduced']} ok; fit {s['fit']}, arithmetic {s['arithmetic']}, "
            f"sensitivity {s['sensitivity']}")
    missed = [r["id"] for r in rows if r["kind"] == "reproduced" and not r["ok"]]
    return line + (f"\nnot ok: {', '.join(missed)}" if missed else "")


def add(sub: Any) -> None:
    rp = sub.add_parser("reproduce", help="reproduce a study's figures ('all' for every study)")
    rp.add_argument("study", help="study name, 'study:part' for a sub-study (e.g. odp:damming), or 'all'")
    rp.add_argument("--json", action="store_true", help="print rows as JSON")
    rp.add_argument("--rows", action="store_true", help="print every row in the terminal (always in DIR/rows.csv)")
    rp.add_argument("-o", "--out", default="out/reproduce", metavar="DIR",
                    help="where rows.csv and index.html go (default out/reproduce)")
    rp.set_defaults(func=cmd_reproduce)
