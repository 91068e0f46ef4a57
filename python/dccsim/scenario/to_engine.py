"""Scenario pieces -> the engine's JSON input (docs/engine-api.md). Knows nothing of parsing."""

from __future__ import annotations

from .. import topology as topo


def topology_to_engine(t) -> dict:
    return topo.to_engine(t.kind, t.values)


def ecn_to_engine(e) -> dict:
    if e.kind == "step":
        return {"kind": "step", "k_bytes": e.k_bytes}
    if e.kind == "red":
        return {
            "kind": "red",
            "kmin_bytes": e.kmin_bytes,
            "kmax_bytes": e.kmax_bytes,
            "pmax": e.pmax,
            "steps": e.steps,
        }
    if e.kind == "curve":
        return {"kind": "curve", "bdp_bytes": e.bdp_bytes, "tmin_bytes": e.tmin_bytes, "pmax": e.pmax}
    if e.kind == "red_by_rate":
        return {
            "kind": "red_by_rate",
            "rules": [
                {"rate_bps": r, "kmin_bytes": kmin, "kmax_bytes": kmax, "pmax": p}
                for r, kmin, kmax, p in e.rules
            ],
        }
    return {"kind": "none"}
