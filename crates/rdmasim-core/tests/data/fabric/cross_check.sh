#!/bin/sh
# Cross-checks our writers with the real tools: the round-trip test writes a fat tree as an
# ibsim net file and an LFT dump; ibsim simulates the net file, ibnetdiscover discovers it,
# OpenSM loads our LFTs with its file routing engine and dumps them back; then the ignored test
# cross_check_with_real_ibsim_and_opensm compares. Needs opensm, ibsim-utils, infiniband-diags.
set -e
cd "$(dirname "$0")/../../.."   # crates/rdmasim-core
SO=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
OUT=$(mktemp -d)
export RDMASIM_FABRIC_OUT=$OUT
cargo test -q --test fabric_io ibsim_net_round_trip >/dev/null
ibsim -s "$OUT/fat_tree.net" >"$OUT/ibsim.log" 2>&1 </dev/null &
SIM=$!
trap 'kill $SIM' EXIT
sleep 1
run() { LD_PRELOAD=$SO OSM_CACHE_DIR=$OUT OSM_TMP_DIR=$OUT timeout 120 "$@"; }
run opensm -o -R file -U "$OUT/fat_tree-lfts.dump" -D 0x43 -f "$OUT/osm.log" --dump_files_dir "$OUT" >/dev/null 2>&1
grep -q "file tables configured on all switches" "$OUT/osm.log"
run ibnetdiscover 2>/dev/null >"$OUT/ibnetdiscover.txt"
cargo test -q --test fabric_io cross_check_with_real_ibsim_and_opensm -- --ignored
echo "cross-check passed ($OUT)"
