#!/bin/bash
# Regenerates the doctor fixtures: our generated fabric with planted faults (fabric.net, from
# tests/doctor.rs), simulated by ibsim, swept once by OpenSM, then read with the real tools
# (Debian 12: apt-get install -y opensm ibsim-utils infiniband-diags). Run from this directory.
# Planted counter values are set through ibsim's console (its stdin): `PerformanceSet
# "node"[port] PortCounters.<Counter>=<value>` (ibsim/sim_cmd.c, do_perf_counter_set).
set -e
cd "$(dirname "$0")"
SO=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so   # dpkg -L libumad2sim0
RDMASIM_DOCTOR_NET=$PWD/fabric.net cargo test -q -p rdmasim-core --test doctor the_fixture_net_file >/dev/null
OUT=$(mktemp -d)
export IBSIM_SOCKNAME=rdmasim-doctor-$$
mkfifo "$OUT/console"
ibsim -s fabric.net <"$OUT/console" >"$OUT/ibsim.log" 2>&1 &
SIM=$!
exec 3>"$OUT/console"
trap 'kill $SIM; rm -rf "$OUT"' EXIT
sleep 1
run() { LD_PRELOAD=$SO OSM_CACHE_DIR=$OUT OSM_TMP_DIR=$OUT timeout 120 "$@" 2>/dev/null; }
sim() { echo "$1" >&3; sleep 0.2; }
set_counter() { sim "PerformanceSet \"$1\"[$2] PortCounters.$3=$4"; }
run opensm -o -f "$OUT/osm.log" >/dev/null

# Counters that are already non-zero at the first snapshot: old errors on healthy links, and
# the start of two faults.
set_counter "r0-L1-s0" 1 SymbolErrorCounter 5000        # healthy: old errors, no growth
set_counter "h14 mlx4_0" 1 SymbolErrorCounter 3         # healthy: grows by 1 (within spec)
set_counter "h5 mlx4_0" 1 PortRcvErrors 2               # fault E2 starts
set_counter "r0-L1-s3" 5 LinkErrorRecoveryCounter 1     # fault E3 starts

run ibnetdiscover >ibnetdiscover.txt
run iblinkinfo >iblinkinfo.txt
run iblinkinfo -l >iblinkinfo-l.txt
# Every active port's LID and number, for a perfquery of each.
PORTS=$(sed -n 's/^0x[0-9a-f]* *"[^"]*" *\([0-9]*\) *\([0-9]*\)\[.*Active.*/\1 \2/p' iblinkinfo-l.txt)
snapshot() {
    # --skip-sl: OpenSM swept once (-o) and exited, so there is no SA to ask for SLs.
    # ibqueryerrors exits non-zero when it finds errors.
    run ibqueryerrors --skip-sl >"ibqueryerrors-$1.txt" || true
    echo "$PORTS" | while read -r lid port; do run perfquery "$lid" "$port"; done >"perfquery-$1.txt"
}
snapshot before

# Between the snapshots (they stand for 600 s apart: ibsim's counters are set from its
# console, not accrued by traffic, so the interval is the one the tests declare).
set_counter "r0-L2-s0" 1 SymbolErrorCounter 60000       # fault E1: a bad lane
set_counter "h5 mlx4_0" 1 PortRcvErrors 350             # fault E2: corrupt packets
set_counter "h5 mlx4_0" 1 SymbolErrorCounter 900
set_counter "r0-L1-s3" 5 LinkErrorRecoveryCounter 7     # fault E3: a flapping link
set_counter "r0-L1-s3" 5 LinkDownedCounter 2
set_counter "h14 mlx4_0" 1 SymbolErrorCounter 4         # healthy: one error in 600 s
set_counter "r0-L2-s2" 3 PortXmitDiscards 500           # healthy: congestion, not the cable
set_counter "r0-L2-s2" 3 PortXmitWait 100000

snapshot after
run ibqueryerrors --skip-sl --data -r >ibqueryerrors-data-r.txt || true
run perfquery -x 21 1 >perfquery-x.txt
run perfquery -a 21 >perfquery-a.txt
run perfquery -x -a 21 >>perfquery-a.txt
dpkg-query -W -f '${Package} ${Version}\n' ibsim-utils opensm infiniband-diags >versions.txt
