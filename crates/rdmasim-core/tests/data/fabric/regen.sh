#!/bin/sh
# Regenerates the real-tool fixtures of this directory from ibsim.net, with the real tools
# (Debian 12: apt-get install -y opensm ibsim-utils infiniband-diags). Run from this directory.
set -e
SO=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so   # dpkg -L libumad2sim0
OUT=$(mktemp -d)
ibsim -s ibsim.net >"$OUT/ibsim.log" 2>&1 </dev/null &
SIM=$!
trap 'kill $SIM' EXIT
sleep 1
run() { LD_PRELOAD=$SO OSM_CACHE_DIR=$OUT OSM_TMP_DIR=$OUT timeout 120 "$@"; }
# OpenSM sweeps once and exits; log level 0x43 includes OSM_LOG_ROUTING, which makes it dump
# opensm-lfts.dump (opensm-subnet.lst is always dumped).
run opensm -o -D 0x43 -f "$OUT/osm.log" --dump_files_dir "$OUT" >"$OUT/opensm.stdout" 2>&1
cp "$OUT/opensm-subnet.lst" "$OUT/opensm-lfts.dump" "$OUT/guid2lid" .
run ibnetdiscover 2>/dev/null >ibnetdiscover.txt
run ibnetdiscover -p 2>/dev/null >ibnetdiscover-p.txt
run ibroute 3 2>/dev/null >ibroute-leaf1.txt
run dump_lfts 2>/dev/null >dump_lfts.txt
# Cross-check: OpenSM loads an LFT file (ours or its own) with the file routing engine.
run opensm -o -R file -U opensm-lfts.dump -D 0x43 -f "$OUT/osm-file.log" --dump_files_dir "$OUT/file" >/dev/null 2>&1 || true
grep -q "file tables configured on all switches" "$OUT/osm-file.log" && echo "opensm -R file accepted opensm-lfts.dump"
