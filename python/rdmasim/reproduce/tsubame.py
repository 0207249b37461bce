"""Multi-rail InfiniBand on TSUBAME2.0 (Nomura, Endo, Matsuoka; seeds/004): E1-E6 at flow level.

The tsubame2 fabric (1408 hosts, two 4x QDR rails, 16 hosts per 36-port edge, six 324-port
directors per rail built of 36-port chips), 1300 nodes up (108 missing), one process per node,
ranks in node order; each routing configuration of the study's Table 2 (MinHop, UpDn, FatTree
with the bad links kept; hetero and UpDn2 with them disabled) routes both rails once per seed
set and every round runs on it at flow level (max-min fair rates: ``flow/round_time.rs``).

Every row runs over the seed sets of ``_tsubame_runs.SEEDS`` (missing nodes, pairing and bad
links' placement drawn anew in each), every reproduced row also over the cabling families of
``_tsubame_families`` (a published figure must hold in some family, a claim in every one), and
shows the median and range; a check says what holds for most seed sets (``Most``), or, for a
claim with no published figure, counts the seed sets where it holds ("true for most seed sets").

- E1: random-pair MPI_Sendrecv of 512 MiB over UpDn (TSUBAME's production routing, seeds/004
  §3.1), bad links in place: the slowest pair's injection bandwidth per node count; its steps,
  in order with node count.
- E2: the same trials: trials below 500 MB/s none up to 600 nodes, then appearing and growing.
- E3: MPI_Alltoall of 1 MiB per pair (pairwise exchange): outliers (at least twice the case's
  median trial) beyond 600 nodes, their size among all trials there, bandwidth vs nodes.
- E4: mean minimum injection bandwidth beyond 600 nodes per Table 2 configuration: hetero's gain.
- E5: the bad links' mechanisms, the kept side: a 10 Gb/s link caps the pairs routed over it; a
  corrupted tail packet or final ACK costs a local ACK timeout (4.3 s, ``flow/tail_loss.rs``).
- E6: Alltoall bandwidth beyond 600 nodes per Table 2 configuration, the Alltoall run rank by rank
  (each rank on to its next step when its own exchange is through). E6l (sensitivity): the same
  with every step ended by a barrier, the lockstep model.
- E1s, E4s (sensitivity, ``SENS`` below): E1's steps and E4's gains if a pair's two rails
  added their rates (``striping = "rate"``), which MVAPICH2 does not do by default. E4d
  (sensitivity): hetero against every strategy with the bad links disabled.
- E2f, E3f, E23f (sensitivity, part ``flaps``, ``_tsubame_flaps.py``): E2 and E3 again with the
  erroring links flapping in time, over a sweep of rates and down times: do they move together.

Parts: ``rdmasim reproduce tsubame:e1`` ... ``tsubame:e6``, ``tsubame:flaps``. Plots go to ``$RDMASIM_PLOTS/tsubame``
(default ``out/tsubame``). docs/tsubame.md explains every row and gap.
"""
from __future__ import annotations

import math
import os
import statistics
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import row
from ._checks import AtMost, Between, Claim, Check, Most, Near, Samples, Within
from ._ranks import spearman
from ._tsubame_families import FAMILIES, FAMILY_SEEDS, rows_over_families
from ._tsubame_flaps import flap_rows
from ._tsubame_runs import (ALLTOALL_NODES, BAD_LINKS, CONFIGS, DISABLED, LARGE, OUTLIER_FACTOR, PAIR_NODES,
                            PUB_OUTLIER_MBPS, SEEDS, SLOW_GBPS, TABLE2, Runs, alltoall_s, gbps, lockstep_s, outliers,
                            trial_times)

TITLE = "TSUBAME2.0 multi-rail fat tree (seeds/004): injection bandwidth steps, routing strategies, bad links, Alltoall"
ORDER = 40
PARTS = ("e1", "e2", "e3", "e4", "e5", "e6", "flaps")

