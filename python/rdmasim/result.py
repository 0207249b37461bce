"""The result of one run: summary, tables as pandas DataFrames, and the pcap capture."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import pandas as pd

from . import columns as arrow_columns

__all__ = ["Result", "FORMATS"]

#: Table file formats :meth:`Result.write` supports.
from .names import FORMATS  # noqa: E402  (re-exported)

#: Columns put first, in this order, when a table has them (the core's JSON rows may come with
#: keys sorted alphabetically; these orders are the ones users read, e.g. perftest's).
_LEADING_COLUMNS: Dict[str, List[str]] = {
    "perftest": [
        "test", "bytes", "iterations",
        "bw_peak_MBps", "bw_avg_MBps", "msg_rate_Mpps",
        "t_min_us", "t_max_us", "t_typical_us", "t_avg_us", "t_stdev_us",
        "p50_us", "p99_us", "p99_9_us", "p99_99_us",
    ],
    "latency": ["test", "bytes", "metric", "count", "min_us", "median_us", "avg_us", "max_us",
                "p99_us", "p99_9_us", "p99_99_us"],
    "ports": ["node", "port", "PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts",
              "PortXmitWait", "PortRcvErrors", "SymbolErrorCounter"],
    "hca_counters": ["node", "device"],
    "host_cpu": ["node"],
    "operations": ["node", "qp", "op", "opcode", "bytes"],
    "run": ["profile", "sim_time_us", "events", "packet_hops"],
    "flows": ["flow", "name", "verb", "bytes", "polling", "depth", "background", "window_us", "bw_Gbps",
              "msg_rate_Mps", "lat_median_us", "lat_p99_us", "lat_p99_99_us", "cpu_utilization"],
    "kv": ["op", "value_bytes", "count", "lat_median_us", "lat_avg_us", "lat_p99_us", "lat_p99_99_us"],
}
#: pandas < 3 parses CSV floats with a fast, not always exact, parser unless asked; pandas 3
#: parses exactly by default and deprecates the option.
_READ_CSV_EXACT: Dict[str, Any] = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
_SUMMARY_KEYS = ("name", "seed", "profile", "finished", "stop_reason", "sim_time_us", "events", "error_completions")


def order_columns(table: str, columns: List[str]) -> List[str]:
    """Puts a table's well-known columns first (in reading order), the others after, as given."""
    lead = [c for c in _LEADING_COLUMNS.get(table, []) if c in columns]
    return lead + [c for c in columns if c not in lead]


def _ordered(name: str, df: pd.DataFrame) -> pd.DataFrame:
    return df[order_columns(name, list(df.columns))] if len(df.columns) else df


def _table(name: str, rows: List[Mapping[str, Any]]) -> pd.DataFrame:
    return _ordered(name, pd.DataFrame.from_records(rows) if rows else pd.DataFrame())


def _json_cell(v: Any) -> Any:
    return json.dumps(v) if isinstance(v, (list, dict)) else v


def _csv_cells(df: pd.DataFrame) -> pd.DataFrame:
    """CSV has no nested values: lists and dicts in object columns become JSON text."""
    nested = [c for c in df.columns if df[c].dtype == object and df[c].map(lambda v: isinstance(v, (list, dict))).any()]
    if not nested:
        return df
    df = df.copy()
    for c in nested:
        df[c] = df[c].map(_json_cell)
    return df


