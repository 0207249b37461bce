"""The ``rdmasim`` command: run, validate, perftest, profiles, reproduce, bench, fabric, doctor.

Exit codes: 0 success; 1 a reproduction row did not match; 2 bad input (scenario error,
missing file, unknown name, an output directory that cannot be written); 3 the results could
not be written where asked and went to a temporary directory (named on stderr); 130
interrupted (partial results are still written); 4 a reproduction study failed with an error
(the other studies still ran and their rows are printed; the error is named on stderr).
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from .. import __version__
from ..errors import ScenarioError
from . import bench, doctor, fabric, perftest, profiles, reproduce, run, trace, validate
from ._common import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, _err, _generator_params, _InputError

__all__ = ["main", "build_parser", "_generator_params"]

# One module per command, each with add(sub) for its parser and its cmd_ function. The modules
# that import pandas (a third of a second) are imported by a command when it runs, so that
# `rdmasim --help`, `--version` and bad arguments answer at once.
COMMANDS = (run, validate, perftest, profiles, reproduce, trace, bench, fabric, doctor)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rdmasim", description="Deterministic packet-level RDMA fabric simulator.")
    p.add_argument("--version", action="version", version=f"rdmasim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for command in COMMANDS:
        command.add(sub)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and hasattr(args, "trailing_server_host"):
        extra = args.trailing_server_host(args, extra)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args.func(args))
    except ScenarioError as e:
        _err(str(e))
        return EXIT_USAGE
    except _InputError as e:
        _err(str(e))
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("rdmasim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `rdmasim profiles | head`
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
