"""PM/Ethernet-HXB on PACS-CS (seeds/003, Sumimoto, Fujitsu): PM over trunked, lossy Gigabit
Ethernet with relay routing on the 3-D hyper-crossbar (docs/pm.md).

D1: packet arrival interval at line rate (the design target: handle a packet within it).
D2: one-way PM bandwidth and per-packet time over 2..9 GigE links; PME-NT (kernel path) on 4.
D3: bandwidth and half round trip across 1, 2 and 3 dimensions (one relay host per extra one).
D4: neighbour exchange on the hyper-crossbar, sending, receiving and both, in 1..3 dimensions.
D5: MPI over PM (MPICH vs YAMPII): osu_bw / osu_bibw through each library's protocol profile.
D6: switch packet loss in an all-to-all with skew between hosts, by message length and host
    count, on the Broadcom 12-port and Extreme Summit 7i profiles; D6s: the same with the peer's
    NIC drawn independently of the sending NIC (a sensitivity, ASSUMPTION).
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import row
from ._plots import pyplot, save

TITLE = "PM/Ethernet-HXB on PACS-CS (seeds/003): trunked GigE bandwidth, relay latency, switch loss"
ORDER = 60
PARTS = ("d1", "d2", "d3", "d4", "d5", "d6")

MB = 1 << 20
#: The packet sizes and bandwidths of the seed's D1 table and its published intervals (µs).
D1_SIZES = (1500, 4096, 8192)
D1_TABLE = {125: (12.0, 32.8, 65.5), 250: (6.0, 16.4, 32.8), 500: (3.0, 8.2, 16.4),
            750: (2.0, 5.5, 10.9), 1000: (1.5, 4.1, 8.2), 1250: (1.2, 3.3, 6.6)}
#: D2: links -> (MB/s, µs per packet at 3.6 GHz).
D2_TABLE = {2: (248, 2.38), 4: (494, 2.58), 6: (741, 2.71), 8: (981, 2.81), 9: (1065, 2.90)}
D2_NT = (393, 15.7)
#: D3: dimensions -> (MB/s on 2 links, MB/s on 4 links or None, half RTT µs).
D3_TABLE = {1: (248, 494, 14.9), 2: (248, 489, 27.5), 3: (248, None, 39.3)}
#: D4: dimensions -> (send, recv, both) MB/s.
D4_TABLE = {1: (247.6, 247.5, 481.1), 2: (493.6, 494.9, 951.3), 3: (741.3, 742.3, 1401.3)}
#: D5: links -> (MPICH one-way, two-way, YAMPII one-way, two-way) MB/s.
D5_TABLE = {2: (244, 478, 244, 490), 4: (493, 791, 494, 896), 6: (737, 811, 739, 937),
            8: (862, 800, 915, 932), 9: (858, 790, 890, 921)}
#: D6: switch profile -> {length: (2, 3, 4 nodes)} loss %.
D6_TABLE = {
    "broadcom-12port": {1400: (0.00, 0.02, 0.00), 2200: (0.00, 0.19, 0.99),
                        4400: (0.00, 3.17, 5.08), 8800: (5.76, 8.11, 8.32)},
    "extreme-summit7i": {1400: (0.0, 0.0, 0.0), 2200: (0.0, 0.0, 0.0),
                         4400: (0.0, 0.14, 0.34), 8800: (0.26, 0.87, 1.22)},
}
D6_PACS_CS = 1.17
#: D6's all-to-all: rounds of `count` messages to every other host, each round starting after
#: a random skew up to SKEW_US (ASSUMPTION: the seed names skew between nodes as the cause of
#: the loss but gives no size; 20 µs is a few jumbo frames' line time).
D6_ROUNDS, D6_COUNT, D6_SKEW_US = 20, 20, 20.0


def _run(scenario: Dict[str, Any], progress: bool = False, table: str = "pm_summary") -> Dict[str, Any]:
    """The first row of the run's `table`, after checking that its workload completed."""
    from ..runner import run

    res = run(scenario, progress=progress)
    if not res.finished:
        raise RuntimeError(f"PM run {scenario.get('name')} stopped early: {res.summary.get('stop_reason')}")
    return res.table(table).iloc[0].to_dict()


def _scenario(name: str, topology: Dict[str, Any], workload: Dict[str, Any], **sections: Any) -> Dict[str, Any]:
    s: Dict[str, Any] = {"name": name, "engine": "pm", "seed": 1,
                         "ethernet": {"topology": topology, **sections.pop("ethernet", {})}, "workload": workload}
    s.update(sections)
    return s


def _within(sim: Optional[float], pub: float, tol: float) -> bool:
    return sim is not None and not math.isnan(sim) and abs(sim - pub) <= tol * abs(pub)


