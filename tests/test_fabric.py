"""`rdmasim fabric` and `rdmasim.Fabric`: a fabric's summary, routes per link, tables and files,
on a generated fat tree and on the real tools' output (crates/rdmasim-core/tests/data/fabric)."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import rdmasim
from rdmasim.cli import _generator_params

DATA = Path(__file__).resolve().parent.parent / "crates" / "rdmasim-core" / "tests" / "data" / "fabric"
IBNETDISCOVER = DATA / "ibnetdiscover.txt"
LFTS_DUMP = DATA / "opensm-lfts.dump"


def rdmasim_cli(*args):
    return subprocess.run([sys.executable, "-m", "rdmasim", *map(str, args)], capture_output=True, text=True, timeout=120)


def walk_routes(fab: rdmasim.Fabric) -> Counter:
    """All-to-all routes per directed link, (node, port) of the sending end, counted here hop by
    hop from the routes and links tables: an independent check of the core's counting."""
    links = fab.links
    peer = {}
    for r in links.itertuples():
        peer[(r.a, r.a_port)] = (r.b, r.b_port)
        peer[(r.b, r.b_port)] = (r.a, r.a_port)
    lft = {(r.switch, r.lid): r.port for r in fab.routes.itertuples()}
    nodes = fab.nodes
    cas = nodes[nodes.kind == "ca"]
    ends = [(r.name, r.host, r.lid) for r in cas.itertuples()]
    count: Counter = Counter()
    for src, src_host, _ in ends:
        for dst, dst_host, dlid in ends:
            if src_host == dst_host:
                continue
            at = (src, 1)
            for _ in range(64):
                count[at] += 1
                node, _port = peer[at]
                if node == dst:
                    break
                at = (node, lft[(node, dlid)])
            else:
                raise AssertionError(f"{src} -> {dst}: no arrival in 64 hops")
    return count


@pytest.fixture(scope="module")
def fat_tree() -> rdmasim.Fabric:
    return rdmasim.Fabric.build("fat-tree-k", k=4)


def test_fat_tree_k4_counts_and_d_mod_k_loads(fat_tree):
    s = fat_tree.summary
    assert (s["hosts"], s["switches"], s["links"]) == (16, 20, 48)
    assert s["unroutable"]["pairs"] == 0 and s["loops"]["count"] == 0
    assert fat_tree.routing == "d-mod-k"
    loads = fat_tree.loads
    assert loads["pairs"] == loads["routed_pairs"] == 16 * 15
    # Counted by hand: an edge switch sends its 2 hosts' 14 remote destinations up by D mod 2,
    # 7 each, so 2 x 7 = 14 routes per uplink; an aggregation switch's core uplinks carry 12.
    walked = walk_routes(fat_tree)
    switches = set(fat_tree.nodes.query("kind == 'switch'").name)
    trunks = fat_tree.links[fat_tree.links.a.isin(switches) & fat_tree.links.b.isin(switches)]
    by_walk = [walked[(r.a, r.a_port)] for r in trunks.itertuples()] + [walked[(r.b, r.b_port)] for r in trunks.itertuples()]
    assert loads["switch_links"]["max"] == max(by_walk) == 14
    assert sorted(Counter(by_walk).items()) == [(12, 32), (14, 32)]
    assert loads["host_links"]["max"] == 15


def test_links_table_routes_match_a_hop_by_hop_walk(fat_tree):
    walked = walk_routes(fat_tree)
    for r in fat_tree.links.itertuples():
        assert (r.routes_ab, r.routes_ba) == (walked[(r.a, r.a_port)], walked[(r.b, r.b_port)]), r


