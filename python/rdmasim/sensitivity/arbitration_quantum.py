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

import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from rdmasim.sensitivity._cases import Case, Overrides, counts, main_for, measure, plot_medians

KIB = 1024
QUANTA_KIB = (16, 32, 48, 64, 80, 96, 112, 128)
MODES = ("chunk-round-robin", "quantum-round-robin")
#: Published medians (targets.md; slide 41 for HERD: 7.9-9.5 us beside an elephant).
C7_MOUSE_SLOWDOWN = 5.0
C8_HERD_BESIDE_US = (7.9, 9.5)


def case(what: str, profile: str, mode: str, quantum_kib: Optional[int]) -> Case:
    """A case under `mode`, beside a 1 GB elephant with `quantum_kib` (None: alone)."""
    overrides: Overrides = (("arbitration", mode),)
    if quantum_kib:
        overrides += (("arbitration_chunk_bytes", quantum_kib * KIB),)
    return (what, profile, overrides, quantum_kib is not None)


def sweep(quanta_kib: Tuple[int, ...] = QUANTA_KIB, mice: Optional[int] = None, kv: Optional[int] = None) -> Dict[str, Any]:
    mice, kv = counts("RDMASIM_QUANTUM", mice, kv)
    points = [("mouse", "cx4-edr"), ("kv", "cx4-edr"), ("mouse", "cx3-fdr")]
    cases = [case(w, p, MODES[0], None) for w, p in points]
    cases += [case(w, p, mode, q) for mode in MODES for q in quanta_kib for w, p in points]
    medians = {c: lat[0] for c, lat in measure(cases, mice, kv).items()}
    alone = {(w, p): medians[case(w, p, MODES[0], None)] for w, p in points}
    rows = []
    for mode in MODES:
        for q in quanta_kib:
            edr_mouse, edr_kv, fdr_mouse = (medians[case(w, p, mode, q)] for w, p in points)
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
    mouse_alone = result["alone_median_us"]["mouse cx4-edr"]
    bands = [(*C8_HERD_BESIDE_US, "tab:orange", "C8 HERD published"),
             (C7_MOUSE_SLOWDOWN * mouse_alone * 0.85, C7_MOUSE_SLOWDOWN * mouse_alone * 1.15, "tab:blue", "C7 mouse 5x (+-15 %)")]
    return plot_medians(result, path, "quantum_kib", "arbitration quantum (KiB)", bands, "One quantum for both EDR figures? (sensitivity, not a reproduction)")


def main(argv: List[str]) -> int:
    return main_for("arbitration_quantum", sweep, table, plot, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
