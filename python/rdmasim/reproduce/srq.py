"""SRQ flow control (Tanimoto et al., seeds/001): stop/resume requests vs the SRQ-limit interrupt.

B1-B3: one flow-control episode of each method on the ConnectX-3 FDR profile (64 B SENDs, 64
buffers per refill), run by the ``srq-episode`` workload. The episode total is measured in the
simulation (post of the triggering SEND to the end of the episode); the components the study
measured (t_int, t_setev, t_poll) enter as profile parameters whose source is the study, the
others (refill, resume round trip, retransmission) come from the model's own parameters.

B4: the buffer needed for no throughput loss, evaluated from the simulated components and the
profile's link data rate: (t_int + t_setev) x bandwidth and t_poll x bandwidth.

B7: the retransmission-management table size (one bit per source process).

Set ``RDMASIM_PLOTS=<dir>`` to also write the stacked time breakdown (``srq_breakdown.png``).
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

from ..profiles import link_data_bps
from ..runner import run as run_scenario
from . import row

TITLE = "SRQ flow control (seeds/001): stop/resume vs SRQ-limit interrupt, table size"
ORDER = 30

PROFILE = "cx3-fdr"
PACKET_BYTES = 64
REFILL = 64

PUBLISHED = {
    "stop-resume": {"total": 4.51, "t_poll": 2.18},
    "srq-limit": {"total": 92.8, "t_int": 35.0, "t_setev": 55.9},
}
PUBLISHED_REDUCTION = 95.0


def episode_scenario(method: str, profile: str = PROFILE) -> Dict[str, Any]:
    return {
        "name": f"srq episode {method}",
        "hardware": {"profile": profile},
        "workload": {"kind": "srq-episode", "method": method, "packet_bytes": PACKET_BYTES, "refill": REFILL},
    }


def episode(method: str, profile: str = PROFILE, progress: bool = False) -> Dict[str, float]:
    """Component durations (µs) of one simulated episode, plus ``total``."""
    res = run_scenario(episode_scenario(method, profile), progress=progress)
    out: Dict[str, float] = {}
    for r in res.raw.get("tables", {}).get("srq_episode", []):
        d = r.get("duration_us")
        out[r["component"]] = math.nan if d is None else float(d)
    return out


def within(sim: float, pub: float, rel: float) -> bool:
    return not math.isnan(sim) and abs(sim - pub) <= rel * pub


def plot_breakdown(episodes: Dict[str, Dict[str, float]], path: Path) -> Optional[Path]:
    """The stacked time breakdown of both episodes (the study's figs. 9 and 10) as a PNG."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(8, 4))
    for ax, (method, comps) in zip(axes, episodes.items()):
        bottom = 0.0
        for name, v in comps.items():
            if name == "total" or math.isnan(v):
                continue
            ax.bar([method], [v], bottom=bottom, label=f"{name} {v:.2f} us")
            bottom += v
        ax.set_ylabel("time [us]")
        ax.set_title(f"{method}: {comps.get('total', math.nan):.2f} us (published {PUBLISHED[method]['total']})")
        ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def episode_rows(progress: bool = False) -> List[Dict[str, Any]]:
    prop = episode("stop-resume", progress=progress)
    conv = episode("srq-limit", progress=progress)
    nan = math.nan
    rows = [
        row("B1", "stop/resume episode total (post of the overflowing SEND to its retransmission polled)",
            PUBLISHED["stop-resume"]["total"], prop.get("total", nan), "us",
            within(prop.get("total", nan), PUBLISHED["stop-resume"]["total"], 0.10)),
        row("B1", "stop/resume t_poll (post to the polling receiver noticing the overflow)",
            PUBLISHED["stop-resume"]["t_poll"], prop.get("t_poll", nan), "us",
            within(prop.get("t_poll", nan), PUBLISHED["stop-resume"]["t_poll"], 0.10)),
        row("B1", "stop/resume: refill of 64 buffers | resume request, retransmission, receive",
            "(stacked bar)", f"{prop.get('t_refill', nan):.2f} | {prop.get('t_resume', nan):.2f}", "us", True),
        row("B2", "SRQ-limit episode total (post of the SEND crossing srq_limit to the limit re-armed)",
            PUBLISHED["srq-limit"]["total"], conv.get("total", nan), "us",
            within(conv.get("total", nan), PUBLISHED["srq-limit"]["total"], 0.10)),
        row("B2", "SRQ-limit t_int (post to the woken thread running)", PUBLISHED["srq-limit"]["t_int"],
            conv.get("t_int", nan), "us", within(conv.get("t_int", nan), PUBLISHED["srq-limit"]["t_int"], 0.10)),
        row("B2", "SRQ-limit t_setev (ibv_modify_srq re-arm)", PUBLISHED["srq-limit"]["t_setev"],
            conv.get("t_setev", nan), "us", within(conv.get("t_setev", nan), PUBLISHED["srq-limit"]["t_setev"], 0.10)),
    ]
    red = 100.0 * (1.0 - prop.get("total", nan) / conv.get("total", nan))
    rows.append(row("B3", "flow-control delay reduction, 1 - stop/resume / SRQ-limit", PUBLISHED_REDUCTION, red, "%",
                    not math.isnan(red) and abs(red - PUBLISHED_REDUCTION) <= 2.0))
    bw = link_data_bps(PROFILE) / 8.0  # bytes/s
    conv_buf = (conv.get("t_int", nan) + conv.get("t_setev", nan)) * 1e-6 * bw
    prop_buf = prop.get("t_poll", nan) * 1e-6 * bw
    pub_conv = (PUBLISHED["srq-limit"]["t_int"] + PUBLISHED["srq-limit"]["t_setev"]) * 1e-6 * bw
    pub_prop = PUBLISHED["stop-resume"]["t_poll"] * 1e-6 * bw
    rows.append(row("B4", f"buffer for no throughput loss, SRQ-limit: (t_int + t_setev) x {bw * 8 / 1e9:.2f} Gb/s",
                    round(pub_conv / 1024, 1), conv_buf / 1024, "KiB", within(conv_buf, pub_conv, 0.10)))
    rows.append(row("B4", f"buffer for no throughput loss, stop/resume: t_poll x {bw * 8 / 1e9:.2f} Gb/s",
                    round(pub_prop / 1024, 1), prop_buf / 1024, "KiB", within(prop_buf, pub_prop, 0.10)))
    plots = os.environ.get("RDMASIM_PLOTS")
    if plots:
        plot_breakdown({"stop-resume": prop, "srq-limit": conv}, Path(plots) / "srq_breakdown.png")
    return rows


def table_rows() -> List[Dict[str, Any]]:
    from .. import _core

    size = _core.srq_table_bytes
    paper = size(32 * 1024, 256)
    four_k = size(4096, 256)
    return [
        row("B7", "retransmission table, 32K x 256 processes x 1 bit (the study's product)", 1024 * 1024, paper,
            "bytes", paper == 1024 * 1024),
        row("B7", "retransmission table, 4K nodes x 256 processes x 1 bit (the study's text: 1 Mbit, not 1 MB)",
            "1 Mbit = 131072", four_k, "bytes", four_k == 4096 * 256 // 8),
    ]


def run(progress: bool = False) -> List[Dict[str, Any]]:
    return episode_rows(progress) + table_rows()
