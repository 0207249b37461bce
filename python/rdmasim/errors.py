"""The exception raised for scenarios that cannot be run."""
from __future__ import annotations

from typing import Optional

from ._core import ScenarioError

__all__ = ["ScenarioError", "scenario_error"]


def scenario_error(source: str, key: str, line: Optional[int], message: str) -> ScenarioError:
    """Builds a :class:`ScenarioError` the way the core does, for errors found in Python."""
    text = source + (f":{line}" if line is not None else "") + (f": key `{key}`" if key else "") + f": {message}"
    err = ScenarioError(text)
    err.source, err.key, err.line, err.message = source, key, line, message
    return err
