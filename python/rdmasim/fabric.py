"""A fabric without a simulation: build one from a generator or import the files operators
have, then ask what it is and how its routes load the links::

    fab = rdmasim.Fabric.build("fat-tree-k", k=16, speed={"gen": "edr", "width": 4})
    fab = rdmasim.Fabric.import_file("ibnetdiscover.txt", lfts="opensm-lfts.dump")
    fab.route("ftree,dfsssp")  # OpenSM's engines, one per rail; fab.subnets says what routed each
    fab.compare_engines(["minhop", "updn", "ftree", "dfsssp"])  # a DataFrame, one row per engine
    fab.summary            # hosts, switches, links by speed, degraded / down links, unroutable pairs, loops
    fab.loads              # all-to-all routes per directed link: max, mean, histogram, busiest links
    fab.nodes, fab.links   # pandas DataFrames; fab.routes: every LFT entry (switches x LIDs rows)
    fab.write_net("fabric.net"); fab.write_lfts("opensm-lfts.dump"); fab.write_dot("fabric.dot")

The work is the core's (``rdmasim_core::apps::fabric_report``); each step runs with the GIL
released and its result is kept, so asking twice costs nothing.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import pandas as pd

from . import _core
from ._core import FabricError

__all__ = ["Fabric", "FabricError", "GENERATOR_KINDS"]

from .names import GENERATOR_KINDS  # noqa: E402  (re-exported)

#: Busiest links named in :attr:`Fabric.loads`.
DEFAULT_TOP = 10

PathLike = Union[str, "os.PathLike[str]"]


def _columns(text: str, dtypes: Dict[str, str]) -> pd.DataFrame:
    """A frame from the core's JSON columns; nullable dtypes where a column has nulls."""
    df = pd.DataFrame(json.loads(text))
    for col, dtype in dtypes.items():
        df[col] = df[col].astype(dtype)
    return df