class Result:
    """What a run measured.

    Attributes:
        summary: run-level facts: name, seed, profile, finished, stop_reason, sim_time_us,
            events, interrupted, and the row count of each table.
        tables: table name -> :class:`pandas.DataFrame` (``perftest``, ``latency``, ``ports``,
            ``hca_counters``, ``host_cpu``, ``run``, ...).
        pcap: the RoCEv2 pcap capture as bytes, or None when the scenario asked for none. Made
            on first access from the packets the core handed over (one copy of the file, in
            the bytes object itself); :meth:`write` streams it to ``capture.pcap`` without it.
        capture_bytes: the capture's size in bytes (None without one), without making it.
        skipped_tables: the tables the run offers that were left out (``tables=`` of
            :func:`rdmasim.run`), by name.
    """

    def __init__(self, raw: Mapping[str, Any], pcap: Optional[bytes] = None, *, interrupted: bool = False,
                 capture: Optional[Any] = None, columns: Optional[Mapping[str, Any]] = None,
                 skipped_tables: Sequence[str] = ()):
        # The summary; with `columns` (the core's tables as Arrow tables), no rows: they are
        # made from the columns when asked for (`rows`, `to_json`).
        self.raw: Dict[str, Any] = dict(raw)
        self._pcap: Optional[bytes] = pcap
        # The core's `Capture` (rdmasim._core), handed over by the run: the file is made from it
        # only when asked for, so a large capture neither sits in memory twice nor keeps the
        # tables from being written first.
        self._capture: Optional[Any] = capture if pcap is None else None
        self.interrupted: bool = interrupted
        self.skipped_tables: List[str] = list(skipped_tables)
        self._arrow: Optional[Dict[str, Any]] = None if columns is None else dict(columns)
        if self._arrow is None:
            self.tables: Dict[str, pd.DataFrame] = {
                name: _table(name, rows) for name, rows in (raw.get("tables") or {}).items()
            }
        else:
            self.raw.pop("tables", None)
            self.tables = {name: _ordered(name, arrow_columns.frame(t)) for name, t in self._arrow.items()}

    @classmethod
    def from_json(cls, text: str, pcap: Optional[bytes] = None, *, interrupted: bool = False,
                  capture: Optional[Any] = None) -> "Result":
        """Builds a result from the core's result JSON (and the capture it handed over)."""
        return cls(json.loads(text), pcap, interrupted=interrupted, capture=capture)

    @classmethod
    def from_columns(cls, summary: str, streams: Mapping[str, bytes], offered: Sequence[str] = (),
                     pcap: Optional[bytes] = None, *, interrupted: bool = False,
                     capture: Optional[Any] = None) -> "Result":
        """Builds a result from what the core's ``Simulation.result_tables`` returns: the summary
        as JSON, each table as an Arrow IPC stream (the same DataFrames as the result JSON's
        rows give: ``rdmasim.columns``), and the names of every table the run offers."""
        tables = {name: arrow_columns.read(stream) for name, stream in streams.items()}
        skipped = [name for name in offered if name not in tables]
        return cls(json.loads(summary), pcap, interrupted=interrupted, capture=capture, columns=tables,
                   skipped_tables=skipped)

    @property
    def pcap(self) -> Optional[bytes]:
        if self._pcap is None and self._capture is not None:
            self._pcap = self._capture.to_bytes()  # MemoryError if it does not fit
            self._capture = None
        return self._pcap

    @pcap.setter
    def pcap(self, value: Optional[bytes]) -> None:
        self._pcap, self._capture = value, None

    @property
    def capture_bytes(self) -> Optional[int]:
        if self._pcap is not None:
            return len(self._pcap)
        return int(self._capture.nbytes) if self._capture is not None else None

    def __getstate__(self) -> Dict[str, Any]:
        # The core's Capture cannot be pickled (a sweep's worker process): send the bytes.
        state = dict(self.__dict__)
        state["_pcap"], state["_capture"] = self.pcap, None
        return state

    # ---- run-level facts -------------------------------------------------------------------
    @property
    def summary(self) -> Dict[str, Any]:
        s = {k: self.raw.get(k) for k in _SUMMARY_KEYS}
        s["finished"] = self.finished
        s["stop_reason"] = self.stop_reason
        s["interrupted"] = self.interrupted
        s["tables"] = {name: int(len(df)) for name, df in self.tables.items()}
        if self.skipped_tables:
            s["tables_skipped"] = list(self.skipped_tables)
        s["capture_bytes"] = self.capture_bytes
        return s

    @property
    def name(self) -> Optional[str]:
        return self.raw.get("name")

    @property
    def seed(self) -> Optional[int]:
        return self.raw.get("seed")

    @property
    def profile(self) -> Optional[str]:
        return self.raw.get("profile")

    @property
    def finished(self) -> bool:
        """True when the workload completed (not stopped by a limit or an interrupt)."""
        return bool(self.raw.get("finished")) and not self.interrupted

    @property
    def stop_reason(self) -> str:
        return "interrupted" if self.interrupted else str(self.raw.get("stop_reason", ""))

    @property
    def error_completions(self) -> int:
        """Work requests that completed in error or were flushed (a finished run may have some)."""
        return int(self.raw.get("error_completions") or 0)

    @property
    def sim_time_us(self) -> float:
        return float(self.raw.get("sim_time_us") or 0.0)

    @property
    def events(self) -> int:
        return int(self.raw.get("events") or 0)

    # ---- common tables ---------------------------------------------------------------------
    def rows(self, name: str) -> List[Dict[str, Any]]:
        """The named table as the core's JSON rows (each a dict, keys sorted; a row lacks a key
        it has no value for); none when the run produced no such table, or for a result
        :meth:`read` from files."""
        if self._arrow is not None:
            return arrow_columns.rows(self._arrow[name]) if name in self._arrow else []
        return list((self.raw.get("tables") or {}).get(name, []))

    def table(self, name: str) -> pd.DataFrame:
        """The named table; an empty DataFrame when the run produced none of that name."""
        return self.tables.get(name, pd.DataFrame())

    @property
    def perftest(self) -> pd.DataFrame:
        """perftest's report: one row per message size."""
        return self.table("perftest")

    @property
    def latency(self) -> pd.DataFrame:
        return self.table("latency")

    @property
    def ports(self) -> pd.DataFrame:
        """PMA port counters (PortXmitData, PortRcvData, PortXmitWait, PortRcvErrors, ...)."""
        return self.table("ports")

    @property
    def hca_counters(self) -> pd.DataFrame:
        """rdma-core hardware counters (local_ack_timeout_err, out_of_sequence, ...)."""
        return self.table("hca_counters")

    @property
    def operations(self) -> pd.DataFrame:
        return self.table("operations")

    @property
    def host_cpu(self) -> pd.DataFrame:
        """CPU time per host: busy polling or event-driven completion handling."""
        return self.table("host_cpu")

    # ---- files -----------------------------------------------------------------------------
    def write(self, directory: Union[str, "os.PathLike[str]"], format: str = "csv") -> List[Path]:
        """Writes ``summary.json``, one ``<table>.csv`` / ``<table>.parquet`` per table, and
        ``capture.pcap`` when there is a capture, in that order: the capture, the one file that
        can be large, comes last and is streamed from the core (never whole in memory) unless
        :attr:`pcap` was read, so a capture that cannot be written loses no table. Returns the
        paths written.

        The same result always gives byte-identical files.
        """
        if format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        summary = out / "summary.json"
        summary.write_text(json.dumps(self.summary, indent=2) + "\n", encoding="utf-8")
        written.append(summary)
        for name, df in sorted(self.tables.items()):
            path = out / f"{name}.{format}"
            if format == "csv":
                _csv_cells(df).to_csv(path, index=False, lineterminator="\n")
            else:
                df.to_parquet(path, index=False, engine="pyarrow")
            written.append(path)
        cap = out / "capture.pcap"
        if self._pcap is not None:
            cap.write_bytes(self._pcap)
            written.append(cap)
        elif self._capture is not None:
            self._capture.write(str(cap))
            written.append(cap)
        return written

    @classmethod
    def read(cls, directory: Union[str, "os.PathLike[str]"]) -> "Result":
        """Loads a result written by :meth:`write` (tables from csv or parquet)."""
        d = Path(directory)
        summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
        raw = {k: summary.get(k) for k in _SUMMARY_KEYS}
        res = cls(raw, None, interrupted=bool(summary.get("interrupted")))
        for name in summary.get("tables", {}):
            pq, csv = d / f"{name}.parquet", d / f"{name}.csv"
            if pq.exists():
                res.tables[name] = pd.read_parquet(pq)
            elif csv.exists():
                try:
                    res.tables[name] = pd.read_csv(csv, **_READ_CSV_EXACT)
                except pd.errors.EmptyDataError:
                    res.tables[name] = pd.DataFrame()
        cap = d / "capture.pcap"
        if cap.exists():
            res.pcap = cap.read_bytes()
        return res

    def to_json(self) -> str:
        """The core's result JSON (tables as lists of rows)."""
        if self._arrow is None:
            return json.dumps(self.raw)
        return json.dumps({**self.raw, "tables": {name: self.rows(name) for name in self._arrow}})

    def __repr__(self) -> str:
        tables = ", ".join(f"{k}[{len(v)}]" for k, v in sorted(self.tables.items()))
        return (
            f"<rdmasim.Result {self.name or ''!s} profile={self.profile} seed={self.seed} "
            f"{self.stop_reason} sim_time={self.sim_time_us:.3f}us events={self.events} tables: {tables or '-'}>"
        )
