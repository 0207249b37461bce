"""The TSUBAME2.0 sweeps (seeds/004) as flow-level rounds: one request per routing configuration
and seed set to ``rdmasim._core.flow_rounds`` (crates/rdmasim-core/src/apps/rounds.rs), which
generates the tsubame2 fabric, plants the bad links, routes it once and runs every case's rounds.

A configuration is a routing strategy with the bad links kept or disabled: the study's Table 2
(minhop, updn, ftree kept; hetero, updn2 disabled) and, for the sensitivity E4d only, minhop,
ftree and dfsssp with them disabled. Its case kinds: ``random-pair`` and ``alltoall`` as MVAPICH2
stripes (evenly), and ``rate-pair``, the random-pair round with each pair's payload split over
its rails by their rates (``striping = "rate"``, flow/rail_share.rs): the sensitivity of
``_tsubame_rate.py``.

A seed set fixes the three draws the study does not give: which 108 nodes are down, the random
pairing (fixed per node count, as the study fixed it) and where the bad links are. Every row
runs over :data:`SEEDS` (each set varies all three) and reports the median and range. Every
figure comes from these runs; nothing here is a published number.
"""
from __future__ import annotations

import json
import os
import statistics
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import _core
from ._tsubame_flap_plans import all_plans as flap_plans

#: Nodes up on the machine: seeds/004 table 1, "1408 (of which 1300 used)"; which were down is
#: not given (ASSUMPTION: drawn from the seed set's missing-node seed).
UP_NODES = 1300
#: The seed sets: set k draws the missing nodes with seed k, the pairing (the same for every
#: node count, as the study fixed its pseudo-random seed) with seed k and the bad links'
#: placement with seed k. ASSUMPTION: five sets; the study ran one unknown draw of each.
SEEDS: Tuple[int, ...] = (1, 2, 3, 4, 5)
#: Node counts of the random-pair sweep. The study's figures are not in the seed text; it names
#: 40 nodes, 200 and 600 and runs up to 1300 (ASSUMPTION: this grid, dense below 40).
PAIR_NODES = [2, 4, 8, 16, 24, 32, 40, 48, 64, 80, 100, 128, 160, 200] + list(range(250, 1301, 50))
#: Node counts of the Alltoall sweep (ASSUMPTION: every 100 up to 1300).
ALLTOALL_NODES = list(range(100, 1301, 100))
#: "Beyond 600 nodes" (seeds/004 §2.1, §2.2, §4).
LARGE = 600
#: E2's cut: a random-pair trial below 500 MB/s (seeds/004 §2.1, targets.md E).
PUB_OUTLIER_MBPS = 500.0
SLOW_GBPS = PUB_OUTLIER_MBPS / 1000
#: An Alltoall trial is an outlier when it takes at least twice its case's median trial, the
#: "usual" time a reader of the study's figure 2 sees (the study: "several times the usual
#: time"; ASSUMPTION: twice as the cut, the median as the usual time).
OUTLIER_FACTOR = 2.0
PAIR_BYTES, ALLTOALL_BYTES = 512 << 20, 1 << 20
#: How the Alltoall is run: rank by rank, each rank on to its next step when its own exchange is
#: through (MVAPICH2's pairwise exchange has no barrier between steps), each transfer at its
#: step's rate; a trial's stalls lengthen the transfers they hit (:func:`trial_times`). The
#: lockstep times (``fluid_s``, ``trial_s``: every step ended by its slowest flow) stay in each
#: case for the sensitivity E6l and the flap plans.
ALLTOALL_SCHEDULE = "step-rates"
PAIR_TRIALS, ALLTOALL_TRIALS = 10, 10
#: Bad links per rail (ASSUMPTION: the seed names the kinds, not how many; placement from the
#: seed set's bad-link seed).
BAD_LINKS = {"degraded": 2, "erroring": 4, "errors_per_s": 300.0}

#: ftree needs the directors' spine chips as roots on this fabric (docs/routing.md sec. 4:
#: without them OpenSM's ftree gives up, ERR AB0A, and minhop routes). ASSUMPTION: the study's
#: operators gave OpenSM a root GUID file.
SPINES = [f"r{r}-L2-core{c}-spine{s}" for r in range(2) for c in range(6) for s in range(18)]


