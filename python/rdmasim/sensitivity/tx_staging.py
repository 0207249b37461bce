"""Would a transmit staging buffer in the NIC explain the study's mouse and HERD slow-downs?

A sensitivity, not a reproduction (docs/isolation.md sec. 2.1). With ``tx_staging_bytes`` the
send engine picks packets that many bytes ahead of the port (hca/tx_staging.rs), so a mouse's
packet waits for the elephant's staged bytes whatever the phase of its post: a wait that adds
to every request, as the study's figures do (HERD beside an elephant ~ HERD alone + the
mouse's extra wait), where the arbitration quantum alone multiplies or phase-locks
(``rdmasim.sensitivity.arbitration_quantum``). No public figure gives such a buffer for a
ConnectX NIC; every profile has none. This sweeps its size under packet round robin and under
the reproduction's chunk arbitration, with the reproduction's own scenarios, and asks which
sizes meet each published figure:

- C6 (FDR): a busy 10 B mouse beside a 1 GB event-polled elephant, median ~6 us (+-25 %);
- C7 (EDR): the same mouse, median "up to 5x" its lone median (+-15 %);
- C8 (EDR): HERD GET beside a 1 GB elephant, median 7.9-9.5 us (slide 41).

Usage: python -m rdmasim.sensitivity.tx_staging [OUT_DIR] (default out/sensitivity); prints a
table, writes tx_staging.json and, with matplotlib, tx_staging.png.
RDMASIM_STAGING_MICE / RDMASIM_STAGING_KV set the counts (default 200 000 / 100 000).
"""
from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from rdmasim.sensitivity._cases import Case, case_scenario, counts, main_for, measure, plot_medians, scenario_latencies

KIB = 1024
SIZES_KIB = (0, 16, 24, 32, 40, 48, 56, 64, 72, 80)
#: Packet round robin (the profiles' default) and the isolation reproduction's chunks.
MODES = ("packet-round-robin", "chunk-round-robin")
POINTS = (("mouse", "cx4-edr"), ("kv", "cx4-edr"), ("mouse", "cx3-fdr"))
#: Published figures (targets.md C6, C7; slide 41 for C8) and their tolerances.
C6_FDR_MOUSE_US = (6.0 * 0.75, 6.0 * 1.25)
C7_EDR_MOUSE_SLOWDOWN = (5.0 * 0.85, 5.0 * 1.15)
C8_EDR_HERD_US = (7.9, 9.5)


def case(what: str, profile: str, mode: str, size_kib: Optional[int]) -> Case:
    """A case under `mode`, beside a 1 GB elephant with a `size_kib` buffer (None: alone)."""
    return (what, profile, (("arbitration", mode), ("tx_staging_bytes", (size_kib or 0) * KIB)), size_kib is not None)


def _within(x: float, band: Tuple[float, float]) -> bool:
    return band[0] <= x <= band[1]


def sweep(sizes_kib: Tuple[int, ...] = SIZES_KIB, mice: Optional[int] = None, kv: Optional[int] = None) -> Dict[str, Any]:
    mice, kv = counts("RDMASIM_STAGING", mice, kv)
    cases = [case(w, p, MODES[0], None) for w, p in POINTS]
    cases += [case(w, p, mode, b) for mode in MODES for b in sizes_kib for w, p in POINTS]
    lat = measure(cases, mice, kv)
    alone = {(w, p): lat[case(w, p, MODES[0], None)][0] for w, p in POINTS}
    rows = []
    for mode in MODES:
        for b in sizes_kib:
            (em, em99), (ek, ek99), (fm, fm99) = (lat[case(w, p, mode, b)] for w, p in POINTS)
            slowdown = em / alone[("mouse", "cx4-edr")]
            rows.append({
                "arbitration": mode, "staging_kib": b,
                "edr_mouse_median_us": em, "edr_mouse_p99_99_us": em99, "edr_mouse_slowdown": slowdown,
                "edr_herd_get_median_us": ek, "edr_herd_get_p99_99_us": ek99,
                "edr_herd_get_growth": ek / alone[("kv", "cx4-edr")],
                "fdr_mouse_median_us": fm, "fdr_mouse_p99_99_us": fm99,
                "meets_c6": _within(fm, C6_FDR_MOUSE_US),
                "meets_c7": _within(slowdown, C7_EDR_MOUSE_SLOWDOWN),
                "meets_c8": _within(ek, C8_EDR_HERD_US),
            })
    return {"alone_median_us": {f"{w} {p}": v for (w, p), v in alone.items()}, "mice": mice, "kv_requests": kv, "rows": rows}


