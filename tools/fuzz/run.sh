#!/bin/bash
# Fuzz rdmasim in a debug build: generate scenarios, run each in its own process (an abort or a
# hang costs one file, not the run), summarise.
#   tools/fuzz/run.sh OUT_DIR [SEED [COUNT [KINDS]]]      (make fuzz N=400 SEED=1)
# Writes OUT_DIR/*.toml, OUT_DIR/results.txt (one RESULT line per file) and prints the summary;
# exits 1 if any run panicked, was killed or stalled without a reason.
set -euo pipefail
out=${1:?usage: run.sh OUT_DIR [SEED [COUNT [KINDS]]]}
here=$(cd "$(dirname "$0")" && pwd)
python3 "$here/gen.py" "$out" "${2:-1}" "${3:-500}" "${4:-perftest,srq,odp,mpi,flows}"
# The harness binary of the debug test build (overflow checks and debug assertions on).
bin=$(cargo test -p rdmasim-core --test fuzz_dir --no-run --message-format=json 2>/dev/null \
      | python3 -c 'import json,sys; print(next(j["executable"] for j in map(json.loads, sys.stdin) if j.get("executable") and j["target"]["name"] == "fuzz_dir"))')
export bin
: > "$out/results.txt"
ls "$out"/*.toml | xargs -P "${FUZZ_JOBS:-2}" -I{} bash -c '
  line=$(FUZZ_PATH={} timeout --foreground "${FUZZ_TIMEOUT:-60}" "$bin" --ignored --nocapture </dev/null 2>/dev/null | grep "^RESULT" || true)
  echo "${line:-RESULT {}: KILLED (timeout, abort or out of memory)}"' >> "$out/results.txt"
python3 "$here/summarize.py" "$out/results.txt"
