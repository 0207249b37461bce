"""Result tables as they cross from the core: one Arrow IPC stream per table, typed columns
(``crates/rdmasim-py/src/arrow_tables.rs`` says what each column becomes). Read back into the
DataFrame pandas makes of the table's JSON rows (:func:`frame`) and into those rows
(:func:`rows`), exactly: the rows are what a run reported before its tables crossed as columns,
and what users read.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.ipc

__all__ = ["read", "frame", "rows"]

_CELLS = b"rdmasim.cells"
_EMPTY = b"rdmasim.empty"
#: A row without the column's key (as opposed to one holding null).
_MISSING: Any = object()


def read(stream: bytes) -> pa.Table:
    """The table in an Arrow IPC stream's bytes."""
    return pyarrow.ipc.open_stream(pa.py_buffer(stream)).read_all()


def _meta(field: pa.Field, key: bytes) -> Any:
    return (field.metadata or {}).get(key)


def _arrow_converts_exactly(field: pa.Field) -> bool:
    """Whether pyarrow's own conversion gives the column pandas makes of the rows: yes when every
    row has a value (or every row holds null), and for numbers with empty rows (float64 with
    NaN, whether the row held null or lacked the key). A string or bool column with empty rows
    is not: pandas < 3 makes NaN of a missing key and None of a null, pyarrow None of both."""
    if _meta(field, _CELLS) == b"json":
        return False
    if _meta(field, _EMPTY) is None:
        return True
    return bool(pa.types.is_integer(field.type) or pa.types.is_floating(field.type))


def _cells(table: pa.Table, name: str) -> List[Any]:
    """A column's cells as the JSON rows held them; ``_MISSING`` where a row lacks the key."""
    field = table.schema.field(name)
    values = table.column(name).to_pylist()
    if _meta(field, _CELLS) == b"json":
        return [_MISSING if v is None else json.loads(v) for v in values]
    empty = _MISSING if _meta(field, _EMPTY) == b"missing" else None
    return [empty if v is None else v for v in values]


def frame(table: pa.Table) -> pd.DataFrame:
    """The DataFrame ``pd.DataFrame.from_records`` makes of the table's rows: same columns in
    the same order, same dtypes, same values."""
    n = table.num_rows
    if table.num_columns == 0:
        return pd.DataFrame.from_records([{}] * n) if n else pd.DataFrame()
    fast = [f.name for f in table.schema if _arrow_converts_exactly(f)]
    slow = [f.name for f in table.schema if not _arrow_converts_exactly(f)]
    parts = []
    if fast:
        parts.append(table.select(fast).to_pandas())
    if slow:
        # The other columns go through pandas' own inference from the Python objects, as the
        # rows did: from_records fills a row's missing key with NaN, so the cells get NaN there.
        cells = [[np.nan if v is _MISSING else v for v in _cells(table, name)] for name in slow]
        parts.append(pd.DataFrame.from_records(list(zip(*cells)), columns=slow))
    if len(parts) == 1:
        return parts[0]
    return pd.concat(parts, axis=1)[table.column_names]


def rows(table: pa.Table) -> List[Dict[str, Any]]:
    """The table's JSON rows: each row's keys sorted (as the core's serde_json maps have them),
    a key left out where the row lacked it."""
    names = sorted(table.column_names)
    if not names:
        return [{} for _ in range(table.num_rows)]
    columns = [_cells(table, name) for name in names]
    return [{k: v for k, v in zip(names, cells) if v is not _MISSING} for cells in zip(*columns)]