#: Published (seeds/004 §2.1, §4; targets.md E).
PUB_FLAT, PUB_FLAT_NODES = 7.5, 40
PUB_STEPS = (5.2, 3.9, 3.1, 2.6)
STEP_TOL = 0.10
PUB_GAIN = (16.0, 39.5)
GAIN_TOL = 5.0
PUB_A2A, A2A_TOL = 1.74, 0.15
PUB_A2A_RATIO = 0.5
#: Two simulated bandwidths closer than this (relative) are one level of E1's staircase.
LEVEL_SAME = 0.02
#: "Several times" (数倍) read as 2 to 10 times (ASSUMPTION).
SEVERAL = (2.0, 10.0)
#: "Falls with nodes" / "grows with nodes": a rank correlation with the node count of at least
#: 0.5 in size (ASSUMPTION), per seed set.
TREND = 0.5
#: "No difference between strategies" read as: the smallest mean within 15 % of the largest
#: (E6's tolerance).
SAME_TOL = 0.15
#: E5c: "trials below 500 MB/s appear and grow" read as one stalled trial in ten to one stall
#: per trial on average at the largest node count (ASSUMPTION: the seed gives no frequency).
STALLS_PER_TRIAL = (0.1, 1.0)

_T2 = tuple(TABLE2)
#: What each part needs: configuration -> case kinds (``_tsubame_runs.run_all``).
NEEDS: Dict[str, Dict[str, Tuple[str, ...]]] = {
    "e1": {"updn": ("random-pair", "rate-pair")},
    "e2": {"updn": ("random-pair",)},
    "e3": {"updn": ("alltoall",)},
    "e4": dict({label: ("random-pair", "rate-large") for label in _T2},
               **{label: ("random-pair",) for label in DISABLED if label not in TABLE2}),
    "e5": dict({label: ("alltoall",) for label in _T2}, updn=("random-pair", "alltoall"), updn2=("random-pair", "alltoall")),
    "e6": dict({label: ("alltoall",) for label in _T2}, hetero=("random-pair", "alltoall")),
    "flaps": {"updn": ("random-pair", "alltoall")},
}


def out_dir() -> Path:
    base = os.environ.get("RDMASIM_PLOTS")
    return (Path(base) if base else Path("out")) / "tsubame"


# ---- helpers -----------------------------------------------------------------------------------
def best_bw(r: Runs, label: str, kind: str = "random-pair") -> Dict[int, float]:
    """The best trial's minimum injection bandwidth per node count (GB/s): the stall-free one."""
    return {n: gbps(c, c["fluid_s"]) for n, c in sorted(r.cases(label, kind).items())}


def trial_bws(r: Runs, label: str, kind: str = "random-pair") -> Dict[int, List[float]]:
    return {n: [gbps(c, t) for t in trial_times(c)] for n, c in sorted(r.cases(label, kind).items())}


def mean(v: Sequence[float]) -> float:
    v = [x for x in v if not math.isnan(x)]
    return sum(v) / len(v) if v else float("nan")


def large_mean(bws: Dict[int, float]) -> float:
    return mean([v for n, v in bws.items() if n > LARGE])


def large_trial_mean(r: Runs, label: str) -> float:
    """Mean minimum injection bandwidth over every trial beyond 600 nodes (the study's "mean of
    the worst injection bandwidth", stalled trials included)."""
    return mean([v for n, vs in trial_bws(r, label).items() if n > LARGE for v in vs])


def over(runs: Sequence[Runs], fn: Callable[[Runs], float]) -> Samples:
    return Samples(fn(r) for r in runs)


def most_seeds(n: int) -> Check:
    """For a claim the seed states without a figure: the number of seed sets (of `n`) where it
    holds must be a majority."""
    k = n // 2 + 1
    return Claim(f"true for most of the {n} seed sets (>= {k})", lambda v: v >= k)


def seeds_holding(runs: Sequence[Runs], fn: Callable[[Runs], bool]) -> int:
    return sum(1 for r in runs if fn(r))


def per_seed(runs: Sequence[Runs], fn: Callable[[Runs], Any]) -> str:
    """`fn` of each seed set, as "s1: ...; s2: ..."."""
    return seed_list(runs, [fn(r) for r in runs])


def seed_list(runs: Sequence[Runs], vals: Sequence[Any]) -> str:
    return "; ".join(f"s{r.seed}: {v}" for r, v in zip(runs, vals))


