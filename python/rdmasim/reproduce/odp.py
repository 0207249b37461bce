"""On-Demand Paging pitfalls (Fukuoka, Sato, Taura; seeds/000): packet damming and packet flood.

The ``odp-reads`` workload runs the study's microbenchmarks on the ConnectX-4 EDR profile with
the QP timeouts at their minimum (``qp.timeout = 1``, ``qp.min_rnr_timer = 1``), as the study
set them: two hosts back to back, RDMA READs of 100 B. The model's parameters are in the profile
(``rdmasim profiles cx4-edr``); docs/odp.md derives the window edges of A2 from them.

Row kinds (docs/odp.md, "Honest counts"): the study's stated causes are inputs of the model, so
the rows that show a cause are ``fit``: A1 reads back ``retransmit_floor_ms``; A2's edges are
placed by ``odp_fault_us`` and ``odp_requester_retry_us``; A4 and A5 show the ``odp_damming``
switch, whose definition is their statement; the A6 server-side rows and A7's stale-state rows
show the scope and definition of the ``odp_flood`` switch. ``reproduced`` rows are the effects
those inputs were not set from: A2's stall inside the window, A3, and the client-side flood of A6.
Predictions the study did not publish, the model's own consistency checks and the mitigations
(M) are ``sensitivity``.

- A1: effective retransmission timeout (a lost READ response, pinned memory) for several
  ``qp.timeout`` values below the floor.
- A2: 2 READs, interval swept 0-5000 us, both-side ODP: where the run stalls (>= 100 ms); the
  edges are located by bisection and compared with the published ~500 and ~4500 us (+-20%).
- A3: the same with 3 and 4 READs: the stall window shrinks (a later READ draws a NAK).
- A4: the packet trace of one dammed run (written as a pcap): the lost response, the silence,
  the late retransmission.
- A5: server-side ODP: a READ posted during the RNR wait is lost too.
- A6/A7: 8192 READs round-robin over 1..64 QPs, client-side vs server-side ODP: run time,
  packets, page faults; the flood switch off.
- M: mitigations (prefetch, pinning, a third READ, one QP, adaptive retransmission, the fixed
  NIC) with what each costs and saves.

Sub-studies: ``rdmasim reproduce odp:timeout|damming|flood|mitigations``. Plots (run time vs
interval, run time and packets vs QPs), the pcap and the mitigation table go to
``$RDMASIM_PLOTS`` (default ``./odp-output``). A8 (SparkUCX) is not reproduced.
"""
from __future__ import annotations

import copy
import math
import os
import struct
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..runner import run as run_scenario
from ..sweep import sweep
from . import row
from ._checks import AtLeast, Between, Claim, Within
from ..plots import artifact, pyplot, save

TITLE = "ODP pitfalls (seeds/000): packet damming and packet flood, their causes and mitigations"
ORDER = 20
PARTS = ("timeout", "damming", "flood", "mitigations")

PROFILE = "cx4-edr"
#: A run slower than this is a stall (A2's "done when").
STALL_US = 100_000.0
#: Published window of A2 and its tolerance.
PUB_LOWER_US, PUB_UPPER_US, EDGE_TOL = 500.0, 4500.0, 0.20
#: Published minimum effective timeout (A1), tolerance.
PUB_FLOOR_MS, FLOOR_TOL = 500.0, 0.10
INTERVALS = [float(i) for i in range(0, 5001, 100)]
#: Up to 1024: the QP counts of the study's real systems (SparkUCX, 389-2667). Beyond, each QP holds
#: <= 4 of the 8192 READs (docs/odp.md gives the model's values there).
FLOOD_QPS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
#: The finish-order experiment (the study's 'completions over time', 128 operations).
FINISH_READS, FINISH_QPS = 128, 4
FLOOD_READS = 8192
#: The flood runs use the perftest RNR timer code (12, 0.64 ms): with code 1 every blocked QP
#: would poll the faulting server every 10 us (docs/odp.md).
FLOOD_RNR = 12


