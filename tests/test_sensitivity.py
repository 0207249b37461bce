"""The arbitration-quantum sensitivity (rdmasim.sensitivity.arbitration_quantum) at small counts:
its conclusion in docs/isolation.md sec. 2.1 holds and its artifacts are written."""
from rdmasim.sensitivity import arbitration_quantum as aq


def test_no_quantum_meets_the_edr_mouse_and_herd_figures_at_once(tmp_path):
    result = aq.sweep(quanta_kib=(16, 64, 128), mice=5_000, kv=3_000)
    by = {(r["arbitration"], r["quantum_kib"]): r for r in result["rows"]}
    # A chunk per request: HERD's 4 requests each wait a chunk, so it grows ~4x the mouse's wait.
    chunk64 = by[("chunk-round-robin", 64)]
    assert 4.5 < chunk64["edr_mouse_slowdown"] < 6.0 and chunk64["edr_herd_get_median_us"] > 15.0
    # A quantum per turn: HERD's ready requests leave together; it tracks the mouse.
    turn64 = by[("quantum-round-robin", 64)]
    assert abs(turn64["edr_herd_get_median_us"] - turn64["edr_mouse_median_us"]) < 0.5
    assert turn64["edr_herd_get_median_us"] < 7.9
    assert not any(r["meets_c7_and_c8"] for r in result["rows"])
    # The table has a line per row, and the plot is written where matplotlib is installed.
    assert aq.table(result).count("\n") == 2 + len(result["rows"])
    png = aq.plot(result, tmp_path / "q.png")
    assert png is None or png.stat().st_size > 10_000