def _f(v: float) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


def med(vals: Sequence[float]) -> float:
    v = [x for x in vals if not math.isnan(x)]
    return statistics.median(v) if v else float("nan")


# ---- E1 ----------------------------------------------------------------------------------------
def staircase(bws: Dict[int, float]) -> List[float]:
    """The levels of the best-case curve beyond the flat part, in the order node count first
    reaches them: every level at or above the floor (the last published step less its tolerance)
    and below the flat level (7.5 less its tolerance), a new one when it differs by more than
    :data:`LEVEL_SAME` from each seen before. The published staircase is 5.2, 3.9, 3.1, 2.6: a
    level in between, a missing one or one out of order moves every later step."""
    floor, flat = PUB_STEPS[-1] * (1 - STEP_TOL), PUB_FLAT * (1 - STEP_TOL)
    lv: List[float] = []
    for n, v in sorted(bws.items()):
        if n <= PUB_FLAT_NODES or math.isnan(v) or not floor <= v < flat:
            continue
        if all(abs(v / x - 1) > LEVEL_SAME for x in lv):
            lv.append(v)
    return lv


def e1_family(runs: Sequence[Runs], rid: str, kind: str, pre: str, rkind: str = "reproduced",
              basis: Optional[str] = None) -> List[Dict[str, Any]]:
    """E1's rows (flat part, the four steps in order, the floor beyond 1000 nodes) over seed sets
    for `kind` (``random-pair`` evenly striped, or ``rate-pair``)."""
    bws = [best_bw(r, "updn", kind) for r in runs]
    kw = dict(kind=rkind, basis=basis)
    flat = Samples(min([v for n, v in b.items() if n <= PUB_FLAT_NODES] or [float("nan")]) for b in bws)
    shown = ", ".join(f"{n}: {_f(med([b.get(n, float('nan')) for b in bws]))}" for n in PAIR_NODES if n <= PUB_FLAT_NODES
                      and any(n in b for b in bws))
    rows = [row(rid, f"{pre}: lowest best-case minimum injection bandwidth at <= {PUB_FLAT_NODES} nodes (median per count: "
                f"{shown}); a pair alone on its links goes at both rails' 4x QDR payload rate (2 x 3.95 GB/s at 2 KiB MTU)",
                PUB_FLAT, flat, "GB/s", Most(Within(PUB_FLAT, STEP_TOL)), **kw)]
    stairs = [staircase(b) for b in bws]
    steps_txt = seed_list(runs, [", ".join(_f(v) for v in s) or "none" for s in stairs])
    for k, step in enumerate(PUB_STEPS):
        v = Samples(s[k] if len(s) > k else float("nan") for s in stairs)
        why = (f"levels >= {PUB_STEPS[-1] * (1 - STEP_TOL):.2f} and < {PUB_FLAT * (1 - STEP_TOL):.2f} GB/s beyond "
               f"{PUB_FLAT_NODES} nodes in the order node count reaches them ({steps_txt})") if k == 0 else \
            "the staircase's level at this step's place (row above)"
        rows.append(row(rid, f"{pre}: step {k + 1} of the staircase, published {step} GB/s: {why}", step, v, "GB/s",
                        Most(Within(step, STEP_TOL)), **kw))
    low = Samples(min([v for n, v in b.items() if n > 1000] or [float("nan")]) for b in bws)
    r0 = runs[0]
    big = {n: v for n, v in bws[0].items() if n > 1000}
    low_n = min(big, key=big.get) if big else None
    worst = r0.case("updn", kind, low_n) if low_n else {}
    rows.append(row(rid, f"{pre}: lowest best-case level beyond 1000 nodes (seed set {r0.seed}: at {low_n} nodes the worst link, "
                    f"{worst.get('worst_link')}, carries {worst.get('worst_link_flows')} flows; a degraded 10 Gb/s link has a "
                    "quarter of the rate)", PUB_STEPS[-1], low, "GB/s", Most(Within(PUB_STEPS[-1], STEP_TOL)), **kw))
    return rows