def d1_rows() -> List[Dict[str, Any]]:
    """The interval is the packet's size over the bandwidth (the seed's own arithmetic), to
    its one decimal (the seed rounds 32.768 to 32.8 but 65.536 to 65.5: half a unit of slack)."""
    rows = []
    for bw, published in D1_TABLE.items():
        for size, pub in zip(D1_SIZES, published):
            sim = size / bw
            rows.append(row(f"D1-{bw}-{size}", f"arrival interval of {size} B packets at {bw} MB/s",
                            pub, sim, "us", abs(sim - pub) <= 0.05 + 1e-9))
    return rows


def _one_way(links: int, stack: str = "hxb", rx_path: str = "premapped", progress: bool = False) -> Dict[str, Any]:
    return _run(_scenario(f"pm-{stack}-x{links}", {"kind": "single-switch", "hosts": 2, "links": links},
                          {"kind": "bandwidth", "bytes": MB, "count": 32},
                          host={"stack": stack, "rx_path": rx_path}), progress)


def d2_rows(progress: bool = False) -> List[Dict[str, Any]]:
    rows, curve = [], []
    for links, (bw, t) in D2_TABLE.items():
        s = _one_way(links, progress=progress)
        curve.append((links, s["host0_send_mb_s"], bw))
        rows.append(row(f"D2-x{links}-bw", f"PM one-way bandwidth, {links} GigE links (PME-HXB)", bw,
                        s["host0_send_mb_s"], "MB/s", _within(s["host0_send_mb_s"], bw, 0.05)))
        rows.append(row(f"D2-x{links}-t", f"per-packet time, {links} NICs, 3.6 GHz (line through x2 and x9)", t,
                        s["recv_packet_us"], "us", _within(s["recv_packet_us"], t, 0.05)))
    for links, pub in ((6, 3.5), (9, 3.7)):
        s = _run(_scenario(f"pm-2.8ghz-x{links}", {"kind": "single-switch", "hosts": 2, "links": links},
                           {"kind": "pingpong", "iters": 2}, host={"cpu_ghz": 2.8}), progress)
        rows.append(row(f"D2-x{links}-2.8GHz", f"per-packet time scaled to a 2.8 GHz CPU, {links} NICs", pub,
                        s["recv_packet_us"], "us", _within(s["recv_packet_us"], pub, 0.05)))
    # PME-NT: the kernel path, 15.7 µs a packet, and no zero copy: the receive copies.
    s = _one_way(4, stack="nt", rx_path="copy", progress=progress)
    rows.append(row("D2-NT-x4-bw", "PME-NT one-way bandwidth, 4 links (kernel path, receive copy)", D2_NT[0],
                    s["host0_send_mb_s"], "MB/s", _within(s["host0_send_mb_s"], D2_NT[0], 0.05)))
    rows.append(row("D2-NT-x4-t", "PME-NT per-packet time (input; copy of 8 KB added on receive)", D2_NT[1],
                    s["recv_packet_us"], "us", _within(s["recv_packet_us"], D2_NT[1], 0.05)))
    _plot_bandwidth(curve)
    return rows


def _hxb(links: int) -> Dict[str, Any]:
    return {"kind": "hyperx", "dims": [2, 2, 2], "links_per_dim": links}


#: Host 0's partner n dimensions away on the 2x2x2 hyper-crossbar: (1,0,0), (1,1,0), (1,1,1).
PARTNER = {1: 1, 2: 3, 3: 7}


def d3_rows(progress: bool = False) -> List[Dict[str, Any]]:
    rows, half = [], {}
    for dims, (bw2, bw4, rtt) in D3_TABLE.items():
        for links, pub in ((2, bw2), (4, bw4)):
            if pub is None:
                continue
            s = _run(_scenario(f"pm-route-{dims}d-x{links}", _hxb(links),
                               {"kind": "bandwidth", "dst": PARTNER[dims], "bytes": MB, "count": 16}), progress)
            rows.append(row(f"D3-{dims}D-x{links}-bw", f"bandwidth across {dims} dimension(s), {links} links a dimension",
                            pub, s["host0_send_mb_s"], "MB/s", _within(s["host0_send_mb_s"], pub, 0.10)))
        s = _run(_scenario(f"pm-route-{dims}d-lat", _hxb(2), {"kind": "pingpong", "dst": PARTNER[dims], "bytes": 8, "iters": 100}), progress)
        half[dims] = s["half_rtt_us"]
        rows.append(row(f"D3-{dims}D-lat", f"half round trip across {dims} dimension(s), 8 B, 2 links",
                        rtt, s["half_rtt_us"], "us", _within(s["half_rtt_us"], rtt, 0.10)))
    per_dim = (half[3] - half[1]) / 2
    rows.append(row("D3-per-dim", "latency per dimension crossed ((3-D - 1-D) / 2)", 12.0, per_dim, "us", _within(per_dim, 12.0, 0.10)))
    # The seed splits a dimension's 12 us into the switch (5 us) and the relay's routing (6.9 us).
    routing = per_dim - 5.0
    rows.append(row("D3-routing", "routing delay per relay (per dimension less the switch's 5 us)", 6.9, routing, "us", _within(routing, 6.9, 0.10)))
    return rows