def out_dir() -> Path:
    return Path(os.environ.get("RDMASIM_PLOTS") or "odp-output")


def scenario(profile: str = PROFILE, overrides: Optional[Dict[str, Any]] = None, rnr: int = 1, **workload: Any) -> Dict[str, Any]:
    """An odp-reads scenario with the QP timers at their minimum."""
    w = {"kind": "odp-reads", "reads": 2, "size": 100}
    w.update(workload)
    s: Dict[str, Any] = {"name": "odp", "hardware": {"profile": profile}, "qp": {"timeout": 1, "min_rnr_timer": rnr}, "workload": w}
    if overrides:
        s["hardware"]["overrides"] = dict(overrides)
    return s


def one(s: Dict[str, Any]) -> Dict[str, Any]:
    """The odp_reads row of one run (run_time_us None when it did not finish)."""
    res = run_scenario(s)
    rows = res.rows("odp_reads")
    return dict(rows[0]) if rows else {"run_time_us": None}


def rt(r: Dict[str, Any]) -> float:
    v = r.get("run_time_us")
    return math.nan if v is None else float(v)


def executor() -> Executor:
    return ProcessPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))


def sweep_rows(base: Dict[str, Any], grid: Dict[str, Sequence[Any]], ex: Executor):
    return sweep(base, grid, executor=ex, table="odp_reads")


# ---- A1 --------------------------------------------------------------------------------------
def timeout_rows(ex: Executor) -> List[Dict[str, Any]]:
    base = scenario(reads=1, client_odp=False, server_odp=False)
    base["faults"] = [{"link": "h1->h0", "drop_nth": [1]}]
    timeouts = [1, 8, 14, 16]
    df = sweep_rows(base, {"qp.timeout": timeouts}, ex)
    eff = tuple((float(v) - 3.0) / 1000.0 for v in df["run_time_us"])
    spec = ", ".join(f"{t}: {4.096 * 2 ** t / 1000:.3g} ms" for t in timeouts)
    lo, hi = PUB_FLOOR_MS * (1 - FLOOR_TOL), PUB_FLOOR_MS * (1 + FLOOR_TOL)
    return [row("A1", f"effective RC timeout after a lost READ response, qp.timeout = {spec} (IBTA value); the model raises it to retransmit_floor_ms",
                "~500 ms whatever the timeout field asks", eff, "ms",
                Claim(f"each in [{lo:g}, {hi:g}]", lambda v: len(v) == len(timeouts) and all(lo <= x <= hi for x in v)),
                kind="fit", basis="retransmit_floor_ms = 500 ms: this row's published floor, read back")]


# ---- A2-A5 -----------------------------------------------------------------------------------
def stalled(r: Dict[str, Any]) -> bool:
    return not (rt(r) < STALL_US)


def bisect_edge(make, lo: float, hi: float, tol: float = 2.0) -> float:
    """The interval in (lo, hi] where the stall state changes (state at lo != state at hi)."""
    s_lo = stalled(one(make(lo)))
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if stalled(one(make(mid))) == s_lo:
            lo = mid
        else:
            hi = mid
    return hi


def window(df, make) -> Tuple[Optional[float], Optional[float], List[float]]:
    """First and last interval of the stall window, refined by bisection, and the run times."""
    ivs = list(df["workload.interval_us"])
    times = [math.nan if v is None else float(v) for v in df["run_time_us"]]
    st = [not (t < STALL_US) for t in times]
    if not any(st):
        return None, None, times
    i0 = st.index(True)
    i1 = len(st) - 1 - st[::-1].index(True)
    lower = ivs[0] if i0 == 0 else bisect_edge(make, ivs[i0 - 1], ivs[i0])
    upper = ivs[-1] if i1 == len(ivs) - 1 else bisect_edge(make, ivs[i1], ivs[i1 + 1])
    return lower, upper, times


