"""The TSUBAME2.0 erroring links' flaps in time (#34 item 3): the plans of link events every
UpDn case's trials run under (``link_event_sweep`` of ``_core.flow_rounds``, flow/link_outages.rs).

Neither how often a bad link flapped nor how long it stayed down is published (docs/sources/issue34.md §9):
both are swept, never picked. A flap is the link going down and coming back ACTIVE: physical
training and then the subnet manager's sweep that arms it (OpenSM sweeps on the trap 128 a
flap raises, and every 10 s otherwise: ``OSM_DEFAULT_SWEEP_INTERVAL_SECS``). The down time is
an ASSUMPTION, 0.5-15 s: no source gives the training time or a heavy sweep's on a ~1400-node
rail; 0.1-1 s of training and 1-10 s of sweep would give 1.1-11 s, and the sweep reaches below
(a fast re-arm) and above (a sweep that misses the trap and waits for the next interval).
The rate is an ASSUMPTION too: one flap per erroring cable every ~17 minutes to one every 10 s
(the seed's links had errors counted "hundreds per second" and faults that a restart cleared).
The top rate matches OpenSM's default sweep interval; nothing in OpenSM caps it (its
babbling-port policy is off by default and counts traps 129-131, not the flap's 128).
Retrains (link error recovery, µs to ms) are left out of the sweep: at flow level one costs its
own duration, milliseconds against a trial's 0.1-1 s, and cannot make a trial slow.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

#: Flaps per second per erroring cable (ASSUMPTION, see above).
FLAP_RATES: Tuple[float, ...] = (1e-3, 1e-2, 1e-1)
#: Seconds a flap keeps the link out (ASSUMPTION, see above; docs/sources/issue34.md §9).
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