def _herd_get_median(args: Tuple[int, bool, int]) -> float:
    size_kib, reverse, kv = args
    sc = case_scenario(case("kv", "cx4-edr", MODES[0], size_kib), 1, kv)
    if reverse:  # the elephant runs server -> client, beside HERD's responses
        elephant = sc["workload"]["flow"][-1]
        elephant["client"], elephant["server"] = elephant.get("server", 1), elephant.get("client", 0)
    return scenario_latencies(sc, "kv")[0]


def herd_by_direction(size_kib: int = 48, kv: Optional[int] = None) -> Dict[str, float]:
    """EDR HERD GET's median beside the 1 GB elephant (packet round robin, a `size_kib`
    buffer) running client -> server, beside the requests (the reproduction's placement), and
    server -> client, beside the responses: the study does not say where its elephant ran."""
    _, kv = counts("RDMASIM_STAGING", 1, kv)
    with ProcessPoolExecutor(max_workers=2) as pool:
        fwd, rev = pool.map(_herd_get_median, [(size_kib, False, kv), (size_kib, True, kv)])
    return {"staging_kib": size_kib, "beside_requests_us": fwd, "beside_responses_us": rev}


def meeting(result: Dict[str, Any], figure: str, mode: str) -> List[int]:
    """The buffer sizes (KiB) at which `figure` ("c6", "c7", "c8") is met under `mode`."""
    return [r["staging_kib"] for r in result["rows"] if r["arbitration"] == mode and r[f"meets_{figure}"]]


def table(result: Dict[str, Any]) -> str:
    yes = {True: "yes", False: "-"}
    lines = ["alone (median, us): " + ", ".join(f"{k} {v:.2f}" for k, v in result["alone_median_us"].items()),
             "| arbitration | buffer KiB | EDR mouse us (x alone; 99.99th) | EDR HERD GET us (x alone; 99.99th) "
             "| FDR mouse us (99.99th) | C6 | C7 | C8 |",
             "|---|---:|---:|---:|---:|---|---|---|"]
    for r in result["rows"]:
        lines.append(
            f"| {r['arbitration']} | {r['staging_kib']} "
            f"| {r['edr_mouse_median_us']:.2f} ({r['edr_mouse_slowdown']:.1f}x; {r['edr_mouse_p99_99_us']:.2f}) "
            f"| {r['edr_herd_get_median_us']:.2f} ({r['edr_herd_get_growth']:.1f}x; {r['edr_herd_get_p99_99_us']:.2f}) "
            f"| {r['fdr_mouse_median_us']:.2f} ({r['fdr_mouse_p99_99_us']:.2f}) "
            f"| {yes[r['meets_c6']]} | {yes[r['meets_c7']]} | {yes[r['meets_c8']]} |")
    for mode in MODES:
        both = sorted(set(meeting(result, "c7", mode)) & set(meeting(result, "c8", mode)))
        lines.append(f"{mode}: C6 at {meeting(result, 'c6', mode)} KiB, C7 at {meeting(result, 'c7', mode)} KiB, "
                     f"C8 at {meeting(result, 'c8', mode)} KiB; C7 and C8 together at {both or 'no size'}")
    return "\n".join(lines)


def plot(result: Dict[str, Any], path: Path) -> Optional[Path]:
    mouse_alone = result["alone_median_us"]["mouse cx4-edr"]
    bands = [(*C8_EDR_HERD_US, "tab:orange", "C8 HERD published"),
             (*(x * mouse_alone for x in C7_EDR_MOUSE_SLOWDOWN), "tab:blue", "C7 mouse 5x (+-15 %)"),
             (*C6_FDR_MOUSE_US, "tab:green", "C6 FDR mouse ~6 us (+-25 %)")]
    return plot_medians(result, path, "staging_kib", "transmit staging buffer (KiB)", bands, "A NIC transmit staging buffer: which size meets which figure? (sensitivity)")


def _sweep_and_direction() -> Dict[str, Any]:
    result = sweep()
    result["herd_by_direction"] = herd_by_direction()
    return result


def _table_and_direction(result: Dict[str, Any]) -> str:
    d = result["herd_by_direction"]
    return table(result) + (f"\nEDR HERD GET beside the elephant with a {d['staging_kib']} KiB buffer: "
                            f"{d['beside_requests_us']:.2f} us beside its requests, {d['beside_responses_us']:.2f} us beside its responses")


def main(argv: List[str]) -> int:
    return main_for("tx_staging", _sweep_and_direction, _table_and_direction, plot, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
