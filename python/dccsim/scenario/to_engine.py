"""Scenario pieces -> the engine's JSON input (docs/engine-api.md). Knows nothing of parsing."""

from __future__ import annotations

from .. import topology as topo


def topology_to_engine(t) -> dict:
    return topo.to_engine(t.kind, t.values)


def ecn_to_engine(e) -> dict:
    """An ECN record (model.Ecn) as the engine's tagged JSON."""
    from . import schema

    return {"kind": "none"} if e.kind == "none" else {"kind": e.kind, **schema.to_engine(e)}