def test_dataframe_columns(fat_tree):
    assert list(fat_tree.nodes.columns) == ["name", "kind", "guid", "lid", "ports", "host", "rail"]
    assert list(fat_tree.links.columns) == ["a", "a_port", "b", "b_port", "width", "speed", "label", "length_m",
                                            "ber", "state", "degraded", "routes_ab", "routes_ba"]
    assert list(fat_tree.routes.columns) == ["switch", "lid", "port", "dest"]
    assert len(fat_tree.nodes) == 36 and len(fat_tree.links) == 48
    assert set(fat_tree.links.label) == {"4X QDR"}
    assert fat_tree.nodes.set_index("name").loc["h3 mlx4_0", ["host", "rail", "lid"]].tolist() == ["h3", 0, 4]
    # Every switch routes every LID (16 HCAs + 20 switches), its own to port 0.
    assert len(fat_tree.routes) == 20 * 36
    own = fat_tree.routes[fat_tree.routes.switch.astype(str) == fat_tree.routes.dest.astype(str)]
    assert len(own) == 20 and set(own.port) == {0}


def test_import_real_ibnetdiscover_with_opensm_lfts():
    fab = rdmasim.Fabric.import_file(IBNETDISCOVER, lfts=LFTS_DUMP)
    s = fab.summary
    assert (s["hosts"], s["switches"], s["links"]) == (3, 4, 9)
    assert fab.routing == "from file"
    assert s["degraded_links"] == [{"a": '"leaf2"[2]', "b": '"node3 HCA-1"[2]', "active": "4X SDR", "supported": "4X QDR"}]
    assert s["unroutable"]["pairs"] == 0
    deg = fab.links[fab.links.degraded]
    assert deg[["a", "a_port", "b", "b_port", "label"]].values.tolist() == [["leaf2", 2, "node3 HCA-1", 2, "4X SDR"]]
    assert fab.nodes.set_index("name").loc["node2 HCA-2", "rail"] == 1


def test_cli_import_json_keys_and_text():
    p = rdmasim_cli("fabric", "import", IBNETDISCOVER, "--lfts", LFTS_DUMP, "--json", "--top", "3")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"source", "routing", "subnets", "summary", "loads", "written"}
    assert {"hosts", "switches", "links", "links_by_speed", "degraded_links", "down_links", "components", "pairs",
            "unroutable", "loops"} <= set(out["summary"])
    assert {"pairs", "routed_pairs", "unroutable_pairs", "switch_links", "host_links", "busiest", "per_rail"} <= set(out["loads"])
    assert {"max", "mean", "histogram", "directed_links", "routes"} <= set(out["loads"]["switch_links"])
    assert len(out["loads"]["busiest"]) == 3
    assert out["summary"]["links_by_speed"] == {"1X QDR": 1, "4X QDR": 7, "4X SDR": 1}
    p = rdmasim_cli("fabric", "import", IBNETDISCOVER, "--lfts", LFTS_DUMP)
    assert p.returncode == 0, p.stderr
    assert "3 hosts, 4 HCAs, 8 HCA ports, 4 switches, 9 links" in p.stdout
    assert "degraded links: 1" in p.stdout and "busiest switch-to-switch:" in p.stdout


def test_cli_write_net_then_import_it_keeps_nodes_and_links(tmp_path):
    net = tmp_path / "fat.net"
    p = rdmasim_cli("fabric", "build", "fat-tree-k", "-p", "k=4", "-p", "speed.gen=edr", "-p", "speed.width=4", "--write-net", net, "--json")
    assert p.returncode == 0, p.stderr
    built = json.loads(p.stdout)
    assert built["written"] == [str(net)]
    assert built["summary"]["links_by_speed"] == {"4X EDR": 48}
    p = rdmasim_cli("fabric", "import", net, "--json")
    assert p.returncode == 0, p.stderr
    back = json.loads(p.stdout)
    assert back["routing"] == "minhop"
    for key in ("hosts", "hcas", "switches", "links", "links_by_speed"):
        assert back["summary"][key] == built["summary"][key], key
    assert back["summary"]["unroutable"]["pairs"] == 0


def test_cli_write_lfts_then_import_with_them_keeps_the_routes(tmp_path, fat_tree):
    net, lfts = tmp_path / "fat.net", tmp_path / "opensm-lfts.dump"
    p = rdmasim_cli("fabric", "build", "fat-tree-k", "-p", "k=4", "--write-net", net, "--write-lfts", lfts)
    assert p.returncode == 0, p.stderr
    assert f"wrote {lfts}" in p.stdout
    back = rdmasim.Fabric.import_file(net, lfts=lfts)
    assert back.routing == "from file"
    key = ["switch", "lid", "port"]

    def table(f):
        return sorted(map(tuple, f.routes[key].astype({"switch": str}).values.tolist()))

    assert table(back) == table(fat_tree)
    assert back.loads["switch_links"] == fat_tree.loads["switch_links"]


