#!/usr/bin/env bash
# rdmasim's fat-tree permutation beside htsim's RoCE model on the same fabrics, in one run on
# one machine (docs/bench.md, "Beside htsim"). Usage:
#   tools/bench/htsim_side_by_side.sh HTSIM_SIM_DIR
# HTSIM_SIM_DIR is uet-htsim's htsim/sim folder with build/datacenter/htsim_roce built
# (github.com/ultraethernet/uet-htsim at 40ccb05, with tools/bench/htsim_queue_sizes.patch: as
# published, a topology file's queue sizes are reset to zero and htsim_roce exits with "Missing
# queue_up for tier 0"; then cmake -S htsim/sim -B htsim/sim/build && make -C htsim/sim/build
# htsim_roce). Prints one JSON object: each tool's wall seconds and peak
# resident memory at 1024 and 8192 hosts, and htsim's wall divided by rdmasim's.
set -euo pipefail
sim=${1:?usage: $0 HTSIM_SIM_DIR}
roce=$sim/build/datacenter/htsim_roce
dc=$sim/datacenter
[ -x "$roce" ] || { echo "$0: $roce is not built" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# htsim: its own fat trees and 2 MB permutations, RoCE, ECMP over 256 paths, 4096 B MTU.
run_htsim() {  # hosts topo matrix
  ( cd "$out" && /usr/bin/time -f '%e %M' -o "$out/time_$1" "$roce" \
      -topo "$dc/topologies/$2" -tm "$dc/connection_matrices/$3" \
      -strat ecmp_host -paths 256 -mtu 4096 -nodes "$1" > "$out/htsim_$1.log" 2>&1 )
}
run_htsim 1024 fat_tree_1024_1os.topo perm_1024n_1024c_0u_2000000b.cm
run_htsim 8192 fat_tree_8192_1os.topo perm_8192n_8192c_2MB.cm
rdmasim bench --json -n 1 --case fat_tree --case fat_tree_k32 > "$out/rdmasim.json"

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
r = json.load(open(f"{out}/rdmasim.json"))
res = {}
for hosts, key in ((1024, "fat_tree"), (8192, "fat_tree_k32")):
    wall, kib = open(f"{out}/time_{hosts}").read().split()
    res[str(hosts)] = {
        "htsim_wall_s": float(wall), "htsim_peak_rss_mib": round(int(kib) / 1024, 1),
        "rdmasim_wall_s": r[f"{key}_wall_s"], "rdmasim_peak_rss_mib": round(r[f"{key}_peak_rss_mib"], 1),
        "rdmasim_packet_hops": r[f"{key}_packet_hops"],
        "htsim_over_rdmasim": round(float(wall) / r[f"{key}_wall_s"], 1),
    }
print(json.dumps(res, indent=1))
PY
