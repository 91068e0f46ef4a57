"""Scenario checks shared by the analyses that bin per-flow goodput."""

from __future__ import annotations

from ..errors import ScenarioError


def require_binned_flow_sampling(scn, analysis: str, papers) -> None:
    """Flow sampling on, a known `[experiment] paper`, and bins no finer than the sampling."""
    p = scn.experiment.params
    if not scn.metrics.flows or scn.metrics.interval_ps == 0:
        raise ScenarioError(
            "metrics.flows", f"the {analysis} analysis needs flow sampling (flows = true, interval > 0)"
        )
    if p["paper"] not in papers:
        raise ScenarioError("experiment.paper", f"unknown value {p['paper']!r}; allowed: {', '.join(papers)}")
    if p["bin"] < scn.metrics.interval_ps:
        raise ScenarioError("experiment.bin", "must be at least metrics.interval")
