"""`rdmasim reproduce tsubame:e1` on a few small node counts: the rows are there, in the common
form, and the flat part of the study's figure 1 (a pair alone on its links goes at both rails'
4x QDR rate) is within its tolerance of the published 7.5 GB/s."""
import time

from rdmasim.reproduce import ROW_KEYS, tsubame


def test_e1_small_node_counts_reach_the_published_flat_level(tmp_path, monkeypatch):
    monkeypatch.setenv("RDMASIM_PLOTS", str(tmp_path))
    start = time.perf_counter()
    rows = tsubame.run(part="e1", pair_nodes=[2, 4, 8, 16])
    assert time.perf_counter() - start < 20
    assert rows and all(tuple(r) == ROW_KEYS for r in rows) and all(r["id"] == "E1" for r in rows)
    flat = rows[0]
    lo, hi = (float(v) for v in flat["simulated"].split("-"))
    # 2 x 3.95 GB/s: 4x QDR's 4 GB/s of data at a 2 KiB MTU's 98.7 % payload share, both rails.
    assert 7.8 < lo <= hi < 8.0, flat
    assert flat["ok"] and abs(hi / tsubame.PUB_FLAT - 1) <= tsubame.STEP_TOL
    # No node count beyond 40 ran: the step rows have no figure and are not ok.
    steps = [r for r in rows if r["metric"].startswith("step")]
    assert len(steps) == len(tsubame.PUB_STEPS) and all(r["simulated"] is None and not r["ok"] for r in steps)
    assert (tmp_path / "tsubame" / "e1_injection_bandwidth.png").exists()
