"""Writing a scenario back to TOML (`dccsim show`): exact units, all defaults filled in."""

from __future__ import annotations

from typing import Any

import tomli_w

from .. import topology as topo
from .. import units
from . import front_sections, schema
from .model import CcSpec, Scenario

# ----------------------------------------------------------------------------------------------
# Writing back (dccsim show): to_dict(load(x)) loads to an equal Scenario


def _cc_dict(cc: CcSpec) -> dict:
    if cc.algorithm.startswith("plugin:"):  # the compiled object, which loads back as it is
        return {"plugin": cc.algorithm.removeprefix("plugin:"), **cc.params}
    return {"algorithm": cc.algorithm, **cc.params}


def topology_dict(t) -> dict:
    """[topology] as TOML: `kind`, then every key of the kind (config/topology.rs) with exact units."""
    out: dict[str, Any] = {"kind": t.kind}
    for key, (k, _path) in topo.fields(t.kind).items():
        v = t.values[key]
        out[key] = (
            [schema.to_toml(k.section, x) for x in v] if k.type == "tables" else schema.to_toml_value(k, v)
        )
    return out


def to_dict(s: Scenario) -> dict:
    ecn = _ecn_dict(s.switch.ecn)
    out: dict[str, Any] = front_sections.to_toml("scenario", s)  # the top-level values
    out.setdefault("base_rtt", "auto")
    out |= {
        "topology": topology_dict(s.topology),
        "switch": schema.to_toml(
            "switch", s.switch, {"ecn": lambda r: ecn, "pfc": lambda r: _pfc_or_none(r.pfc)}
        ),
        "host": schema.to_toml("host", s.host),
        "cc": _cc_dict(s.cc),
    }
    if s.flows:
        flows = []
        for f in s.flows:
            fd: dict[str, Any] = {"src": list(f.src) if isinstance(f.src, tuple) else f.src, "dst": f.dst}
            if f.size_bytes is not None:
                fd["size"] = units.format_size_exact(f.size_bytes)
            fd["start"] = units.format_time_exact(f.start_ps)
            if f.cc is not None:
                fd["cc"] = _cc_dict(f.cc)
            if f.subflows != 1:
                fd["subflows"] = f.subflows
            if f.after:
                fd["after"] = list(f.after)
            if f.closed_loop is not None:
                c = f.closed_loop
                fd["closed_loop"] = {
                    "shape": c.shape,
                    "mean": units.format_size_exact(c.mean_bytes),
                    "destination": c.destination,
                } | ({"max": units.format_size_exact(c.max_bytes)} if c.max_bytes is not None else {})
            flows.append(fd)
        out["flows"] = flows
    if s.workload is not None:
        out["workload"] = _workload_dict(s.workload)
    out["metrics"] = schema.to_toml("metrics", s.metrics)
    if s.engine != schema.record("engine"):
        default = schema.to_toml(
            "engine", schema.record("engine")
        )  # only the keys set: [engine] check = true
        out["engine"] = {k: v for k, v in schema.to_toml("engine", s.engine).items() if v != default.get(k)}
    if s.experiment is not None:
        x = s.experiment
        xd: dict[str, Any] = {"title": x.title}
        if x.fixed_scale:
            xd["fixed_scale"] = True
        if x.analysis:
            xd["analysis"] = x.analysis
            from ..analysis import ANALYSES

            for key, typ in ANALYSES[x.analysis].KEYS.items():
                if key in x.params:
                    xd[key] = units.format_time_exact(x.params[key]) if typ == "time" else x.params[key]
        xd["variants"] = [
            {"name": v.name, "cc": _cc_dict(v.cc)}
            | ({"ecn": _ecn_dict(v.ecn)} if v.ecn else {})
            | (
                {
                    "topology": {
                        k: schema.to_toml_value(topo.fields(s.topology.kind)[k][0], val)
                        for k, val in v.topology
                    }
                }
                if v.topology
                else {}
            )
            | ({"workload": _workload_overrides(s.workload, v.workload)} if v.workload is not None else {})
            | ({"int_switches": list(v.int_switches)} if v.int_switches is not None else {})
            | ({"subflows": v.subflows} if v.subflows is not None else {})
            | ({"pfc": _pfc_dict(v.pfc) if v.pfc else False} if v.pfc is not None else {})
            | ({"added": True} if v.added else {})
            for v in x.variants
        ]
        out["experiment"] = xd
    return out


def dump_toml(s: Scenario) -> str:
    """The resolved scenario as TOML; `loads(dump_toml(s)) == s`."""
    return tomli_w.dumps(to_dict(s))


def _ecn_dict(e) -> dict:
    return {"kind": e.kind, **({} if e.kind == "none" else schema.to_toml(schema.ECN + e.kind, e))}


def _pfc_or_none(p):
    return None if p is None else _pfc_dict(p)


def _pfc_dict(p) -> dict:
    def headroom(r):
        if r.headroom_bytes is not None:
            return units.format_size_exact(r.headroom_bytes)
        return "artifact" if r.headroom_artifact else "auto"

    return schema.to_toml("switch.pfc", p, {"headroom": headroom})


def _workload_overrides(base, wl) -> dict:
    """The keys of a variant's workload that differ from the scenario's (what the variant wrote)."""
    b, w = _workload_dict(base), _workload_dict(wl)
    return {k: val for k, val in w.items() if b.get(k) != val}


def _workload_dict(wl) -> dict:
    """[workload] from its declaration (front_sections.py): the keys of its kind, exact units."""
    special = {
        "cc": _cc_dict,
        "load": lambda x: list(x) if isinstance(x, tuple) else x,
    }
    return {"kind": wl.kind, **front_sections.to_toml("workload", wl, wl.kind, special)}
