"""Could the NIC's arbitration quantum alone explain the study's mouse and HERD slow-downs?

A sensitivity, not a reproduction (docs/isolation.md sec. 2.1). The size of the share a NIC
serves one QP before moving on is unpublished (the profiles assume 16 KiB), and so is whether a
turn ends with each work request (``chunk-round-robin``) or spans the QP's ready requests
(``quantum-round-robin``, a byte quantum as in mlx5's deficit-weighted-round-robin scheduling
element). This sweeps the quantum under both readings, with the isolation reproduction's own
scenarios (``rdmasim.reproduce.isolation``: chunk arbitration's partner overrides, idle states,
scheduler tick, one switch, MTU 2048), and asks whether one value meets both published figures
of the EDR cluster at once:

- C7: a busy 10 B mouse beside a 1 GB event-polled elephant, median "up to 5x" its lone median;
- C8: HERD GET beside a 1 GB elephant, median 7.9-9.5 us (2.9 us alone: 2.7-3.3x).

and, for the FDR cluster, C6's 10 B mouse beside a 1 GB elephant (~6 us by targets.md).

Usage: python -m rdmasim.sensitivity.arbitration_quantum [OUT_DIR] (default out/sensitivity); prints a
table, writes arbitration_quantum.json and, with matplotlib, arbitration_quantum.png.
RDMASIM_QUANTUM_MICE / RDMASIM_QUANTUM_KV set the counts (default 200 000 / 100 000).
"""
from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from rdmasim.reproduce import isolation as iso
from rdmasim.reproduce._plots import artifact, pyplot, save
from rdmasim.sweep import run_point

KIB = 1024
QUANTA_KIB = (16, 32, 48, 64, 80, 96, 112, 128)
MODES = ("chunk-round-robin", "quantum-round-robin")
MICE = int(os.environ.get("RDMASIM_QUANTUM_MICE", 200_000))
KV = int(os.environ.get("RDMASIM_QUANTUM_KV", 100_000))
#: Published medians (targets.md; slide 41 for HERD: 7.9-9.5 us beside an elephant).
C7_MOUSE_SLOWDOWN = 5.0
C8_HERD_BESIDE_US = (7.9, 9.5)
C6_MOUSE_BESIDE_US = 6.0

#: (what: "mouse" or "kv", profile, arbitration, quantum KiB or None for alone)
Case = Tuple[str, str, str, Optional[int]]


def case_scenario(what: str, profile: str, mode: str, quantum_kib: Optional[int], mice: int, kv: int) -> Dict[str, Any]:
    iso.MOUSE_MESSAGES, iso.KV_REQUESTS = mice, kv
    if what == "mouse":
        sc = iso.mouse_case(profile, 10, (iso.GB, "event") if quantum_kib else None)
    else:
        sc = iso.kv_case(profile, 1.0, iso.GB if quantum_kib else None)
    hw = sc["hardware"]["overrides"]
    hw["arbitration"] = mode
    if quantum_kib:
        hw["arbitration_chunk_bytes"] = quantum_kib * KIB
    return sc


def median_us(args: Tuple[Case, int, int]) -> float:
    (what, profile, mode, quantum_kib), mice, kv = args
    summary, rows = run_point(case_scenario(what, profile, mode, quantum_kib, mice, kv), "flows" if what == "mouse" else "kv")
    if not summary.get("finished"):
        raise RuntimeError(f"{args} did not complete: {summary.get('stop_reason')}")
    row = rows[0] if what == "mouse" else next(r for r in rows if r["op"] == "GET")
    return float(row["lat_median_us"])


