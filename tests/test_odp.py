"""The ODP reproduction's plumbing: sub-study selection, row form, the A1 figure."""
import pytest

from rdmasim.reproduce import ROW_KEYS, odp, run_study


def test_odp_timeout_part_reproduces_the_floor(tmp_path, monkeypatch):
    monkeypatch.setenv("RDMASIM_PLOTS", str(tmp_path))
    rows = run_study("odp:timeout")
    assert [r["id"] for r in rows] == ["A1"]
    assert all(tuple(r) == ROW_KEYS for r in rows)
    assert rows[0]["ok"], rows[0]
    assert rows[0]["simulated"] == "500.0 / 500.0 / 500.0 / 500.0"


def test_unknown_odp_part_is_rejected():
    with pytest.raises(KeyError, match="expected one of: timeout, damming, flood, mitigations"):
        run_study("odp:nope")


def test_one_dammed_run_stalls_for_the_floor():
    r = odp.one(odp.scenario(reads=2, interval_us=2000.0))
    assert 500_000 < odp.rt(r) < 510_000
    assert r["local_ack_timeouts"] == 1 and r["dropped_responses"] == 2


def test_read_pcap_decodes_opcodes_and_psns():
    s = odp.scenario(reads=1, client_odp=False, server_odp=False)
    s["output"] = {"capture": True}
    from rdmasim.runner import run

    pkts = odp.read_pcap(run(s).pcap)
    assert [(op, psn) for _, _, op, psn in pkts] == [(0x0C, 0), (0x10, 0)]


def test_cli_rejects_an_unknown_part_with_exit_2():
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "rdmasim", "reproduce", "odp:nope"], capture_output=True, text=True)
    assert p.returncode == 2
    assert "parts of odp: timeout, damming, flood, mitigations" in p.stderr
