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

from . import _core
from ._core import Simulation
from .errors import ScenarioError
from .fabric import Fabric, FabricError
from .profiles import profile_names, profiles
from .result import Result
from .runner import RunInterrupted, run, simulation, validate
from .scenario import dict_to_toml, scenario_dict, set_dotted
from .sweep import SweepInterrupted, sweep

__version__: str = _core.__version__

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
    "validate",
    "__version__",
]
