"""TSUBAME2.0's cabling families: what the public record does not say about the fabric itself
(issue #34 item 1; sources in docs/tsubame.md, "Cabling families"), as guesses the study's rows
run over, as they run over seed sets. The real cabling is not public (no ibnetdiscover dump);
each family sets tsubame2 generator keys (docs/scenario.md) beside the defaults: where an edge's
three cables to a director land among its leaf chips, the I/O nodes that make the rails differ,
the GUIDs and the LID order. None is known to be TSUBAME2.0's, so none is picked: a published
figure is reproduced when some family reaches it (the row names which), a claim when it holds in
every family (``_families.over_families``).

Each family after the reference runs fewer seed sets than the reference (:data:`FAMILY_SEEDS`),
to keep ``rdmasim reproduce tsubame`` within its time budget: the families' runs cost as much
as the reference's each.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Sequence, Tuple

from . import Row
from ._families import over_families
from ._tsubame_runs import ALLTOALL_NODES, PAIR_NODES, SEEDS, SPINES, TABLE2, Runs, requests, run_requests

#: I/O nodes on rail 0 in the family that has them: 20 + 8 QDR links between the InfiniBand
#: network and the storage in TSUBAME2.0's system overview (Sato, Ihara, Matsuoka, LUG/LAD 2014
#: slide 3, as transcribed with its zeros dropped: "QDR IB(x4) x 2[0]", "QDR IB(x4) x 8";
#: medium confidence), read as one I/O HCA per link, all on the rail the seed says differs
#: (ASSUMPTION: the count per rail and where they plug in are not public).
IO_NODES = 28


@dataclass(frozen=True)
class Family:
    """One guess at the fabric's unknowns: tsubame2 generator keys beside the defaults."""
    name: str
    keys: Tuple[Tuple[str, Any], ...] = ()
    #: Shuffle the GUIDs with the seed set's seed: the GUIDs are one more draw per seed set.
    guids_per_seed: bool = False
    #: Give UpDn the spine chips as roots (OpenSM's root detection fails on this cabling).
    updn_roots: bool = False
    why: str = ""

    def generator(self, seed: int) -> Dict[str, Any]:
        gen: Dict[str, Any] = dict({"kind": "tsubame2"}, **dict(self.keys))
        if self.guids_per_seed:
            gen["guid_seed"] = seed
        return gen

    def apply(self, req: Dict[str, Any], seed: int) -> Dict[str, Any]:
        """A flow-rounds request of seed set `seed` (``_tsubame_runs.request``) on this family."""
        roots = SPINES if self.updn_roots and "updn" in req["route"] else req["roots"]
        return dict(req, generator=self.generator(seed), roots=roots)


#: The families, each one step from the generator's defaults (the first, the reference: the
#: fabric every row ran on before the families). ASSUMPTION: these are the plausible ones; none
#: is known to be TSUBAME2.0's.
FAMILIES: Tuple[Family, ...] = (
    Family("consecutive", why="the generator's defaults: an edge's 3 cables to a director on one leaf chip, 6 "
           "consecutive edges per chip; rails mirror images; GUIDs and LIDs in rack order"),
    Family("interleaved", (("leaf_placement", "interleaved"),), updn_roots=True,
           why="an edge's cables on one chip, the edges dealt round robin over the 18 chips. OpenSM's UpDn root "
           "detection leaves most pairs unroutable on it (TSUBAME ran UpDn in production), so UpDn gets the spine "
           "chips as roots: the roots it detects on the other families"),
    Family("spread", (("leaf_placement", "spread"),),
           why="an edge's 3 cables to a director on 3 different chips"),
    Family("io-nodes", (("io_nodes", IO_NODES),),
           why=f"{IO_NODES} I/O nodes on rail 0's edge switches' spare ports: the rails differ, as the seed says"),
    Family("guids", (("lid_order", "guid"),), guids_per_seed=True,
           why="GUIDs shuffled as factory serials (a draw per seed set) and LIDs in OpenSM's GUID order"),
)
REFERENCE = FAMILIES[0].name
FAMILY = {f.name: f for f in FAMILIES}
#: Seed sets of every family but the reference, which runs all of :data:`SEEDS`. ASSUMPTION:
#: the first two, for the time budget (docs/tsubame.md gives the run time).
FAMILY_SEEDS: Tuple[int, ...] = SEEDS[:2]


def run_families(plan: Dict[str, Dict[str, Sequence[str]]], progress: bool = False, pair_nodes: Sequence[int] = PAIR_NODES,
                 alltoall_nodes: Sequence[int] = ALLTOALL_NODES, seeds: Sequence[int] = SEEDS,
                 family_seeds: Sequence[int] = FAMILY_SEEDS) -> Dict[str, List[Runs]]:
    """Runs, for each family of `plan` (name -> needs: label -> the case kinds it needs), each
    configuration of its needs for every seed set (`seeds` on the reference, `family_seeds` on
    the others), all in one process pool; per family one :class:`Runs` per seed set."""
    seeds_of = {f: tuple(seeds) if f == REFERENCE else tuple(family_seeds) for f in plan}
    reqs = {(f, label, s): FAMILY[f].apply(req, s)
            for f, needs in plan.items() for (label, s), req in requests(needs, pair_nodes, alltoall_nodes, seeds_of[f]).items()}
    done = run_requests(reqs, progress)
    return {f: [Runs(s, {label: done[(f, label, s)] for label in needs}) for s in seeds_of[f]] for f, needs in plan.items()}


def reproduced_needs(needs: Dict[str, Sequence[str]]) -> Dict[str, Tuple[str, ...]]:
    """What the reproduced rows need of `needs`: Table 2's configurations without the rate-striped
    cases (the sensitivities E1s, E4s and E4d run on the reference family only)."""
    out = {label: tuple(k for k in kinds if not k.startswith("rate")) for label, kinds in needs.items() if label in TABLE2}
    return {label: kinds for label, kinds in out.items() if kinds}


def rows_over_families(needs: Dict[str, Sequence[str]], parts: Sequence[Callable[[List[Runs]], List[Row]]],
                       families: Sequence[str] = tuple(f.name for f in FAMILIES), progress: bool = False,
                       pair_nodes: Sequence[int] = PAIR_NODES, alltoall_nodes: Sequence[int] = ALLTOALL_NODES,
                       seeds: Sequence[int] = SEEDS, family_seeds: Sequence[int] = FAMILY_SEEDS) -> Tuple[List[Row], List[Runs]]:
    """The rows of every function of `parts` (runs -> rows), each reproduced one over the
    `families` (the reference always among them) as over the seed sets, the others from the
    reference; and the reference's runs (for the plots)."""
    plan = {f: dict(needs) if f == REFERENCE else reproduced_needs(needs) for f in (REFERENCE, *families)}
    by_family = run_families(plan, progress, pair_nodes, alltoall_nodes, seeds, family_seeds)
    rows: List[Row] = []
    for rows_of in parts:
        rows += over_families({f: rows_of(runs) for f, runs in by_family.items()}, REFERENCE)
    return rows, by_family[REFERENCE]
