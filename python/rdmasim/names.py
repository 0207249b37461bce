"""Names the command line needs to build its parser, kept apart from the modules that import
pandas, so that `rdmasim --help` (and every command until it runs something) starts fast."""
from __future__ import annotations

#: Table file formats ``rdmasim run --format`` writes.
FORMATS = ("csv", "parquet")

#: The perftest equivalents, and the profile ``rdmasim perftest`` uses by default.
PERFTEST_TESTS = ("ib_write_bw", "ib_write_lat", "ib_read_bw", "ib_read_lat", "ib_send_bw", "ib_send_lat")
DEFAULT_PROFILE = "cx4-edr"

#: The fabric generator kinds (docs/fabric.md lists their parameters).
GENERATOR_KINDS = ("back-to-back", "single-switch", "xgft", "k-ary-n-tree", "fat-tree-k", "director",
                   "rails", "tsubame2", "hyperx")
