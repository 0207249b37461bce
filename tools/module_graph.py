#!/usr/bin/env python3
"""The module graph of rdmasim's Rust core and Python package: import circles and upward imports.

Layers only look down: a module may use modules of its own layer or below, never one above, and
no set of files may import each other in a circle. The layers are declared in
``tools/layers.toml`` (a module path prefix -> its layer number, the longest prefix wins).

    python3 tools/module_graph.py            # report; exit 1 on a circle or an upward import
    python3 tools/module_graph.py --json     # the same as JSON
    python3 tools/module_graph.py --known tools/module_graph_known.txt
                                             # fail only on violations not listed there

Edges are read from source text: Rust ``crate::``/``super::``/``self::`` paths (in ``use``
items, brace groups expanded, and inline in code) and Python relative and ``rdmasim.`` imports.
A path resolves to the longest module (file) it names. A file using its own directory module
(``super::X`` from a child file) is not an edge back: a ``mod.rs``'s re-exports are its edges to
the files behind them, so a path through a re-export still reaches the file that defines it.
Test-only code (a ``#[cfg(test)]`` module, inline or in its own file) is left out: a test may
build its case through any layer (parse a scenario, run an engine) without the code under test
depending on it.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore

ROOT = Path(__file__).resolve().parent.parent
RUST_SRC = ROOT / "crates" / "rdmasim-core" / "src"
PY_SRC = ROOT / "python" / "rdmasim"

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_RUST_PATH = re.compile(rf"\b(crate|super|self)((?:::{_IDENT})+)(::\{{)?")
_RUST_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_RUST_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_RUST_TEST_MOD = re.compile(rf"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+({_IDENT})\s*([{{;])")


# --- Rust ------------------------------------------------------------------------------------

def rust_modules(src: Path = RUST_SRC) -> Dict[Tuple[str, ...], Path]:
    """Module path (crate-relative, as a tuple) -> its file; test-only files are left out."""
    mods = {}
    test_files = _rust_test_files(src)
    for f in sorted(src.rglob("*.rs")):
        if f in test_files:
            continue
        rel = f.relative_to(src).with_suffix("").parts
        if rel[-1] == "mod" or rel in (("lib",), ("main",)):
            rel = rel[:-1]
        if rel and rel[0] == "bin":
            continue  # binaries sit above everything; they use the crate by name
        mods[tuple(rel)] = f
    return mods


def _rust_test_files(src: Path) -> Set[Path]:
    """Files that are `#[cfg(test)] mod name;` of their parent, and every file below them."""
    out: Set[Path] = set()
    for f in src.rglob("*.rs"):
        here = f.parent if f.name in ("mod.rs", "lib.rs", "main.rs") else f.with_suffix("")
        for m in _RUST_TEST_MOD.finditer(_RUST_COMMENT.sub("", f.read_text())):
            if m.group(2) == ";":
                for cand in (here / f"{m.group(1)}.rs", here / m.group(1) / "mod.rs"):
                    if cand.exists():
                        out.add(cand)
                if (here / m.group(1)).is_dir():
                    out.update((here / m.group(1)).rglob("*.rs"))
    return out


def strip_rust_tests(text: str) -> str:
    """The source without its inline `#[cfg(test)] mod name { ... }` blocks."""
    out, pos = [], 0
    for m in _RUST_TEST_MOD.finditer(text):
        if m.start() < pos or m.group(2) != "{":
            continue
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.append(text[pos:m.start()])
        pos = i
    return "".join(out) + text[pos:]


def _brace_items(text: str, start: int) -> Tuple[List[str], int]:
    """The comma-separated items of a `{...}` group starting after `start` (nested groups
    flattened to full paths) and the index after its closing brace."""
    items, depth, cur, i = [], 0, "", start
    while i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
            if depth > 1:
                cur += c
        elif c == "}":
            if depth == 1:
                items.append(cur)
                return _expand(items), i + 1
            depth -= 1
            cur += c
        elif c == "," and depth == 1:
            items.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    return _expand(items), i


def _expand(items: Iterable[str]) -> List[str]:
    out = []
    for it in items:
        it = re.sub(r"\s+", "", it)
        if not it:
            continue
        if "{" in it:
            head, _, rest = it.partition("{")
            inner, _ = _brace_items("{" + rest, 0)
            out += [head + x for x in inner]
        else:
            out.append(it)
    return out


def rust_paths(text: str) -> List[List[str]]:
    """Every crate/super/self path written in the source, as segment lists."""
    text = strip_rust_tests(_RUST_STRING.sub('""', _RUST_COMMENT.sub("", text)))
    out = []
    for m in _RUST_PATH.finditer(text):
        head = [m.group(1)] + [s for s in m.group(2).split("::") if s]
        if m.group(3):
            items, _ = _brace_items(text, m.end() - 1)
            for it in items:
                out.append(head + [s for s in it.split("::") if s and s != "self"])
        else:
            out.append(head)
    return out


def rust_edges(src: Path = RUST_SRC) -> Dict[str, Set[str]]:
    mods = rust_modules(src)
    names = {m: "::".join(m) or "crate" for m in mods}
    edges: Dict[str, Set[str]] = {names[m]: set() for m in mods}
    for mod, f in mods.items():
        for path in rust_paths(f.read_text()):
            base: Tuple[str, ...]
            segs = path[1:]
            if path[0] == "crate":
                base = ()
            elif path[0] == "self":
                base = mod
            else:  # super (possibly repeated)
                base = mod[:-1]
                while segs and segs[0] == "super":
                    base, segs = base[:-1], segs[1:]
            _add_edge(edges, names, mods, mod, base + tuple(segs))
    return edges


def _add_edge(edges: Dict[str, Set[str]], names: Dict[Tuple[str, ...], str], mods: Dict[Tuple[str, ...], Path],
              mod: Tuple[str, ...], path: Tuple[str, ...]) -> None:
    """`mod` uses `path`: an edge to the longest module it names, unless that is `mod` itself or
    one of its ancestors (a file using what its own directory modules or packages define or
    re-export is not an edge back: their re-exports are their edges to the files behind them)."""
    target = _longest_module(mods, path)
    if target is not None and not _is_prefix(target, mod):
        edges[names[mod]].add(names[target])


def _longest_module(mods: Dict[Tuple[str, ...], Path], path: Tuple[str, ...]) -> Optional[Tuple[str, ...]]:
    for n in range(len(path), -1, -1):
        if path[:n] in mods:
            return path[:n]
    return None


def _is_prefix(a: Tuple[str, ...], b: Tuple[str, ...]) -> bool:
    return b[:len(a)] == a


# --- Python ----------------------------------------------------------------------------------

_PY_FROM = re.compile(r"^\s*from\s+(\.+)([\w.]*)\s+import\s+(\(?[^#\n]*)", re.M)
_PY_ABS = re.compile(r"^\s*(?:from|import)\s+rdmasim((?:\.\w+)*)", re.M)


def python_modules(src: Path = PY_SRC) -> Dict[Tuple[str, ...], Path]:
    mods = {}
    for f in sorted(src.rglob("*.py")):
        rel = f.relative_to(src).with_suffix("").parts
        if rel[-1] == "__init__":
            rel = rel[:-1]
        mods[tuple(rel)] = f
    return mods


def python_edges(src: Path = PY_SRC) -> Dict[str, Set[str]]:
    mods = python_modules(src)
    names = {m: "rdmasim" + "".join("." + p for p in m) for m in mods}
    edges: Dict[str, Set[str]] = {names[m]: set() for m in mods}
    for mod, f in mods.items():
        text = f.read_text()
        pkg = mod if f.name == "__init__.py" else mod[:-1]
        targets: List[Tuple[str, ...]] = []
        for m in _PY_FROM.finditer(text):
            up = len(m.group(1)) - 1
            base = pkg[:len(pkg) - up] if up else pkg
            dotted = tuple(p for p in m.group(2).split(".") if p)
            if dotted:
                targets.append(base + dotted)
            else:  # from . import a, b as c: each may be a module, else a name in the package
                for item in m.group(3).strip("() \t").split(","):
                    name = item.strip().split(" ")[0]
                    if name:
                        targets.append(base + (name,) if base + (name,) in mods else base)
        for m in _PY_ABS.finditer(text):
            targets.append(tuple(p for p in m.group(1).split(".") if p))
        for t in targets:
            _add_edge(edges, names, mods, mod, t)
    return edges


# --- circles and layers ----------------------------------------------------------------------

def circles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """Strongly connected components of more than one module (Tarjan's, iterative)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    on, stack, out = set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in edges:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return sorted(out)


def load_layers(path: Path) -> Dict[str, int]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    return {k: int(v) for section in ("rust", "python") for k, v in data.get(section, {}).items()}


def layer_of(module: str, layers: Dict[str, int]) -> Optional[int]:
    best = None
    for prefix, n in layers.items():
        if module == prefix or module.startswith(prefix + "::") or module.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, n)
    return None if best is None else best[1]


