"""Performance isolation anomalies in RDMA (seeds/002, Zhang et al.): figures C1-C8.

Two flows share one NIC and one link; each has its own QP, thread (core) and completion
channel, pipelining is off (the next request is posted after the previous completion is
polled), and bandwidth, message rate and latency count only while both flows are active, as the
study's tool (a modified perftest) measured them. The unfairness comes from named model
mechanisms (docs/isolation.md):

- ``cpu_idle`` (host, the named hosts of ``HOSTS``): a thread waiting by event sleeps between its
  messages; its core enters the idle state the governor picks from the previous idle length and
  the wake-up pays that state's exit latency: intel_idle.c's Sandy Bridge table on cx3-fdr
  (CloudLab r320, Xeon E5-2450), the Haswell table with core/package exits on cx4-edr (a
  stand-in; host/cstate.rs gives the sources). The other flow owns the link
  meanwhile, so the flow with more, smaller messages loses (C1, C2); busy polling never sleeps
  (C3) but burns a core (C4).
- ``arbitration = "chunk-round-robin"`` (NIC): the send engine serves a QP for up to
  ``arbitration_chunk_bytes`` (16 KiB) of a message before moving on, so a mouse's packet waits
  behind an elephant's chunk (C6, C7, C8).
- ``wqe_fetch_on_schedule = true`` (NIC): a non-inline WQE and its payload are fetched when the
  scheduler first serves the QP, so a 1 KB mouse's fetch lets the elephant start another chunk
  (C6, 1 KB).

- ``os_tick_hz`` (host OS noise): the scheduler tick interrupts every busy core 1/HZ apart and
  holds it for a detour (~2 us), so the few mouse messages whose post or completion meets a tick
  form the latency tail (C5, C6, C8 99.99th); the rate is the named host's, as is the interrupt
  entry/exit around each tick's handler (``os_tick_entry_exit_ns``).

The NIC's are set on the cx3-fdr and cx4-edr profiles for every case (``ISOLATION_OVERRIDES``);
the hosts' are the study's test beds, named hosts of the profile system (``HOSTS``: `rdmasim
profiles` lists their values and sources). The Justitia-like sender-side scheduler (split +
pace) is evaluated on the same cases.

The study's settings and variables are in _isolation_settings.py, the published figures in
_isolation_targets.py and what the rows and plots read from the runs in _isolation_figures.py:
the other profile's rows and the plots read those, not this module.

Every case family runs on both profiles (issue #5): the study ran C1-C6 on cx3-fdr and C7-C8 on
cx4-edr (``STUDY_PROFILE``); the rows of the profile the study did not run come after the study's
rows (``other_profile_rows``), are judged by the same shape test, say so in their text and are
``sensitivity`` rows (not figures of the seed).

Counts are reduced from the study's (1 TB per elephant cell, 10 M mouse messages, 5 M HERD
requests) to what runs in minutes; see _isolation_settings.MOUSE_MESSAGES and docs/isolation.md
for why.

Every case runs with each of ``SEEDS``: the seed draws the scheduler tick's phase and detours,
which set the latency tails (99.99th) and move the elephants' ratios by about 0.001. Mice and
HERD split their message counts among the seeds (1 M mouse messages per case in all, as
5 x 200 k). A row whose figure moves with the seed carries it as :class:`Samples` (median,
range); a figure that every seed gives alike (the medians and rates: the tick meets ~0.03 % of
a mouse's messages) is shown as its median over the seeds, and its row says whether the seeds
gave the same figure.

Row kinds (issue #32): the study's rows are ``reproduced`` unless a row's figure holds by
construction: C4's busy-polling CPU is 100 % by definition (``arithmetic``); C2 at size ratio 1
compares a flow with its twin, and C4's event-polling CPU is an assumed per-message charge over
the simulated message period (``sensitivity``, their basis says why). The mitigation and
other-profile rows are ``sensitivity`` rows (what-ifs the study did not run). No parameter of
this study was solved from a published C figure (no ``fit`` rows; docs/isolation.md sec. 5 lists
the assumptions the reproduced rows rest on).
"""
from __future__ import annotations

import copy
import math
import os
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..envvars import EnvVarError
from ..errors import ScenarioError
from ..profiles import host_values
from ..runner import validate
from ..sweep import run_point
from . import Samples, row
from . import _isolation_settings as settings
from ._checks import AtLeast, AtMost, Between, Claim, Every, Most, Near, Within
from ._isolation_figures import (c1_figures, c2_figures, c4_event_bases, c4_figures, c8_growth_text, c8_least_growth,
                                 dips_text, fmt, kv_medians, med, mfig, rng, same_over_seeds)
from ._isolation_settings import (BASES_MB, CPU_SIZES, ELEPHANT_SEEDS, ENV_VARS, GB, INLINE_MAX, MB, MOUSE_SIZES,
                                  PROFILES, SEEDS, SIZE_RATIOS, STUDY_PROFILE, VERBS)
from ._isolation_targets import (C2_STEP, C2_TWINS, C4_BUSY_BASIS, C4_EVENT_HIGH, C4_EVENT_LOW, C4_RISE, C5_MEDIAN,
                                 C5_MEDIAN_MOVE, C5_RATE, C5_RATE_DROP, C5_TAIL, C6_ALONE, C6_MEDIAN_10B, C6_RATE,
                                 C6_SLOWDOWN, C6_TAIL_MAX, C7_MITIGATION, C7_SLOWDOWN, C8_MAX_GROWTH, C8_SEVERAL_FOLD,
                                 FAIR_RATIO, SLIDE_PAIRING)

