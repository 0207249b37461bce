"""The TSUBAME2.0 erroring links' flaps in time (#34 item 3): the plans of link events every
UpDn case's trials run under (``link_event_sweep`` of ``_core.flow_rounds``, flow/link_outages.rs).

Neither how often a bad link flapped nor how long it stayed down is published (research34 §9):
both are swept, never picked. A flap is the link going down and coming back ACTIVE: physical
training (~0.1-1 s) and then the subnet manager's sweep that arms it (OpenSM sweeps on the
trap 128 a flap raises, and every 10 s otherwise: ``OSM_DEFAULT_SWEEP_INTERVAL_SECS``; a
heavy sweep of a ~1400-node rail takes ~1-10 s), so 0.5-15 s down (research34 §9's range).
The rate is an ASSUMPTION: one flap per erroring cable every ~17 minutes to one every 10 s
(the seed's links had errors counted "hundreds per second" and faults that a restart cleared;
a link flapping faster than every 10 s would trip OpenSM's babbling-port policy, 250 traps).
Retrains (link error recovery, µs to ms) are left out of the sweep: at flow level one costs its
own duration, milliseconds against a trial's 0.1-1 s, and cannot make a trial slow.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

#: Flaps per second per erroring cable (ASSUMPTION, see above).
FLAP_RATES: Tuple[float, ...] = (1e-3, 1e-2, 1e-1)
#: Seconds a flap keeps the link out (research34 §9: 0.5-15 s).
FLAP_DOWN_S: Tuple[float, ...] = (0.5, 5.0, 15.0)


#: The two families of plans: the flaps beside the erroring links' symbol errors (their tail
#: stalls, flow/tail_loss.rs, as in E2 and E3), and the flaps alone (the hypothesis that the
#: links' events, not their per-packet errors, make both E2 and E3).
FAMILIES: Tuple[bool, ...] = (False, True)


def plans(tail_loss: bool = False) -> List[Dict[str, Any]]:
    """Every (rate, down time) of the sweep, rate-major, in one family: ``link_events`` plans."""
    return [{"flaps_per_s": r, "flap_down_s": d, "tail_loss": tail_loss} for r in FLAP_RATES for d in FLAP_DOWN_S]


def all_plans() -> List[Dict[str, Any]]:
    """The request's ``link_event_sweep``: each family's plans, in :data:`FAMILIES` order."""
    return [p for family in FAMILIES for p in plans(family)]


def index(tail_loss: bool, i: int) -> int:
    """Where plan `i` of a family lies in :func:`all_plans`."""
    return FAMILIES.index(tail_loss) * len(FLAP_RATES) * len(FLAP_DOWN_S) + i