def damming_rows(ex: Executor, plots: Dict[str, Any]) -> List[Dict[str, Any]]:
    from ..profiles import profiles

    df_p = profiles(PROFILE)
    par = {r.parameter: r.value for r in df_p.itertuples()}
    fault, retry, floor = float(par["odp_fault_us"]), float(par["odp_requester_retry_us"]), float(par["retransmit_floor_ms"])
    rnr_us = 10.0  # IBTA RNR code 1
    sides = {"both": dict(client_odp=True, server_odp=True), "client": dict(client_odp=True, server_odp=False),
             "server": dict(client_odp=False, server_odp=True)}
    results = {}
    for name, kw in sides.items():
        for reads in ((2, 3, 4) if name == "both" else (2,)):
            base = scenario(reads=reads, **kw)
            df = sweep_rows(base, {"workload.interval_us": INTERVALS}, ex)

            def make(iv, kw=kw, reads=reads):
                return scenario(reads=reads, interval_us=iv, **kw)

            results[(name, reads)] = window(df, make)
    plots["intervals"] = {k: v[2] for k, v in results.items()}
    lo, hi, times = results[("both", 2)]
    rows = window_rows(INTERVALS, times, lo, hi, fault, retry, rnr_us)
    # A prediction the study did not plot: the client-side window.
    clo, chi, _ = results[("client", 2)]
    rows.append(row("A2", f"client-side ODP only: stall window (model: from the first response ~3 us to client fault + wait = {fault + retry:g} us)",
                    "(not published)", (clo, chi), "us",
                    Claim(f"starts <= 10 us, ends within 10 us of {fault + retry:g}", lambda v: v[0] <= 10 and abs(v[1] - (fault + retry)) <= 10),
                    kind="sensitivity", basis="not a seed figure: the model's window with client-side ODP only (the study plotted both-side)"))
    # A3
    widths = {}
    for reads in (2, 3, 4):
        a, b, _ = results[("both", reads)]
        widths[reads] = 0.0 if a is None else b - a
    rows.append(row("A3", "both-side stall window width with 2 / 3 / 4 READs (a later READ draws a NAK and an immediate retransmission)",
                    "damming becomes rare with 3+ READs", (widths[2], widths[3], widths[4]), "us",
                    Claim("2 READs > 3 READs > 4 READs", lambda v: v[0] > v[1] > v[2])))
    iv3 = 3000.0
    r3 = one(scenario(reads=3, interval_us=iv3))
    naks = r3.get("implied_naks", 0) + r3.get("seq_naks", 0)
    rows.append(row("A3", f"3 READs {iv3:g} us apart (READ 2 dammed, READ 3 after the wait): NAKs, local ACK timeouts, run time (ms)",
                    "NAK, immediate retransmission", (naks, r3.get("local_ack_timeouts"), rt(r3) / 1000), "",
                    Claim(f"NAKs >= 1, no timeout, run < {STALL_US / 1000:g} ms", lambda v: v[0] >= 1 and v[1] == 0 and v[2] < STALL_US / 1000)))
    # A4: the dammed trace.
    rows += trace_rows(plots, floor, fault, retry)
    # A5: server side.
    slo, shi, _ = results[("server", 2)]
    a5 = "odp_damming acts on RNR waits too (this row's statement: a request posted during the wait is lost)"
    rows.append(row("A5", f"server-side ODP, RNR code 1: stall window (model: the last RNR wait before the {fault:g} us fault ends; checked inside [{fault - 2 * rnr_us:g}, {fault + 2 * rnr_us:g}])",
                    "a READ posted during the RNR wait is lost, then a timeout", (slo, shi) if slo is not None else None, "us",
                    Claim(f"inside [{fault - 2 * rnr_us:g}, {fault + 2 * rnr_us:g}]", lambda v: v[0] >= fault - 2 * rnr_us and v[1] <= fault + 2 * rnr_us),
                    kind="fit", basis=a5 + "; odp_fault_us (A2's lower edge) places the window"))
    r14 = one(scenario(rnr=14, reads=2, interval_us=200.0, client_odp=False))
    f14 = one(scenario(rnr=14, reads=2, interval_us=200.0, client_odp=False, overrides={"odp_damming": False}))
    rows.append(row("A5", "server-side ODP, RNR wait 1.28 ms (code 14), READ 2 posted at 200 us: run time, damming on / off",
                    "lost, then a timeout", (rt(r14) / 1000, rt(f14) / 1000), "ms",
                    Claim(f"on: the timeout floor (+-{100 * FLOOR_TOL:g}%) plus the 1.28 ms wait; off: < {STALL_US / 1000:g} ms",
                          lambda v: abs(v[0] - floor - 1.28) <= FLOOR_TOL * floor and v[1] < STALL_US / 1000),
                    kind="fit", basis=a5 + "; the stall is retransmit_floor_ms (A1)"))
    return rows


