"""tools/module_graph.py: it finds circles and upward imports, and the tree has none beyond the
ones listed in tools/module_graph_known.txt (issue #33 empties that list)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import module_graph as mg  # noqa: E402


def _tree(tmp_path: Path, files: dict) -> Path:
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def test_rust_paths_expand_brace_groups_and_skip_comments_and_strings():
    text = 'use crate::a::{b::{C, d}, e};\n// use crate::zz::Q;\nlet s = "crate::yy";\nfn f() { super::g::h(); }'
    assert mg.rust_paths(text) == [["crate", "a", "b", "C"], ["crate", "a", "b", "d"], ["crate", "a", "e"], ["super", "g", "h"]]


def test_a_circle_and_an_upward_import_are_found_and_a_child_using_its_parent_is_not(tmp_path):
    src = _tree(tmp_path, {
        "lib.rs": "pub mod low; pub mod high; pub mod pkg;",
        "low.rs": "use crate::high::Thing;",       # low -> high: upward, and a circle with high
        "high.rs": "use crate::low::Other;",
        "pkg/mod.rs": "pub mod child; pub use self::child::X;",
        "pkg/child.rs": "use super::Y;",            # a file and its own module: no edge back
    })
    edges = mg.rust_edges(src)
    assert edges["low"] == {"high"} and edges["pkg"] == {"pkg::child"} and edges["pkg::child"] == set()
    assert mg.circles(edges) == [["high", "low"]]
    layers = {"low": 0, "high": 1, "pkg": 0}
    assert mg.upward(edges, layers) == [("low", "high")]


def test_python_relative_imports_resolve_to_modules(tmp_path):
    src = _tree(tmp_path, {
        "__init__.py": "from .a import f\n",
        "a.py": "from . import b, c as d\nimport rdmasim.b\n",
        "b.py": "",
        "c.py": "from .sub import g\n",
        "sub/__init__.py": "from ..a import f\n",
    })
    edges = mg.python_edges(src)
    assert edges["rdmasim.a"] == {"rdmasim.b", "rdmasim.c"}
    assert edges["rdmasim.c"] == {"rdmasim.sub"} and edges["rdmasim.sub"] == {"rdmasim.a"}
    assert mg.circles(edges) == [["rdmasim.a", "rdmasim.c", "rdmasim.sub"]]


def test_the_tree_adds_no_circle_or_upward_import_beyond_the_known_list():
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "module_graph.py"), "--known",
                        str(ROOT / "tools" / "module_graph_known.txt")], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_test_only_code_is_not_an_edge(tmp_path):
    src = _tree(tmp_path, {
        "lib.rs": "pub mod low; pub mod high; pub mod other;",
        "low.rs": "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::high::H;\n    fn g() { if true { crate::high::h(); } }\n}\npub fn after() { crate::other::o(); }",
        "high.rs": "use crate::low::f;\n#[cfg(test)]\nmod tests;",
        "high/tests.rs": "use crate::other::Z;",
        "other.rs": "",
    })
    edges = mg.rust_edges(src)
    # low's test module reaches high, and high's test file reaches other: neither is an edge; the
    # code after low's test module still is.
    assert edges == {"crate": set(), "low": {"other"}, "high": {"low"}, "other": set()}
