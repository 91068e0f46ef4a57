"""Reading and checking `[workload]` (docs/scenario.md): permutation, poisson, incast, replay."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..errors import ScenarioError
from ..workloads import cdf as cdfs
from ..workloads.racks import racks
from .fields import choice, number, show, string
from .model import Incast, Jobs, RotatingIncast, Topology, Workload

from . import front_sections as declared

KINDS = declared.WORKLOAD_KINDS


def _path(v, f, base_dir: Optional[Path]) -> str:
    p = Path(string(v, f))
    if not str(p).strip():
        raise ScenarioError(f, "must be a file path, got an empty string")
    if not p.is_absolute() and base_dir is not None:
        p = base_dir / p
    return str(p)


class _Context:
    """What the workload's rules need of the rest of the scenario: its hosts and racks."""

    def __init__(self, topology: Topology, n_hosts: int):
        self.topology, self.n_hosts = topology, n_hosts
        self._racks = None
        self.n_send_racks = 0  # the rotating incast's rules: sending racks

    def racks(self):
        if self._racks is None:
            self._racks = racks(self.topology.kind, self.topology.values)
        return self._racks

    def n_send(self, v: dict) -> int:
        return v["sending_racks"] or self.racks().count

    def sending_hosts(self, v: dict) -> int:
        rk, last = self.racks(), self.n_send(v) - 1
        return int(rk.first[last] + rk.size[last] - rk.first[0])

    def min_rack(self) -> int:
        return int(self.racks().size.min())

    def free_hosts(self) -> int:
        rk = self.racks()
        return int(rk.first[-1] + rk.size[-1] - rk.first[self.n_send_racks])


def parse(data, topology: Topology, n_hosts: int, base_dir: Optional[Path] = None) -> Workload:
    """[workload]: its keys, ranges and rules as declared (front_sections.py), then the CDF read."""
    if not isinstance(data, dict) or "kind" not in data:
        raise ScenarioError("workload.kind", f"missing (required); allowed: {', '.join(KINDS)}")
    kind = choice(KINDS)(data["kind"], "workload.kind")
    ctx = _Context(topology, n_hosts)
    path = lambda v, f: _path(v, f, base_dir)  # noqa: E731
    load_key = declared.keys("workload")["load"]

    def load(v, f):
        """One fraction of the uplink for every sending rack, or a list with one per sending rack."""
        if not isinstance(v, list):
            return declared.in_range(load_key, float(number(v, f)), f)
        return tuple(
            declared.in_range(load_key, float(number(x, f"{f}[{i}]")), f"{f}[{i}]") for i, x in enumerate(v)
        )

    v = declared.read(
        "workload",
        data,
        "workload",
        ctx,
        kind,
        {
            "cdf": string,
            "cdf_file": path,
            "file": path,
            "load": load,
            "incast": lambda x, f: x,
            "rotating_incast": lambda x, f: x,
            "cc": lambda x, f: None,
        },
    )
    fields = declared.keys("workload", kind)
    w: dict = {
        declared.keys("workload")[key].field: x
        for key, x in v.items()
        if key in fields and "." not in fields[key].field
    }
    w.pop("cc", None)  # the generated flows' controller: parse.py reads it
    if kind == "permutation":
        return Workload(kind, **w)
    if kind == "jobs":
        w["jobs"] = Jobs(
            **{fields[k].field.split(".")[1]: x for k, x in v.items() if fields[k].field.startswith("jobs.")}
        )
        return Workload(kind, **w)
    if kind == "replay":
        return Workload(kind, **w)
    if isinstance(v.get("load"), tuple) and len(v["load"]) != ctx.n_send(v):
        raise ScenarioError(
            "workload.load",
            f"a list needs one load per sending rack ({ctx.n_send(v)}), got {len(v['load'])} values {show(list(v['load']))}",
        )
    if v.get("cdf") is not None:
        w["cdf_points"] = cdfs.load_packaged(v["cdf"], "workload.cdf")
    elif v.get("cdf_file") is not None:
        w["cdf_points"] = cdfs.load_file(v["cdf_file"], "workload.cdf_file")
    elif kind == "poisson":
        w["cdf_points"] = ((float(v["size"]), 1.0),)  # a point mass
    if v.get("rotating_incast") is not None:
        w["rotating_incast"] = _rotating(v["rotating_incast"], v["start"], v["stop"], ctx, v["sending_racks"])
    if v.get("incast") is not None:
        w["incast"] = _incast(v["incast"], v["start"], v["stop"], ctx)
    return Workload(kind=kind, **w)


def _rotating(data, start: int, stop: int, ctx: _Context, n_send: int) -> RotatingIncast:
    ctx.n_send_racks = n_send
    v = declared.read(
        "workload.rotating_incast",
        data,
        "workload.rotating_incast",
        ctx,
        defaults={"start": start, "stop": stop},
    )
    return RotatingIncast(**{declared.ROTATING_FIELDS[k]: x for k, x in v.items()})


def _incast(data, start: int, stop: int, ctx: _Context) -> Incast:
    v = declared.read(
        "workload.incast", data, "workload.incast", ctx, defaults={"start": start, "stop": stop}
    )
    return Incast(**{declared.INCAST_FIELDS[k]: x for k, x in v.items()})


def check_against_run(scn) -> None:
    """Rules that need the whole scenario: arrivals within the run, a replayed table's rows."""
    w = scn.workload
    end = scn.duration_ps
    if w.start_ps >= end:
        raise ScenarioError("workload.start", f"must be before the end of the run (duration {end} ps)")
    if w.stop_ps is not None and w.stop_ps > end:
        raise ScenarioError("workload.stop", f"must not be after the end of the run (duration {end} ps)")
    if w.rotating_incast is not None and w.rotating_incast.stop_ps > end:
        raise ScenarioError(
            "workload.rotating_incast.stop", f"must not be after the end of the run (duration {end} ps)"
        )
    if w.incast is not None and w.incast.stop_ps > end:
        raise ScenarioError(
            "workload.incast.stop", f"must not be after the end of the run (duration {end} ps)"
        )
    if w.kind == "replay":
        from ..workloads.replay import check, read

        if scn.flows:
            raise ScenarioError(
                "workload.file", "a replay holds every flow of the run; remove the [[flows]] tables"
            )
        check(read(w.file, "workload.file"), scn.host_count, end, "workload.file")
