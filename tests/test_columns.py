"""Result tables cross from the core as typed columns (Arrow): the DataFrames, the files written
and the JSON rows are exactly those the tables' JSON rows give, for every table kind."""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from rdmasim import _core, columns, run
from rdmasim.result import Result
from rdmasim.runner import simulation
from rdmasim.scenario import scenario_dict

from conftest import WRITE_BW, files_in

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


def _bad_uplink_disabled() -> dict:
    s = scenario_dict(SCENARIOS / "bad_uplink_fat_tree.toml")
    s["topology"]["disable"] = ["r0-L1-s0[4]-r0-L2-s1[1]"]
    return s


#: Runs small enough for a test whose tables, together, are every kind a run makes.
CASES = {
    "perftest bw": lambda: copy.deepcopy(WRITE_BW),
    "perftest latency": lambda: SCENARIOS / "send_lat_switch.toml",
    "capture": lambda: SCENARIOS / "lossy_write_capture.toml",
    "srq episode": lambda: SCENARIOS / "srq_episode.toml",
    "import warnings": lambda: SCENARIOS / "real_excerpt_write_bw.toml",
    "disabled link (routing)": _bad_uplink_disabled,
    "flows and kv": lambda: {
        "hardware": {"profile": "cx4-edr"},
        "workload": {"kind": "flows", "flow": [{"verb": "write", "size": 4096, "count": 20}],
                     "kv": {"requests": 200, "get_fraction": 0.5}},
    },
    "odp reads": lambda: {
        "hardware": {"profile": "cx4-edr"}, "qp": {"timeout": 1, "min_rnr_timer": 1},
        "workload": {"kind": "odp-reads", "reads": 2, "size": 100},
    },
    "mpi program": lambda: {
        "hardware": {"profile": "cx3-fdr"}, "topology": {"kind": "single-switch", "hosts": 2},
        "workload": {"kind": "mpi", "program": {"kind": "osu-bw", "bytes": 4096, "window": 4, "iterations": 2}},
    },
    "flow engine": lambda: SCENARIOS / "tsubame2_random_pair_flows.toml",
    "pm": lambda: SCENARIOS / "pm_hxb_neighbor.toml",
    "pm mpi": lambda: SCENARIOS / "pm_mpi_osu_bibw.toml",
}


def _both(scenario) -> tuple:
    """One finished run's result from its JSON rows and from its columns."""
    sim = simulation(scenario)
    while not sim.step(1 << 20):
        pass
    return Result.from_json(sim.result_json()), Result.from_columns(*sim.result_tables())


def assert_same_frame(got: pd.DataFrame, want: pd.DataFrame, what: str) -> None:
    assert list(got.columns) == list(want.columns), what
    assert [str(t) for t in got.dtypes] == [str(t) for t in want.dtypes], what
    pd.testing.assert_frame_equal(got, want, check_exact=True, obj=what)


@pytest.mark.parametrize("case", list(CASES))
def test_every_table_crosses_as_its_json_rows_make_it(case, tmp_path):
    want, got = _both(CASES[case]())
    assert list(got.tables) == list(want.tables)
    for name in want.tables:
        assert_same_frame(got.tables[name], want.tables[name], f"{case}: {name}")
        assert got.rows(name) == want.rows(name), f"{case}: {name}"
    assert got.summary == want.summary
    assert got.to_json() == want.to_json()
    for fmt in ("csv", "parquet"):
        want.write(tmp_path / f"json-{fmt}", fmt)
        got.write(tmp_path / f"columns-{fmt}", fmt)
        assert files_in(tmp_path / f"columns-{fmt}") == files_in(tmp_path / f"json-{fmt}"), fmt


def test_the_cases_cover_every_table_and_column_kind():
    seen_tables, seen_kinds = set(), set()
    for case in CASES.values():
        sim = simulation(case())
        while not sim.step(1 << 20):
            pass
        _, streams, _ = sim.result_tables()
        for name, stream in streams.items():
            seen_tables.add(name)
            for field in columns.read(stream).schema:
                meta = field.metadata or {}
                seen_kinds.add((str(field.type), meta.get(b"rdmasim.cells", meta.get(b"rdmasim.empty", b"")).decode()))
    for table in ("perftest", "latency", "ports", "hca_counters", "qps", "srqs", "odp", "odp_reads", "odp_finish",
                  "host_cpu", "run", "flows", "kv", "srq_episode", "import_warnings", "routing", "mpi", "eth_ports",
                  "nics", "pm_channels", "pm_summary", "mpi_pm", "mpi_ranks", "mpi_trials"):
        assert table in seen_tables, table
    # Strings and numbers with explicit nulls come from no table yet: the rows below have them.
    for kind in (("int64", ""), ("double", ""), ("bool", ""), ("string", ""), ("null", ""), ("string", "json"),
                 ("int64", "missing"), ("double", "missing")):
        assert kind in seen_kinds, kind


#: Rows of every shape a table's column can take: each kind alone, with nulls, with missing
#: keys, with both; kinds mixed; lists and objects; integers past int64; empty rows.
EDGE_ROWS = [
    {"i": 1, "f": 1.5, "b": True, "s": "x", "mixed": 1, "lst": [1, "a"], "big": 2**64 - 1, "none": None,
     "i_null": 3, "s_null": "p", "b_null": False, "s_missing": "q", "i_both": 1, "neg": -5, "üñí": "ü"},
    {"i": 2, "f": 2.0, "b": False, "s": "", "mixed": 2.5, "lst": {"k": [None]}, "big": 1, "none": None,
     "i_null": None, "s_null": None, "b_null": None, "i_both": None, "neg": -(2**63), "üñí": "∑"},
    {"i": 3, "f": -0.0, "b": True, "s": "zz", "mixed": "t", "lst": [], "big": 0, "none": None,
     "i_null": 4, "s_null": "r", "b_null": True, "s_missing": "s", "neg": 2**63 - 1, "üñí": ""},
    {"i": 4, "f": 1e300, "b": False, "s": "a,b\n\"c\"", "mixed": True, "lst": [[]], "big": 7, "none": None,
     "i_null": 5, "s_null": "t", "b_null": True, "i_both": 2, "neg": 0, "late": 1},
]


@pytest.mark.parametrize("rows", [
    EDGE_ROWS,
    [{}, {}],
    [{"a": 1}, {}, {"b": "x"}],
    [{"only_null": None}],
    [{"f": 1e-310}, {"f": 5e-324}],
], ids=["edge", "empty rows", "sparse", "null", "subnormal"])
def test_any_rows_cross_as_pandas_makes_them(rows):
    # The core's rows are serde_json maps: keys sorted.
    rows = json.loads(json.dumps(rows, sort_keys=True))
    stream = _core.tables_as_arrow(json.dumps({"t": rows}))["t"]
    table = columns.read(stream)
    assert_same_frame(columns.frame(table), pd.DataFrame.from_records(rows), "t")
    assert columns.rows(table) == rows


def test_no_rows_is_an_empty_frame():
    table = columns.read(_core.tables_as_arrow(json.dumps({"t": []}))["t"])
    assert columns.frame(table).equals(pd.DataFrame()) and columns.rows(table) == []


def test_a_result_pickles_with_its_columns(write_bw):
    import pickle

    res = run(write_bw)
    back = pickle.loads(pickle.dumps(res))
    assert back.to_json() == res.to_json()
    assert all(back.tables[n].equals(res.tables[n]) for n in res.tables)
    assert math.isclose(back.sim_time_us, res.sim_time_us)
