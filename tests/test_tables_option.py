"""``tables=`` of ``rdmasim.run`` and ``rdmasim run --tables``: the tables a run builds and
writes, the others left out (and named), a name no table has refused before the run."""
from __future__ import annotations

import json

import pytest

from rdmasim import run
from rdmasim.cli import main

from conftest import files_in
from test_columns import assert_same_frame


def test_run_builds_only_the_tables_asked_for(write_bw):
    full = run(write_bw)
    some = run(write_bw, tables=["perftest", "run"])
    assert sorted(some.tables) == ["perftest", "run"]
    assert sorted(some.skipped_tables) == sorted(set(full.tables) - {"perftest", "run"})
    assert some.summary["tables_skipped"] == some.skipped_tables
    assert "tables_skipped" not in full.summary
    for name in some.tables:
        assert_same_frame(some.tables[name], full.tables[name], name)
    # Values outside the tables do not depend on which were built.
    assert {k: v for k, v in some.summary.items() if k not in ("tables", "tables_skipped")} == \
        {k: v for k, v in full.summary.items() if k != "tables"}


def test_a_leading_minus_leaves_a_table_out(write_bw):
    full = run(write_bw)
    res = run(write_bw, tables="-ports,-qps")
    assert sorted(res.tables) == sorted(set(full.tables) - {"ports", "qps"})
    assert res.skipped_tables == ["ports", "qps"]
    nothing = run(write_bw, tables=[])
    assert nothing.tables == {} and json.loads(nothing.to_json())["tables"] == {}


def test_an_unknown_table_is_refused_before_the_run(write_bw):
    with pytest.raises(ValueError, match="no table portz; its tables are .*ports"):
        run(write_bw, tables="portz")


def test_cli_tables_writes_only_those(write_bw_toml, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(write_bw_toml), "-o", str(out), "--quiet", "--tables=-ports,-hca_counters"]) == 0
    files = set(files_in(out))
    assert "ports.csv" not in files and "hca_counters.csv" not in files and "perftest.csv" in files
    summary = json.loads((out / "summary.json").read_text())
    assert summary["tables_skipped"] == ["hca_counters", "ports"]
    assert "left out : hca_counters, ports (--tables)" in capsys.readouterr().out
    # The tables written are those of a run that builds them all.
    assert main(["run", str(write_bw_toml), "-o", str(tmp_path / "all"), "--quiet"]) == 0
    every = files_in(tmp_path / "all")
    assert {k: v for k, v in files_in(out).items() if k != "summary.json"} == \
        {k: v for k, v in every.items() if k in files and k != "summary.json"}


def test_cli_refuses_an_unknown_table_before_making_the_directory(write_bw_toml, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(write_bw_toml), "-o", str(out), "--quiet", "--tables", "perftest,nope"]) == 2
    err = capsys.readouterr().err
    assert "--tables: this run has no table nope" in err
    assert not out.exists()