#: The sensitivity rows E1s and E4s: would E1's steps and E4's hetero gain come out if a pair's
#: two rails added their rates? Each pair's payload is split over its rails in proportion to the
#: max-min rate each gives it (``striping = "rate"``, crates/rdmasim-core/src/flow/rail_share.rs),
#: where MVAPICH2 by default splits every chunk evenly (``ibv_rndv.c``) and a pair is as slow as
#: its slower rail. The main rows keep the even split; these put the hypothesis to the same
#: published figures, tolerances and seed sets (docs/tsubame.md, "Sensitivity"). One trial per
#: node count: the sensitivity's best case is its stall-free time; E4s runs the rate split at
#: every other node count beyond 600 nodes only (``_tsubame_runs.rate_large_nodes``).
SENS = "rails add their rates (striping = rate), where MVAPICH2 splits each chunk evenly by default"


def _striped(runs: Sequence[Runs], label: str) -> bool:
    return bool(runs) and all(r.cases(label, "rate-pair") for r in runs)


def e1s_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:
    if not _striped(runs, "updn"):
        return []
    return e1_family(runs, "E1s", "rate-pair", "sensitivity, rails add their rates; UpDn, bad links kept", "sensitivity", SENS)


def e4s_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:
    if not all(_striped(runs, label) for label in TABLE2):
        return []
    # The counts every Table 2 configuration ran striped by rate (UpDn ran every count, for E1s).
    common = set.intersection(*(set(r.cases(label, "rate-pair")) for r in runs for label in TABLE2))

    def large_mean(r: Runs, label: str) -> float:
        return mean([v for n, v in best_bw(r, label, "rate-pair").items() if n > LARGE and n in common])

    return gain_rows("E4s", runs, large_mean, TABLE2,
                     "sensitivity, rails add their rates; Table 2, best case", "sensitivity", SENS)


def e1_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:

    return e1_family(runs, "E1", "random-pair", "random pairs of 512 MiB, UpDn, bad links kept, even striping (a pair is as "
                     "slow as its slower rail: levels 7.9 GB/s / n for n flows on the worst link)") + e1s_rows(runs)


# ---- E2 ----------------------------------------------------------------------------------------
def _below(r: Runs, sel: Callable[[int], bool]) -> int:
    return sum(1 for n, vs in trial_bws(r, "updn").items() if sel(n) for v in vs if v < SLOW_GBPS)


def _growth(r: Runs) -> float:
    tb = {n: vs for n, vs in trial_bws(r, "updn").items() if n > LARGE}
    return spearman(list(tb), [sum(1 for v in vs if v < SLOW_GBPS) for vs in tb.values()])


def e2_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:
    n = len(runs)
    small = Samples(_below(r, lambda k: k <= LARGE) for r in runs)
    appear = seeds_holding(runs, lambda r: _below(r, lambda k: k > LARGE) > 0)
    lows = per_seed(runs, lambda r: _f(min([v for k, vs in trial_bws(r, 'updn').items() if k > LARGE for v in vs] or [float('nan')])))
    counts = per_seed(runs, lambda r: f"{_below(r, lambda k: LARGE < k <= 1000)} / {_below(r, lambda k: k > 1000)}")
    return [
        row("E2", f"UpDn, bad links kept: trials below {PUB_OUTLIER_MBPS:.0f} MB/s at <= {LARGE} nodes", "none", small, "trials",
            Most(AtMost(0))),
        row("E2", f"trials below {PUB_OUTLIER_MBPS:.0f} MB/s appear beyond {LARGE} nodes: seed sets whose lowest trial there is "
            f"below it (lowest, GB/s: {lows}; a stalled round is 512 MiB over the round + 4.3 s, ~0.12 GB/s)",
            f"appear beyond {LARGE}", appear, f"of {n} seed sets", most_seeds(n)),
        row("E2", f"they grow more frequent with nodes: rank correlation of the node count (> {LARGE}) with the trials below "
            f"{PUB_OUTLIER_MBPS:.0f} MB/s at it (counts at {LARGE}-1000 / > 1000 nodes: {counts})", "grow with nodes",
            over(runs, _growth), "rho", Most(Between(TREND, 1.0))),
    ]