def window_rows(intervals: Sequence[float], times: Sequence[float], lo: Optional[float], hi: Optional[float],
                fault: float, retry: float, rnr_us: float) -> List[Dict[str, Any]]:
    """A2's rows for the both-side sweep: run times (us) at `intervals`, the simulated window
    [lo, hi) (first and last stalled interval, refined by bisection; None when nothing stalled)."""
    pred_lo = fault + rnr_us
    pred_hi = 2 * fault + retry
    rows = [
        row("A2", f"both-side ODP, 2 READs: lower edge of the stall window (model: the first RNR retry after the {fault:g} us server fault, {fault:g}-{pred_lo:g} us, + round trip)",
            PUB_LOWER_US, lo, "us", Within(PUB_LOWER_US, EDGE_TOL),
            kind="fit", basis=f"odp_fault_us = {fault:g} us: chosen so this edge (the server fault's end) lands on the published ~500 us"),
        row("A2", f"upper edge (model: lower edge + client fault {fault:g} + re-request wait {retry:g}; {pred_hi:g}-{pred_hi + rnr_us:g} us)",
            PUB_UPPER_US, hi, "us", Within(PUB_UPPER_US, EDGE_TOL),
            kind="fit", basis=f"odp_requester_retry_us = {retry:g} us (with odp_fault_us): chosen so the width F + W lands on the published ~4000 us"),
        row("A2", "simulated edges vs the derivation from the parameters (lower in [F, F+R] + RTT, upper = lower + F + W, +-5 us)",
            "(model check)", (lo, hi) if lo is not None else None, "us",
            Claim(f"lower in [{fault:g}, {pred_lo + 5:g}], upper = lower + {fault + retry:g} +- 5",
                  lambda v: fault <= v[0] <= pred_lo + 5 and abs(v[1] - (v[0] + fault + retry)) <= 5),
            kind="sensitivity", basis="not a seed figure: the model's edges against their own derivation from F, W and the RNR delay"),
    ]
    inside = [t / 1000 for iv, t in zip(intervals, times) if lo is not None and lo <= iv < hi]
    stall_ms = STALL_US / 1000
    rows.append(row("A2", "every interval inside the simulated window: shortest / longest run (the stall is the timeout floor, retransmit_floor_ms from A1, plus READ 1's recovery; "
                    "checked: no interval between the edges escapes it, and each lasts hundreds of ms)",
                    "hundreds of ms", (min(inside), max(inside)) if inside else None, "ms",
                    Claim(f"{stall_ms:g} <= shortest, longest < 1000", lambda v: stall_ms <= v[0] and v[1] < 1000),
                    # The window's runs are >= 100 ms by its definition, and how long they last is
                    # the floor A1 fixed, read back: agreement by construction.
                    kind="fit", basis="retransmit_floor_ms (A1): the stall's length is the floor plus READ 1's recovery"))
    # Outside the *published* window (not the simulated one, whose edges are where runs cross
    # the threshold, so it could not fail): where the seed says the run is not a stall.
    below = [t / 1000 for iv, t in zip(intervals, times) if iv < PUB_LOWER_US]
    above = [t / 1000 for iv, t in zip(intervals, times) if iv > PUB_UPPER_US]
    rows.append(row("A2", f"longest run with READ 2 posted outside the published window: below {PUB_LOWER_US:g} us / above {PUB_UPPER_US:g} us",
                    "us-to-ms scale (no stall)", (max(below), max(above)) if below and above else None, "ms",
                    Claim(f"both < {stall_ms:g} (no stall)", lambda v: v[0] < stall_ms and v[1] < stall_ms),
                    kind="fit", basis="odp_fault_us and odp_requester_retry_us place the window on the published ~500-4500 us, so no stall outside it follows from them"))
    return rows


