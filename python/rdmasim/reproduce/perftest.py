"""perftest sanity: bandwidth reaches the link's payload bound, latencies come in the right order.

P1: ib_write_bw with 64 KiB messages delivers at least 95% (and, being physics, at most 100%)
of the payload rate the link can carry: the data rate after line encoding times the share of
payload in the bytes on the wire. Every packet carries LRH 8 + BTH 12 + ICRC 4 + VCRC 2 bytes of
headers (IBTA Vol. 1, ch. 5-7), and the first packet of each RDMA WRITE message also a RETH of
16 bytes. Checked on every built-in profile.

P2: at 2 bytes, ib_write_lat <= ib_send_lat < ib_read_lat (t_typical). A WRITE is the
cheapest one-way operation (no receive WQE), a SEND adds the receive-WQE fetch at the
responder, and a READ is a round trip with a DMA read at the responder.

Neither is a figure of a seed: P1 checks the model against the link's own payload bound, P2 an
order that holds for any positive costs. Both rows are of kind ``sensitivity`` (consistency
checks under the model's own constants) and count for no study.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from ..perftest import bw_gbps, default_mtu, run_perftest
from ..profiles import link_data_bps, profiles
from . import row
from ._checks import Between, Increasing

TITLE = "perftest sanity: ib_write_bw near the link payload bound; latency order write <= send < read"
ORDER = 0

#: Header bytes on every packet: LRH 8, BTH 12, ICRC 4, VCRC 2.
PACKET_HEADER_BYTES = 8 + 12 + 4 + 2
#: RETH on the first packet of each RDMA WRITE message.
RETH_BYTES = 16
BW_PROFILES = (("P1a", "cx4-edr"), ("P1b", "cx3-fdr"), ("P1c", "cx5-edr"))
BW_SIZE = 64 * 1024
MIN_SHARE = 0.95
LAT_PROFILE = "cx4-edr"
LAT_SIZE = 2


def payload_bound_gbps(profile: str, size: int = BW_SIZE, mtu: Optional[int] = None) -> float:
    """Highest RDMA WRITE payload rate of the profile's link for `size`-byte messages at the
    path MTU perftest uses there (2048 B on ConnectX-3), Gb/s."""
    mtu = mtu or default_mtu(profile) or 4096
    packets = max(1, math.ceil(size / mtu))
    wire = size + packets * PACKET_HEADER_BYTES + RETH_BYTES
    return link_data_bps(profile) * size / wire / 1e9


def _first(result: Any, column: str) -> float:
    df = result.perftest
    if column not in df.columns or not len(df):
        return math.nan
    return float(df[column].iloc[0])


def bandwidth_rows(progress: bool = False) -> List[Dict[str, Any]]:
    rows = []
    for rid, profile in BW_PROFILES:
        bound = payload_bound_gbps(profile)
        res = run_perftest("ib_write_bw", size=BW_SIZE, profile=profile, progress=progress)
        share = 100.0 * bw_gbps(_first(res, "bw_avg_MBps")) / bound
        rows.append(row(
            rid,
            f"ib_write_bw 64 KiB on {profile}: BW average / link payload bound ({bound:.2f} Gb/s)",
            f">= {100 * MIN_SHARE:.0f}%, <= 100%",
            share,
            "% of bound",
            Between(100 * MIN_SHARE, 100.0),
            kind="sensitivity",
            basis="not a seed figure: the model against its own link rate and IBTA header sizes",
        ))
    return rows


def latency_rows(progress: bool = False) -> List[Dict[str, Any]]:
    t = {}
    for verb in ("write", "send", "read"):
        res = run_perftest(f"ib_{verb}_lat", size=LAT_SIZE, profile=LAT_PROFILE, progress=progress)
        t[verb] = _first(res, "t_typical_us")
    return [row(
        "P2",
        f"latency order at {LAT_SIZE} B on {LAT_PROFILE} (t_typical of ib_write_lat / ib_send_lat / ib_read_lat)",
        "write <= send < read",
        (t["write"], t["send"], t["read"]),
        "usec",
        Increasing(("<=", "<"), names=("write", "send", "read")),
        kind="sensitivity",
        basis="not a seed figure: an order that holds for any positive costs",
    )]


def run(progress: bool = False) -> List[Dict[str, Any]]:
    return bandwidth_rows(progress) + latency_rows(progress)