def test_write_dot_and_route_histogram(tmp_path, fat_tree):
    dot = fat_tree.write_dot(tmp_path / "f.dot").read_text()
    assert dot.startswith("graph fabric {") and dot.count(" -- ") == 48
    png = fat_tree.plot_route_histogram(tmp_path / "hist.png")
    if png is not None:  # matplotlib is optional
        assert png.read_bytes()[:4] == b"\x89PNG"


def test_bad_file_exit_2_names_file_and_line(tmp_path):
    lines = IBNETDISCOVER.read_text().splitlines()
    bad_line = next(i for i, l in enumerate(lines) if l.startswith("[2]\t"))
    lines[bad_line] = lines[bad_line].replace("[2]", "[999]", 1)
    bad = tmp_path / "bad-ibnetdiscover.txt"
    bad.write_text("\n".join(lines) + "\n")
    p = rdmasim_cli("fabric", "import", bad)
    assert p.returncode == 2
    assert p.stderr.startswith(f"rdmasim: error: fabric import: {bad}:{bad_line + 1}: "), p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    p = rdmasim_cli("fabric", "import", IBNETDISCOVER, "--lfts", tmp_path / "missing.dump")
    assert p.returncode == 2 and f"{tmp_path / 'missing.dump'}: cannot read" in p.stderr, p.stderr


@pytest.mark.parametrize("args, words", [
    (["fat-tree-k", "-p", "k=3"], "generator fat-tree-k: k = 3: expected an even number >= 2"),
    (["fat-tree-k", "-p", "k=x"], "generator fat-tree-k: k: invalid type"),
    (["fat-tree-k", "-p", "kk=4"], "unknown field `kk`"),
    (["fat-tree-k"], "missing field `k`"),
    (["no-such-kind"], "unknown variant `no-such-kind`"),
    (["fat-tree-k", "-p", "k"], "-p 'k': expected KEY=VALUE"),
])
def test_bad_generator_input_exit_2_names_the_parameter(args, words):
    p = rdmasim_cli("fabric", "build", *args)
    assert p.returncode == 2
    assert p.stderr.startswith("rdmasim: error: fabric build") and words in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_python_errors_carry_file_and_line(tmp_path):
    bad = tmp_path / "x.lst"
    bad.write_text("{ CA Ports:01 SystemGUID:zz }\n")
    with pytest.raises(rdmasim.FabricError) as e:
        rdmasim.Fabric.import_file(bad)
    assert e.value.source == str(bad) and e.value.line == 1
    with pytest.raises(rdmasim.FabricError) as e:
        rdmasim.Fabric.build("fat-tree-k", k=5)
    assert e.value.source is None and "k = 5" in e.value.message


def test_param_values_nest_and_parse():
    got = _generator_params("hyperx", ["dims=4,4,2", "speed.gen=edr", "speed.width=4", "cable_m=2.5"])
    assert got == {"dims": [4, 4, 2], "speed": {"gen": "edr", "width": 4}, "cable_m": 2.5}
    assert _generator_params("rails", ["of.kind=fat-tree-k", "of.k=4", "rails=2"]) == {"of": {"kind": "fat-tree-k", "k": 4}, "rails": 2}
    assert _generator_params("xgft", ["m=[2,4]"]) == {"m": [2, 4]}


def test_rails_build_counts_per_rail():
    fab = rdmasim.Fabric.build("rails", rails=2, of={"kind": "fat-tree-k", "k": 4})
    s = fab.summary
    assert (s["hosts"], s["hcas"], s["switches"], s["links"]) == (16, 32, 40, 96)
    assert [c["rails"] for c in s["components"]] == [[0], [1]]
    assert len(fab.loads["per_rail"]) == 2
