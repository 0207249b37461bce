"""SRQ flow control reproduction (seeds/001): the episode rows, the breakdown plot, B7."""
from __future__ import annotations

import math

from rdmasim.reproduce import ROW_KEYS, srq


def test_episode_components_add_up_and_meet_the_published_figures(tmp_path, monkeypatch):
    monkeypatch.setenv("RDMASIM_PLOTS", str(tmp_path))
    rows = srq.episode_rows()
    assert all(tuple(r) == ROW_KEYS for r in rows)
    by = {(r["id"], r["metric"][:12]): r for r in rows}
    assert all(r["ok"] for r in rows), [r for r in rows if not r["ok"]]
    prop = srq.episode("stop-resume")
    parts = prop["t_poll"] + prop["t_refill"] + prop["t_resume"]
    assert math.isclose(parts, prop["total"], rel_tol=1e-9)
    assert any(k[0] == "B3" for k in by)
    assert (tmp_path / "srq_breakdown.png").stat().st_size > 1000


def test_table_size_rows():
    rows = srq.table_rows()
    assert [r["simulated"] for r in rows] == [1024 * 1024, 131072]
