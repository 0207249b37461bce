"""perftest equivalents: scenarios from perftest's flags, and reports in perftest's layout.

The layout follows linux-rdma/perftest (``src/perftest_parameters.h``: ``RESULT_LINE``,
``RESULT_FMT``, ``RESULT_FMT_G``, ``RESULT_FMT_LAT``, ``REPORT_FMT``, ``REPORT_FMT_EXT``,
``REPORT_FMT_LAT``; ``src/perftest_parameters.c``: ``ctx_print_test_info``,
``print_full_bw_report``, ``print_report_lat``).
"""
from __future__ import annotations

import json
import math
from typing import Any, Dict, Iterable, List, Mapping, Optional

import pandas as pd

from . import _core
from .errors import ScenarioError
from .names import DEFAULT_PROFILE, PERFTEST_LATENCY_TESTS, PERFTEST_TESTS
from .result import Result
from .runner import run
from .scenario import ScenarioLike, scenario_text

__all__ = [
    "TESTS", "DEFAULT_PROFILE", "MB", "is_latency", "scenario", "run_perftest",
    "header", "column_header", "format_rows", "report", "bw_gbps", "default_mtu", "effective_settings",
]

TESTS = PERFTEST_TESTS
#: perftest's "MB" in MB/sec is 2^20 bytes (format_factor 0x100000 in print_report_bw); its
#: Gb/sec is 10^9 bit (125000000 bytes). The core's ``*_MBps`` columns use perftest's MB.
MB = 1 << 20

RESULT_LINE = "-" * 87
RESULT_FMT = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
RESULT_FMT_G = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
RESULT_FMT_LAT = (
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]"
    "   99% percentile[usec]   99.9% percentile[usec] "
)
REPORT_FMT = " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f"
REPORT_FMT_EXT = " %-7d    %d           %-7.6f            %-7.6f            %-7.6f"
REPORT_FMT_LAT = " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f"

_VERB = {"write": "RDMA_Write", "read": "RDMA_Read", "send": "Send"}


def is_latency(test: str) -> bool:
    return test in PERFTEST_LATENCY_TESTS


def _verb(test: str) -> str:
    return test.split("_")[1]


def _check_test(test: str) -> None:
    if test not in TESTS:
        raise ValueError(f"unknown perftest test {test!r}, expected one of {', '.join(TESTS)}")


def scenario(
    test: str,
    *,
    size: Optional[int] = None,
    all_sizes: bool = False,
    iters: Optional[int] = None,
    inline_size: Optional[int] = None,
    tx_depth: Optional[int] = None,
    rx_depth: Optional[int] = None,
    cq_mod: Optional[int] = None,
    qps: Optional[int] = None,
    events: bool = False,
    qp_timeout: Optional[int] = None,
    mtu: Optional[int] = None,
    max_rd_atomic: Optional[int] = None,
    profile: str = DEFAULT_PROFILE,
    seed: Optional[int] = None,
    name: Optional[str] = None,
) -> Dict[str, Any]:
    """A scenario dict for one perftest run between two hosts cabled back to back.

    Unset options (None) keep perftest's defaults, which the core applies.
    """
    _check_test(test)
    workload: Dict[str, Any] = {
        "kind": "perftest", "test": test, "size": size, "all_sizes": all_sizes or None,
        "iters": iters, "inline_size": inline_size, "tx_depth": tx_depth, "rx_depth": rx_depth, "cq_mod": cq_mod, "qps": qps,
        "events": events or None,
    }
    qp = {k: v for k, v in {"timeout": qp_timeout, "mtu": mtu, "max_rd_atomic": max_rd_atomic}.items() if v is not None}
    sc: Dict[str, Any] = {"name": name or test, "seed": seed, "hardware": {"profile": profile}, "workload": workload}
    if qp:
        sc["qp"] = qp
    return sc


def run_perftest(test: str, *, progress: bool = False, **options: Any) -> Result:
    """Builds :func:`scenario` from perftest-style options and runs it."""
    return run(scenario(test, **options), progress=progress)


# ---- report ----------------------------------------------------------------------------------
def effective_settings(sc: ScenarioLike) -> Dict[str, Any]:
    """What perftest scenario `sc` runs with, every perftest default and limit applied: test,
    profile, seed, events, sizes, iters, tx_depth (clamped to iters), cq_mod, inline_size,
    rx_depth, qps, mtu, max_rd_atomic.

    The core works these out with the same code the run uses, so the header printed before a
    run cannot disagree with it. Raises ``ScenarioError`` for a scenario the core rejects.
    """
    text, source = scenario_text(sc)
    return json.loads(_core.perftest_settings_json(text, source))


