"""E2 and E3 from the same faults (#34 item 3): the erroring links flap in time, and the UpDn
trials of both the random-pair round (E2's trials below 500 MB/s) and the Alltoall (E3's
outliers) run again under every plan of ``_tsubame_flap_plans`` (rate x down time, the rounds
unchanged), in two families: the flaps alone (rows E2f, E3f, E23f) and the flaps beside the
symbol errors' tail stalls that E2 and E3 already have (E2fs, E3fs, E23fs). A flap stalls exactly the flows crossing the link while it is down; one that
outlasts a flow's last packet costs whole 4.29 s ACK timeouts (flow/link_outages.rs), the same
in both collectives, so their slow trials should rise together with the rate.

Rows are sensitivities: the rate and down time are unknown inputs, reported as ranges over the
sweep and the seed sets, never picked.
"""
from __future__ import annotations

import statistics
from typing import Any, Callable, Dict, List, Sequence

from . import row
from ._checks import AtLeast, AtMost, Between, Most, Samples
from ._ranks import spearman
from ._tsubame_flap_plans import FAMILIES, FLAP_DOWN_S, FLAP_RATES, index, plans
from ._tsubame_runs import LARGE, OUTLIER_FACTOR, SLOW_GBPS, Runs, gbps, outliers
BASIS = ("how often an erroring link flaps and how long it stays down are not published (docs/sources/issue34.md §9): swept over "
         f"{', '.join(f'{r:g}' for r in FLAP_RATES)} flaps/s per erroring cable x {', '.join(f'{d:g}' for d in FLAP_DOWN_S)} s down")


def _sweep_trials(c: Dict[str, Any], plan: int) -> List[float]:
    return c["sweep"][plan]["trial_s"]


def slow_trials(r: Runs, plan: int, sel: Callable[[int], bool]) -> int:
    """UpDn random-pair trials below 500 MB/s under `plan`, at the node counts `sel` keeps."""
    return sum(1 for n, c in r.cases("updn", "random-pair").items() if sel(n)
               for t in _sweep_trials(c, plan) if gbps(c, t) < SLOW_GBPS)


def outlier_trials(r: Runs, plan: int, sel: Callable[[int], bool]) -> int:
    """UpDn Alltoall trials at least twice their case's median trial under `plan`."""
    return sum(outliers(_sweep_trials(c, plan)) for n, c in r.cases("updn", "alltoall").items() if sel(n))


def together(r: Runs, tail_loss: bool = False) -> float:
    """Rank correlation over a family's plans of E2's slow trials and E3's outliers beyond 600
    nodes."""
    big = lambda n: n > LARGE  # noqa: E731
    at = [index(tail_loss, i) for i in range(len(plans()))]
    return spearman([slow_trials(r, k, big) for k in at], [outlier_trials(r, k, big) for k in at])


#: Row ids and what each family is.
FAMILY_IDS = {False: ("E2f", "E3f", "E23f", "the erroring links flapping, their symbol errors' tail stalls left out"),
              True: ("E2fs", "E3fs", "E23fs", "the erroring links flapping beside their symbol errors' tail stalls (E2, E3)")}


def flap_rows(runs: Sequence[Runs]) -> List[Dict[str, Any]]:
    return [r for family in FAMILIES for r in family_rows(runs, family)]


def family_rows(runs: Sequence[Runs], tail_loss: bool) -> List[Dict[str, Any]]:
    ps = plans(tail_loss)
    at = [index(tail_loss, i) for i in range(len(ps))]
    e2, e3, e23, what = FAMILY_IDS[tail_loss]
    small, big = (lambda n: n <= LARGE), (lambda n: n > LARGE)

    def per_plan(fn: Callable[[Runs, int], int]) -> str:
        return ", ".join(f"{p['flaps_per_s']:g}/s x {p['flap_down_s']:g} s: {statistics.median(fn(r, k) for r in runs):g}"
                         for k, p in zip(at, ps))

    def holds(r: Runs, k: int) -> bool:
        """E2's and E3's claims together: none at <= 600 nodes, some beyond, in both."""
        return (slow_trials(r, k, small) == 0 and slow_trials(r, k, big) > 0
                and outlier_trials(r, k, small) == 0 and outlier_trials(r, k, big) > 0)

    majority = len(runs) // 2 + 1
    both = [p for k, p in zip(at, ps) if sum(holds(r, k) for r in runs) >= majority]
    both_txt = ", ".join(f"{p['flaps_per_s']:g}/s x {p['flap_down_s']:g} s" for p in both) or "none"
    kw = dict(kind="sensitivity", basis=BASIS)
    every = lambda fn: Samples(fn(r, k) for r in runs for k in at)  # noqa: E731
    return [
        row(e2, f"{what}: UpDn random-pair trials below 500 MB/s at <= {LARGE} nodes over the sweep x seed sets (median "
            f"per plan: {per_plan(lambda r, k: slow_trials(r, k, small))})", "none",
            every(lambda r, k: slow_trials(r, k, small)), "trials", Most(AtMost(0)), **kw),
        row(e2, f"{what}: trials below 500 MB/s beyond {LARGE} nodes (median per plan: "
            f"{per_plan(lambda r, k: slow_trials(r, k, big))})", f"appear beyond {LARGE}",
            every(lambda r, k: slow_trials(r, k, big)), "trials", Most(AtLeast(1)), **kw),
        row(e3, f"{what}: UpDn Alltoall outliers (>= {OUTLIER_FACTOR:g}x the case's median) beyond {LARGE} nodes (median "
            f"per plan: {per_plan(lambda r, k: outlier_trials(r, k, big))}; at <= {LARGE}: "
            f"{per_plan(lambda r, k: outlier_trials(r, k, small))})", f"appear beyond {LARGE}",
            every(lambda r, k: outlier_trials(r, k, big)), "trials", Most(AtLeast(1)), **kw),
        row(e23, f"{what}: E2's slow trials and E3's outliers beyond {LARGE} nodes move together over the plans: rank "
            "correlation per seed set", "from the same bad links", Samples(together(r, tail_loss) for r in runs), "rho",
            Most(Between(0.5, 1.0)), **kw),
        row(e23, f"{what}: plans where E2's and E3's claims hold together for most seed sets (none at <= {LARGE} nodes, "
            f"some beyond, in both): {both_txt}", "some plausible plan", len(both), f"of {len(ps)} plans", AtLeast(1), **kw),
    ]
