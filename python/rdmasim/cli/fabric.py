"""``rdmasim fabric build|import``: a fabric without simulating: summary, routes per link, files."""
from __future__ import annotations

import argparse
import json
from typing import Any

from ..names import COMPARE_DEFAULT_ENGINES, GENERATOR_KINDS
from ._common import EXIT_OK, _generator_params, _InputError, _interactive


def cmd_fabric(args: argparse.Namespace) -> int:
    from ..fabric import Fabric, FabricError

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
                engines = list(COMPARE_DEFAULT_ENGINES)
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
            from ..fabric import plot_engine_histograms

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


def add(sub: Any) -> None:
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
                             + ", ".join(COMPARE_DEFAULT_ENGINES) + "); per-rail lists separated by ';': "
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
