"""Analyses named by an experiment's `[experiment] analysis = "..."`.

An analysis module provides:
  KEYS: dict of its extra `[experiment]` keys -> "time" | "str" | "number"; REQUIRED: the mandatory ones
  check(scenario): raise ScenarioError if the scenario cannot be analysed (called by scenario.load)
  variant_metrics(scenario, variant, tables, engine_summary) -> dict of JSON-ready numbers,
      tables = {"flows", "port_series", "flow_series", "ports"} -> pandas DataFrame
  claims(scenario, metrics_by_slug) -> list of {"variant", "claim", "measured", "verdict"}
  report(scenario, metrics_by_slug, claims) -> str (the table printed after a run)
  FIGURE: file name; figure(scenario, series_by_slug, path), series = slug -> (variant, tables, metrics) draws it
"""

from __future__ import annotations

from . import (
    amp,
    buffer_cdf,
    fairness,
    fct,
    incast,
    oplatency,
    phase,
    poseidon,
    powertcp_dc,
    queue_sweep,
    rdcn,
    shared,
    tbtcp_dc,
)

ANALYSES = {
    "amp": amp,
    "buffer_cdf": buffer_cdf,
    "fct": fct,
    "powertcp_dc": powertcp_dc,
    "incast": incast,
    "shared": shared,
    "queue_sweep": queue_sweep,
    "fairness": fairness,
    "phase": phase,
    "poseidon": poseidon,
    "oplatency": oplatency,
    "tbtcp_dc": tbtcp_dc,
    "rdcn": rdcn,
}