def read_pcap(data: bytes) -> List[Tuple[float, int, int, int]]:
    """(time us, source LID byte, BTH opcode, PSN) of each RoCEv2 frame of a pcap."""
    magic = struct.unpack_from("<I", data, 0)[0]
    scale = 1e-3 if magic == 0xA1B23C4D else 1.0  # ns or us fraction
    out, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, off)
        frame = data[off + 16: off + 16 + incl]
        off += 16 + incl
        if len(frame) < 54:
            continue
        src_ip_last = frame[14 + 15]
        opcode = frame[42]
        psn = int.from_bytes(frame[42 + 9: 42 + 12], "big")
        out.append((sec * 1e6 + frac * scale, src_ip_last, opcode, psn))
    return out


def trace_rows(plots: Dict[str, Any], floor_ms: float, fault_us: float, retry_us: float) -> List[Dict[str, Any]]:
    iv = 2000.0
    s = scenario(reads=2, interval_us=iv)
    s["output"] = {"capture": True}
    res = run_scenario(s)
    client = next((r for r in res.rows("odp") if r.get("node") == "h0"), {})
    dropped = int(client.get("dropped_responses", 0))
    path = out_dir() / "odp_dammed.pcap"
    pkts: List[Tuple[float, int, int, int]] = []
    capture = "no capture"
    if res.pcap:
        capture = str(artifact(path, lambda p: p.write_bytes(res.pcap)) or f"capture not written to {path}")
        pkts = read_pcap(res.pcap)
    READ_REQ, READ_RESP_ONLY = 0x0C, 0x10
    req2 = [t for t, _, op, psn in pkts if op == READ_REQ and psn == 1]
    resp2 = [t for t, _, op, psn in pkts if op == READ_RESP_ONLY and psn == 1]
    gaps = [(b[0] - a[0], a[0], b[0]) for a, b in zip(pkts, pkts[1:])]
    gap = max(gaps) if gaps else (math.nan, math.nan, math.nan)
    plots["trace"] = pkts
    # The client's fault wait: from READ 1's first response (after the server fault, ~F) to
    # the re-request F + W later; READ 2's response must land inside it and be dropped (the
    # client drops READ 1's first response and READ 2's: 2 drops).
    wait_end = 2 * fault_us + retry_us + 20.0
    a4 = "odp_damming: its definition is this row's statement (a request posted during the requester's fault wait is lost; only the local ACK timer recovers it)"
    return [
        row("A4", f"dammed run (both-side, READ 2 at {iv:g} us; {capture}): READ 2's request and response (us), responses dropped; checked: the response lands inside the client's fault wait ({fault_us:g}-{wait_end:g} us) and READ 1's and READ 2's responses are dropped",
            "lost", (req2[0], resp2[0], dropped) if req2 and resp2 else None, "",
            Claim(f"response in [{fault_us:g}, {wait_end:g}), 2 dropped", lambda v: fault_us <= v[1] < wait_end and v[2] == 2),
            kind="fit", basis=a4),
        row("A4", "silence: longest gap between packets, against the timeout floor", "the full timeout", gap[0] / 1000, "ms",
            Within(floor_ms, FLOOR_TOL), kind="fit", basis=a4 + "; the gap is retransmit_floor_ms (A1), read back"),
        row("A4", "end of the silence / last retransmission of READ 2 (PSN 1)", "after the timeout",
            (gap[2] / 1000, req2[-1] / 1000) if len(req2) >= 2 else None, "ms",
            Claim("READ 2 resent when the silence ends (within 1 us)", lambda v: abs(v[1] - v[0]) <= 0.001),
            kind="fit", basis=a4),
    ]