# ---- E3 ----------------------------------------------------------------------------------------
def outlier_count(r: Runs, label: str, sel: Callable[[int], bool]) -> int:
    return sum(outliers(trial_times(c)) for n, c in r.cases(label, "alltoall").items() if sel(n))


def outlier_size(r: Runs, label: str = "updn") -> float:
    """The largest trial / its case's median among all trials beyond 600 nodes."""
    ratios = [t / statistics.median(trial_times(c)) for n, c in r.cases(label, "alltoall").items() if n > LARGE
              for t in trial_times(c)]
    return max(ratios) if ratios else float("nan")


def a2a_bw(r: Runs, label: str, time: Callable[[Dict[str, Any]], float] = alltoall_s) -> Dict[int, float]:
    """Stall-free Alltoall bandwidth per node count ((n - 1) MiB per rank / time), rank by rank
    (or lockstep with ``time=lockstep_s``): the study's figures 3 and 10 have the outliers
    removed; the stalls are the model's only outliers."""
    return {n: gbps(c, time(c)) for n, c in sorted(r.cases(label, "alltoall").items())}



def e3_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:
    n = len(runs)
    trials = sum(len(trial_times(c)) for k, c in runs[0].cases("updn", "alltoall").items() if k > LARGE)
    counts = per_seed(runs, lambda r: f"{outlier_count(r, 'updn', lambda k: k > LARGE)}")
    stalled = per_seed(runs, lambda r: sum(1 for k, c in r.cases('updn', 'alltoall').items() if k > LARGE for s in c['stalls'] if s))

    def falls(r: Runs) -> float:
        bw = a2a_bw(r, "updn")
        return spearman(list(bw), list(bw.values()))

    ends = per_seed(runs, lambda r: " -> ".join(_f(v) for v in list(a2a_bw(r, "updn").values())[::max(1, len(a2a_bw(r, 'updn')) - 1)]))
    return [
        row("E3", f"MPI_Alltoall 1 MiB per pair, UpDn, bad links kept: outliers (>= {OUTLIER_FACTOR:g}x the case's median trial) "
            f"at <= {LARGE} nodes", "none", Samples(outlier_count(r, "updn", lambda k: k <= LARGE) for r in runs), "trials",
            Most(AtMost(0))),
        row("E3", f"outliers appear beyond {LARGE} nodes: seed sets with one (outliers of {trials} trials: {counts}; trials with "
            f"a stall: {stalled}; n - 1 steps each expose their tails to the erroring links)", f"appear beyond {LARGE}",
            seeds_holding(runs, lambda r: outlier_count(r, "updn", lambda k: k > LARGE) > 0), f"of {n} seed sets", most_seeds(n)),
        row("E3", f"the outliers' size: the slowest trial / its case's median among all trials beyond {LARGE} nodes "
            "(a 4.3 s local ACK timeout per stall on a run of ~1 s)", "several times", over(runs, outlier_size), "x",
            Most(Between(*SEVERAL))),
        row("E3", f"stall-free Alltoall bandwidth falls with nodes: rank correlation with the node count ({ALLTOALL_NODES[0]} -> "
            f"{ALLTOALL_NODES[-1]} nodes, GB/s: {ends})", "falls with nodes", over(runs, falls), "rho",
            Most(Between(-1.0, -TREND))),
    ]


# ---- E4 ----------------------------------------------------------------------------------------
def gains(means: Dict[str, float]) -> Dict[str, float]:
    het = means["hetero"]
    return {k: 100 * (het / v - 1) for k, v in means.items() if k != "hetero"}