TITLE = "Performance isolation anomalies in RDMA (seeds/002): elephants, mice, CPU, HERD, Justitia-like mitigation"
ORDER = 30

#: The two mechanisms the study's anomalies are traced to, on for every case. Both are
#: assumptions (docs/isolation.md 2.1, 2.3), not values solved from a figure: the 16 KiB chunk is
#: the profiles' own assumption, and the C6 1 KB mouse's msgs/s row is in range with or without
#: fetch on schedule (0.20-0.22 M/s with it, 0.39 without; 0.12-0.525 accepted).
ISOLATION_OVERRIDES = {"arbitration": "chunk-round-robin", "wqe_fetch_on_schedule": True}
#: The study's test-bed hosts by profile: named hosts of the profile system, whose idle states,
#: scheduler tick and tick entry/exit `rdmasim profiles` lists with their sources
#: (docs/isolation.md 2.2, 2.6). cx3-fdr: CloudLab's r320 nodes (Sandy Bridge-EN, HZ 250).
#: cx4-edr: UMich Conflux's hosts are not documented, every value is a stand-in; C7's EDR
#: elephant ratio, the one study row its idle table sets, runs with every modelled table
#: (``EDR_IDLE_TABLES``) instead of that one alone.
HOSTS = {"cx3-fdr": "cloudlab-r320", "cx4-edr": "umich-conflux"}
#: The idle tables C7's EDR 1 MB vs 1 GB ratio is run with: the EDR hosts' CPUs are unknown, so
#: the row reports every modelled table (docs/isolation.md 2.2), not the one that matches.
EDR_IDLE_TABLES = ("haswell-pkg", "haswell", "sandybridge")


def edr_host_idle() -> str:
    """The idle table of the EDR hosts' stand-in (the one C1's cx4-edr cells run with)."""
    return str(host_values(HOSTS["cx4-edr"])["cpu_idle"])


# ----------------------------------------------------------------------------------------
# Scenarios
# ----------------------------------------------------------------------------------------

def flow(verb: str, size: int, *, count: Optional[int] = None, background: bool = False,
         polling: str = "event", **extra: Any) -> Dict[str, Any]:
    """One flow; READ flows are posted by host 1 so that every flow's data crosses h0 -> h1."""
    f: Dict[str, Any] = {"verb": verb, "size": int(size), "polling": polling,
                         "inline": verb != "read" and size <= INLINE_MAX}
    if background:
        f["background"] = True
    else:
        f["count"] = int(count or 1)
    if verb == "read":
        f["client"], f["server"] = 1, 0
    f.update(extra)
    return f


#: The study's hosts reach each other through one InfiniBand switch, not a back-to-back cable.
#: cx3-fdr: CloudLab's ConnectX-3 FDR nodes (Apt cluster r320/c6220, MX354A) hang off Mellanox
#: SX6036G edge switches, 28 nodes each (CloudLab/Apt manual, "Hardware"); two hosts of one
#: experiment share at least that switch. cx4-edr: the Umich Conflux fabric is not published;
#: one switch is an assumption (a cluster, not a cable).
TOPOLOGY = {"kind": "single-switch", "hosts": 2}


#: Justitia's split size beside a latency-sensitive flow (SymbioticLab/Justitia
#: `rdma_pacer/pacer.c`: "#define SMALL_CHUNK_SIZE 5000", with "5120 // Conflux" as the
#: alternative for the EDR cluster): the mitigation rows split the elephant into WRs of this size.
JUSTITIA_SPLIT = {"cx3-fdr": 5000, "cx4-edr": 5120}

#: Path MTU of every QP: the study's tool (frdma_bench `write_bw.c`, github SymbioticLab/Justitia)
#: sets 2048 unless `-m` is given ("mtu size (256 - 4096. default for hermon is 2048)"; 1024 only
#: for vendor part 23108 or a RoCE GID), and none of its stored run scripts pass `-m`.
PATH_MTU = 2048