# ---- A6/A7 -----------------------------------------------------------------------------------
def flood_rows(ex: Executor, plots: Dict[str, Any]) -> List[Dict[str, Any]]:
    out = {}
    for name, kw in {"client": dict(client_odp=True, server_odp=False), "server": dict(client_odp=False, server_odp=True)}.items():
        base = scenario(rnr=FLOOD_RNR, reads=FLOOD_READS, **kw)
        out[name] = sweep_rows(base, {"workload.qps": FLOOD_QPS}, ex)
    off = one(scenario(rnr=FLOOD_RNR, reads=FLOOD_READS, qps=FLOOD_QPS[-1], client_odp=True, server_odp=False, overrides={"odp_flood": False}))
    plots["flood"] = {k: v[["workload.qps", "run_time_us", "packets"]].values.tolist() for k, v in out.items()}
    plots["flood_off"] = off
    c, s = out["client"], out["server"]
    spread = {}
    for flood in (True, False):
        fin = finish_times(flood)
        plots.setdefault("finish", {})[flood] = fin
        page0 = [t for _, _, page, t in fin if page == 0]
        spread[flood] = (max(page0) - min(page0)) if page0 else math.nan
    pages = int(c["pages"].iloc[0])
    c_rt = tuple(float(v) / 1e6 for v in c["run_time_us"])
    c_pk = tuple(float(v) for v in c["packets"])
    s_pk = [float(v) for v in s["packets"]]
    c_ratio, s_ratio = c_pk[-1] / c_pk[0], s_pk[-1] / s_pk[0]
    qps = "/".join(str(q) for q in FLOOD_QPS)
    s_rt = tuple(float(v) / 1e6 for v in s["run_time_us"])
    faults = sorted({int(v) for v in c["client_page_faults"]})
    stale = int(s["stale_faults"].sum())
    scope = "odp_flood acts on requester QPs only (the responder keeps no per-QP page state: the study's reason why server-side ODP does not flood)"
    a7 = "odp_flood: its definition is the study's cause (a page another QP brought in stays absent for this QP)"
    rows = [
        row("A6", f"client-side ODP, {FLOOD_READS} READs over {qps} QPs: run time; checked: never falls by more than 1% as QPs are added, ends above where it starts, reaches >= 1 s",
            "grows with QPs (shape)", c_rt, "s",
            Claim("never falls > 1%, last > first, max >= 1 s",
                  lambda v: all(b >= 0.99 * a for a, b in zip(v, v[1:])) and v[-1] > v[0] and max(v) >= 1.0)),
        row("A6", "client-side ODP: peak run time over the QP sweep", "up to tens of seconds", max(c_rt), "s", Between(10, 100)),
        row("A6", f"client-side: packets on the wire over {qps} QPs (page faults {'/'.join(map(str, faults))}: one per page, {pages} pages); checked: above the 1-QP count at every larger QP count, >= 3x at {FLOOD_QPS[-1]} QPs",
            "far above the page-fault count, growing with QPs", c_pk, "packets",
            Claim(f"each > the 1-QP count, >= 3x at {FLOOD_QPS[-1]} QPs", lambda v: all(x > v[0] for x in v[1:]) and v[-1] >= 3 * v[0])),
        row("A6", "server-side ODP: run time; checked: below the client-side run time at every QP count", "no flood", s_rt, "s",
            Claim("below the client-side run time at every QP count", lambda v: len(v) == len(c_rt) and all(a < b for a, b in zip(v, c_rt))),
            kind="fit", basis=scope),
        row("A6", f"server-side: packet growth from {FLOOD_QPS[0]} to {FLOOD_QPS[-1]} QPs vs the client's (x), stale faults",
            "no flood", (s_ratio, c_ratio, stale), "",
            Claim("server growth < client growth, no stale fault", lambda v: v[0] < v[1] and v[2] == 0),
            kind="fit", basis=scope),
        row("A7", f"client-side, {FLOOD_QPS[-1]} QPs: faults on pages another QP already brought in (stale) / page faults",
            "page state learned on one QP does not reach the others", (int(c["stale_faults"].iloc[-1]), pages), "faults",
            Claim("stale > page faults", lambda v: v[0] > v[1]), kind="fit", basis=a7),
        row("A7", f"{FINISH_READS} READs over {FINISH_QPS} QPs: spread of the completion times of the READs landing on page 0, flood on / off",
            "one fault per page, yet the page's READs finish far apart", (spread[True] / 1000, spread[False] / 1000), "ms",
            Claim("on >= 100 ms, off < 10 ms", lambda v: v[0] >= 100 and v[1] < 10),
            kind="fit", basis=a7 + "; a stale QP waits for its own local ACK timeout (retransmit_floor_ms; the refresh is an assumption)"),
        row("A7", f"client-side, {FLOOD_QPS[-1]} QPs: run time (s) and packets, flood switch off / on",
            "no flood without the stale state", (rt(off) / 1e6, c_rt[-1], float(off.get("packets", math.inf)), c_pk[-1]), "",
            Claim("off below on, in run time and packets", lambda v: v[0] < v[1] and v[2] < v[3]),
            kind="sensitivity", basis="what-if: odp_flood off (the cause removed), not a seed figure"),
    ]
    return rows