@dataclass(frozen=True)
class Config:
    label: str
    route: str
    roots: bool
    disable: bool
    #: In the study's Table 2 (the others serve the sensitivity E4d only).
    in_study: bool = True


CONFIGS = {c.label: c for c in [
    Config("minhop", "minhop", False, False),
    Config("updn", "updn", False, False),
    Config("ftree", "ftree", True, False),
    Config("hetero", "ftree,dfsssp", True, True),
    Config("updn2", "updn", False, True),
    Config("minhop-d", "minhop", False, True, False),
    Config("ftree-d", "ftree", True, True, False),
    Config("dfsssp-d", "dfsssp", False, True, False),
]}
#: The study's Table 2 (E4, E5, E6): label -> its name in the rows.
TABLE2 = {"minhop": "MinHop", "updn": "UpDn", "ftree": "FatTree", "updn2": "UpDn2", "hetero": "hetero"}
#: The sensitivity E4d: every strategy with the bad links disabled (not what the study ran).
DISABLED = {"minhop-d": "MinHop", "updn2": "UpDn", "ftree-d": "FatTree", "dfsssp-d": "DFSSSP", "hetero": "hetero"}


def request(cfg: Config, seed: int, pair_nodes: Sequence[int], alltoall_nodes: Sequence[int],
            rate_nodes: Sequence[int] = ()) -> Dict[str, Any]:
    common = {"up": UP_NODES, "missing_seed": seed, "seed": seed, "rails": 2}
    cases = [dict(common, kind="random-pair", nodes=n, bytes=PAIR_BYTES, trials=PAIR_TRIALS) for n in pair_nodes]
    # The sensitivity's best case is its stall-free time: one trial.
    cases += [dict(common, kind="random-pair", nodes=n, bytes=PAIR_BYTES, trials=1, striping="rate") for n in rate_nodes]
    # The Alltoall also rank by rank (E3, E5, E6): each transfer at its step's rate, the model
    # the 1300-node sweep affords (flow/rank_by_rank_steps.rs).
    cases += [dict(common, kind="alltoall", nodes=n, bytes=ALLTOALL_BYTES, trials=ALLTOALL_TRIALS,
                   rank_by_rank=ALLTOALL_SCHEDULE) for n in alltoall_nodes]
    return {
        "generator": {"kind": "tsubame2"},
        "route": cfg.route,
        "roots": SPINES if cfg.roots else [],
        "bad_links": dict(BAD_LINKS, seed=seed, disable=cfg.disable),
        # E2 and E3 from the erroring links' flaps (_tsubame_flaps.py): UpDn's trials again
        # under each plan, from the same rounds.
        "link_event_sweep": flap_plans() if cfg.label == "updn" else [],
        "cases": cases,
    }


def run_request(req: Dict[str, Any]) -> Dict[str, Any]:
    return json.loads(_core.flow_rounds(json.dumps(req)))


@dataclass
class Runs:
    """One seed set's outcome per configuration: ``routed_by``, ``planted``, ``stall_s`` and its
    cases by (kind, nodes)."""
    seed: int
    out: Dict[str, Dict[str, Any]]

    def case(self, label: str, kind: str, nodes: int) -> Dict[str, Any]:
        return self.cases(label, kind)[nodes]

    def cases(self, label: str, kind: str) -> Dict[int, Dict[str, Any]]:
        """Cases of `kind`; ``rate-pair`` is the random-pair round striped by rate."""
        if label not in self.out:
            return {}
        kind, striping = ("random-pair", "rate") if kind == "rate-pair" else (kind, "even")
        return {c["nodes"]: c for c in self.out[label]["cases"] if c["kind"] == kind and c.get("striping", "even") == striping}


def gbps(case: Dict[str, Any], seconds: Optional[float]) -> float:
    """A rank's payload over `seconds`, GB/s (10^9 B/s, as the study's GB/s)."""
    if seconds is None or seconds <= 0:
        return float("nan")
    return case["payload_bytes"] / seconds / 1e9


def alltoall_s(case: Dict[str, Any]) -> float:
    """An Alltoall case's stall-free time rank by rank, seconds."""
    return case["rank_by_rank"]["s"]