class Fabric:
    """A routed fabric: built by :meth:`build` or read by :meth:`import_file`."""

    def __init__(self, core: "_core.Fabric") -> None:
        self._core = core
        self._cache: Dict[str, Any] = {}

    @classmethod
    def build(cls, kind: str, **params: Any) -> "Fabric":
        """Builds and routes a generated fabric: ``kind`` and its parameters as in a scenario's
        ``[topology] generator`` (``k=16``, ``speed={"gen": "edr", "width": 4}``,
        ``of={"kind": "fat-tree-k", "k": 4}`` for ``rails``).

        Raises:
            FabricError: an unknown kind or parameter, or a value out of range (named).
        """
        return cls(_core.Fabric.build(json.dumps({"kind": kind, **params})))

    @classmethod
    def import_file(cls, path: PathLike, lfts: Optional[PathLike] = None,
                    default_speed: Optional[str] = None) -> "Fabric":
        """Reads ibnetdiscover (default or ``-p``, or ibdiagnet's copy), iblinkinfo, an ibsim
        ``net`` file or ``opensm-subnet.lst`` as the tools print them, and forwarding tables
        from ``opensm-lfts.dump``, ibroute output or a directory of it; without ``lfts`` the
        fabric is routed by minhop. ``default_speed`` (``"4xQDR"``) is taken for links the
        file gives no width and speed (default 4xSDR). What was skipped or assumed is in
        ``summary["warnings"]``.

        Raises:
            FabricError: a file that cannot be read, named with the line and what was expected.
        """
        return cls(_core.Fabric.import_file(os.fspath(path), None if lfts is None else os.fspath(lfts), default_speed))

    @property
    def source(self) -> str:
        """The generator kind or the topology file."""
        return self._core.source

    @property
    def routing(self) -> str:
        """How the LFTs were made: ``d-mod-k``, ``dimension order``, ``from file`` or ``minhop``."""
        return self._core.routing

    def route(self, engines: Union[str, Sequence[str]], roots: Sequence[str] = (),
              max_vls: Optional[int] = None) -> "Fabric":
        """Reroutes the fabric with OpenSM's engines by name (``minhop``, ``updn``, ``ftree``,
        ``sssp``, ``dfsssp``, ``dor``; ours: ``dmodk``, ``minhop-mod``): one for every rail, or
        one per rail (``"ftree,dfsssp"`` or a list). ``roots`` (switch names or GUIDs) for
        updn and ftree; ``max_vls`` for dfsssp's layers. Everything computed before is dropped.

        Raises:
            FabricError: an unknown engine, roots that do not exist, an engine that cannot
                route this fabric.
        """
        names = engines if isinstance(engines, str) else ",".join(engines)
        self._core.route(json.dumps(_request(roots, max_vls, engines=names)))
        self._cache.clear()
        return self

    def set_lids(self, lids: PathLike) -> "Fabric":
        """New LIDs: ``"opensm"`` as OpenSM assigns them on a fabric without any (its SM's
        port first, then its port table's order), or an OpenSM ``guid2lid`` file; the fabric
        is then routed again by the engines it had.

        Raises:
            FabricError: a file that cannot be read (file and line), a GUID not in the fabric,
                LFTs that came from a file (they are for the file's LIDs).
        """
        self._core.set_lids(lids if lids == "opensm" else os.fspath(lids))
        self._cache.clear()
        return self

    @property
    def subnets(self) -> List[Dict[str, Any]]:
        """Per subnet (rail) after :meth:`route`: rail, switches, endpoints, asked, used,
        fallback (``{"to": "minhop", "reason": ...}`` when ftree gave up, as OpenSM logs it)."""
        return json.loads(self._core.subnets_json())

    def ebb(self, patterns: int = 1000, seed: int = 0, kinds: Sequence[str] = ("bisection",),
            weighting: str = "flows") -> Dict[str, Any]:
        """Effective bisection bandwidth of the fabric's tables, as ORCS defines it (Hoefler,
        Schneider, Lumsdaine, Cluster 2008; docs/routing.md): per rail and pattern kind, the
        mean over ``patterns`` seeded patterns of each flow's share 1 / (the most flows on a link
        of its route), with a 95 % interval, the worst and best pattern and the slowest flow.
        ``kinds``: ``bisection``, ``random-pair:N`` (the TSUBAME2.0 study's N-node random
        pairs), ``permutation``, ``shift:K``, ``alltoall``; ``weighting``: ``flows`` (ORCS) or
        ``rate`` (a degraded link's lower rate counts)."""
        return json.loads(self._ebb(patterns, seed, kinds, weighting)[0])

    def ebb_text(self, patterns: int = 1000, seed: int = 0, kinds: Sequence[str] = ("bisection",),
                 weighting: str = "flows") -> str:
        """:meth:`ebb` as the text ``rdmasim fabric --ebb`` prints (computed once for both)."""
        return self._ebb(patterns, seed, kinds, weighting)[1]

    def _ebb(self, patterns: int, seed: int, kinds: Sequence[str], weighting: str) -> Any:
        opts = json.dumps(_ebb_options(patterns, seed, kinds, weighting))
        return self._cached("ebb" + opts, lambda: self._core.ebb(opts))

    def compare_engines(self, engines: Sequence[str], roots: Sequence[str] = (),
                        max_vls: Optional[int] = None, top: int = DEFAULT_TOP,
                        ebb_patterns: int = 1000, ebb_seed: int = 0) -> pd.DataFrame:
        """The fabric under each engine (or per-rail list, ``"ftree,dfsssp"``) side by side:
        one row per engine with route_s, unroutable pairs, loops, credit_loop_vl (the VL of a
        credit loop, None without one), the switch-link routes (max,
        mean, histogram), used (per rail, after any fallback) and error (why an engine could
        not route the fabric), and ebb / ebb_ci95 (random bisections, ``ebb_patterns`` of them;
        0 leaves the EBB out). The fabric's own routing is not changed."""
        return _comparison_frame(json.loads(self._compare(engines, roots, max_vls, top, ebb_patterns, ebb_seed)[0]))

    def compare_engines_text(self, engines: Sequence[str], roots: Sequence[str] = (),
                             max_vls: Optional[int] = None, top: int = DEFAULT_TOP,
                             ebb_patterns: int = 1000, ebb_seed: int = 0) -> str:
        """:meth:`compare_engines` as the table ``rdmasim fabric --compare-engines`` prints
        (the same request is routed and analysed once for both)."""
        return self._compare(engines, roots, max_vls, top, ebb_patterns, ebb_seed)[1]

    def _compare(self, engines: Sequence[str], roots: Sequence[str], max_vls: Optional[int], top: int,
                 ebb_patterns: int, ebb_seed: int) -> Any:
        req = _request(roots, max_vls, compare=list(engines), top=top)
        if ebb_patterns > 0:
            req["ebb"] = _ebb_options(ebb_patterns, ebb_seed, ("bisection",), "flows")
        text = json.dumps(req)
        return self._cached("compare" + text, lambda: self._core.compare_engines(text))

    def _cached(self, key: str, make: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    @property
    def summary(self) -> Dict[str, Any]:
        """hosts, hcas, hca_ports, switches, links, links_by_speed, degraded_links, down_links,
        components, pairs, unroutable (counts by reason and examples), loops (count, examples)."""
        return self._cached("summary", lambda: json.loads(self._core.summary_json()))

    @property
    def loads(self) -> Dict[str, Any]:
        """Routes per directed link for all-to-all traffic (:meth:`link_loads` with the
        default number of busiest links)."""
        return self.link_loads(DEFAULT_TOP)

    def link_loads(self, top: int = DEFAULT_TOP) -> Dict[str, Any]:
        """pairs, routed_pairs, unroutable_pairs, switch_links and host_links (directed_links,
        routes, max, mean, histogram), the ``top`` busiest switch-to-switch directions, and the
        same per rail (``per_rail``)."""
        return self._cached(f"loads{top}", lambda: json.loads(self._core.loads_json(int(top))))

    def summary_text(self) -> str:
        return self._core.summary_text()

    def loads_text(self, top: int = DEFAULT_TOP) -> str:
        return self._core.loads_text(int(top))

    @property
    def nodes(self) -> pd.DataFrame:
        """One row per switch and HCA: name, kind (switch / ca), guid, lid, ports, host, rail."""
        return self._cached("nodes", lambda: _columns(self._core.nodes_json(), {"rail": "Int64"}))

    @property
    def links(self) -> pd.DataFrame:
        """One row per cable: a, a_port, b, b_port, width, speed, label ("4X QDR"), length_m,
        ber, state, degraded, and the all-to-all routes each way (routes_ab, routes_ba)."""
        return self._cached("links", lambda: _columns(self._core.links_json(), {}))

    @property
    def routes(self) -> pd.DataFrame:
        """Every LFT entry that routes: switch, lid, port (0: the switch itself), dest (the
        node with that LID). Switches × LIDs rows, so made only when asked for."""
        def make() -> pd.DataFrame:
            c = json.loads(self._core.routes_json())
            names = c.pop("names")
            switch = pd.Categorical.from_codes(c.pop("switch"), categories=names)
            dest = pd.Categorical.from_codes(c.pop("dest"), categories=names)  # -1: no node has the LID
            return pd.DataFrame({"switch": switch, "lid": c["lid"], "port": c["port"], "dest": dest})
        return self._cached("routes", make)

    def write_net(self, path: PathLike) -> Path:
        """Writes the topology as an ibsim ``net`` file (``ibsim -s``; ibnetdiscover's layout)."""
        return _write(path, self._core.net_text())

    def write_lfts(self, path: PathLike) -> Path:
        """Writes the forwarding tables as OpenSM's ``opensm-lfts.dump`` (``opensm -R file -U``)."""
        return _write(path, self._core.lfts_text())

    def write_dot(self, path: PathLike) -> Path:
        """Writes a Graphviz picture (``dot -Tsvg``): degraded links orange, down links dashed."""
        return _write(path, self._core.dot_text())

    def plot_route_histogram(self, path: PathLike, top: int = DEFAULT_TOP) -> Optional[Path]:
        """Bar chart of switch-to-switch directed links by their all-to-all routes, written to
        ``path``; None when matplotlib is missing or the file cannot be written."""
        from .plots import pyplot, save

        plt = pyplot()
        if plt is None:
            return None
        hist = self.link_loads(top)["switch_links"]["histogram"]
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.bar([b["routes"] for b in hist], [b["links"] for b in hist], width=0.8)
        ax.set_xlabel("routes over the directed link (all-to-all)")
        ax.set_ylabel("switch-to-switch directed links")
        ax.set_title(f"{self.source}: routing {self.routing}")
        fig.tight_layout()
        return save(fig, Path(path), dpi=120)

    def __repr__(self) -> str:
        return f"<rdmasim.Fabric {self._core!r}>"


def _request(roots: Sequence[str], max_vls: Optional[int], **fields: Any) -> Dict[str, Any]:
    req: Dict[str, Any] = dict(fields)
    if roots:
        req["roots"] = list(roots)
    if max_vls is not None:
        req["max_vls"] = int(max_vls)
    return req


def _ebb_options(patterns: int, seed: int, kinds: Sequence[str], weighting: str) -> Dict[str, Any]:
    """The core's EBB request; the kinds keep their command-line form (the core parses them)."""
    return {"patterns": int(patterns), "seed": int(seed), "kinds": list(kinds), "weighting": weighting}


def _ebb_mean(report: Optional[Dict[str, Any]]) -> Any:
    """The first kind's mean over the rails, weighted by endpoints, and the widest interval."""
    if not report:
        return None, None
    rails = [(r["endpoints"], r["kinds"][0]) for r in report["rails"] if r["kinds"]]
    n = sum(e for e, _ in rails)
    if n == 0:
        return None, None
    return sum(e * k["mean"] for e, k in rails) / n, max(k["ci95"] for _, k in rails)


def _comparison_frame(rows: List[Dict[str, Any]]) -> pd.DataFrame:
    """One row per engine from the core's comparison rows."""
    out = []
    for r in rows:
        s, l = r.get("summary") or {}, r.get("loads") or {}
        sw = l.get("switch_links") or {}
        out.append({
            "engine": r["engine"],
            "used": ",".join(x["used"] for x in r["routing"]) if r.get("routing") else None,
            "fallback": "; ".join(f"rail {x['rail']}: {x['fallback']['reason']}" for x in (r.get("routing") or []) if x.get("fallback")) or None,
            "route_s": r["route_s"],
            "unroutable": (s.get("unroutable") or {}).get("pairs"),
            "loops": (s.get("loops") or {}).get("count"),
            "credit_loop_vl": ((s.get("credit_loops") or {}).get("credit_loop") or {}).get("vl"),
            "max_routes": sw.get("max"),
            "mean_routes": sw.get("mean"),
            "histogram": sw.get("histogram"),
            "ebb": _ebb_mean(r.get("ebb"))[0],
            "ebb_ci95": _ebb_mean(r.get("ebb"))[1],
            "error": r.get("error"),
        })
    return pd.DataFrame(out)


def plot_engine_histograms(table: pd.DataFrame, path: PathLike, title: str = "") -> Optional[Path]:
    """Route-count histograms of :meth:`Fabric.compare_engines`' engines, one line each:
    switch-to-switch directed links by their all-to-all routes. None without matplotlib."""
    from .plots import pyplot, save

    plt = pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    rows = [(r["engine"], r["max_routes"], {b["routes"]: b["links"] for b in r["histogram"]})
            for _, r in table.iterrows() if r["histogram"]]
    values = sorted({v for _, _, h in rows for v in h})
    if len(values) <= 30:
        # Few distinct counts: grouped bars, one group per count, one bar per engine.
        width = 0.8 / max(len(rows), 1)
        for i, (engine, top, h) in enumerate(rows):
            xs = [j + (i - (len(rows) - 1) / 2) * width for j in range(len(values))]
            ax.bar(xs, [h.get(v, 0) for v in values], width=width, label=f"{engine} (max {top:g})")
        ax.set_xticks(range(len(values)))
        ax.set_xticklabels([str(v) for v in values], rotation=90 if len(values) > 12 else 0, fontsize=8)
    else:
        for engine, top, h in rows:
            ax.plot(sorted(h), [h[v] for v in sorted(h)], marker="o", markersize=3, linestyle="none",
                    label=f"{engine} (max {top:g})")
    ax.set_xlabel("routes over the directed link (all-to-all)")
    ax.set_ylabel("switch-to-switch directed links")
    ax.set_title(title or "route counts per link, by engine")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, Path(path), dpi=120)


def _write(path: PathLike, text: str) -> Path:
    p = Path(path)
    p.write_text(text, encoding="utf-8")
    return p
