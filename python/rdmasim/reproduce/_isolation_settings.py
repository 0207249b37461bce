"""The settings of `rdmasim reproduce isolation`: its case matrix (profiles, sizes, seeds), the
counts and tick values the environment may change (``ENV_VARS``), read by :func:`from_env`.

The lowest module of the study: isolation.py, its figures, rows and plots read their settings
here and this module reads none of them, so there is one copy of each setting and a value set
by a variable (or by a test) is the one every part of the study sees. Settings that may change
are read as ``settings.NAME`` at the time of use, not imported by name.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Optional

from ..envvars import env_float, env_int, env_switch

MB = 1 << 20
GB = 1 << 30
#: The seeds every case runs with (the tick's phase and detours are drawn from the seed).
SEEDS = (1, 2, 3, 4, 5)
#: Seeds of the elephant cases (C1-C3, C7's ratio, the paced pair): the tick moves their ratios
#: by at most 0.001, but they run with every seed all the same.
ELEPHANT_SEEDS = SEEDS
#: Mouse messages per case, split among the SEEDS (200 k each): the study sent 10 M; 1 M keeps
#: the whole reproduction within a minute (a 10 B mouse beside an elephant costs ~22 events per
#: message; see docs/isolation.md for the measured rate). Each seed's 99.99th is its 20th-longest
#: message, among the ~60 that meet a tick, the same share of them as 100 of ~310 in 1 M.
MOUSE_MESSAGES = 1_000_000
#: HERD requests per case, split among the SEEDS (the study: 5 M).
KV_REQUESTS = 300_000
#: Requests a HERD client keeps outstanding: the study ran HERD as published with SIGCOMM'14
#: (its ref. [1]), whose client keeps a sliding window of WINDOW_SIZE = 4 (efficient/HERD
#: common.h; main.c run_client polls the oldest response once num_req - num_resp == WINDOW_SIZE).
#: (efficient/rdma_bench's later HERD batches 32: not the code the study cites.)
HERD_WINDOW = 4
#: HERD's server answers a request at the second push of its 2-stage pipeline after it
#: (efficient/HERD main.c run_server / process_pipeline, FAIL_LIM 100 from common.h); the CPU
#: time of one empty poll is the model's assumed default (`empty_poll_ns`, docs/isolation.md
#: sec. 3). RDMASIM_ISOLATION_KV_PIPELINE=0 turns it off.
HERD_SERVER_PIPELINE = True
#: Messages of the smaller elephant in a cell (the window closes when it has sent them).
ELEPHANT_MESSAGES = 40
#: The hosts' scheduler tick rate and its interrupt entry/exit come from the named hosts
#: (isolation.HOSTS); RDMASIM_ISOLATION_TICK_HZ (0 = no tick noise) and
#: RDMASIM_ISOLATION_TICK_ENTRY_EXIT_NS (0 = the handler only) override them on both profiles.
TICK_HZ_OVERRIDE: Optional[float] = None
TICK_ENTRY_EXIT_NS_OVERRIDE: Optional[float] = None
VERBS = ("write", "read", "write_imm", "send")
BASES_MB = (1, 2, 5, 10, 100)
SIZE_RATIOS = (1, 2, 5, 10, 100, 1000)
CPU_SIZES = (10, 100, 1_000, 10_000, 100_000, MB, 10 * MB, 100 * MB, GB)
MOUSE_SIZES = (10, 100, 1000)
#: The study inlined 10 B and 100 B messages.
INLINE_MAX = 100
PROFILES = ("cx3-fdr", "cx4-edr")
#: The profile the study ran each case family on (slides 38-41: EDR on UMich Conflux).
STUDY_PROFILE = {"C1": "cx3-fdr", "C2": "cx3-fdr", "C3": "cx3-fdr", "C4": "cx3-fdr", "C8": "cx4-edr"}


def other(profile: str) -> str:
    return PROFILES[1 - PROFILES.index(profile)]


#: The variables that tune this study (each setting above says what it sets).
ENV_VARS = ("RDMASIM_ISOLATION_MICE", "RDMASIM_ISOLATION_KV", "RDMASIM_ISOLATION_KV_WINDOW",
            "RDMASIM_ISOLATION_KV_PIPELINE", "RDMASIM_ISOLATION_TICK_HZ", "RDMASIM_ISOLATION_TICK_ENTRY_EXIT_NS")
#: The settings the variables set.
_FROM_ENV = ("MOUSE_MESSAGES", "KV_REQUESTS", "HERD_WINDOW", "HERD_SERVER_PIPELINE", "TICK_HZ_OVERRIDE",
             "TICK_ENTRY_EXIT_NS_OVERRIDE")


def _env_number(name: str, current: Optional[float]) -> Optional[float]:
    """``name`` as a number when it is set and not blank, else ``current`` (None: the named
    hosts' value)."""
    return env_float(name, 0.0) if os.environ.get(name, "").strip() else current


def from_env() -> None:
    """Applies the ``ENV_VARS`` that are set (a value that is not a count or a number of the
    right kind raises :class:`EnvVarError` naming the variable); unset ones keep the defaults."""
    global MOUSE_MESSAGES, KV_REQUESTS, HERD_WINDOW, HERD_SERVER_PIPELINE, TICK_HZ_OVERRIDE, TICK_ENTRY_EXIT_NS_OVERRIDE
    MOUSE_MESSAGES = env_int("RDMASIM_ISOLATION_MICE", MOUSE_MESSAGES, lo=1)
    KV_REQUESTS = env_int("RDMASIM_ISOLATION_KV", KV_REQUESTS, lo=1)
    HERD_WINDOW = env_int("RDMASIM_ISOLATION_KV_WINDOW", HERD_WINDOW, lo=1)
    HERD_SERVER_PIPELINE = env_switch("RDMASIM_ISOLATION_KV_PIPELINE", HERD_SERVER_PIPELINE)
    TICK_HZ_OVERRIDE = _env_number("RDMASIM_ISOLATION_TICK_HZ", TICK_HZ_OVERRIDE)
    TICK_ENTRY_EXIT_NS_OVERRIDE = _env_number("RDMASIM_ISOLATION_TICK_ENTRY_EXIT_NS", TICK_ENTRY_EXIT_NS_OVERRIDE)


def saved() -> Dict[str, Any]:
    """The settings :func:`from_env` may change, to put back with :func:`restore`."""
    return {k: globals()[k] for k in _FROM_ENV}


def restore(values: Dict[str, Any]) -> None:
    globals().update(values)
