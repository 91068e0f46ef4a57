"""Scenario pieces -> the engine's JSON input (docs/engine-api.md). Knows nothing of parsing."""

from __future__ import annotations

from typing import Any

from .. import topology as topo


def topology_to_engine(t) -> dict:
    out: dict[str, Any] = {"kind": t.kind}
    for key, typ in topo.FIELDS[t.kind].items():
        if typ == "rate":
            out[f"{key}_bps"] = t.values[key]
        elif typ == "time":
            out[f"{key}_ps"] = t.values[key]
        elif typ == "links":
            out["links"] = [
                {"a": l.a, "b": l.b, "rate_bps": l.rate_bps, "delay_ps": l.delay_ps}
                for l in t.values["links"]
            ]
        else:
            out[key] = t.values[key]
    return out


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
