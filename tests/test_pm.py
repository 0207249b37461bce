"""PM over Ethernet from Python (engine = "pm", docs/pm.md): tables, the Ethernet capture, the
CLI's run and errors, and the reproduction's arithmetic part."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rdmasim
from rdmasim.reproduce import run_study

EXAMPLE = Path(__file__).resolve().parents[1] / "scenarios" / "pm_hxb_neighbor.toml"


def test_a_pm_scenario_runs_with_its_tables_and_an_ethernet_capture():
    res = rdmasim.run(EXAMPLE)
    assert res.finished
    s = res.table("pm_summary").iloc[0]
    # Host 0 exchanging with its three neighbours over two GigE links each: near 6 x 125 MB/s
    # each way, less framing.
    assert 1400 < s["host0_both_mb_s"] < 1500
    ports = res.table("eth_ports")
    assert {"ifOutDiscards", "ifHCOutOctets", "dot3OutPauseFrames"} <= set(ports.columns)
    assert set(res.table("nics").columns) >= {"rx_no_buffer_count", "tx_restart_queue"}
    assert res.table("host_cpu")["relay_packets"].sum() == 0  # neighbours need no relay
    pcap = res.pcap
    assert pcap is not None and pcap[:4] == bytes.fromhex("4d3cb2a1")  # nanosecond pcap
    # The first frame's EtherType, after the 24 B file header, 16 B record header, two MACs.
    assert pcap[24 + 16 + 12: 24 + 16 + 14] == b"\x88\xb5"


def test_a_bad_pm_key_is_an_error_naming_it(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.read_text().replace("foundry-fwfx448", "nope"))
    with pytest.raises(rdmasim.ScenarioError, match="ethernet.switch"):
        rdmasim.validate(bad)
    cli = subprocess.run([sys.executable, "-m", "rdmasim", "run", str(bad)], capture_output=True, text=True)
    assert cli.returncode == 2 and "ethernet.switch" in cli.stderr


def test_the_cli_writes_a_pm_run_s_tables_and_capture(tmp_path):
    out = tmp_path / "out"
    cli = subprocess.run([sys.executable, "-m", "rdmasim", "run", str(EXAMPLE), "-o", str(out)], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    names = {p.name for p in out.iterdir()}
    assert {"summary.json", "pm_summary.csv", "eth_ports.csv", "capture.pcap"} <= names, names
    assert json.loads((out / "summary.json").read_text())["finished"] is True


def test_d1_rows_are_the_seed_s_arithmetic():
    rows = run_study("pm:d1")
    assert len(rows) == 18 and all(r["ok"] for r in rows)


def test_the_lane_choice_is_a_pm_key_and_defaults_to_same(tmp_path):
    # `[pm] lanes = "random"` (the peer's NIC drawn per frame, ASSUMPTION) runs; an unknown
    # choice is an error; leaving it out is `same`, so the default's figures do not change.
    text = EXAMPLE.read_text()
    base = rdmasim.run(EXAMPLE).table("pm_summary").iloc[0]
    same = tmp_path / "same.toml"
    same.write_text(text.replace("[pm]", "[pm]\nlanes = \"same\"", 1))
    assert rdmasim.run(same).table("pm_summary").iloc[0].to_dict() == base.to_dict()
    rnd = tmp_path / "random.toml"
    rnd.write_text(text.replace("[pm]", "[pm]\nlanes = \"random\"", 1))
    assert rdmasim.run(rnd).finished
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("[pm]", "[pm]\nlanes = \"diagonal\"", 1))
    with pytest.raises(Exception, match="lanes"):
        rdmasim.run(bad)