def gain_rows(rid: str, runs: Sequence[Runs], mean_of: Callable[[Runs, str], float], names: Dict[str, str], pre: str,
              rkind: str = "reproduced", basis: Optional[str] = None) -> List[Dict[str, Any]]:
    """hetero's smallest and largest gain over the other configurations of `names`, per seed set."""
    means = [{names[label]: mean_of(r, label) for label in names} for r in runs]
    g = [gains(m) for m in means]
    detail = ", ".join(f"{k} {_f(med([m[k] for m in means]))}" for k in means[0])
    gtxt = ", ".join(f"{k} {med([x[k] for x in g]):+.1f}%" for k in g[0])
    lo = Samples(min(x.values()) for x in g)
    hi = Samples(max(x.values()) for x in g)
    which = seed_list(runs, [f"{min(x, key=x.get)} / {max(x, key=x.get)}" for x in g])
    kw = dict(kind=rkind, basis=basis)
    return [
        row(rid, f"{pre}: mean minimum injection bandwidth beyond {LARGE} nodes (medians: {detail} GB/s); hetero's gain "
            f"(medians: {gtxt}): the smallest (smallest / largest against: {which})", PUB_GAIN[0], lo, "%",
            Most(Near(PUB_GAIN[0], GAIN_TOL)), **kw),
        row(rid, f"{pre}: hetero's largest gain", PUB_GAIN[1], hi, "%", Most(Near(PUB_GAIN[1], GAIN_TOL)), **kw),
    ]


def e4_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:

    rows = gain_rows("E4", runs, large_trial_mean, TABLE2, "Table 2 (MinHop, UpDn, FatTree bad links kept; hetero, UpDn2 "
                     "disabled), every trial (a pair is as slow as its slower rail)")
    if all(label in r.out for r in runs for label in DISABLED):
        rows += gain_rows("E4d", runs, large_trial_mean, DISABLED, "every strategy with the bad links disabled (not what the "
                          "study ran)", "sensitivity", "the study disabled the bad links only for hetero and updn2; here MinHop, "
                          "FatTree and DFSSSP run with them disabled too")
    return rows + e4s_rows(runs)


# ---- E5 ----------------------------------------------------------------------------------------
KEPT = tuple(k for k in TABLE2 if not CONFIGS[k].disable)


def e5_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:
    n = len(runs)
    planted = runs[0].out["updn"]["planted"]
    kinds = ", ".join(sorted({p["kind"] for p in planted}))
    slow = per_seed(runs, lambda r: f"{_f(large_mean(best_bw(r, 'updn')))} / {_f(large_mean(best_bw(r, 'updn2')))}")
    kept_out = per_seed(runs, lambda r: " ".join(f"{TABLE2[k]} {outlier_count(r, k, lambda m: m > LARGE)}" for k in KEPT))
    dis_out = sum(outlier_count(r, k, lambda m: m > LARGE) for r in runs for k in TABLE2 if CONFIGS[k].disable)
    exp = over(runs, lambda r: max([c["expected_stalls"] for m, c in r.cases("updn", "random-pair").items() if m > LARGE] or [float("nan")]))
    stall_s = runs[0].out["updn"]["stall_s"]
    return [
        row("E5", f"UpDn > {LARGE} nodes: mean best minimum injection bandwidth, {len(planted)} bad links ({kinds}; "
            f"{BAD_LINKS['degraded']} degraded + {BAD_LINKS['erroring']} erroring at {BAD_LINKS['errors_per_s']:g}/s per rail) kept "
            f"lower than disabled: seed sets ({slow} GB/s; a 10 Gb/s link carries a quarter of a 4x QDR link's pairs' rate)",
            "degraded links slow the pairs over them",
            seeds_holding(runs, lambda r: large_mean(best_bw(r, "updn")) < large_mean(best_bw(r, "updn2"))),
            f"of {n} seed sets", most_seeds(n)),
        row("E5", f"Alltoall outliers beyond {LARGE} nodes with the bad links kept, whatever the strategy: seed sets where "
            f"MinHop, UpDn and FatTree all have some ({kept_out}). With them disabled: {dis_out} over all seed sets (hetero, "
            "UpDn2), zero by construction (an erroring link is the model's only stall), not checked",
            "observed whatever the strategy; disabling removes nearly all",
            seeds_holding(runs, lambda r: all(outlier_count(r, k, lambda m: m > LARGE) > 0 for k in KEPT)),
            f"of {n} seed sets", most_seeds(n)),
        row("E5", f"random-pair round, UpDn > {LARGE} nodes: stalls a trial expects at the worst node count (tails crossing an "
            f"erroring link x P(hit) = 300/s x 0.52 us per 2 KiB packet; each stall {stall_s:.2f} s). E2's trials below 500 MB/s "
            "need about one in ten trials or more", "trials < 500 MB/s grow with nodes", exp, "stalls/trial",
            Most(Between(*STALLS_PER_TRIAL))),
    ]