def upward(edges: Dict[str, Set[str]], layers: Dict[str, int]) -> List[Tuple[str, str]]:
    out = []
    for a, targets in edges.items():
        la = layer_of(a, layers)
        for b in targets:
            lb = layer_of(b, layers)
            if la is not None and lb is not None and lb > la:
                out.append((a, b))
    return sorted(out)


def unlayered(edges: Dict[str, Set[str]], layers: Dict[str, int]) -> List[str]:
    return sorted(m for m in edges if layer_of(m, layers) is None)


def violations(layers_path: Path) -> Dict[str, list]:
    edges = {**rust_edges(), **python_edges()}
    layers = load_layers(layers_path)
    return {
        "circles": circles(edges),
        "upward": [list(e) for e in upward(edges, layers)],
        "unlayered": unlayered(edges, layers),
    }


def _keys(v: Dict[str, list]) -> List[str]:
    return ([f"circle: {' '.join(c)}" for c in v["circles"]] + [f"upward: {a} -> {b}" for a, b in v["upward"]]
            + [f"unlayered: {m}" for m in v["unlayered"]])


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=Path, default=ROOT / "tools" / "layers.toml")
    ap.add_argument("--known", type=Path, help="a file of violations (one per line, as printed) not to fail on")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    v = violations(args.layers)
    found = _keys(v)
    known = set()
    if args.known:
        known = {line.strip() for line in args.known.read_text().splitlines() if line.strip() and not line.startswith("#")}
    new = [k for k in found if k not in known]
    gone = sorted(known - set(found))
    if args.json:
        print(json.dumps({**v, "new": new, "no_longer_found": gone}, indent=2))
    else:
        for k in found:
            print(("   " if k in known else "NEW ") + k)
        print(f"{len(v['circles'])} circles, {len(v['upward'])} upward imports, {len(v['unlayered'])} modules without a layer"
              + (f"; {len(new)} not in {args.known}" if args.known else ""))
        if gone:
            print(f"fixed since {args.known} was written (delete these lines): " + "; ".join(gone))
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
