#!/usr/bin/env bash
# Instructions per case, counted by cachegrind: deterministic, unlike wall time on a shared
# machine (the same binary's runs vary by +-10 % and more here). A change to the hot loop is
# measured by running this before and after it; the four cases are the kinds of case that make
# the isolation study long (tools/bench/*.toml). Needs valgrind.
#   tools/bench/instructions.sh [scenario.toml ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
cargo build --release --example event_rate -q
bin=target/release/examples/event_rate
[ $# -gt 0 ] || set -- tools/bench/*.toml
printf '%-28s %12s %16s %10s\n' case events instructions per_event
for s in "$@"; do
    out=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$bin" "$s" 2>&1 >/dev/null)
    events=$(sed -n 's/^\([0-9]*\) events in.*/\1/p' <<<"$out")
    ir=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' <<<"$out" | tr -d ,)
    [ -n "$events" ] && [ -n "$ir" ] || { echo "instructions.sh: $s: no count (run it with event_rate to see why)" >&2; exit 1; }
    awk -v c="$(basename "$s" .toml)" -v e="$events" -v i="$ir" 'BEGIN { printf "%-28s %12.0f %16.0f %10.0f\n", c, e, i, i / e }'
done
