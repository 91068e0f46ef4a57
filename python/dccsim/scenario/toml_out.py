"""Writing a scenario back to TOML (`dccsim show`): exact units, all defaults filled in."""

from __future__ import annotations

from typing import Any

import tomli_w

from .. import topology as topo
from .. import units
from . import schema
from .model import CcSpec, Scenario

# ----------------------------------------------------------------------------------------------
# Writing back (dccsim show): to_dict(load(x)) loads to an equal Scenario


def _cc_dict(cc: CcSpec) -> dict:
    if cc.algorithm.startswith("plugin:"):  # the compiled object, which loads back as it is
        return {"plugin": cc.algorithm.removeprefix("plugin:"), **cc.params}
    return {"algorithm": cc.algorithm, **cc.params}


def _format_unit(typ: str, val: int) -> str:
    if typ == "rate":
        return units.format_rate_exact(val)
    if typ == "size":
        return units.format_size_exact(val)
    return units.format_time_exact(val)


def to_dict(s: Scenario) -> dict:
    tv = s.topology.values
    topology: dict[str, Any] = {"kind": s.topology.kind}
    for key, typ in topo.FIELDS[s.topology.kind].items():
        if typ == "rate":
            topology[key] = units.format_rate_exact(tv[key])
        elif typ == "time":
            topology[key] = units.format_time_exact(tv[key])
        elif typ == "size":
            topology[key] = units.format_size_exact(tv[key])
        elif typ == "matchings":
            topology[key] = [list(m) for m in tv[key]]
        elif typ == "links":
            topology[key] = [
                {
                    "a": l.a,
                    "b": l.b,
                    "rate": units.format_rate_exact(l.rate_bps),
                    "delay": units.format_time_exact(l.delay_ps),
                }
                for l in tv[key]
            ]
        else:
            topology[key] = tv[key]
    ecn = _ecn_dict(s.switch.ecn)
    out: dict[str, Any] = {
        "name": s.name,
        "description": s.description,
        "seed": s.seed,
        "duration": units.format_time_exact(s.duration_ps),
        "base_rtt": "auto" if s.base_rtt_ps is None else units.format_time_exact(s.base_rtt_ps),
        "topology": topology,
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
        out["engine"] = schema.to_toml("engine", s.engine)
    if s.experiment is not None:
        x = s.experiment
        xd: dict[str, Any] = {"title": x.title}
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
                {"topology": {k: _format_unit(topo.FIELDS[s.topology.kind][k], val) for k, val in v.topology}}
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
    t = units.format_time_exact
    w: dict[str, Any] = {"kind": wl.kind, "start": t(wl.start_ps)}
    if wl.subflows != 1:
        w["subflows"] = wl.subflows
    if wl.cc is not None:
        w["cc"] = _cc_dict(wl.cc)
    if wl.kind == "permutation":
        if wl.size_bytes is not None:
            w["size"] = units.format_size_exact(wl.size_bytes)
        return w
    if wl.stop_ps is not None:
        w["stop"] = t(wl.stop_ps)
    w["warmup"] = t(wl.warmup_ps)
    w["stop_when_done"] = wl.stop_when_done
    if wl.file is not None:
        w["file"] = wl.file
    if wl.cdf is not None:
        w["cdf"] = wl.cdf
    if wl.cdf_file is not None:
        w["cdf_file"] = wl.cdf_file
    if wl.kind == "poisson" and wl.size_bytes is not None:
        w["size"] = units.format_size_exact(wl.size_bytes)
    if wl.load is not None:
        w["load"] = list(wl.load) if isinstance(wl.load, tuple) else wl.load
    if wl.arrival_rate is not None:
        w["arrival_rate"] = wl.arrival_rate
    if wl.load is not None or wl.arrival_rate is not None:
        w["destinations"] = wl.destinations
    if wl.sending_racks is not None:
        w["sending_racks"] = wl.sending_racks
    if wl.connections:
        w["connections"] = True
    if wl.multipath_from_bytes is not None:
        w["multipath_from"] = units.format_size_exact(wl.multipath_from_bytes)
    if wl.jobs is not None:
        j = wl.jobs
        w |= {
            "clients": j.clients,
            "fan_in": j.fan_in,
            "request": units.format_size_exact(j.request_bytes) if j.request_bytes else 0,
            "response": units.format_size_exact(j.response_bytes),
            "loop": j.loop,
        }
        if j.interval_ps is not None:
            w["interval"] = t(j.interval_ps)
    if wl.incast is not None:
        i = wl.incast
        inc: dict[str, Any] = {"size": units.format_size_exact(i.size_bytes), "fan_in": i.fan_in}
        if i.rate is not None:
            inc["rate"] = i.rate
        if i.global_rate is not None:
            inc["global_rate"] = i.global_rate
        inc.update(start=t(i.start_ps), stop=t(i.stop_ps))
        w["incast"] = inc
    if wl.rotating_incast is not None:
        r = wl.rotating_incast
        w["rotating_incast"] = {
            "senders": r.senders,
            "size": units.format_size_exact(r.size_bytes),
            "rate": units.format_rate_exact(r.rate_bps),
            "target_rack": r.target_rack,
            "start": t(r.start_ps),
            "stop": t(r.stop_ps),
        }
    return w
