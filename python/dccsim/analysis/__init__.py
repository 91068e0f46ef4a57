"""Analyses named by an experiment's `[experiment] analysis = "..."`.

An analysis module provides:
  KEYS: dict of its extra `[experiment]` keys -> "time" | "str" | "number"; REQUIRED: the mandatory ones
  check(scenario): raise ScenarioError if the scenario cannot be analysed (called by scenario.load)
  variant_metrics(scenario, variant, tables, engine_summary) -> dict of JSON-ready numbers,
      tables = {"flows", "port_series", "flow_series", "ports"} -> pandas DataFrame
  claims(scenario, metrics_by_slug) -> list of {"variant", "claim", "measured", "verdict"}
  report(scenario, metrics_by_slug, claims) -> str (the table printed after a run)
  FIGURE: file name; figure(scenario, series_by_slug, path), series = slug -> (variant, tables, metrics) draws it
  optional: FIGURE_TABLES, the only tables figure() reads (the rest are not sent to the figure
      worker); PARALLEL_FIGURE = True, the figure may be drawn half by each of two processes
      (figure_split.py; for figures of many panels side by side)
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

# analysis name -> module (this package's submodule of that name)
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
    "oplatency",
    "tbtcp_dc",
    "rdcn",
)


class _Analyses(Mapping):
    """{name: module}, importing a module when it is first looked up: a run imports only its
    own analysis (the thirteen together cost ≈ 10 ms of a short run's start; docs/benchmarks.md)."""

    def __getitem__(self, name: str):
        if name not in NAMES:
            raise KeyError(name)
        return importlib.import_module(f"{__name__}.{name}")

    def __iter__(self):
        return iter(NAMES)

    def __len__(self) -> int:
        return len(NAMES)


ANALYSES = _Analyses()