def d4_rows(progress: bool = False) -> List[Dict[str, Any]]:
    rows = []
    for dims, published in D4_TABLE.items():
        for mode, key, pub in zip(("send", "recv", "both"), ("host0_send_mb_s", "host0_recv_mb_s", "host0_both_mb_s"), published):
            s = _run(_scenario(f"pm-neighbor-{dims}d-{mode}", _hxb(2),
                               {"kind": "neighbor", "dims": dims, "mode": mode, "bytes": MB, "count": 16}), progress)
            rows.append(row(f"D4-{dims}D-{mode}", f"neighbour exchange, {dims} dimension(s), 2 links each: host 0 {mode}",
                            pub, s[key], "MB/s", _within(s[key], pub, 0.05)))
    return rows


def _osu(links: int, library: str, bidirectional: bool, progress: bool = False, size: int = MB) -> float:
    """osu_bw (osu_bibw) of `size`-byte messages, window 64, between two hosts on `links`
    links, through `library`'s profile over PM: MB/s as the benchmark prints it."""
    program = {"kind": "osu-bw", "bytes": size, "window": 64, "iterations": 3, "bidirectional": bidirectional}
    s = _scenario(f"pm-mpi-{library}-x{links}-{'bibw' if bidirectional else 'bw'}-{size}",
                  {"kind": "single-switch", "hosts": 2, "links": links},
                  {"kind": "mpi", "library": library, "program": program})
    return float(_run(s, progress, table="mpi_trials")["injection_GBps"]) * 1e3


def d5_rows(progress: bool = False) -> List[Dict[str, Any]]:
    """MPI over PM: osu_bw and osu_bibw of 1 MiB messages (ASSUMPTION: the seed's table is the
    plateau of such a test; it gives neither the benchmark nor the size) through each library's
    profile (ether/mpi/profile.rs): matching, eager and rendezvous over PM channels, each payload
    copied into PM's buffer and out of it on the one CPU."""
    rows = []
    curves: Dict[str, List[Any]] = {"MPICH": [], "YAMPII": []}
    for links, (m1, m2, y1, y2) in D5_TABLE.items():
        for lib, one, two in (("MPICH", m1, m2), ("YAMPII", y1, y2)):
            sim_one = _osu(links, lib.lower(), False, progress)
            sim_two = _osu(links, lib.lower(), True, progress)
            # For the plot only: 64 KiB, where the profiles' rendezvous differ.
            mid = (_osu(links, lib.lower(), False, progress, 64 << 10), _osu(links, lib.lower(), True, progress, 64 << 10))
            curves[lib].append((links, (one, two), (sim_one, sim_two), mid))
            rows.append(row(f"D5-x{links}-{lib}-1way", f"{lib} one-way bandwidth, {links} links (osu_bw, 1 MiB, over PM)",
                            one, sim_one, "MB/s", _within(sim_one, one, 0.10)))
            rows.append(row(f"D5-x{links}-{lib}-2way", f"{lib} two-way bandwidth, {links} links (osu_bibw, 1 MiB, over PM)",
                            two, sim_two, "MB/s", _within(sim_two, two, 0.10)))
    _plot_mpi(curves)
    return rows


def _loss(profile: str, nodes: int, length: int, progress: bool = False, lanes: str = "same") -> float:
    s = _run(_scenario(f"pm-scstest-{profile}-{nodes}-{length}-{lanes}", {"kind": "single-switch", "hosts": nodes, "links": 2},
                       {"kind": "alltoall", "bytes": length, "rounds": D6_ROUNDS, "count": D6_COUNT, "skew_us": D6_SKEW_US},
                       ethernet={"switch": profile}, pm={"packet_bytes": 8968, "lanes": lanes}), progress)
    return float(s["loss_pct"])


def _loss_ok(sim: float, pub: float) -> bool:
    # ±30 %, or within 0.1 percentage point where the published loss is (near) zero.
    return abs(sim - pub) <= max(0.3 * pub, 0.1)


