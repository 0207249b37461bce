"""perftest's command line as ``rdmasim perftest`` takes it.

A perftest command copied from a real run should either work or say exactly which flag the
simulator cannot honour. Flags fall in four groups (names and defaults from linux-rdma/perftest
``src/perftest_parameters.c``, ``usage()``):

- modelled: they set a scenario key (``_PERFTEST_FLAGS`` in ``cli/perftest.py`` names the flag in errors);
- about the machine, not the test (device, port, GID, TCP port, CPU frequency check, rdma_cm
  connection set-up, the server's address): accepted and ignored, with one note on stderr,
  because the simulated hosts are two HCAs cabled back to back whose connection takes no time;
- ``-c/--connection``: RC is the only transport modelled, anything else is an error;
- everything else perftest has that changes the test (duration mode,
  bidirectional, post lists, histograms, rate limits, ...): refused by name, not ignored, so a
  number is never reported for a test that was not the one asked for.
"""
from __future__ import annotations

import argparse
import re
from typing import List, Optional, Tuple

#: (flags, takes a value, what it is) for the flags that only describe the real machine.
_IGNORED: Tuple[Tuple[Tuple[str, ...], bool, str], ...] = (
    (("-d", "--ib-dev"), True, "IB device"),
    (("-i", "--ib-port"), True, "IB port"),
    (("-x", "--gid-index"), True, "GID index"),
    (("-p", "--port"), True, "TCP port for exchanging QP data"),
    (("-F", "--CPU-freq"), False, "CPU frequency check"),
    (("-R", "--rdma_cm"), False, "rdma_cm connection set-up"),
    (("-z", "--comm_rdma_cm"), False, "rdma_cm data exchange"),
)

#: (flags, takes a value, why it is refused) for perftest flags that change the test and that
#: the simulated perftest does not model.
_NOT_MODELLED: Tuple[Tuple[Tuple[str, ...], bool, str], ...] = (
    (("-D", "--duration"), True, "runs are by iterations (-n)"),
    (("-b", "--bidirectional"), False, "traffic is one way, client to server"),
    (("-l", "--post_list"), True, "one work request per post"),
    (("-H", "--report-histogram"), False, "the latency table has the percentiles"),
    (("-U", "--report-unsorted"), False, "the latency table has the percentiles"),
    (("-C", "--report-cycles"), False, "times are in microseconds"),
    (("-w", "--limit_bw"), True, "no pass/fail limits"),
    (("-y", "--limit_msgrate"), True, "no pass/fail limits"),
    (("-S", "--sl"), True, "one service level on a back-to-back link"),
    (("-T", "--tos"), True, "one traffic class"),
    (("-W", "--report-counters"), True, "counters are in the hca_counters table of `rdmasim run`"),
    (("-O", "--dualport"), False, "one port per HCA"),
    (("-g", "--mcg"), False, "no multicast"),
    (("-N", "--noPeak"), False, "the peak is always computed"),
    (("-A", "--atomic_type"), True, "no atomic tests"),
    (("--odp",), False, "ODP runs are scenario workloads (see docs/odp.md)"),
    (("--run_infinitely",), False, "runs are by iterations (-n)"),
    (("--rate_limit",), True, "no rate limiter"),
    (("--use_cuda",), True, "host memory only"),
)


def _dest(flags: Tuple[str, ...]) -> str:
    return "pt_" + flags[-1].lstrip("-").replace("-", "_")


def add_arguments(t: argparse.ArgumentParser) -> None:
    """Adds perftest's flags (modelled, ignored and refused) to the ``perftest`` sub-parser."""
    t.add_argument("server_host", nargs="?", metavar="SERVER",
                   help="the server's address in a real run: accepted and ignored")
    t.set_defaults(trailing_server_host=_trailing_server_host)
    t.add_argument("-s", "--size", type=_size, help="message size in bytes (default 65536 BW, 2 latency)")
    t.add_argument("-a", "--all", action="store_true", help="run sizes from 2 till 2^23")
    t.add_argument("-n", "--iters", type=int,
                   help="iterations (default 5000 ib_write_bw, 1000 the other tests)")
    t.add_argument("-I", "--inline_size", type=int,
                   help="max size of message to be sent inline (default 220 ib_write_lat, 236 ib_send_lat, 0 otherwise)")
    t.add_argument("-t", "--tx-depth", dest="tx_depth", type=int, help="size of tx queue (default 128 BW, 1 latency)")
    t.add_argument("-r", "--rx-depth", dest="rx_depth", type=int, help="rx queue size, send tests (default 512)")
    t.add_argument("-q", "--qp", dest="qps", type=int, help="number of QPs, BW tests (default 1)")
    t.add_argument("-o", "--outs", dest="outs", type=int,
                   help="outstanding reads per QP, READ tests (default 16: qp.max_rd_atomic)")
    t.add_argument("-Q", "--cq-mod", dest="cq_mod", type=int,
                   help="generate a CQE every N work requests, BW tests (default 100; 1 above 8 KiB without -a or -e)")
    t.add_argument("-u", "--qp-timeout", dest="qp_timeout", type=int,
                   help="QP timeout: 4.096 usec * 2^timeout (default 14)")
    t.add_argument("-e", "--events", action="store_true", help="sleep on CQ events (default poll)")
    t.add_argument("-m", "--mtu", type=int, choices=(256, 512, 1024, 2048, 4096), help="path MTU (default: the port's; 2048 on cx3-fdr, as perftest forces on ConnectX-3)")
    t.add_argument("-c", "--connection", default="RC", help="connection type: RC only (the model's transport)")
    t.add_argument("--report_gbits", "--report-gbits", dest="report_gbits", action="store_true",
                   help="report BW in Gb/sec instead of MB/sec")
    for flags, takes_value, what in _IGNORED:
        _flag(t, flags, takes_value, f"{what}: accepted and ignored (simulated hosts, back to back)")
    for flags, takes_value, _ in _NOT_MODELLED:
        _flag(t, flags, takes_value, argparse.SUPPRESS)


