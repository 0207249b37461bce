"""README's commands run as written, from the repository root of a fresh clone.

The first block (the two set-up commands) is what CI itself runs; `rdmasim reproduce all` there
is the studies' `run()`, which tests/test_reproduce_checks.py runs. Every other sh block runs in
bash with `set -e`, and every python block in the interpreter."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def blocks(lang: str):
    return re.findall(rf"^```{lang}\n(.*?)^```", README.read_text(), re.S | re.M)


def test_readme_is_under_150_lines_and_starts_with_the_two_commands():
    text = README.read_text()
    assert len(text.splitlines()) < 150
    first = blocks("sh")[0].splitlines()
    assert len(first) == 2 and first[0].startswith("pip install . && rdmasim reproduce all")
    assert first[1].startswith("pip install './[test,dask]' && make test")


@pytest.mark.parametrize("i", range(1, len(blocks("sh"))))
def test_readme_sh_block_runs(i):
    block = blocks("sh")[i]
    if "mpicc" in block and not (shutil.which("mpicc") and shutil.which("mpiexec")):
        assert not os.environ.get("CI"), "CI installs mpich: mpicc must be there"
        pytest.skip("mpicc/mpiexec not installed")
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}
    p = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, f"README block {i} failed:\n{block}\n--- stderr:\n{p.stderr[-2000:]}"


@pytest.mark.parametrize("i", range(len(blocks("python"))))
def test_readme_python_block_runs(i):
    p = subprocess.run([sys.executable, "-c", blocks("python")[i]], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