def d6_rows(progress: bool = False) -> List[Dict[str, Any]]:
    rows, grids = [], {}
    for profile, table in D6_TABLE.items():
        grid = {}
        for length, published in table.items():
            for nodes, pub in zip((2, 3, 4), published):
                sim = _loss(profile, nodes, length, progress)
                grid[(length, nodes)] = (sim, pub)
                rows.append(row(f"D6-{profile}-{length}-{nodes}n", f"all-to-all packet loss, {profile}, {length} B, {nodes} nodes, 2 links",
                                pub, sim, "%", _loss_ok(sim, pub)))
        grids[profile] = grid
    sim = _loss("foundry-fwfx448", 4, 8800, progress)
    rows.append(row("D6-pacs-cs-8800-4n", "all-to-all loss, 8800 B, 4 nodes: PACS-CS's switch (model: the Foundry profile)",
                    D6_PACS_CS, sim, "%", _loss_ok(sim, D6_PACS_CS)))
    _plot_loss(grids)
    return rows + d6s_rows(progress)


#: D6s: the same all-to-all with each frame addressed to one of the peer's NICs drawn at
#: random, independently of the sending NIC (`[pm] lanes = "random"`, ASSUMPTION: seeds/003
#: does not say how PM picks the peer's NIC); a sensitivity, nothing tuned.
D6S_METRIC = "sensitivity: destination NIC chosen independently of the sending NIC (ASSUMPTION)"


def d6s_rows(progress: bool = False) -> List[Dict[str, Any]]:
    rows = []
    for profile, table in D6_TABLE.items():
        for length, published in table.items():
            for nodes, pub in zip((2, 3, 4), published):
                sim = _loss(profile, nodes, length, progress, lanes="random")
                rows.append(row(f"D6s-{profile}-{length}-{nodes}n", f"{D6S_METRIC}: all-to-all packet loss, {profile}, {length} B, {nodes} nodes, 2 links",
                                pub, sim, "%", _loss_ok(sim, pub)))
    return rows


def _out() -> Path:
    return Path(os.environ.get("RDMASIM_PLOTS_PM", "out/pm"))


def _plot_bandwidth(curve: List[Any]) -> None:
    plt = pyplot()
    if plt is None or not curve:
        return
    fig, ax = plt.subplots(figsize=(5, 3.5))
    links = [c[0] for c in curve]
    ax.plot(links, [c[2] for c in curve], "o-", label="published (seeds/003)")
    ax.plot(links, [c[1] for c in curve], "s--", label="simulated")
    ax.plot(links, [123.94 * n for n in links], ":", color="grey", label="line rate less framing")
    ax.set_xlabel("GigE links")
    ax.set_ylabel("PM one-way bandwidth (MB/s)")
    ax.legend()
    fig.tight_layout()
    save(fig, _out() / "d2_bandwidth_vs_links.png", dpi=120)


def _plot_mpi(curves: Dict[str, List[Any]]) -> None:
    plt = pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(1, len(curves), figsize=(5 * len(curves), 3.5), squeeze=False, sharey=True)
    for ax, (lib, pts) in zip(axes[0], curves.items()):
        links = [p[0] for p in pts]
        for i, way in enumerate(("one-way", "two-way")):
            ax.plot(links, [p[1][i] for p in pts], "o-", color=f"C{i}", label=f"{way}, published")
            ax.plot(links, [p[2][i] for p in pts], "s--", color=f"C{i}", mfc="none", label=f"{way}, simulated 1 MiB")
            ax.plot(links, [p[3][i] for p in pts], ":", color=f"C{i}", label=f"{way}, simulated 64 KiB")
        ax.set_title(f"{lib} over PM (osu_bw / osu_bibw)")
        ax.set_xlabel("GigE links")
        ax.set_ylabel("MPI bandwidth (MB/s)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    save(fig, _out() / "d5_mpi_bandwidth_vs_links.png", dpi=120)


def _plot_loss(grids: Dict[str, Dict[Any, Any]]) -> None:
    plt = pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(1, len(grids), figsize=(5 * len(grids), 3.5), squeeze=False)
    for ax, (profile, grid) in zip(axes[0], grids.items()):
        lengths = sorted({k[0] for k in grid})
        for i, (nodes, marker) in enumerate(((2, "o"), (3, "s"), (4, "^"))):
            ax.plot(lengths, [grid[(n, nodes)][1] for n in lengths], marker + "-", color=f"C{i}", label=f"{nodes} nodes, published")
            ax.plot(lengths, [grid[(n, nodes)][0] for n in lengths], marker + "--", color=f"C{i}", mfc="none", label=f"{nodes} nodes, simulated")
        ax.set_title(profile)
        ax.set_xlabel("message length (B)")
        ax.set_ylabel("packet loss (%)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    save(fig, _out() / "d6_loss_vs_length.png", dpi=120)


def run(progress: bool = False, part: Optional[str] = None) -> List[Dict[str, Any]]:
    parts = {"d1": lambda: d1_rows(), "d2": lambda: d2_rows(progress), "d3": lambda: d3_rows(progress),
             "d4": lambda: d4_rows(progress), "d5": lambda: d5_rows(progress), "d6": lambda: d6_rows(progress)}
    chosen = [part] if part else list(PARTS)
    return [r for p in chosen for r in parts[p]()]
