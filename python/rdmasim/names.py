"""Names the command line needs to build its parser, kept apart from the modules that import
pandas, so that `rdmasim --help` (and every command until it runs something) starts fast.

The names the core parses (perftest tests, generator kinds, routing engines, the tables a run
makes while running) come from the core itself (``_core.names_json``, one definition each in
Rust); only what the Python side chooses is written here."""
from __future__ import annotations

import json
from typing import Tuple

from ._core import names_json

_CORE = json.loads(names_json())

#: Table file formats ``rdmasim run --format`` writes (Python writes them).
FORMATS = ("csv", "parquet")

#: The profile ``rdmasim perftest`` uses when none is given (perftest itself runs on whatever card
#: it finds; ours picks the ConnectX-4 EDR profile).
DEFAULT_PROFILE = "cx4-edr"

#: The perftest equivalents, in perftest's order, and which of them are latency tests.
PERFTEST_TESTS: Tuple[str, ...] = tuple(_CORE["perftest_tests"])
PERFTEST_LATENCY_TESTS: Tuple[str, ...] = tuple(_CORE["perftest_latency_tests"])

#: The fabric generator kinds (docs/fabric.md lists their parameters).
GENERATOR_KINDS: Tuple[str, ...] = tuple(_CORE["generator_kinds"])

#: OpenSM's routing engines by name (and ours), and those ``--compare-engines`` compares by default.
ROUTING_ENGINES: Tuple[str, ...] = tuple(_CORE["routing_engines"])
COMPARE_DEFAULT_ENGINES: Tuple[str, ...] = tuple(_CORE["compare_default_engines"])

#: Tables whose rows appear only once a run creates what they describe (MPI QPs and SRQs, ODP
#: memory): a scenario that has not run yet may not list them.
TABLES_MADE_WHILE_RUNNING: Tuple[str, ...] = tuple(_CORE["tables_made_while_running"])
