#!/usr/bin/env python3
"""The pairwise Alltoall rank by rank at flow level against the packet engine (issue 34 item 2).

For each fabric size and routing engine: the same MPI_Alltoall (MVAPICH2's pairwise exchange,
1 MiB per pair, both rails) run

- on the packet engine, as an MPI program (``kind = "mpi"``, ``program = { kind = "alltoall" }``:
  RTS/CTS rendezvous, RDMA WRITE, credits, every packet);
- at flow level by ``rdmasim._core.flow_rounds`` in lockstep (every step ends with its slowest
  flow), rank by rank at max-min rates (``rank_by_rank = "fluid"``), the same with the credit
  model's head-of-line blocking (``hol = "credit"``, docs/flow.md) and rank by rank at each
  step's rates (``"step-rates"``), each with the ranks starting up to ``--skew-us`` after the
  barrier lets them go (drawn per rank). Rank by rank, the barrier (the MPI core's
  dissemination barrier, which the packet engine runs before the call) and each transfer's
  rendezvous are timed on their paths with the packet scenario's profile's latencies
  (``hardware``); ``fluid, no barrier`` starts every rank at 0 instead.

It prints each time and (flow - packet) / packet, each timed as the benchmark times it (the
slowest rank from its own exit from the barrier), and how far apart the ranks left the barrier
in each engine. The fabric is the tsubame2 generator cut to
``hosts`` nodes (16 per edge switch, two rails), every host a rank.

    python3 tools/alltoall_rank_by_rank.py --hosts 32 48 64 --route minhop --skew-us 0 4
"""
from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from rdmasim import _core

BYTES = 1 << 20
PROFILE = "cx3-fdr"


def scenario(hosts: int, route: str, seed: int) -> str:
    return f"""name = "alltoall-{hosts}-{route.replace(',', '-')}"
seed = {seed}
[hardware]
profile = "{PROFILE}"
[qp]
mtu = 2048
[topology]
generator = {{ kind = "tsubame2", hosts = {hosts} }}
route = "{route}"
[workload]
kind = "mpi"
num_hcas = 2
program = {{ kind = "alltoall", bytes = {BYTES}, algorithm = "pairwise", trials = 1 }}
"""


def packet_s(hosts: int, route: str, seed: int) -> tuple[float, float]:
    """The packet engine's Alltoall time and how far apart its ranks left the barrier, s."""
    with tempfile.TemporaryDirectory() as d:
        toml = Path(d) / "a2a.toml"
        toml.write_text(scenario(hosts, route, seed))
        out = Path(d) / "out"
        subprocess.run([sys.executable, "-m", "rdmasim", "run", str(toml), "-o", str(out), "--quiet",
                        "--tables", "mpi_trials,mpi_rank_trials"], check=True, stdout=subprocess.DEVNULL)
        with open(out / "mpi_trials.csv") as f:
            (trial,) = list(csv.DictReader(f))
        with open(out / "mpi_rank_trials.csv") as f:
            starts = [float(r["start_us"]) for r in csv.DictReader(f)]
        return float(trial["time_us"]) * 1e-6, (max(starts) - min(starts)) * 1e-6


def flow_s(hosts: int, route: str, seed: int, skews: list) -> dict:
    cases = [dict(kind="alltoall", nodes=hosts, bytes=BYTES, seed=seed, rails=2)]
    cases.append(dict(cases[0], rank_by_rank="fluid", barrier="none"))
    models = [("fluid", "none"), ("fluid", "credit"), ("step-rates", "none")]
    cases += [dict(cases[0], rank_by_rank=m, hol=h, start_skew_us=s) for m, h in models for s in skews]
    req = {"generator": {"kind": "tsubame2", "hosts": hosts}, "route": route, "hardware": PROFILE, "cases": cases}
    out = json.loads(_core.flow_rounds(json.dumps(req)))["cases"]
    times = {"lockstep": out[0]["fluid_s"], "fluid, no barrier": out[1]["rank_by_rank"]["s"]}
    for c, o in zip(cases[2:], out[2:]):
        hol = " hol" if c["hol"] == "credit" else ""
        times[f"{c['rank_by_rank']}{hol} skew {c['start_skew_us']:g}"] = o["rank_by_rank"]["s"]
    return times, out[2]["rank_by_rank"]["start_spread_s"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, nargs="+", default=[32, 48, 64, 96, 128])
    ap.add_argument("--route", nargs="+", default=["minhop"])
    ap.add_argument("--skew-us", type=float, nargs="+", default=[0.0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    a = ap.parse_args()
    for route in a.route:
        for hosts in a.hosts:
            pkt, pkt_spread = packet_s(hosts, route, a.seed)
            flows, spread = flow_s(hosts, route, a.seed, a.skew_us)
            if a.json:
                print(json.dumps({"hosts": hosts, "route": route, "packet_s": pkt, "flow_s": flows,
                                  "barrier_spread_s": {"packet": pkt_spread, "flow": spread}}), flush=True)
                continue
            print(f"{route} {hosts} hosts: packet {pkt * 1e3:.3f} ms; barrier exits "
                  f"{pkt_spread * 1e6:.2f} µs apart (flow: {spread * 1e6:.2f})", flush=True)
            for k, v in flows.items():
                print(f"    {k:22s} {v * 1e3:8.3f} ms  {100 * (v - pkt) / pkt:+6.1f} %", flush=True)


if __name__ == "__main__":
    main()