def default_mtu(profile: str) -> Optional[int]:
    """The path MTU perftest runs with on `profile` when -m is not given: the port's active MTU,
    or less where perftest forces it (2048 on ConnectX-3); None for an unknown profile."""
    try:
        return effective_settings(scenario("ib_write_bw", profile=profile))["mtu"]
    except ScenarioError:
        return None


def header(test: str, sc: Mapping[str, Any]) -> str:
    """perftest's dashed block describing the test (ctx_print_test_info), kept short; its
    values are :func:`effective_settings`. Raises ``ScenarioError`` for a scenario the core
    rejects."""
    s = effective_settings(sc)
    lat = is_latency(test)
    verb = _verb(test)
    lines = [RESULT_LINE, "                    " + _VERB[verb] + (" Latency" if lat else " BW") + " Test"]
    if s["events"]:
        lines.append(" Test with events.")
    lines += [
        f" Dual-port       : OFF\t\tDevice         : rdmasim:{s['profile']}",
        f" Number of qps   : {s['qps']}\t\tTransport type : IB",
        " Connection type : RC\t\tUsing SRQ      : OFF",
        f" TX depth        : {s['tx_depth']}",
    ]
    if not lat:
        lines.append(f" CQ Moderation   : {s['cq_mod']}")
    lines += [
        f" Mtu             : {s['mtu']}[B]",
        " Link type       : IB",
        f" Outstand reads  : {s['max_rd_atomic']}" if verb == "read" else f" Max inline data : {s['inline_size']}[B]",
        f" Simulated       : rdmasim, seed {s['seed']}",
        RESULT_LINE,
    ]
    return "\n".join(lines)


def column_header(test: str, report_gbits: bool = False) -> str:
    """perftest's column header line, byte for byte."""
    if is_latency(test):
        return RESULT_FMT_LAT
    return RESULT_FMT_G if report_gbits else RESULT_FMT


def bw_gbps(mbps: float) -> float:
    """perftest MB/sec (2^20 B/s) to Gb/sec (10^9 bit/s)."""
    return mbps * MB * 8 / 1e9


def _num(row: Mapping[str, Any], *keys: str) -> float:
    for k in keys:
        v = row.get(k)
        if v is not None:
            try:
                return float(v)
            except (TypeError, ValueError):
                pass
    return math.nan


def _int(row: Mapping[str, Any], key: str) -> int:
    v = row.get(key)
    try:
        return int(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0


def format_rows(test: str, rows: Iterable[Mapping[str, Any]], report_gbits: bool = False) -> List[str]:
    """One line per row in perftest's REPORT_FMT / REPORT_FMT_LAT layout."""
    out = []
    for r in rows:
        size, iters = _int(r, "bytes"), _int(r, "iterations")
        if is_latency(test):
            out.append(REPORT_FMT_LAT % (
                size, iters, _num(r, "t_min_us"), _num(r, "t_max_us"), _num(r, "t_typical_us"),
                _num(r, "t_avg_us"), _num(r, "t_stdev_us"), _num(r, "p99_us"), _num(r, "p99_9_us")))
            continue
        # perftest prints the iterations of all QPs (num_of_calculated_iters × num_of_qps in
        # print_report_bw); the table's `iterations` is per QP.
        iters *= max(_int(r, "qps"), 1)
        peak, avg = _num(r, "bw_peak_MBps"), _num(r, "bw_avg_MBps")
        if report_gbits:
            peak = _num(r, "bw_peak_Gbps") if "bw_peak_Gbps" in r else bw_gbps(peak)
            avg = _num(r, "bw_avg_Gbps") if "bw_avg_Gbps" in r else bw_gbps(avg)
        fmt = REPORT_FMT_EXT if (report_gbits and avg < 0.1) else REPORT_FMT
        out.append(fmt % (size, iters, peak, avg, _num(r, "msg_rate_Mpps")))
    return out


def _records(df: pd.DataFrame) -> List[Dict[str, Any]]:
    return json.loads(df.to_json(orient="records")) if len(df) else []


def report(test: str, sc: Mapping[str, Any], result: Result, report_gbits: bool = False) -> str:
    """The whole report as perftest prints it: header block, column header, rows, dashes."""
    lines = [header(test, sc), column_header(test, report_gbits)]
    lines += format_rows(test, _records(result.perftest), report_gbits)
    lines.append(RESULT_LINE)
    return "\n".join(lines)
