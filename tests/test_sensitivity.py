"""The isolation sensitivities (rdmasim.sensitivity.arbitration_quantum, .tx_staging) at small
counts: their conclusions in docs/isolation.md sec. 2.1 hold and their artifacts are written."""
import pytest

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


def test_a_staging_buffer_adds_one_wait_to_mouse_and_herd_but_no_size_meets_c7_and_c8():
    from rdmasim.sensitivity import tx_staging as ts

    result = ts.sweep(sizes_kib=(0, 48, 64), mice=5_000, kv=3_000)
    alone = result["alone_median_us"]
    by = {(r["arbitration"], r["staging_kib"]): r for r in result["rows"]}
    # Without a buffer, packet round robin keeps the EDR mouse within a packet of alone.
    assert by[("packet-round-robin", 0)]["edr_mouse_slowdown"] < 1.3
    for kib in (48, 64):
        r = by[("packet-round-robin", kib)]
        drain_us = kib * 1024 * 8 / 99.4e3  # EDR 4x data rate
        mouse_extra = r["edr_mouse_median_us"] - alone["mouse cx4-edr"]
        herd_extra = r["edr_herd_get_median_us"] - alone["kv cx4-edr"]
        # Each waits about the buffer's drain once: the waits add up, whatever HERD's depth.
        assert 0.8 * drain_us < mouse_extra < 1.25 * drain_us, (kib, mouse_extra, drain_us)
        assert abs(herd_extra - mouse_extra) < 0.5, (kib, herd_extra, mouse_extra)
    # 48 KiB gives C7's mouse, 64 KiB C8's HERD; neither size gives both (nor any other: sec. 2.1).
    for mode in ts.MODES:
        assert ts.meeting(result, "c7", mode) == [48] and ts.meeting(result, "c8", mode) == [64], mode
    assert ts.table(result).count("\n") == 2 + len(result["rows"]) + len(ts.MODES)


def test_sensitivity_counts_from_the_environment_are_checked(monkeypatch):
    from rdmasim.envvars import EnvVarError
    from rdmasim.sensitivity import tx_staging as ts

    monkeypatch.setenv("RDMASIM_STAGING_MICE", "many")
    with pytest.raises(EnvVarError, match="RDMASIM_STAGING_MICE"):
        ts.sweep(sizes_kib=(0,))


def test_a_staging_buffer_delays_herd_by_one_drain_whichever_way_the_elephant_runs():
    from rdmasim.sensitivity import tx_staging as ts

    d = ts.herd_by_direction(48, kv=3_000)
    # Requests or responses: either way each request meets the elephant's staged bytes once
    # (+4 us on EDR at 48 KiB over 2.69 us alone), so placement does not explain HERD's extra.
    assert 6.0 < d["beside_requests_us"] < 7.5 and abs(d["beside_responses_us"] - d["beside_requests_us"]) < 0.3, d
