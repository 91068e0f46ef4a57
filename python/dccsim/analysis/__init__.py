"""Analyses named by an experiment's `[experiment] analysis = "..."`.

Each is an object implementing `base.Analysis` (keys, checks, per-variant metrics, claims, the
report table, the figure; the contract is written there), registered as the `ANALYSIS` of this
package's submodule of the analysis's name. An analysis of several paper figures is a
`base.ByPaper` over one object per figure, chosen by `[experiment] paper`. Helpers the analyses
share live in `common`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from .base import Analysis

# analysis name -> its module (this package's submodule of that name), whose ANALYSIS it is
NAMES = (
    "amp",
    "buffer_cdf",
    "fct",
    "powertcp_dc",
    "incast",
    "shared",
    "queue_sweep",
    "fairness",
    "phase",
    "poseidon",
    "poseidon_design",
    "oplatency",
    "tbtcp_dc",
    "rdcn",
    "overview",
)
DEFAULT = "overview"  # the figures of a scenario that names no analysis (overview.py)


class _Analyses(Mapping):
    """{name: Analysis}, importing a module when it is first looked up: a run imports only its
    own analysis (the fifteen together cost ≈ 10 ms of a short run's start; docs/benchmarks.md)."""

    def __getitem__(self, name: str) -> Analysis:
        if name not in NAMES:
            raise KeyError(name)
        return importlib.import_module(f"{__name__}.{name}").ANALYSIS

    def __iter__(self):
        return iter(NAMES)

    def __len__(self) -> int:
        return len(NAMES)


ANALYSES = _Analyses()
