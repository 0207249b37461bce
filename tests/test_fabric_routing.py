"""Routing engines by name from Python and the command line: --route (one per rail),
--compare-engines, the per-engine histogram plot, and bad engine names."""
from __future__ import annotations

import json
import subprocess
import sys

import rdmasim


def rdmasim_cli(*args):
    return subprocess.run([sys.executable, "-m", "rdmasim", *map(str, args)], capture_output=True, text=True, timeout=120)


def test_route_per_rail_and_subnets():
    fab = rdmasim.Fabric.build("rails", rails=2, of={"kind": "fat-tree-k", "k": 4})
    assert fab.routing == "d-mod-k" and fab.subnets == []
    before = fab.link_loads(1)["switch_links"]["max"]
    fab.route(["dmodk", "minhop-mod"])
    assert fab.routing == "dmodk,minhop-mod"
    assert [(s["rail"], s["asked"], s["used"], s["endpoints"]) for s in fab.subnets] == [
        (0, "dmodk", "dmodk", 16), (1, "minhop-mod", "minhop-mod", 16)]
    per_rail = fab.link_loads(1)["per_rail"]
    # D-mod-K's rail keeps its spread (max 14 routes on a switch link), minhop-mod's rail 24.
    assert before == 14 and sorted(r["switch_links"]["max"] for r in per_rail) == [14, 24]


def test_compare_engines_frame_and_plot(tmp_path):
    fab = rdmasim.Fabric.build("fat-tree-k", k=4)
    t = fab.compare_engines(["dmodk", "minhop-mod"])
    assert list(t.engine) == ["dmodk", "minhop-mod"]
    assert list(t.max_routes) == [14, 24] and t.unroutable.tolist() == [0, 0]
    from rdmasim.fabric import plot_engine_histograms

    png = plot_engine_histograms(t, tmp_path / "engines.png")
    if png is not None:
        assert png.read_bytes()[:4] == b"\x89PNG"
    assert fab.routing == "d-mod-k", "comparing does not reroute the fabric"


def test_cli_route_and_compare(tmp_path):
    p = rdmasim_cli("fabric", "build", "fat-tree-k", "-p", "k=4", "--route", "minhop-mod",
                    "--compare-engines", "dmodk,minhop-mod", "--json", "--quiet")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["routing"] == "minhop-mod" and out["loads"]["switch_links"]["max"] == 24
    assert [r["engine"] for r in out["comparison"]] == ["dmodk", "minhop-mod"]
    p = rdmasim_cli("fabric", "build", "fat-tree-k", "-p", "k=4", "--compare-engines", "dmodk;dmodk,dmodk",
                    "--plot", tmp_path / "c.png", "--quiet")
    assert p.returncode == 0, p.stderr
    line = next(l for l in p.stdout.splitlines() if l.startswith("dmodk,dmodk"))
    assert "2 routing engines given (one per rail) for a fabric of 1 rail" in line, p.stdout


def test_cli_unknown_engine_exit_2():
    p = rdmasim_cli("fabric", "build", "fat-tree-k", "-p", "k=4", "--route", "lash")
    assert p.returncode == 2
    assert p.stderr.startswith("rdmasim: error: --route lash: routing lash: unknown routing engine \"lash\""), p.stderr
    assert "Traceback" not in p.stderr


def test_ebb_from_python_and_cli():
    fab = rdmasim.Fabric.build("fat-tree-k", k=4)
    r = fab.ebb(patterns=50, kinds=["bisection", "shift:4"])
    (rail,) = r["rails"]
    bis, shift = rail["kinds"]
    assert shift["mean"] == 1.0, "D-mod-K is non-blocking for shifts"
    assert 0.4 < bis["mean"] < 1.0 and bis["patterns"] == 50
    t = fab.compare_engines(["dmodk", "minhop-mod"], ebb_patterns=50)
    assert t.ebb[0] == bis["mean"] and t.ebb[1] < t.ebb[0]
    p = rdmasim_cli("fabric", "build", "fat-tree-k", "-p", "k=4", "--ebb", "shift:4", "--patterns", "5", "--json", "--quiet")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["ebb"]["rails"][0]["kinds"][0]["mean"] == 1.0
    p = rdmasim_cli("fabric", "build", "fat-tree-k", "-p", "k=4", "--ebb", "shift")
    assert p.returncode == 2 and "expected shift:N" in p.stderr, p.stderr