def sweep(quanta_kib: Tuple[int, ...] = QUANTA_KIB, mice: int = MICE, kv: int = KV) -> Dict[str, Any]:
    cases: List[Case] = [
        ("mouse", "cx4-edr", MODES[0], None), ("kv", "cx4-edr", MODES[0], None), ("mouse", "cx3-fdr", MODES[0], None)]
    for mode in MODES:
        for q in quanta_kib:
            cases += [("mouse", "cx4-edr", mode, q), ("kv", "cx4-edr", mode, q), ("mouse", "cx3-fdr", mode, q)]
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        medians = dict(zip(cases, pool.map(median_us, [(c, mice, kv) for c in cases])))
    alone = {(w, p): medians[(w, p, MODES[0], None)] for w, p, _, q in cases if q is None}
    rows = []
    for mode in MODES:
        for q in quanta_kib:
            edr_mouse, edr_kv, fdr_mouse = (medians[(w, p, mode, q)] for w, p in (("mouse", "cx4-edr"), ("kv", "cx4-edr"), ("mouse", "cx3-fdr")))
            rows.append({
                "arbitration": mode, "quantum_kib": q,
                "edr_mouse_median_us": edr_mouse, "edr_mouse_slowdown": edr_mouse / alone[("mouse", "cx4-edr")],
                "edr_herd_get_median_us": edr_kv, "edr_herd_get_growth": edr_kv / alone[("kv", "cx4-edr")],
                "fdr_mouse_median_us": fdr_mouse,
                # Both EDR figures at once: C7's mouse within its +-15 % of 5x, C8's HERD in 7.9-9.5 us.
                "meets_c7_and_c8": abs(edr_mouse / alone[("mouse", "cx4-edr")] / C7_MOUSE_SLOWDOWN - 1) <= 0.15
                and C8_HERD_BESIDE_US[0] <= edr_kv <= C8_HERD_BESIDE_US[1],
            })
    return {"alone_median_us": {f"{w} {p}": v for (w, p), v in alone.items()}, "mice": mice, "kv_requests": kv, "rows": rows}


def table(result: Dict[str, Any]) -> str:
    lines = ["alone (median, us): " + ", ".join(f"{k} {v:.2f}" for k, v in result["alone_median_us"].items()),
             "| arbitration | quantum KiB | EDR mouse us (x alone) | EDR HERD GET us (x alone) | FDR mouse us | C7 and C8 |",
             "|---|---:|---:|---:|---:|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['arbitration']} | {r['quantum_kib']} | {r['edr_mouse_median_us']:.2f} ({r['edr_mouse_slowdown']:.1f}x) "
                     f"| {r['edr_herd_get_median_us']:.2f} ({r['edr_herd_get_growth']:.1f}x) | {r['fdr_mouse_median_us']:.2f} "
                     f"| {'both' if r['meets_c7_and_c8'] else 'no'} |")
    return "\n".join(lines)


def plot(result: Dict[str, Any], path: Path) -> Optional[Path]:
    plt = pyplot()
    if plt is None:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    mouse_alone = result["alone_median_us"]["mouse cx4-edr"]
    for ax, mode in zip(axes, MODES):
        rows = [r for r in result["rows"] if r["arbitration"] == mode]
        q = [r["quantum_kib"] for r in rows]
        ax.plot(q, [r["edr_mouse_median_us"] for r in rows], "o-", label="EDR 10 B mouse")
        ax.plot(q, [r["edr_herd_get_median_us"] for r in rows], "s-", label="EDR HERD GET")
        ax.plot(q, [r["fdr_mouse_median_us"] for r in rows], "^--", label="FDR 10 B mouse")
        ax.axhspan(*C8_HERD_BESIDE_US, color="tab:orange", alpha=0.2, label="C8 HERD published")
        ax.axhspan(C7_MOUSE_SLOWDOWN * mouse_alone * 0.85, C7_MOUSE_SLOWDOWN * mouse_alone * 1.15,
                   color="tab:blue", alpha=0.15, label="C7 mouse 5x (+-15 %)")
        ax.set_title(mode)
        ax.set_xlabel("arbitration quantum (KiB)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("median beside a 1 GB elephant (us)")
    axes[1].legend(fontsize=8)
    fig.suptitle("One quantum for both EDR figures? (sensitivity, not a reproduction)")
    fig.tight_layout()
    return save(fig, path)


def main(argv: List[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path("out/sensitivity")
    result = sweep()
    print(table(result))
    artifact(out / "arbitration_quantum.json", lambda p: p.write_text(json.dumps(result, indent=1)))
    png = plot(result, out / "arbitration_quantum.png")
    if png:
        print(f"plot: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