def finish_times(flood: bool) -> List[Tuple[int, int, int, float]]:
    """(read, qp, page, completion us) of the finish-order run, in completion order."""
    s = scenario(rnr=FLOOD_RNR, reads=FINISH_READS, qps=FINISH_QPS, client_odp=True, server_odp=False,
                 overrides={"odp_flood": flood})
    res = run_scenario(s)
    return [(r["read"], r["qp"], r["page"], float(r["t_us"])) for r in res.rows("odp_finish")]


# ---- mitigations -----------------------------------------------------------------------------
def mitigation_rows(ex: Executor) -> List[Dict[str, Any]]:
    # READ 2 at 2.5 ms falls in the both-side window (~0.5-4.5 ms); a third READ 2.5 ms later
    # leaves after the client's wait and draws the NAK that ends the dam.
    dam = dict(reads=2, interval_us=2500.0)
    fl = dict(rnr=FLOOD_RNR, reads=FLOOD_READS, qps=16, client_odp=True, server_odp=False)
    adaptive = {"adaptive_retrans_base_us": 100.0}
    cases = [
        ("damming", "baseline (both-side ODP, READ 2 at 2.5 ms)", scenario(**dam)),
        ("damming", "prefetch (ibv_advise_mr, synchronous)", scenario(prefetch=True, **dam)),
        ("damming", "pinning (no ODP)", scenario(client_odp=False, server_odp=False, **dam)),
        ("damming", "a third READ 2.5 ms later (after the wait)", scenario(reads=3, interval_us=2500.0)),
        ("damming", "adaptive retransmission (100 us base, assumption)", scenario(overrides=adaptive, **dam)),
        ("damming", "fixed NIC (cx6-hdr: damming fixed, floor kept)", scenario(profile="cx6-hdr", **dam)),
        ("flood", "baseline (client-side ODP, 8192 READs, 16 QPs)", scenario(**fl)),
        ("flood", "prefetch", scenario(prefetch=True, **fl)),
        ("flood", "pinning", scenario(**{**fl, "client_odp": False})),
        ("flood", "one QP", scenario(**{**fl, "qps": 1})),
        ("flood", "adaptive retransmission (100 us base, assumption)", scenario(overrides=adaptive, **fl)),
    ]
    futs = [ex.submit(one, s) for _, _, s in cases]
    res = [f.result() for f in futs]
    base = {"damming": rt(res[0]), "flood": rt(res[6])}
    # A baseline row checks that the pitfall is there to mitigate.
    stall = {"damming": STALL_US, "flood": 1e6}
    rows, lines = [], ["| pitfall | mitigation | run time | setup (registration + prefetch) | pinned pages | packets |", "|---|---|---|---|---|---|"]
    for (pit, name, _), r in zip(cases, res):
        t = rt(r)
        cost = f"setup {float(r.get('setup_us', 0)):.0f} us, {int(r.get('pinned_pages', 0))} pinned pages"
        if "baseline" in name:
            check, basis = AtLeast(stall[pit] / 1000), f"what-if baseline: the {pit} pitfall the mitigations are measured against"
        else:
            b = base[pit] / 1000
            check, basis = Claim(f"< baseline {b:.1f}", lambda v, b=b: v < b), f"what-if: {name}; the study gives no figure for it"
        rows.append(row("M", f"{pit}: {name} ({cost})", f"baseline {base[pit] / 1000:.1f} ms",
                        t / 1000, "ms", check, kind="sensitivity", basis=basis))
        lines.append(f"| {pit} | {name} | {t / 1000:.2f} ms | {float(r.get('setup_us', 0)):.0f} us | {int(r.get('pinned_pages', 0))} | {r.get('packets')} |")
    artifact(out_dir() / "odp_mitigations.md", lambda p: p.write_text("\n".join(lines) + "\n"))
    return rows


