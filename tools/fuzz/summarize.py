"""Summarises a fuzz run's results.txt (tools/fuzz/run.sh): outcome counts per workload kind,
and every run that panicked, was killed or stalled without a reason. Exit status 1 if any."""
import collections
import re
import sys


def outcome(result: str) -> str:
    """The outcome class of one RESULT line's text."""
    if result.startswith("PANIC"):
        return "panic"
    if result.startswith("KILLED"):
        return "killed"
    if result.startswith("SCENARIO_ERROR"):
        return "scenario error"
    if result.startswith('"no more events (workload stalled)"'):
        return "stall WITHOUT reason"
    if result.startswith('"no more events'):
        return "stall with reason"
    m = re.match(r'"([^"]*)"', result)
    reason = m.group(1) if m else result
    if reason in ("completed", "max_sim_time", "max_events"):
        return reason
    return "stopped early (named)"


def main(path: str) -> int:
    counts = collections.defaultdict(collections.Counter)
    bad = []
    for line in open(path):
        m = re.match(r"RESULT (\S+): (.*)", line.strip())
        if not m:
            continue
        file, result = m.groups()
        kind = re.sub(r"_\d+\.toml$", "", file.rsplit("/", 1)[-1])
        cls = outcome(result)
        counts[kind][cls] += 1
        if cls in ("panic", "killed", "stall WITHOUT reason"):
            bad.append(f"{file}: {result[:300]}")
    for kind, c in sorted(counts.items()):
        print(f"{kind:10} {sum(c.values()):5} runs: " + ", ".join(f"{k} {v}" for k, v in c.most_common()))
    for b in bad:
        print("  ", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