def _flag(t: argparse.ArgumentParser, flags: Tuple[str, ...], takes_value: bool, help: str) -> None:
    if takes_value:
        t.add_argument(*flags, dest=_dest(flags), metavar="X", help=help)
    else:
        t.add_argument(*flags, dest=_dest(flags), action="store_true", help=help)


def _size(text: str) -> int:
    """A byte count, optionally with a binary K/M/G suffix: 65536, 64K, 64KiB, 8M."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG])?(?:I?B)?\s*", text, re.IGNORECASE)
    if not m:
        raise argparse.ArgumentTypeError(f"invalid size {text!r}")
    shift = 10 * ("KMG".index(m.group(2).upper()) + 1) if m.group(2) else 0
    return int(m.group(1)) << shift


#: perftest's own ranges for values given on its command line (CHECK_VALUE with MIN_/MAX_ from
#: src/perftest_parameters.h): the CLI refuses what perftest refuses, though a scenario file
#: may go beyond them (scenario.md has its limits).
_PERFTEST_RANGES = (
    ("iters", "-n/--iters", 5, 100_000_000),
    ("tx_depth", "-t/--tx-depth", 1, 15_000),
    ("rx_depth", "-r/--rx-depth", 1, 16_384),
    ("inline_size", "-I/--inline_size", 0, 912),
    ("qps", "-q/--qp", 1, 16_384),
    ("cq_mod", "-Q/--cq-mod", 1, 1_024),
)


def refused(test: str, args: argparse.Namespace) -> Optional[str]:
    """The error for the first perftest flag given that the simulator does not model, or whose
    value perftest would refuse, if any."""
    for dest, flag, lo, hi in _PERFTEST_RANGES:
        v = getattr(args, dest)
        if v is not None and not lo <= v <= hi:
            return f"{test} {flag}: {v} is outside perftest's range {lo}..{hi}"
    if args.connection.upper() != "RC":
        return f"{test} -c/--connection {args.connection}: rdmasim models RC only"
    if args.outs is not None and not test.startswith("ib_read"):
        return f"{test} -o/--outs: outstanding reads apply to READ tests only"
    if args.cq_mod is not None and test.endswith("_lat"):
        return f"{test} -Q/--cq-mod: CQ moderation applies to BW tests only"
    if args.rx_depth is not None and not test.startswith("ib_send"):
        return f"{test} -r/--rx-depth: receive queue depth applies to SEND tests only"
    for flags, _, why in _NOT_MODELLED:
        if getattr(args, _dest(flags)) not in (None, False):
            return f"{test} {'/'.join(flags)}: not modelled by the simulated perftest: {why}"
    return None


def ignored(args: argparse.Namespace) -> List[str]:
    """The machine-only flags (and server address) given, as typed, for a note on stderr."""
    out = []
    for flags, takes_value, _ in _IGNORED:
        v = getattr(args, _dest(flags))
        if v not in (None, False):
            out.append(f"{flags[0]} {v}" if takes_value else flags[0])
    if args.server_host:
        out.append(args.server_host)
    return out


def _trailing_server_host(args: argparse.Namespace, extra: List[str]) -> List[str]:
    """perftest puts the server's address last (``ib_write_bw -s 64K 10.0.0.1``), where argparse
    no longer looks for the optional positional: take one leftover word as it."""
    if args.server_host is None and extra and not extra[0].startswith("-"):
        args.server_host = extra[0]
        return extra[1:]
    return extra
