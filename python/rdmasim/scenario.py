"""Scenario loading: a path, a TOML string or a dict, all ending as TOML text for the core.

The core parses and validates (``rdmasim._core``); this module only finds the text and its
source name, converts dicts to TOML, and edits scenario dicts by dotted key for sweeps.
"""
from __future__ import annotations

import copy
import os
import re
import sys
from pathlib import Path
from typing import Any, Mapping, Tuple, Union

import tomli_w

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib

ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]

#: Source name the core reports in errors for a scenario given as a dict.
DICT_SOURCE = "<dict>"
#: Source name for a scenario given as TOML text.
STRING_SOURCE = "<string>"


def _strip_none(value: Any) -> Any:
    """TOML has no null: drop None values (the core then applies its default)."""
    if isinstance(value, Mapping):
        return {str(k): _strip_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_strip_none(v) for v in value if v is not None]
    return value


#: TOML integers are signed 64-bit, and every scenario reaches the core as TOML.
TOML_INT_RANGE = (-(2**63), 2**63 - 1)


def _check_ints(value: Any, key: str) -> None:
    """A dict's integer beyond TOML's range is named by its dotted key (tomli_w's own error
    says neither where nor why)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_ints(v, f"{key}.{k}" if key else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_ints(v, f"{key}[{i}]")
    elif isinstance(value, int) and not isinstance(value, bool) and not TOML_INT_RANGE[0] <= value <= TOML_INT_RANGE[1]:
        from .errors import scenario_error

        raise scenario_error(DICT_SOURCE, key, None, f"{value} is out of range; a scenario integer is at most "
                             f"{TOML_INT_RANGE[1]} (scenarios are TOML, whose integers are signed 64-bit)")


def dict_to_toml(scenario: Mapping[str, Any]) -> str:
    """Serialises a scenario dict to TOML text (None values are omitted)."""
    stripped = _strip_none(scenario)
    _check_ints(stripped, "")
    return tomli_w.dumps(stripped)


def _looks_like_path(text: str) -> bool:
    if "\n" in text:
        return False
    return os.path.isfile(text) or ("=" not in text and text.endswith(".toml"))


def read_toml_file(path: Path) -> str:
    """A TOML file's text. TOML is UTF-8: other bytes are a scenario error naming the line and
    column; a leading byte-order mark is dropped, so that every reader sees the same text."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        from .errors import scenario_error

        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise scenario_error(str(path), "", line, f"byte 0x{data[e.start]:02x} at column {column} is not UTF-8 text; "
                             "a scenario file must be UTF-8 (TOML)") from None
    return text[1:] if text.startswith("\ufeff") else text


def scenario_text(scenario: ScenarioLike) -> Tuple[str, str]:
    """Returns ``(toml_text, source)`` for a path, a TOML string or a dict.

    A ``str`` is a path when it names an existing file or ends in ``.toml`` (and has no
    newline or ``=``); otherwise it is TOML text. A missing path raises ``FileNotFoundError``.
    """
    if isinstance(scenario, Mapping):
        return dict_to_toml(scenario), DICT_SOURCE
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and _looks_like_path(scenario)):
        return read_toml_file(Path(scenario)), str(scenario)
    if isinstance(scenario, str):
        return scenario, STRING_SOURCE
    raise TypeError(f"scenario must be a path, a TOML string or a dict, not {type(scenario).__name__}")


def scenario_dict(scenario: ScenarioLike) -> dict:
    """Returns a scenario as a (deep-copied) dict, parsing TOML for paths and strings.

    Only TOML syntax is checked here; the core validates the content when the scenario runs.
    """
    if isinstance(scenario, Mapping):
        return copy.deepcopy(dict(scenario))
    text, source = scenario_text(scenario)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        from .errors import scenario_error

        line = getattr(e, "lineno", None)
        if line is None:  # before Python 3.14 the line is only in the message
            m = re.search(r"at line (\d+)", str(e))
            line = int(m.group(1)) if m else None
        raise scenario_error(source, "", line, getattr(e, "msg", str(e))) from None


#: Keys whose values are paths the core resolves against the scenario file's directory.
_FILE_KEYS = (("topology", "file"), ("topology", "lfts"), ("workload", "trace"))


def anchor_paths(spec: dict, scenario: ScenarioLike) -> dict:
    """Makes the relative paths in ``spec`` (``topology.file``, ``topology.lfts``,
    ``workload.trace``) absolute against the directory of ``scenario`` when it is a file: a
    dict built from it (a sweep's points) no longer knows where it came from."""
    if isinstance(scenario, Mapping) or isinstance(scenario, str) and not _looks_like_path(scenario):
        return spec
    base = Path(scenario).resolve().parent
    for section, key in _FILE_KEYS:
        table = spec.get(section)
        value = table.get(key) if isinstance(table, dict) else None
        if isinstance(value, str) and value and not os.path.isabs(value):
            table[key] = str(base / value)
    return spec


def _index(container: Any, part: str, key: str) -> Any:
    if isinstance(container, list):
        try:
            return int(part)
        except ValueError:
            raise KeyError(f"{key!r}: {part!r} indexes a list, expected an integer") from None
    return part


def set_dotted(scenario: dict, key: str, value: Any) -> dict:
    """Sets ``scenario[a][b]...`` for the dotted key ``"a.b..."`` in place and returns the dict.

    Integer parts index lists (``"faults.0.loss_rate"``). Missing tables are created; an index
    equal to the list's length appends a new table, so a grid can add a fault to a scenario that
    has none (the other required keys must then come from the grid too).
    """
    parts = key.split(".")
    if not key or any(p == "" for p in parts):
        raise KeyError(f"bad dotted key {key!r}")
    node: Any = scenario
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        idx = _index(node, part, key)
        nxt_is_index = not last and parts[i + 1].isdigit()
        if isinstance(node, list):
            if idx == len(node):
                node.append([] if nxt_is_index else {})
            elif not -len(node) <= idx < len(node):
                raise KeyError(f"{key!r}: index {idx} out of range (list has {len(node)} entries)")
            if last:
                node[idx] = value
            else:
                node = node[idx]
        elif isinstance(node, dict):
            if last:
                node[idx] = value
            else:
                if idx not in node or node[idx] is None:
                    node[idx] = [] if nxt_is_index else {}
                node = node[idx]
        else:
            raise KeyError(f"{key!r}: {'.'.join(parts[:i])!r} is a value, not a table or list")
    return scenario


def get_dotted(scenario: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """Reads ``scenario[a][b]...`` for the dotted key, or ``default`` when absent."""
    node: Any = scenario
    for part in key.split("."):
        try:
            node = node[int(part)] if isinstance(node, list) else node[part]
        except (KeyError, IndexError, ValueError, TypeError):
            return default
    return node
