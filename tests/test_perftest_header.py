"""The header `rdmasim perftest` prints before a run states what the run then does.

Its values come from the core (`rdmasim._core.perftest_settings_json`), the same code the run
uses; these tests hold the printed header against the run's own report and packet counts, for
flag combinations where perftest's defaults and limits on each other come into play.
"""
from __future__ import annotations

import json
import math
from typing import Any, Dict, List

import pytest

from rdmasim import perftest as pt
from rdmasim.errors import ScenarioError
from rdmasim.runner import run

CASES = [
    # no flags: 5000 iterations, one size above 8 KiB so no CQ moderation
    ("ib_write_bw", {}),
    # ConnectX-3: perftest forces a 2048 B MTU
    ("ib_write_bw", {"size": 65536, "iters": 40, "profile": "cx3-fdr"}),
    # a small size keeps DEF_CQ_MOD = 100
    ("ib_write_bw", {"size": 4096, "iters": 300}),
    # -t above -n is clamped to -n, and the CQ moderation with it
    ("ib_write_bw", {"size": 8193, "iters": 50, "tx_depth": 300}),
    # -Q above -t is clamped to -t
    ("ib_write_bw", {"size": 4096, "iters": 500, "tx_depth": 64, "cq_mod": 200}),
    ("ib_write_bw", {"size": 4096, "iters": 60, "cq_mod": 5, "qps": 3}),
    # -e and -a keep the moderation for sizes above 8 KiB
    ("ib_send_bw", {"size": 16384, "iters": 100, "events": True}),
    ("ib_send_bw", {"all_sizes": True, "iters": 5}),
    ("ib_read_bw", {"iters": 30, "mtu": 1024, "profile": "cx3-fdr"}),
    ("ib_read_bw", {"iters": 30, "profile": "cx3-fdr"}),
    ("ib_send_lat", {"iters": 20}),
    ("ib_write_lat", {"iters": 20, "profile": "cx3-fdr"}),
]


def _header_fields(text: str) -> Dict[str, str]:
    """`name : value` pairs of a header block (two per line where perftest prints two)."""
    fields = {}
    for line in text.splitlines():
        for part in line.split("\t\t"):
            name, sep, value = part.partition(":")
            if sep:
                fields[name.strip()] = value.strip()
    return fields


def _rows(res: Any) -> List[Dict[str, Any]]:
    return json.loads(res.perftest.to_json(orient="records"))


def _data_packets(res: Any, test: str) -> int:
    """Packets the data's sender put on the wire: the READ responder, else the client (the
    other side sends only ACKs, or READ requests)."""
    ports = res.ports
    sender = "h1" if pt._verb(test) == "read" else "h0"
    return int(ports.loc[ports["node"] == sender, "PortXmitPkts"].iloc[0])


@pytest.mark.parametrize("test,flags", CASES, ids=[f"{t}-{'-'.join(map(str, f.values())) or 'defaults'}" for t, f in CASES])
def test_the_header_states_what_the_run_does(test, flags):
    sc = pt.scenario(test, **flags)
    shown = _header_fields(pt.header(test, sc))
    settings = pt.effective_settings(sc)
    res = run(sc)
    rows = _rows(res)
    assert res.finished, res.stop_reason

    assert [r["bytes"] for r in rows] == settings["sizes"]
    assert [r["iterations"] for r in rows] == [settings["iters"]] * len(rows)
    assert int(shown["TX depth"]) == settings["tx_depth"] <= settings["iters"]
    if pt.is_latency(test):
        assert "CQ Moderation" not in shown and int(shown["Number of qps"]) == 1
        return
    assert [r["cq_mod"] for r in rows] == [int(shown["CQ Moderation"])] * len(rows)
    assert [r["qps"] for r in rows] == [int(shown["Number of qps"])] * len(rows)
    mtu = int(shown["Mtu"].removesuffix("[B]"))
    per_iteration = sum(math.ceil(size / mtu) for size in settings["sizes"])
    assert _data_packets(res, test) == settings["iters"] * settings["qps"] * per_iteration


def test_the_header_of_a_scenario_the_core_rejects_raises():
    with pytest.raises(ScenarioError):
        pt.header("ib_write_bw", pt.scenario("ib_write_bw", profile="no-such-profile"))
    assert pt.default_mtu("no-such-profile") is None


def test_only_a_perftest_workload_has_perftest_settings():
    sc = {"hardware": {"profile": "cx4-edr"}, "workload": {"kind": "odp-reads"}}
    with pytest.raises(ScenarioError, match="workload.kind"):
        pt.effective_settings(sc)
