"""On-Demand Paging pitfalls (Fukuoka, Sato, Taura; seeds/000): packet damming and packet flood.

The ``odp-reads`` workload runs the study's microbenchmarks on the ConnectX-4 EDR profile with
the QP timeouts at their minimum (``qp.timeout = 1``, ``qp.min_rnr_timer = 1``), as the study
set them: two hosts back to back, RDMA READs of 100 B. Every figure is simulated; the model's
parameters are in the profile (``rdmasim profiles cx4-edr``) and docs/odp.md derives the window
edges of A2 from them.

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
from ._plots import artifact, pyplot, save

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
    rows = res.raw.get("tables", {}).get("odp_reads", [])
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
    eff = [(t, (float(v) - 3.0) / 1000.0) for t, v in zip(df["qp.timeout"], df["run_time_us"])]
    ok = all(abs(ms - PUB_FLOOR_MS) <= FLOOR_TOL * PUB_FLOOR_MS for _, ms in eff)
    spec = ", ".join(f"{t}: {4.096 * 2 ** t / 1000:.3g} ms" for t in timeouts)
    return [row("A1", f"effective RC timeout after a lost READ response, qp.timeout = {spec} (IBTA value)",
                "~500 ms whatever the timeout field asks", " / ".join(f"{ms:.1f}" for _, ms in eff), "ms", ok)]


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
    rows = []
    pred_lo = fault + rnr_us
    pred_hi = 2 * fault + retry
    ok_lo = lo is not None and abs(lo - PUB_LOWER_US) <= EDGE_TOL * PUB_LOWER_US
    ok_hi = hi is not None and abs(hi - PUB_UPPER_US) <= EDGE_TOL * PUB_UPPER_US
    rows.append(row("A2", f"both-side ODP, 2 READs: lower edge of the stall window (model: the first RNR retry after the {fault:g} us server fault, {fault:g}-{pred_lo:g} us, + round trip)",
                    PUB_LOWER_US, lo if lo is not None else None, "us", ok_lo))
    rows.append(row("A2", f"upper edge (model: lower edge + client fault {fault:g} + re-request wait {retry:g}; {pred_hi:g}-{pred_hi + rnr_us:g} us)",
                    PUB_UPPER_US, hi if hi is not None else None, "us", ok_hi))
    agree = lo is not None and fault <= lo <= pred_lo + 5 and abs(hi - (lo + fault + retry)) <= 5
    rows.append(row("A2", "simulated edges vs the derivation from the parameters (lower in [F, F+R] + RTT, upper = lower + F + W, +-5 us)",
                    "(model check)", f"{lo:.0f} / {hi:.0f} vs [{fault:g}, {pred_lo + 5:g}] / {lo + fault + retry:.0f}" if lo is not None else None,
                    "us", agree))
    inside = [t for iv, t in zip(INTERVALS, times) if lo is not None and lo <= iv < hi]
    outside = [t for iv, t in zip(INTERVALS, times) if lo is None or iv < lo or iv >= hi]
    rows.append(row("A2", "shortest run inside the window (the stall: timeout floor + the first READ's recovery)",
                    "hundreds of ms (>= 100 ms)", min(inside) / 1000 if inside else None, "ms",
                    bool(inside) and min(inside) >= STALL_US))
    rows.append(row("A2", "longest run outside the window", "us-to-ms scale (< 100 ms)",
                    max(outside) / 1000 if outside else None, "ms", bool(outside) and max(outside) < STALL_US))
    # Predictions the study did not plot: client-side and server-side windows.
    clo, chi, _ = results[("client", 2)]
    slo, shi, _ = results[("server", 2)]
    rows.append(row("A2", f"client-side only: window (model: from the first response ~3 us to client fault + wait = {fault + retry:g} us)",
                    "(not published)", f"{clo:.0f}-{chi:.0f}" if clo is not None else None, "us",
                    clo is not None and clo <= 10 and abs(chi - (fault + retry)) <= 10))
    # A3
    widths = {}
    for reads in (2, 3, 4):
        a, b, _ = results[("both", reads)]
        widths[reads] = 0.0 if a is None else b - a
    ok3 = widths[2] > widths[3] > widths[4]
    rows.append(row("A3", "both-side stall window width with 2 / 3 / 4 READs (a later READ draws a NAK and an immediate retransmission)",
                    "damming becomes rare with 3+ READs", " / ".join(f"{widths[k]:.0f}" for k in (2, 3, 4)), "us", ok3))
    iv3 = 3000.0
    r3 = one(scenario(reads=3, interval_us=iv3))
    rows.append(row("A3", f"3 READs {iv3:g} us apart (READ 2 dammed, READ 3 after the wait): NAKs / local ACK timeouts, run time",
                    "NAK, immediate retransmission", f"{r3.get('implied_naks', 0) + r3.get('seq_naks', 0)} NAK / {r3.get('local_ack_timeouts')} timeouts, {rt(r3) / 1000:.2f} ms",
                    "", (r3.get('implied_naks', 0) + r3.get('seq_naks', 0)) >= 1 and r3.get("local_ack_timeouts") == 0 and rt(r3) < STALL_US))
    # A4: the dammed trace.
    rows += trace_rows(plots, floor, fault, retry)
    # A5: server side.
    rows.append(row("A5", f"server-side ODP, RNR code 1: stall window (model: the last RNR wait before the {fault:g} us fault ends; checked inside [{fault - 2 * rnr_us:g}, {fault + 2 * rnr_us:g}])",
                    "a READ posted during the RNR wait is lost, then a timeout",
                    f"{slo:.0f}-{shi:.0f}" if slo is not None else None, "us",
                    slo is not None and slo >= fault - 2 * rnr_us and shi <= fault + 2 * rnr_us))
    r14 = one(scenario(rnr=14, reads=2, interval_us=200.0, client_odp=False))
    f14 = one(scenario(rnr=14, reads=2, interval_us=200.0, client_odp=False, overrides={"odp_damming": False}))
    rows.append(row("A5", "server-side ODP, RNR wait 1.28 ms (code 14), READ 2 posted at 200 us: run time, damming on / off",
                    "lost, then a timeout", f"{rt(r14) / 1000:.1f} / {rt(f14) / 1000:.2f}", "ms",
                    rt(r14) >= STALL_US and rt(f14) < STALL_US))
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
    client = next((r for r in res.raw.get("tables", {}).get("odp", []) if r.get("node") == "h0"), {})
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
    lost = f"READ 2 at {req2[0]:.0f} us, its response at {resp2[0]:.0f} us, {dropped} responses dropped" if req2 and resp2 else None
    return [
        row("A4", f"dammed run (both-side, READ 2 at {iv:g} us; {capture}): READ 2's response arrives inside the client's fault wait ({fault_us:g}-{wait_end:g} us) and is dropped",
            "lost", lost, "", bool(req2 and resp2) and fault_us <= resp2[0] < wait_end and dropped == 2),
        row("A4", "silence: longest gap between packets", "the full timeout", gap[0] / 1000, "ms",
            abs(gap[0] / 1000 - floor_ms) <= FLOOR_TOL * floor_ms),
        row("A4", "late retransmission of READ 2 (PSN 1)", "after the timeout", (req2[-1] / 1000) if len(req2) >= 2 else None, "ms",
            len(req2) >= 2 and req2[-1] >= gap[2] - 1),
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

    def seq(df, col, scale=1.0, fmt="{:.2f}"):
        return " / ".join(fmt.format(float(v) * scale) for v in df[col])

    c_rt = [float(v) for v in c["run_time_us"]]
    c_pk = [float(v) for v in c["packets"]]
    s_pk = [float(v) for v in s["packets"]]
    c_ratio, s_ratio = c_pk[-1] / c_pk[0], s_pk[-1] / s_pk[0]
    qps = "/".join(str(q) for q in FLOOD_QPS)
    s_rt = [float(v) for v in s["run_time_us"]]
    rows = [
        row("A6", f"client-side ODP, {FLOOD_READS} READs over {qps} QPs: run time; checked: never falls by more than 1% as QPs are added, ends above where it starts, reaches >= 1 s",
            "grows with QPs (shape)", seq(c, "run_time_us", 1e-6), "s",
            all(b >= 0.99 * a for a, b in zip(c_rt, c_rt[1:])) and c_rt[-1] > c_rt[0] and max(c_rt) >= 1e6),
        row("A6", "client-side ODP: peak run time over the QP sweep; checked: tens of seconds (>= 10 s)",
            "up to tens of seconds", max(c_rt) / 1e6, "s", max(c_rt) >= 10e6),
        row("A6", f"client-side: packets on the wire (page faults: {seq(c, 'client_page_faults', fmt='{:.0f}')}); checked: >= 3x growth from {FLOOD_QPS[0]} to {FLOOD_QPS[-1]} QPs, page faults = pages ({pages}) throughout",
            "far above the page-fault count, growing with QPs", seq(c, "packets", 1e-3, "{:.0f}k"), "packets",
            c_ratio >= 3 and all(int(v) == pages for v in c["client_page_faults"])),
        row("A6", "server-side ODP: run time; checked: below the client-side run time at every QP count", "no flood",
            seq(s, "run_time_us", 1e-6), "s", all(a < b for a, b in zip(s_rt, c_rt))),
        row("A6", f"server-side: packets (growth {s_ratio:.1f}x vs client {c_ratio:.1f}x), stale faults; checked: slower growth than the client's, no stale fault",
            "no flood", f"{seq(s, 'packets', 1e-3, '{:.0f}k')}; stale {int(s['stale_faults'].sum())}", "packets",
            s_ratio < c_ratio and int(s["stale_faults"].sum()) == 0),
        row("A7", f"client-side, {FLOOD_QPS[-1]} QPs: faults on pages another QP already brought in (stale) / page faults",
            "page state learned on one QP does not reach the others", f"{int(c['stale_faults'].iloc[-1])} / {pages}", "faults",
            int(c["stale_faults"].iloc[-1]) > pages),
        row("A7", f"{FINISH_READS} READs over {FINISH_QPS} QPs: spread of the completion times of the READs landing on page 0, flood on / off",
            "one fault per page, yet the page's READs finish far apart", f"{spread[True] / 1000:.1f} / {spread[False] / 1000:.1f}", "ms",
            spread[True] >= 100_000 and spread[False] < 10_000),
        row("A7", f"client-side, {FLOOD_QPS[-1]} QPs, flood switch off: run time and packets",
            "no flood without the stale state", f"{rt(off) / 1e6:.2f} s, {int(off.get('packets', 0)) / 1e3:.0f}k (on: {c_rt[-1] / 1e6:.2f} s, {c_pk[-1] / 1e3:.0f}k)", "",
            rt(off) < c_rt[-1] and float(off.get("packets", math.inf)) < c_pk[-1]),
    ]
    return rows


def finish_times(flood: bool) -> List[Tuple[int, int, int, float]]:
    """(read, qp, page, completion us) of the finish-order run, in completion order."""
    s = scenario(rnr=FLOOD_RNR, reads=FINISH_READS, qps=FINISH_QPS, client_odp=True, server_odp=False,
                 overrides={"odp_flood": flood})
    res = run_scenario(s)
    return [(r["read"], r["qp"], r["page"], float(r["t_us"])) for r in res.raw.get("tables", {}).get("odp_finish", [])]


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
        saves = base[pit] - t
        cost = f"setup {float(r.get('setup_us', 0)):.0f} us, {int(r.get('pinned_pages', 0))} pinned pages"
        rows.append(row("M", f"{pit}: {name}", f"baseline {base[pit] / 1000:.1f} ms",
                        f"{t / 1000:.2f} ms ({cost})", "ms", t >= stall[pit] if "baseline" in name else saves > 0))
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