def scenario(profile: str, flows: Sequence[Dict[str, Any]], kv: Optional[Dict[str, Any]] = None,
             overrides: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    w: Dict[str, Any] = {"kind": "flows", "flow": list(flows)}
    if kv:
        w["kv"] = kv
    hw = dict(overrides or ISOLATION_OVERRIDES)
    # RDMASIM_ISOLATION_TICK_* replace the named hosts' tick (an override wins over the host).
    if settings.TICK_HZ_OVERRIDE is not None:
        hw.setdefault("os_tick_hz", settings.TICK_HZ_OVERRIDE)
    if settings.TICK_ENTRY_EXIT_NS_OVERRIDE is not None:
        hw.setdefault("os_tick_entry_exit_ns", settings.TICK_ENTRY_EXIT_NS_OVERRIDE)
    hardware: Dict[str, Any] = {"profile": profile, "host": HOSTS[profile], "overrides": hw}
    return {"seed": 1, "hardware": hardware, "topology": dict(TOPOLOGY), "qp": {"mtu": PATH_MTU}, "workload": w}


def elephant_pair(profile: str, a: Tuple[str, int], b: Tuple[str, int], polling: str = "event",
                  **extra: Any) -> Dict[str, Any]:
    """Two elephants: the smaller messages count the window; a larger one runs beside them."""
    (va, sa), (vb, sb) = sorted((a, b), key=lambda f: f[1])
    n = settings.ELEPHANT_MESSAGES if sa < 64 * MB else max(1, (settings.ELEPHANT_MESSAGES * MB) // sa)
    fa = flow(va, sa, count=n, polling=polling, **extra)
    fb = flow(vb, sb, background=True, polling=polling, **extra) if sb > sa else flow(vb, sb, count=n, polling=polling, **extra)
    return scenario(profile, [fa, fb])


def mouse_case(profile: str, size: int, against: Optional[Tuple[int, str]], count: Optional[int] = None,
               **elephant_extra: Any) -> Dict[str, Any]:
    """A busy-polled WRITE mouse of ``count`` messages (default MOUSE_MESSAGES), alone or beside
    a background flow ``against`` = (size, polling)."""
    fl = [flow("write", size, count=count or settings.MOUSE_MESSAGES, polling="busy")]
    if against:
        other, polling = against
        fl.append(flow("write", other, background=True, polling=polling, **elephant_extra))
    return scenario(profile, fl)


def kv_case(profile: str, get_fraction: float, background: Optional[int], requests: Optional[int] = None,
            **elephant_extra: Any) -> Dict[str, Any]:
    """HERD with ``requests`` requests (default KV_REQUESTS), alone or beside a background flow."""
    kv = {"requests": requests or settings.KV_REQUESTS, "get_fraction": get_fraction, "window": settings.HERD_WINDOW,
          "server_pipeline": settings.HERD_SERVER_PIPELINE}
    fl = [flow("write", background, background=True, **elephant_extra)] if background else []
    return scenario(profile, fl, kv=kv)


# ----------------------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------------------

def with_seed(spec: Dict[str, Any], seed: int) -> Dict[str, Any]:
    s = copy.deepcopy(spec)
    s["seed"] = int(seed)
    return s


def per_seed(total: int) -> int:
    """A case's message (or request) count for one seed: the total split among the SEEDS."""
    return max(1, int(total) // len(SEEDS))


class Cases:
    """Submits every case at once to the executor, then reads results by key."""

    def __init__(self, executor: Optional[Executor]):
        self.executor = executor
        self.futures: Dict[Any, Any] = {}

    def add(self, key: Any, spec: Dict[str, Any], table: str = "flows") -> None:
        if self.executor is None:
            self.futures[key] = run_point(spec, table)
        else:
            self.futures[key] = self.executor.submit(run_point, spec, table)

    def add_seeded(self, key: Tuple[Any, ...], spec: Dict[str, Any], table: str = "flows",
                   seeds: Sequence[int] = SEEDS) -> None:
        """The case once per seed, as ``key + (seed,)``."""
        for s in seeds:
            self.add(key + (s,), with_seed(spec, s), table)

    def wait_with_progress(self) -> None:
        """A progress bar of cases finished."""
        from concurrent.futures import as_completed

        from tqdm import tqdm

        pending = [f for f in self.futures.values() if not isinstance(f, tuple)]
        for _ in tqdm(as_completed(pending), total=len(pending), desc="isolation cases", unit="case"):
            pass

    def rows(self, key: Any) -> List[Dict[str, Any]]:
        f = self.futures[key]
        summary, rows = f if isinstance(f, tuple) else f.result()
        if not summary.get("finished"):
            # A case that stopped early (a failed flow, flows never active together, a limit)
            # has partial rows: no figure may be read from it.
            raise RuntimeError(f"isolation case {key} did not complete: {summary.get('stop_reason')}")
        return rows

    def seeded(self, key: Tuple[Any, ...], seeds: Sequence[int] = SEEDS) -> List[List[Dict[str, Any]]]:
        """The rows of each seed's run of the case, in seed order."""
        return [self.rows(key + (s,)) for s in seeds]


def ratio(rows: List[Dict[str, Any]]) -> float:
    """Bandwidth of the flow with larger messages over the other's (equal sizes: max / min)."""
    if len(rows) < 2 or not all(r.get("bw_Gbps") for r in rows[:2]):
        return math.nan
    a, b = rows[0], rows[1]
    if a["bytes"] == b["bytes"]:
        return max(a["bw_Gbps"], b["bw_Gbps"]) / min(a["bw_Gbps"], b["bw_Gbps"])
    big, small = (a, b) if a["bytes"] > b["bytes"] else (b, a)
    return big["bw_Gbps"] / small["bw_Gbps"]


def c1_cells() -> List[Tuple[Tuple[str, int], Tuple[str, int]]]:
    """The C1 matrix's cells, each unordered pair of (verb, size) once (the matrix is symmetric)."""
    cells = [(va, sa) for va in VERBS for sa in (MB, GB)]
    return [(a, b) for i, a in enumerate(cells) for b in cells[i:]]


def c2_points() -> List[Tuple[str, int, int]]:
    """(polling, base MB, size ratio) of the C2 / C3 curves (the larger flow at most 1 GB)."""
    return [(p, base, k) for p in ("event", "busy") for base in BASES_MB for k in SIZE_RATIOS if base * MB * k <= GB]


def c4_count(size: int) -> int:
    return max(2, min(20_000, (200 * MB) // size))


#: C7's EDR elephants (WRITE 1 MB vs 1 GB) are that cell of C1's cx4-edr matrix (with the
#: stand-in idle table); the other tables of EDR_IDLE_TABLES run as ("C7-idle", table).
C7_CELL = (("write", MB), ("write", GB))
C7_ELEPHANTS = ("C1", "cx4-edr") + C7_CELL


def submit_all(c: Cases) -> None:
    # The longest cases (mice and HERD beside an elephant, tens of millions of events each) go
    # first: the pool runs cases in submission order, so a long case submitted last would
    # leave the other worker idle at the end.
    mice, requests = per_seed(settings.MOUSE_MESSAGES), per_seed(settings.KV_REQUESTS)
    # C5 / C6 / C7: mice.
    for profile in PROFILES:
        c.add_seeded(("mouse", profile, 10, None), mouse_case(profile, 10, None, mice))
        for o in MOUSE_SIZES:
            c.add_seeded(("mouse", profile, 10, ("m", o)), mouse_case(profile, 10, (o, "busy"), mice))
        for m in MOUSE_SIZES:
            if m != 10:
                c.add_seeded(("mouse", profile, m, None), mouse_case(profile, m, None, mice))
            for bg in (MB, GB):
                c.add_seeded(("mouse", profile, m, ("e", bg)), mouse_case(profile, m, (bg, "event"), mice))
                if m == 10:
                    c.add_seeded(("mouse-justitia", profile, m, bg),
                                 mouse_case(profile, m, (bg, "event"), mice, split_bytes=JUSTITIA_SPLIT[profile], split_window=32))
    # C8: HERD (the study: ConnectX-4 EDR).
    for op, frac in (("GET", 1.0), ("PUT", 0.0)):
        for profile in PROFILES:
            for bg in (None, MB, GB):
                c.add_seeded(("C8", profile, op, bg), kv_case(profile, frac, bg, requests), table="kv")
        c.add_seeded(("C8-justitia", "cx4-edr", op, MB),
                     kv_case("cx4-edr", frac, MB, requests, split_bytes=JUSTITIA_SPLIT["cx4-edr"], split_window=32), table="kv")
    for profile in PROFILES:
        # C1: elephant vs elephant matrix (event polling).
        for a, b in c1_cells():
            c.add_seeded(("C1", profile, a, b), elephant_pair(profile, a, b), seeds=ELEPHANT_SEEDS)
        # C2 / C3: ratio vs size ratio, event and busy polling.
        for polling, base, k in c2_points():
            c.add_seeded(("C2", profile, polling, base, k),
                         elephant_pair(profile, ("write", base * MB), ("write", base * MB * k), polling), seeds=ELEPHANT_SEEDS)
        # C4: CPU of one flow by message size (a busy poller's is 1 by definition: one seed).
        for s in CPU_SIZES:
            c.add_seeded(("C4", profile, "event", s), scenario(profile, [flow("write", s, count=c4_count(s), polling="event")]))
            c.add_seeded(("C4", profile, "busy", s), scenario(profile, [flow("write", s, count=c4_count(s), polling="busy")]), seeds=SEEDS[:1])
    # C7: the EDR elephants with the other modelled idle tables.
    for table in EDR_IDLE_TABLES:
        if table != edr_host_idle():
            spec = elephant_pair("cx4-edr", *C7_CELL)
            spec["hardware"]["overrides"]["cpu_idle"] = table
            c.add_seeded(("C7-idle", table), spec, seeds=ELEPHANT_SEEDS)
    # Justitia-like pacing of both elephants at about half the link: the links' payload rates
    # are 54.2 (FDR) and 99.4 Gb/s (EDR) with 4 KiB packets (docs/isolation.md 2.5), so 27 is
    # half of FDR's and 48 a little under half of EDR's (a chosen pacing rate, not a figure).
    for profile, half in PACE_GBPS.items():
        c.add_seeded(("ee-justitia", profile),
                     elephant_pair(profile, ("write", MB), ("write", GB), split_bytes=MB // 4, split_window=2, pace_gbps=half),
                     seeds=ELEPHANT_SEEDS)


#: The mitigation's pacing rate per profile, Gb/s (about half of each link; see submit_all).
PACE_GBPS = {"cx3-fdr": 27.0, "cx4-edr": 48.0}


# ----------------------------------------------------------------------------------------
# Rows
# ----------------------------------------------------------------------------------------

# The figures of C1-C4 (targets.md states shapes, not per-profile figures) are computed by
# functions shared by the study's profile rows and the other profile's rows
# (_isolation_figures.py).

def c1_matrix(c: Cases, profile: str) -> Dict[Any, List[float]]:
    """Each cell's ratio for each seed."""
    return {cell: [ratio(r) for r in c.seeded(("C1", profile) + cell, ELEPHANT_SEEDS)] for cell in c1_cells()}


def c1_rows(matrices: Dict[str, Dict[Any, List[float]]]) -> List[Dict[str, Any]]:
    f = c1_figures(matrices[STUDY_PROFILE["C1"]])
    ww = Samples(matrices[STUDY_PROFILE["C1"]][C7_CELL])
    return [
        row("C1", f"equal-size cells of two different verbs (1 MB vs 1 MB, 1 GB vs 1 GB; {f['n_same']} cells): largest "
            f"bandwidth ratio, larger / smaller (the {f['n_twins']} cells of a flow against its twin are fair by symmetry: "
            f"largest {f['twins'].hi:.3f})", "fair (< 1.10)", f["same"], "x", Every(Between(1.0, FAIR_RATIO))),
        row("C1", f"1 MB vs 1 GB cells, any verbs ({f['n_mixed']} cells): smallest ratio 1 GB flow / 1 MB flow "
            f"(largest {f['mixed_max']:.2f})", "unfair, larger wins (>= 1.10)", f["mixed"], "x", Every(AtLeast(FAIR_RATIO))),
        row("C1", "WRITE 1 MB vs WRITE 1 GB bandwidth ratio (1 GB / 1 MB), cx3-fdr", "> 1 (unfair, >= 1.10)", ww, "x",
            Every(AtLeast(FAIR_RATIO))),
    ]


def c2_curves(c: Cases, profile: str) -> Dict[Any, List[float]]:
    """Each point's ratio for each seed."""
    return {pt: [ratio(r) for r in c.seeded(("C2", profile) + pt, ELEPHANT_SEEDS)] for pt in c2_points()}


def c2_c3_rows(curves: Dict[str, Dict[Any, List[float]]]) -> List[Dict[str, Any]]:
    f = c2_figures(curves[STUDY_PROFILE["C2"]])
    return [
        row("C2", "event polling: ratio at size ratio 1, largest over the bases (a flow against its twin)", "1.0",
            f["at1"], "x", Every(Between(1.0, 1.05)), kind="sensitivity", basis=C2_TWINS),
        row("C2", "event polling, base 1 MB: ratio at size ratio 1000", "1.25-1.5 (plot; 'about': +-10 %)",
            f["x1000"], "x", Every(Between(1.25 * 0.9, 1.5 * 1.1))),
        row("C2", f"event polling: ratio grows with the size ratio on every base's curve: smallest quotient of a point "
            f"over the previous one (>= {1 - C2_STEP:.2f}; step-downs of the median curves: {dips_text(f['dips'])})",
            "grows", f["grow"], "x", Every(AtLeast(1 - C2_STEP))),
        row("C2", f"larger base flows suffer less: largest quotient of a base's maximum ratio over the next smaller "
            f"base's (<= {1 + C2_STEP:.2f}); maxima for base 1/2/5/10/100 MB: {fmt(f['top'])}",
            "decreasing", f["less"], "x", Every(AtMost(1 + C2_STEP))),
        row("C3", "busy polling: largest ratio over every base and size ratio", "close to 1 (< 1.10)",
            f["busy"], "x", Every(Between(1.0, FAIR_RATIO))),
    ]


def c4_cpu(c: Cases, profile: str) -> Dict[Any, List[float]]:
    """CPU % of the flow's thread by (polling, size), for each seed (busy polling: one seed)."""
    return {(p, s): [r[0]["cpu_utilization"] * 100 for r in c.seeded(("C4", profile, p, s), SEEDS if p == "event" else SEEDS[:1])]
            for p in ("event", "busy") for s in CPU_SIZES}


def c4_periods(c: Cases, profile: str) -> Tuple[float, float]:
    """The event-polled flow's message period (1 / its message rate) at 10 B and at 1 GB, us."""
    return tuple(med([1.0 / r[0]["msg_rate_Mps"] for r in c.seeded(("C4", profile, "event", s))])  # type: ignore[return-value]
                 for s in (CPU_SIZES[0], CPU_SIZES[-1]))


def c4_rows(cpu: Dict[str, Dict[Any, List[float]]], periods: Dict[str, Tuple[float, float]]) -> List[Dict[str, Any]]:
    """``periods``: per profile, the event-polled flow's message period at 10 B and at 1 GB (us)."""
    p = STUDY_PROFILE["C4"]
    f = c4_figures(cpu[p])
    b10, b1g, bfall = c4_event_bases(*periods[p])
    return [
        row("C4", "busy polling CPU, 10 B .. 1 GB (smallest)", "100%", f["busy"], "%", Near(100.0, 0.1),
            kind="arithmetic", basis=C4_BUSY_BASIS),
        row("C4", "event polling CPU at 10 B", f"high (plot; >= {C4_EVENT_HIGH:.0f} %)", f["ev10"], "%",
            Every(AtLeast(C4_EVENT_HIGH)), kind="sensitivity", basis=b10),
        row("C4", "event polling CPU at 1 GB", f"toward 0 (plot; < {C4_EVENT_LOW:.0f} %)", f["ev1g"], "%",
            Every(AtMost(C4_EVENT_LOW)), kind="sensitivity", basis=b1g),
        row("C4", "event polling CPU falls with message size: largest rise from one size to the next",
            f"falling (<= {C4_RISE:.0f} point)", f["rise"], "points", Every(AtMost(C4_RISE)), kind="sensitivity", basis=bfall),
    ]


def _in(lo: float, hi: float, tol: float) -> Callable[[float], bool]:
    return lambda x: lo * (1 - tol) <= x <= hi * (1 + tol)


def c5_rows(c: Cases) -> List[Dict[str, Any]]:
    fdr = "cx3-fdr"
    against = [None] + [("m", o) for o in MOUSE_SIZES]
    med_ = [mfig(c, fdr, 10, a, "lat_median_us") for a in against]
    rate = [mfig(c, fdr, 10, a, "msg_rate_Mps") for a in against]
    tails = [mfig(c, fdr, 10, a, "lat_p99_99_us") for a in against]
    n = len(tails[0])
    largest_tail = Samples(max(t[i] for t in tails[1:]) for i in range(n))
    in_med, in_rate = _in(*C5_MEDIAN, 0.20), _in(*C5_RATE, 0.20)
    move = C5_MEDIAN_MOVE * 1.2
    drop_lo, drop_hi = C5_RATE_DROP[0] * 0.8, C5_RATE_DROP[1] * 1.2
    return [
        row("C5", f"10 B mouse median alone / vs a 10 B / 100 B / 1 KB mouse (the seed's medians move <= 0.1 us "
            f"beside a mouse; {same_over_seeds(*med_)})", "1.3 -> 1.3-1.4",
            tuple(med(x) for x in med_), "us",
            Claim(f"each in {C5_MEDIAN[0]}-{C5_MEDIAN[1]} +-20 %, and beside a mouse within {move:.2f} us of alone "
                  f"({C5_MEDIAN_MOVE} +20 %)",
                  lambda v: all(in_med(x) for x in v) and all(abs(x - v[0]) <= move for x in v[1:]))),
        row("C5", f"10 B mouse msgs/s alone / vs a 10 B / 100 B / 1 KB mouse: the competing mouse's cost "
            f"({same_over_seeds(*rate)})", "0.78 -> 0.76 / 0.75 / 0.72",
            tuple(med(x) for x in rate), "M/s",
            Claim(f"each in {C5_RATE[0]}-{C5_RATE[1]} +-20 %, and the largest drop beside a mouse "
                  f"{drop_lo:.3f}-{drop_hi:.3f} M/s ({C5_RATE_DROP[0]}-{C5_RATE_DROP[1]} +-20 %)",
                  lambda v: all(in_rate(x) for x in v) and drop_lo <= v[0] - min(v[1:]) <= drop_hi)),
        row("C5", f"10 B mouse 99.99th beside a mouse, largest of 10 B / 100 B / 1 KB (alone {rng(Samples(tails[0]))}; "
            "slide pairing: 7.8 / 5.8 / 5.4, alone 5.4)", "5.4-7.8", largest_tail, "us",
            Most(Between(C5_TAIL[0] * 0.8, C5_TAIL[1] * 1.2))),
    ]


def c6_c7_rows(c: Cases) -> List[Dict[str, Any]]:
    rows = []
    fdr = "cx3-fdr"
    bgs = [("e", MB), ("e", GB)]
    n = len(SEEDS)
    slow, slow_figs, tails = [], [], []
    for m in MOUSE_SIZES:
        pair = SLIDE_PAIRING[m]
        a_med, a_rate = mfig(c, fdr, m, None, "lat_median_us"), mfig(c, fdr, m, None, "msg_rate_Mps")
        b_med = [mfig(c, fdr, m, bg, "lat_median_us") for bg in bgs]
        b_rate = [mfig(c, fdr, m, bg, "msg_rate_Mps") for bg in bgs]
        tails += [mfig(c, fdr, m, bg, "lat_p99_99_us") for bg in bgs]
        slow.append(max(med(x) for x in b_med) / med(a_med))
        slow_figs += [a_med] + b_med
        if m == 10:
            rows.append(row("C6", f"10 B mouse alone: median / msgs/s ({same_over_seeds(a_med, a_rate)})", "%.1f / %.2f" % C6_ALONE,
                            (med(a_med), med(a_rate)), "us / M/s",
                            Claim(f"median within 25 % of {C6_ALONE[0]} and msgs/s within 25 % of {C6_ALONE[1]}",
                                  lambda v: _in(C6_ALONE[0], C6_ALONE[0], 0.25)(v[0]) and _in(C6_ALONE[1], C6_ALONE[1], 0.25)(v[1]))))
            rows.append(row("C6", f"10 B mouse beside a 1 MB / 1 GB elephant: median (slide pairing: 2.6-2.9; "
                            f"{same_over_seeds(*b_med)})", f"~{C6_MEDIAN_10B:.0f}", tuple(med(x) for x in b_med), "us",
                            Claim(f"the larger within 25 % of {C6_MEDIAN_10B}", lambda v: _in(C6_MEDIAN_10B, C6_MEDIAN_10B, 0.25)(max(v)))))
        rows.append(row("C6", f"{m} B mouse beside a 1 MB / 1 GB elephant: msgs/s (alone {med(a_rate):.3f}; slide pairing: "
                        f"{pair['rate'][0]:.2f}-{pair['rate'][1]:.2f}; {same_over_seeds(*b_rate)})",
                        "%.2f-%.2f" % C6_RATE, tuple(med(x) for x in b_rate), "M/s",
                        Claim(f"both in {C6_RATE[0]}-{C6_RATE[1]} +-25 %", lambda v: all(_in(*C6_RATE, 0.25)(x) for x in v))))
    pub_slow = max(SLIDE_PAIRING[m]["median"][1] / SLIDE_PAIRING[m]["alone"][0] for m in MOUSE_SIZES)
    rows.append(row("C6", f"largest median slow-down beside an elephant, 10 B / 100 B / 1 KB (slide pairing: {pub_slow:.1f}x; "
                    f"{same_over_seeds(*slow_figs)})", f"up to ~{C6_SLOWDOWN:.0f}x", tuple(slow), "x",
                    Claim(f"the largest within 25 % of {C6_SLOWDOWN}", lambda v: _in(C6_SLOWDOWN, C6_SLOWDOWN, 0.25)(max(v)))))
    largest = Samples(max(t[i] for t in tails) for i in range(n))
    smallest = Samples(min(t[i] for t in tails) for i in range(n))
    rows.append(row("C6", f"99.99th beside an elephant, largest of the 3 mice x 2 elephants (smallest {rng(smallest)})",
                    f"up to {C6_TAIL_MAX}", largest, "us", Most(Within(C6_TAIL_MAX, 0.25))))
    # C7: the same on ConnectX-4 EDR.
    edr = "cx4-edr"
    e_figs, e_slow = [], []
    for m in MOUSE_SIZES:
        a = mfig(c, edr, m, None, "lat_median_us")
        b = [mfig(c, edr, m, bg, "lat_median_us") for bg in bgs]
        e_figs += [a] + b
        e_slow.append(max(med(x) for x in b) / med(a))
    rows.append(row("C7", f"EDR: mouse beside an elephant, largest median slow-down, 10 B / 100 B / 1 KB ({same_over_seeds(*e_figs)})",
                    f"up to {C7_SLOWDOWN:.0f}x", tuple(e_slow), "x",
                    Claim(f"the largest within 15 % of {C7_SLOWDOWN}", lambda v: _in(C7_SLOWDOWN, C7_SLOWDOWN, 0.15)(max(v)))))

    # "Mitigated": EDR's tail grows less beside a mouse than FDR's (99.99th beside a mouse / alone).
    def inflation(profile: str) -> List[float]:
        alone = mfig(c, profile, 10, None, "lat_p99_99_us")
        beside = [mfig(c, profile, 10, ("m", o), "lat_p99_99_us") for o in MOUSE_SIZES]
        return [max(b[i] for b in beside) / alone[i] for i in range(len(alone))]

    f_inf, e_inf = inflation(fdr), inflation(edr)
    lo, hi = C7_MITIGATION
    rows.append(row("C7", f"EDR: mouse vs mouse mitigated: FDR's 99.99th growth beside a mouse minus EDR's (growth = largest "
                    f"99.99th beside a mouse / alone; FDR {rng(Samples(f_inf))}, EDR {rng(Samples(e_inf))})",
                    f"mitigated (FDR x{7.8 / 5.4:.2f}, EDR ~x1)", Samples(f - e for f, e in zip(f_inf, e_inf)), "x",
                    Most(Between(lo, hi))))
    rows.append(c7_ratio_row(c))
    return rows


def c7_ratios(c: Cases) -> Dict[str, List[float]]:
    """The EDR WRITE 1 MB vs 1 GB ratio per modelled idle table, per seed."""
    out = {}
    for table in EDR_IDLE_TABLES:
        key = C7_ELEPHANTS if table == edr_host_idle() else ("C7-idle", table)
        out[table] = [ratio(r) for r in c.seeded(key, ELEPHANT_SEEDS)]
    return out


def c7_ratio_row(c: Cases) -> Dict[str, Any]:
    by_table = c7_ratios(c)
    return row("C7", "EDR: WRITE 1 MB vs 1 GB bandwidth ratio, with each modelled idle table (the EDR hosts' CPUs are not "
               "published): " + ", ".join(f"{t} {med(v):.2f}" for t, v in by_table.items()), 1.32,
               Samples(x for v in by_table.values() for x in v), "x", Every(Within(1.32, 0.15)))


def kv_runs(c: Cases, key: Tuple[Any, ...]) -> List[Dict[str, Any]]:
    """The row of the case's own operation (key = ("C8...", profile, op, background)), per seed."""
    return [next(x for x in rows if x["op"] == key[2]) for rows in c.seeded(key)]


def kv_all(c: Cases) -> Dict[str, Dict[Any, List[Dict[str, Any]]]]:
    return {p: {(op, bg): kv_runs(c, ("C8", p, op, bg)) for op in ("GET", "PUT") for bg in (None, MB, GB)} for p in PROFILES}


def c8_rows(kv_all_: Dict[str, Dict[Any, List[Dict[str, Any]]]]) -> List[Dict[str, Any]]:
    rows = []
    kv = kv_all_[STUDY_PROFILE["C8"]]
    for op in ("GET", "PUT"):
        rows.append(row("C8", f"HERD {op} alone, median (window {settings.HERD_WINDOW})", "2.9-3.4",
                        Samples(r["lat_median_us"] for r in kv[(op, None)]), "us", Every(Between(2.9 * 0.75, 3.4 * 1.25))))
        for bg, label in ((MB, "1 MB"), (GB, "1 GB")):
            rows.append(row("C8", f"HERD {op} with a {label} background: the smaller of the median's and the 99.99th's growth over "
                            f"alone ({c8_growth_text(kv, op, bg)}; slide 41: medians 7.9-9.5, 99.99th 12.5-27.1)",
                            "several-fold", c8_least_growth(kv, op, bg), "x",
                            Most(Between(C8_SEVERAL_FOLD, C8_MAX_GROWTH))))
    return rows


def _justitia_basis(what: str) -> str:
    return f"not in the study: a Justitia-like sender scheduler (Zhang et al., NSDI'22; docs/isolation.md 4) {what}"


def justitia_rows(c: Cases, kv: Dict[str, Dict[Any, List[Dict[str, Any]]]]) -> List[Dict[str, Any]]:
    rows = []
    for profile, fig in (("cx3-fdr", "C6"), ("cx4-edr", "C7")):
        base = [mfig(c, profile, 10, ("e", bg), "lat_median_us") for bg in (MB, GB)]
        runs = [c.seeded(("mouse-justitia", profile, 10, bg)) for bg in (MB, GB)]
        split = [[r[0]["lat_median_us"] for r in rs] for rs in runs]
        bw = min(med([r[1]["bw_Gbps"] for r in rs]) for rs in runs)
        alone = med(mfig(c, profile, 10, None, "lat_median_us"))
        rows.append(row(fig, f"mitigation, {profile}: 10 B mouse median beside 1 MB (unsplit, split) / 1 GB (unsplit, split), "
                        f"elephant split into {JUSTITIA_SPLIT[profile]} B WRs (alone {alone:.2f}; split elephant "
                        f"{bw:.1f} Gb/s; {same_over_seeds(*base, *split)})", "n/a",
                        (med(base[0]), med(split[0]), med(base[1]), med(split[1])), "us",
                        Claim("split below unsplit beside both", lambda v: v[1] < v[0] and v[3] < v[2]),
                        kind="sensitivity", basis=_justitia_basis(f"splits the elephant into Justitia's {JUSTITIA_SPLIT[profile]} B "
                                                                  "work requests (SymbioticLab/Justitia pacer.c), 32 outstanding")))
        ee = c.seeded(("ee-justitia", profile), ELEPHANT_SEEDS)
        tot = med([sum(r["bw_Gbps"] for r in rs) for rs in ee])
        rows.append(row("C1" if profile == "cx3-fdr" else "C7",
                        f"mitigation, {profile}: WRITE 1 MB vs 1 GB, both split and paced, bandwidth ratio (total {tot:.1f} Gb/s)",
                        "n/a", Samples(ratio(rs) for rs in ee), "x", Every(Between(1.0, FAIR_RATIO)),
                        kind="sensitivity", basis=_justitia_basis(f"splits both elephants into 256 KiB work requests and paces "
                                                                  f"each to {PACE_GBPS[profile]:g} Gb/s (a chosen rate, about half the link)")))
    for op in ("GET", "PUT"):
        b = [r["lat_median_us"] for r in kv["cx4-edr"][(op, MB)]]
        j = [r["lat_median_us"] for r in kv_runs(c, ("C8-justitia", "cx4-edr", op, MB))]
        rows.append(row("C8", f"mitigation, cx4-edr: HERD {op} median beside a 1 MB elephant, unsplit / split into "
                        f"{JUSTITIA_SPLIT['cx4-edr']} B WRs ({same_over_seeds(b, j)})", "n/a", (med(b), med(j)), "us",
                        Claim("split below unsplit", lambda v: v[1] < v[0]),
                        kind="sensitivity", basis=_justitia_basis(f"splits the elephant into Justitia's {JUSTITIA_SPLIT['cx4-edr']} B "
                                                                  "work requests, 32 outstanding")))
    return rows


def check_env() -> None:
    """Reads the variables and validates a mouse and a HERD case on each profile with them, so a
    value the core rejects (a HERD window beyond its bound, a tick rate below 1 Hz) is named
    before any case runs, as the variable and not as a key of a generated scenario. Only a
    check: the settings are as before when it returns (``run`` applies them)."""
    saved = settings.saved()
    try:
        settings.from_env()
        _validate_cases()
    finally:
        settings.restore(saved)


def _validate_cases() -> None:
    for profile in PROFILES:
        for spec in (mouse_case(profile, 10, (GB, "event"), per_seed(settings.MOUSE_MESSAGES)),
                     kv_case(profile, 1.0, GB, per_seed(settings.KV_REQUESTS))):
            try:
                validate(spec)
            except ScenarioError as e:
                given = ", ".join(f"{v}={os.environ[v]!r}" for v in ENV_VARS if v in os.environ)
                raise EnvVarError(f"environment: {given or 'no RDMASIM_ISOLATION_* variable set'}: "
                                  f"the isolation cases they make are rejected: key `{getattr(e, 'key', '')}`: "
                                  f"{getattr(e, 'message', str(e))}") from None


def _medians(per_seed_: Dict[str, Dict[Any, List[float]]]) -> Dict[str, Dict[Any, float]]:
    return {p: {k: med(v) for k, v in d.items()} for p, d in per_seed_.items()}


def run(progress: bool = False, executor: Optional[Executor] = None) -> List[Dict[str, Any]]:
    settings.from_env()
    _validate_cases()
    own = executor is None and os.environ.get("RDMASIM_ISOLATION_SERIAL") is None
    ex = ProcessPoolExecutor(max_workers=os.cpu_count() or 2) if own else executor
    try:
        c = Cases(ex)
        submit_all(c)
        if progress:
            c.wait_with_progress()
        matrices = {p: c1_matrix(c, p) for p in PROFILES}
        curves = {p: c2_curves(c, p) for p in PROFILES}
        cpu = {p: c4_cpu(c, p) for p in PROFILES}
        periods = {p: c4_periods(c, p) for p in PROFILES}
        kv = kv_all(c)
        from ._isolation_other_profile import other_profile_rows

        rows = (c1_rows(matrices) + c2_c3_rows(curves) + c4_rows(cpu, periods) + c5_rows(c) + c6_c7_rows(c) + c8_rows(kv)
                + justitia_rows(c, kv) + other_profile_rows(matrices, curves, cpu, kv, periods))
        out = Path(os.environ.get("RDMASIM_PLOTS", "out/isolation"))
        from ._isolation_plots import plot_all

        plot_all(out, _medians(matrices), _medians(curves), _medians(cpu), c, {p: kv_medians(d) for p, d in kv.items()})
    finally:
        if own and ex is not None:
            ex.shutdown()
    return rows