# ---- plots -----------------------------------------------------------------------------------
def write_plots(plots: Dict[str, Any]) -> None:
    plt = pyplot()
    if plt is None:
        return
    d = out_dir()
    if "intervals" in plots:
        fig, ax = plt.subplots(figsize=(7, 4))
        for (side, reads), times in plots["intervals"].items():
            ax.plot(INTERVALS, [t / 1000 for t in times], marker=".", label=f"{side}-side ODP, {reads} READs")
        ax.set_yscale("log")
        ax.set_xlabel("interval between READs [us]")
        ax.set_ylabel("run time [ms]")
        ax.axvspan(PUB_LOWER_US, PUB_UPPER_US, color="grey", alpha=0.15, label="published stall window")
        ax.legend(fontsize=7)
        ax.set_title("Packet damming (seeds/000 A2), cx4-edr")
        fig.tight_layout()
        save(fig, d / "odp_damming_interval.png")
    if "flood" in plots:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 4))
        for side, pts in plots["flood"].items():
            q = [p[0] for p in pts]
            a1.plot(q, [p[1] / 1e6 for p in pts], marker="o", label=f"{side}-side ODP")
            a2.plot(q, [p[2] for p in pts], marker="o", label=f"{side}-side ODP")
        for a, yl in ((a1, "run time [s]"), (a2, "packets")):
            a.set_xscale("log", base=2)
            a.set_xlabel("QPs")
            a.set_ylabel(yl)
            a.legend(fontsize=8)
        a1.set_title(f"Packet flood (A6): {FLOOD_READS} READs of 100 B")
        fig.tight_layout()
        save(fig, d / "odp_flood_qps.png")
    if "finish" in plots:
        fig, ax = plt.subplots(figsize=(7, 4))
        for flood, fin in plots["finish"].items():
            ax.step([t / 1000 for *_, t in fin], range(1, len(fin) + 1), where="post",
                    label=f"flood {'on' if flood else 'off'}")
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlabel("time since the first post [ms]")
        ax.set_ylabel("READs completed")
        ax.set_title(f"Completions over time (A7): {FINISH_READS} READs, {FINISH_QPS} QPs, client-side ODP")
        ax.legend()
        fig.tight_layout()
        save(fig, d / "odp_flood_finish.png")


def run(progress: bool = False, part: Optional[str] = None) -> List[Dict[str, Any]]:
    if part is not None and part not in PARTS:
        raise KeyError(f"unknown part {part!r} of study odp, expected one of: {', '.join(PARTS)}")
    plots: Dict[str, Any] = {}
    rows: List[Dict[str, Any]] = []
    with executor() as ex:
        if part in (None, "timeout"):
            rows += timeout_rows(ex)
        if part in (None, "damming"):
            rows += damming_rows(ex, plots)
        if part in (None, "flood"):
            rows += flood_rows(ex, plots)
        if part in (None, "mitigations"):
            rows += mitigation_rows(ex)
    write_plots(plots)
    return rows
