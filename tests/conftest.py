"""Shared fixtures: small scenarios that keep the whole suite within a couple of minutes."""
from __future__ import annotations

import copy
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SCENARIOS = HERE / "scenarios"

# The CLI tests run `python -m rdmasim` in a subprocess: make sure it is this interpreter.
PYTHON = sys.executable

#: ib_write_bw, 64 KiB x 200 on cx4-edr: one perftest row, a few thousand packets.
WRITE_BW = {
    "name": "write_bw small",
    "seed": 3,
    "hardware": {"profile": "cx4-edr"},
    "workload": {"kind": "perftest", "test": "ib_write_bw", "size": 65536, "iters": 200},
}


@pytest.fixture
def write_bw() -> dict:
    return copy.deepcopy(WRITE_BW)


@pytest.fixture
def write_bw_toml() -> Path:
    return SCENARIOS / "write_bw.toml"


@pytest.fixture
def bad_toml() -> Path:
    return SCENARIOS / "bad_type.toml"


@pytest.fixture(autouse=True)
def _no_color(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("RDMASIM_PROGRESS", raising=False)
    yield


def files_in(directory: os.PathLike) -> dict:
    """name -> bytes of every file in a directory."""
    return {p.name: p.read_bytes() for p in sorted(Path(directory).iterdir()) if p.is_file()}
