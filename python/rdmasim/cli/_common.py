"""What every command shares: exit codes, the one-line input error, and checks of the paths a
command is given (before anything runs)."""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Sequence, Tuple

if TYPE_CHECKING:
    from ..result import Result

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_OUTPUT, EXIT_STUDY_FAILED, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130


class _InputError(Exception):
    """Bad input reported as one line on stderr and exit code 2 (never a traceback)."""


def _err(msg: str) -> None:
    print(f"rdmasim: error: {msg}", file=sys.stderr)


def _interactive() -> bool:
    return sys.stderr.isatty()


def _scenario_file(path: str) -> Path:
    p = Path(path)
    try:
        if p.is_dir():
            raise _InputError(f"cannot read scenario {path}: it is a directory, expected a TOML file")
        if not p.exists():
            raise _InputError(f"cannot read scenario {path}: no such file")
        if not p.is_file():
            raise _InputError(f"cannot read scenario {path}: not a regular file (a device or a pipe), expected a TOML file")
        with p.open("rb"):  # readable? (permissions)
            pass
    except OSError as e:  # a name too long, a permission, a loop of links
        raise _InputError(f"cannot read scenario {path}: {e.strerror or e}") from None
    return p


def _output_dir(out: Path) -> Path:
    """Creates the results directory before a run, so a path that cannot hold them is reported
    before any simulating rather than after."""
    if out.exists() and not out.is_dir():
        raise _InputError(f"cannot write results to {out}: it is a file, not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _InputError(f"cannot write results to {out}: {e.strerror or e}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise _InputError(f"cannot write results to {out}: permission denied")
    return out


def _write_results(res: Result, out: Path, fmt: str) -> Tuple[Path, List[Path]]:
    """Writes ``res`` to ``out``; when that fails after the run (disk full, directory removed),
    to a fresh temporary directory instead, so the run is not lost."""
    try:
        return out, res.write(out, format=fmt)
    except OSError as e:
        fallback = Path(tempfile.mkdtemp(prefix="rdmasim-results-"))
        print(f"rdmasim: error: cannot write results to {out}: {e.strerror or e}; "
              f"writing them to {fallback} instead", file=sys.stderr)
        return fallback, res.write(fallback, format=fmt)


def _readable(flag: str, path: str) -> str:
    """``path`` if it is a readable file, else an input error naming ``flag``."""
    p = Path(path)
    if not p.exists():
        raise _InputError(f"{flag} {path}: no such file")
    if p.is_dir():
        raise _InputError(f"{flag} {path}: it is a directory, expected the tool's output")
    return path


def _param_value(text: str) -> Any:
    """A ``-p`` value: JSON when it parses (numbers, true/false, [4, 4, 4]), a comma list of
    numbers as a list (``dims=4,4,4``), else the text itself (``speed.gen=edr``)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    parts = text.split(",")
    if len(parts) > 1:
        try:
            return [json.loads(x) for x in parts]
        except ValueError:
            pass
    return text


def _generator_params(kind: str, items: Sequence[str]) -> Dict[str, Any]:
    """``-p k=16 -p speed.gen=edr`` as ``{"k": 16, "speed": {"gen": "edr"}}``."""
    params: Dict[str, Any] = {}
    for item in items:
        key, eq, text = item.partition("=")
        if not eq or not key:
            raise _InputError(f"fabric build {kind}: -p {item!r}: expected KEY=VALUE, e.g. -p k=16")
        *parents, leaf = key.split(".")
        at = params
        for part in parents:
            at = at.setdefault(part, {})
            if not isinstance(at, dict):
                raise _InputError(f"fabric build {kind}: -p {item!r}: {part} was given a value, not a table")
        at[leaf] = _param_value(text)
    return params
