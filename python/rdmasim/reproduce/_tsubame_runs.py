"""The TSUBAME2.0 sweeps (seeds/004) as flow-level rounds: one request per routing configuration
to ``rdmasim._core.flow_rounds`` (crates/rdmasim-core/src/flow/rounds.rs), which generates the
tsubame2 fabric, plants the bad links, routes it once and runs every case's rounds.

A configuration is a routing strategy of the study's Table 2 with the bad links kept or
disabled. Its case kinds: ``random-pair`` and ``alltoall`` as MVAPICH2 stripes (evenly), and
``rate-pair``, the random-pair round with each pair's payload split over its rails by their
rates (``striping = "rate"``, flow/rail_share.rs): the sensitivity of ``_tsubame_rate.py``. Every figure comes from these runs; nothing here is a published number.
"""
from __future__ import annotations

import json
import os
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from .. import _core

#: Nodes up on the machine and the seed of which 108 of the 1408 are missing (seeds/004 table 1:
#: "1408 (of which 1300 used)"; which were down is not given: ASSUMPTION, seeded).
UP_NODES, MISSING_SEED = 1300, 1
#: The pairing seed, fixed per node count as the study fixed it (ASSUMPTION: its value).
PAIR_SEED = 1
#: Node counts of the random-pair sweep. The study's figures are not in the seed text; it names
#: 40 nodes, 200 and 600 and runs up to 1300 (ASSUMPTION: this grid, dense below 40).
PAIR_NODES = [2, 4, 8, 16, 24, 32, 40, 48, 64, 80, 100, 128, 160, 200] + list(range(250, 1301, 50))
#: Node counts of the Alltoall sweep (ASSUMPTION: every 100 up to 1300).
ALLTOALL_NODES = list(range(100, 1301, 100))
PAIR_BYTES, ALLTOALL_BYTES = 512 << 20, 1 << 20
PAIR_TRIALS, ALLTOALL_TRIALS = 10, 10
#: Bad links per rail (ASSUMPTION: the seed names the kinds, not how many; seeded placement).
BAD_LINKS = {"seed": 1, "degraded": 2, "erroring": 4, "errors_per_s": 300.0}

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
    #: In the study's Table 2 (the others are added to compare the strategies alone).
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
#: The strategies compared with bad links disabled (E4, E6): label -> the study's name.
DISABLED = {"minhop-d": "MinHop", "updn2": "UpDn", "ftree-d": "FatTree", "dfsssp-d": "DFSSSP", "hetero": "hetero"}


def request(cfg: Config, pair_nodes: Sequence[int], alltoall_nodes: Sequence[int],
            rate_nodes: Sequence[int] = ()) -> Dict[str, Any]:
    common = {"up": UP_NODES, "missing_seed": MISSING_SEED, "seed": PAIR_SEED, "rails": 2}
    cases = [dict(common, kind="random-pair", nodes=n, bytes=PAIR_BYTES, trials=PAIR_TRIALS) for n in pair_nodes]
    # The sensitivity's best case is its stall-free time: one trial.
    cases += [dict(common, kind="random-pair", nodes=n, bytes=PAIR_BYTES, trials=1, striping="rate") for n in rate_nodes]
    cases += [dict(common, kind="alltoall", nodes=n, bytes=ALLTOALL_BYTES, trials=ALLTOALL_TRIALS) for n in alltoall_nodes]
    return {
        "generator": {"kind": "tsubame2"},
        "route": cfg.route,
        "roots": SPINES if cfg.roots else [],
        "bad_links": dict(BAD_LINKS, disable=cfg.disable),
        "cases": cases,
    }


def run_request(req: Dict[str, Any]) -> Dict[str, Any]:
    return json.loads(_core.flow_rounds(json.dumps(req)))


@dataclass
class Runs:
    """Each configuration's outcome: ``routed_by``, ``planted``, ``stall_s`` and its cases by
    (kind, nodes)."""
    out: Dict[str, Dict[str, Any]]

    def case(self, label: str, kind: str, nodes: int) -> Dict[str, Any]:
        return self.cases(label, kind)[nodes]

    def cases(self, label: str, kind: str) -> Dict[int, Dict[str, Any]]:
        """Cases of `kind`; ``rate-pair`` is the random-pair round striped by rate."""
        kind, striping = ("random-pair", "rate") if kind == "rate-pair" else (kind, "even")
        return {c["nodes"]: c for c in self.out[label]["cases"] if c["kind"] == kind and c.get("striping", "even") == striping}


def gbps(case: Dict[str, Any], seconds: Optional[float]) -> float:
    """A rank's payload over `seconds`, GB/s (10^9 B/s, as the study's GB/s)."""
    if seconds is None or seconds <= 0:
        return float("nan")
    return case["payload_bytes"] / seconds / 1e9


def executor() -> Executor:
    return ProcessPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))


def run_all(needs: Dict[str, Sequence[str]], progress: bool = False,
            pair_nodes: Sequence[int] = PAIR_NODES, alltoall_nodes: Sequence[int] = ALLTOALL_NODES) -> Runs:
    """Runs each configuration of `needs` (label -> the case kinds it needs) in a process pool."""
    reqs = {label: request(CONFIGS[label], pair_nodes if "random-pair" in kinds else [],
                           alltoall_nodes if "alltoall" in kinds else [], pair_nodes if "rate-pair" in kinds else [])
            for label, kinds in needs.items()}
    # The Alltoall configurations are the long ones: submit them first.
    order = sorted(reqs, key=lambda k: -len(reqs[k]["cases"]) - 100 * ("alltoall" in needs[k]))
    with executor() as ex:
        futs = {label: ex.submit(run_request, reqs[label]) for label in order}
        if progress:
            from concurrent.futures import as_completed

            from tqdm import tqdm

            for _ in tqdm(as_completed(list(futs.values())), total=len(futs), desc="tsubame configurations", unit="cfg"):
                pass
        return Runs({label: f.result() for label, f in futs.items()})