def lockstep_s(case: Dict[str, Any]) -> float:
    """An Alltoall case's stall-free time with every step ended by its slowest flow, seconds."""
    return case["fluid_s"]


def trial_times(case: Dict[str, Any]) -> List[float]:
    """A case's trials, seconds: an Alltoall's rank by rank (the lockstep trials' stalls on the
    transfers they hit), a random-pair round's as run."""
    rbr = case.get("rank_by_rank")
    return rbr["trial_s"] if rbr and "trial_s" in rbr else case["trial_s"]


def rate_large_nodes(pair_nodes: Sequence[int] = PAIR_NODES) -> List[int]:
    """The node counts beyond :data:`LARGE` at which the sensitivity (E1s, E4s) stripes by rate:
    every other one of the sweep's (a rate-striped round is an event loop over its pairs, the
    study's costliest case after the Alltoall)."""
    return [n for n in pair_nodes if n > LARGE][::2]


def executor() -> Executor:
    return ProcessPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))


def _cost(req: Dict[str, Any]) -> float:
    """Rough relative cost of a request, to submit the long ones first: an Alltoall case of n
    nodes runs n - 1 rounds of n flows; a rate-striped round is an event loop over its pairs."""
    cost = 0.0
    for c in req["cases"]:
        n = c["nodes"]
        cost += n * n if c["kind"] == "alltoall" else (30 * n if c.get("striping") == "rate" else n)
    return cost


def run_all(needs: Dict[str, Sequence[str]], progress: bool = False, pair_nodes: Sequence[int] = PAIR_NODES,
            alltoall_nodes: Sequence[int] = ALLTOALL_NODES, seeds: Sequence[int] = SEEDS) -> List[Runs]:
    """Runs each configuration of `needs` (label -> the case kinds it needs) for every seed set,
    in a process pool; one :class:`Runs` per seed set, in the order of `seeds`."""
    done = run_requests(requests(needs, pair_nodes, alltoall_nodes, seeds), progress)
    return [Runs(s, {label: done[(label, s)] for label in needs}) for s in seeds]


def requests(needs: Dict[str, Sequence[str]], pair_nodes: Sequence[int] = PAIR_NODES,
             alltoall_nodes: Sequence[int] = ALLTOALL_NODES, seeds: Sequence[int] = SEEDS) -> Dict[Tuple[str, int], Dict[str, Any]]:
    """The request of each configuration of `needs` for every seed set, by (label, seed).

    Kinds: ``random-pair``, ``alltoall``, ``rate-pair`` (rate striping at every node count of
    the sweep up to :data:`LARGE`, then at those of :func:`rate_large_nodes`) and ``rate-large``
    (rate striping at the counts of :func:`rate_large_nodes` only)."""
    def rate_nodes(kinds: Sequence[str]) -> List[int]:
        if "rate-pair" in kinds:
            return [n for n in pair_nodes if n <= LARGE] + rate_large_nodes(pair_nodes)
        return rate_large_nodes(pair_nodes) if "rate-large" in kinds else []

    return {(label, s): request(CONFIGS[label], s, pair_nodes if "random-pair" in kinds else [],
                                alltoall_nodes if "alltoall" in kinds else [], rate_nodes(kinds))
            for s in seeds for label, kinds in needs.items()}


def run_requests(reqs: Dict[Any, Dict[str, Any]], progress: bool = False) -> Dict[Any, Dict[str, Any]]:
    """Every request of `reqs` in one process pool, the costliest first; the outcomes by key."""
    order = sorted(reqs, key=lambda k: -_cost(reqs[k]))
    with executor() as ex:
        futs = {key: ex.submit(run_request, reqs[key]) for key in order}
        if progress:
            from concurrent.futures import as_completed

            from tqdm import tqdm

            for _ in tqdm(as_completed(list(futs.values())), total=len(futs), desc="tsubame configurations x seeds", unit="run"):
                pass
        return {key: f.result() for key, f in futs.items()}


def outliers(trial_s: Sequence[float]) -> int:
    """The trials of one case that take at least :data:`OUTLIER_FACTOR` times its median trial."""
    usual = statistics.median(trial_s)
    return sum(1 for t in trial_s if t >= OUTLIER_FACTOR * usual)
