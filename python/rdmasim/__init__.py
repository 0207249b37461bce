"""rdmasim: a deterministic packet-level simulator of RDMA fabrics.

Describe hardware, fabric and workload in a scenario (a TOML file, TOML text or a dict) and get
what you would measure on the real thing::

    import rdmasim
    res = rdmasim.run("scenarios/write_bw.toml", progress=True)
    res.perftest          # perftest's report as a DataFrame
    res.hca_counters      # rdma-core counter names
    res.write("out/write_bw", format="parquet")

    df = rdmasim.sweep(scenario, {"workload.size": [4096, 65536]}, executor=pool)

    fab = rdmasim.Fabric.build("fat-tree-k", k=16)   # or Fabric.import_file("ibnetdiscover.txt", lfts=...)
    fab.summary, fab.loads, fab.links                  # no simulation: counts, route loads, DataFrames

The simulator itself is the Rust crate ``rdmasim-core``; ``rdmasim._core`` binds it.
"""
from __future__ import annotations

import sys as _sys
import types as _types
from importlib import import_module
from typing import Any

from . import _core
from ._core import Simulation
from .errors import ScenarioError

__version__: str = _core.__version__

# The rest is imported on first use (PEP 562): most of it imports pandas, which costs a third
# of a second, and `rdmasim --version` or a bad argument should answer at once.
_LAZY = {
    "Fabric": ".fabric",
    "FabricError": ".fabric",
    "profile_names": ".profiles",
    "profiles": ".profiles",
    "Result": ".result",
    "RunInterrupted": ".runner",
    "run": ".runner",
    "simulation": ".runner",
    "validate": ".runner",
    "dict_to_toml": ".scenario",
    "scenario_dict": ".scenario",
    "set_dotted": ".scenario",
    "SweepInterrupted": ".sweep",
    "SweepRunFailed": ".sweep",
    "sweep": ".sweep",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rdmasim' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))


# `sweep` and `profiles` are functions named like the submodules that define them. Importing a
# submodule sets the package attribute of its name to the module: keep the function there, as
# `from .sweep import sweep` in this file used to.
_SHADOWED = {"sweep", "profiles"}


class _Package(_types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHADOWED and isinstance(value, _types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


__all__ = [
    "Fabric",
    "FabricError",
    "Result",
    "RunInterrupted",
    "ScenarioError",
    "Simulation",
    "dict_to_toml",
    "profile_names",
    "profiles",
    "run",
    "scenario_dict",
    "set_dotted",
    "simulation",
    "sweep",
    "SweepInterrupted",
    "SweepRunFailed",
    "validate",
    "__version__",
]