# ---- E6 ----------------------------------------------------------------------------------------
def e6_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:
    return _e6(runs, "E6", alltoall_s, "rank by rank") + _e6(runs, "E6l", lockstep_s, "lockstep", LOCKSTEP)


#: What E6l assumes instead of the pairwise exchange's own schedule.
LOCKSTEP = "every step of the pairwise exchange ended by a barrier (its slowest flow), which MVAPICH2 does not do"


def _e6(runs: Sequence[Runs], rid: str, time: Callable[[Dict[str, Any]], float], how: str,
        sensitivity: Optional[str] = None) -> List[Dict[str, Any]]:
    """E6's rows with the Alltoall's stall-free time from `time`; a sensitivity when it names
    its assumption."""
    kw = dict(kind="sensitivity", basis=sensitivity) if sensitivity else {}
    a2a = [{TABLE2[k]: large_mean(a2a_bw(r, k, time)) for k in TABLE2} for r in runs]
    detail = ", ".join(f"{k} {_f(med([m[k] for m in a2a]))}" for k in a2a[0])
    het = Samples(m["hetero"] for m in a2a)
    spread = Samples(min(m.values()) / max(m.values()) for m in a2a)
    ratio = Samples(m["hetero"] / large_trial_mean(r, "hetero") for m, r in zip(a2a, runs))
    return [
        row(rid, f"stall-free Alltoall bandwidth > {LARGE} nodes, {how}, hetero (mean over node counts; medians, Table 2: {detail})",
            PUB_A2A, het, "GB/s", Most(Within(PUB_A2A, A2A_TOL)), **kw),
        row(rid, f"no difference between Table 2's strategies, {how}: smallest / largest of their means (ftree routes each "
            "shift step of the pairwise exchange without a collision, the others do not)", "no difference", spread, "ratio",
            Most(Between(1 - SAME_TOL, 1.0)), **kw),
        row(rid, f"hetero, {how}: Alltoall bandwidth / mean minimum injection bandwidth (> {LARGE} nodes)", f"about {PUB_A2A_RATIO}",
            ratio, "ratio", Most(Within(PUB_A2A_RATIO, A2A_TOL)), **kw),
    ]


ROWS = {"e1": e1_rows, "e2": e2_rows, "e3": e3_rows, "e4": e4_rows, "e5": e5_rows, "e6": e6_rows, "flaps": flap_rows}


def needs_of(parts: Sequence[str]) -> Dict[str, Tuple[str, ...]]:
    need: Dict[str, set] = {}
    for p in parts:
        for label, kinds in NEEDS[p].items():
            need.setdefault(label, set()).update(kinds)
    return {k: tuple(sorted(v)) for k, v in need.items()}


def run(progress: bool = False, part: Optional[str] = None, pair_nodes: Sequence[int] = PAIR_NODES,
        alltoall_nodes: Sequence[int] = ALLTOALL_NODES, seeds: Sequence[int] = SEEDS,
        families: Sequence[str] = tuple(f.name for f in FAMILIES), family_seeds: Sequence[int] = FAMILY_SEEDS) -> List[Dict[str, Any]]:
    """The rows of `part` (default: all), each reproduced one over the cabling `families`
    (``_tsubame_families``; `seeds` on the reference, `family_seeds` on the others) as over the
    seed sets; the sensitivities on the reference only."""
    if part is not None and part not in PARTS:
        raise KeyError(f"unknown part {part!r} of study tsubame, expected one of: {', '.join(PARTS)}")
    parts = PARTS if part is None else (part,)
    rows, runs = rows_over_families(needs_of(parts), [ROWS[p] for p in parts], families, progress, pair_nodes, alltoall_nodes,
                                    seeds, family_seeds)
    from ._tsubame_plots import write_plots

    write_plots(runs, out_dir())
    return rows


__all__ = ["TITLE", "ORDER", "PARTS", "run", "CONFIGS"]
