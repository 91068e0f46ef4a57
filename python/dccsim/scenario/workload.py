"""Reading and checking `[workload]` (docs/scenario.md): permutation, poisson, incast, replay."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..errors import ScenarioError
from ..workloads import cdf as cdfs
from ..workloads.racks import racks
from .fields import Table, boolean, choice, integer, pos_size, ranged_number, rate, show, string, time
from .model import Incast, Jobs, RotatingIncast, Topology, Workload

KINDS = ("permutation", "poisson", "incast", "jobs", "replay")
KEYS = {
    "permutation": ("start", "size", "subflows", "cc"),
    "poisson": (
        "start",
        "stop",
        "warmup",
        "cdf",
        "cdf_file",
        "size",
        "load",
        "arrival_rate",
        "destinations",
        "sending_racks",
        "incast",
        "rotating_incast",
        "connections",
        "stop_when_done",
        "subflows",
        "multipath_from",
        "cc",
    ),
    "jobs": (
        "start",
        "stop",
        "warmup",
        "clients",
        "fan_in",
        "request",
        "response",
        "loop",
        "interval",
        "stop_when_done",
        "cc",
    ),
    "incast": ("start", "stop", "warmup", "sending_racks", "incast", "stop_when_done", "subflows", "cc"),
    "replay": ("file", "start", "warmup", "stop_when_done"),
}
INCAST_KEYS = ("rate", "global_rate", "size", "fan_in", "start", "stop")
ROTATING_KEYS = ("senders", "size", "rate", "target_rack", "start", "stop")
DESTINATIONS = ("uniform", "artifact", "sending-racks")
MAX_LOAD = 1.0
MAX_REQUEST_RATE = 1e9  # requests per second
MAX_SUBFLOWS = 64  # the engine's limit (config::MAX_SUBFLOWS)


def _path(v, f, base_dir: Optional[Path]) -> str:
    p = Path(string(v, f))
    if not str(p).strip():
        raise ScenarioError(f, "must be a file path, got an empty string")
    if not p.is_absolute() and base_dir is not None:
        p = base_dir / p
    return str(p)


def parse(data, topology: Topology, n_hosts: int, base_dir: Optional[Path] = None) -> Workload:
    if not isinstance(data, dict) or "kind" not in data:
        raise ScenarioError("workload.kind", f"missing (required); allowed: {', '.join(KINDS)}")
    kind = choice(KINDS)(data["kind"], "workload.kind")
    t = Table(data, "workload", ("kind",) + KEYS[kind])
    start = t.opt("start", time, 0)
    sub = (
        t.opt("subflows", lambda v, f: integer(v, f, lo=1, hi=MAX_SUBFLOWS), 1)
        if "subflows" in KEYS[kind]
        else 1
    )
    if kind == "permutation":
        if n_hosts < 2:
            raise ScenarioError("workload.kind", "permutation needs at least 2 hosts")
        return Workload(kind, start_ps=start, size_bytes=t.opt("size", pos_size, None), subflows=sub)
    warmup = t.opt("warmup", time, 0)
    done = t.opt("stop_when_done", boolean, True)
    if kind == "replay":
        return Workload(
            kind,
            start_ps=start,
            warmup_ps=warmup,
            stop_when_done=done,
            file=t.req("file", lambda v, f: _path(v, f, base_dir)),
        )
    stop = t.req("stop", time)
    if stop <= start:
        raise ScenarioError("workload.stop", f"must be after workload.start ({start} ps), got {stop} ps")
    if start + warmup >= stop:
        raise ScenarioError("workload.warmup", "must end before workload.stop (start + warmup < stop)")
    if kind == "jobs":
        return Workload(
            kind,
            start_ps=start,
            stop_ps=stop,
            warmup_ps=warmup,
            stop_when_done=done,
            jobs=_jobs(t, n_hosts),
            cc=None,
        )
    rk = racks(topology.kind, topology.values)
    if rk.count < 2:
        raise ScenarioError("workload.kind", f"{kind} needs at least 2 racks")
    n_send = t.opt("sending_racks", lambda v, f: integer(v, f, lo=1, hi=rk.count), None)
    w = dict(
        kind=kind,
        start_ps=start,
        stop_ps=stop,
        warmup_ps=warmup,
        stop_when_done=done,
        sending_racks=n_send,
        subflows=sub,
    )
    if t.has("connections"):
        w["connections"] = t.req("connections", boolean)
    if t.has("multipath_from"):
        if sub < 2:
            raise ScenarioError(
                "workload.multipath_from", "needs workload.subflows > 1 (the long flows' subflows)"
            )
        w["multipath_from_bytes"] = t.req("multipath_from", pos_size)
    if kind == "poisson":
        sources = [k for k in ("cdf", "cdf_file", "size") if t.has(k)]
        if len(sources) != 1:
            raise ScenarioError(
                "workload.cdf",
                f"must set exactly one of cdf (allowed: {', '.join(cdfs.packaged())}), cdf_file (a path) "
                "or size (every flow this size)",
            )
        if t.has("cdf"):
            w["cdf"] = t.req("cdf", string)
            w["cdf_points"] = cdfs.load_packaged(w["cdf"], "workload.cdf")
        elif t.has("cdf_file"):
            w["cdf_file"] = t.req("cdf_file", lambda v, f: _path(v, f, base_dir))
            w["cdf_points"] = cdfs.load_file(w["cdf_file"], "workload.cdf_file")
        else:
            w["size_bytes"] = t.req("size", pos_size)
            w["cdf_points"] = ((float(w["size_bytes"]), 1.0),)  # a point mass
        if t.has("arrival_rate"):
            if t.has("load"):
                raise ScenarioError(
                    "workload.arrival_rate",
                    "set either load (fraction of the uplink) or arrival_rate (flows per second per host), not both",
                )
            w["arrival_rate"] = float(
                t.req("arrival_rate", ranged_number(0.0, MAX_REQUEST_RATE, lo_open=True))
            )
        else:
            w["load"] = t.req("load", lambda v, f: _load(v, f, n_send or rk.count))
        w["destinations"] = t.opt("destinations", choice(DESTINATIONS), "uniform")
        if w["destinations"] == "artifact":
            last = (n_send or rk.count) - 1
            if rk.first[last] + rk.size[last] - rk.first[0] < 2:
                raise ScenarioError(
                    "workload.destinations", "artifact needs at least 2 hosts in the sending racks"
                )
        if w["destinations"] == "sending-racks" and (n_send or rk.count) < 2:
            raise ScenarioError("workload.destinations", "sending-racks needs sending_racks >= 2")
        if t.has("rotating_incast"):
            w["rotating_incast"] = _rotating(data["rotating_incast"], start, stop, rk, n_send)
    if t.has("incast"):
        w["incast"] = _incast(data["incast"], start, stop, int(rk.size.min()))
    elif kind == "incast":
        raise ScenarioError("workload.incast", "missing (required) table {rate or global_rate, size, fan_in}")
    return Workload(**w)


def _jobs(t: Table, n_hosts: int) -> Jobs:
    f = "workload"
    fan_in = t.opt("fan_in", lambda v, g: integer(v, g, lo=1, hi=n_hosts - 1), 10)
    loop = t.opt("loop", choice(("closed", "open")), "closed")
    interval = t.opt("interval", time, None)
    if loop == "open" and (interval is None or interval <= 0):
        raise ScenarioError(
            f"{f}.interval", "an open loop needs interval > 0 (the time between a slot's jobs)"
        )
    if loop == "closed" and interval is not None:
        raise ScenarioError(
            f"{f}.interval", 'only for loop = "open" (a closed loop starts a job when the last ends)'
        )
    request = t.opt("request", lambda v, g: 0 if v == 0 else pos_size(v, g), 0)
    return Jobs(
        clients=t.req("clients", lambda v, g: integer(v, g, lo=1, hi=n_hosts)),
        fan_in=fan_in,
        request_bytes=request,
        response_bytes=t.req("response", pos_size),
        loop=loop,
        interval_ps=interval,
    )


def _load(v, f, n_send: int):
    """One fraction of the uplink for every sending rack, or a list with one per sending rack."""
    one = ranged_number(0.0, MAX_LOAD, lo_open=True)
    if not isinstance(v, list):
        return float(one(v, f))
    if len(v) != n_send:
        raise ScenarioError(
            f, f"a list needs one load per sending rack ({n_send}), got {len(v)} values {show(v)}"
        )
    return tuple(float(one(x, f"{f}[{i}]")) for i, x in enumerate(v))


def _rotating(data, start: int, stop: int, rk, n_send: Optional[int]) -> RotatingIncast:
    f = "workload.rotating_incast"
    if n_send is None or n_send >= rk.count:
        raise ScenarioError(
            "workload.sending_racks",
            f"a rotating incast sends from the racks after the sending racks; set sending_racks < {rk.count}",
        )
    t = Table(data, f, ROTATING_KEYS)
    free = int(rk.first[-1] + rk.size[-1] - rk.first[n_send])
    senders = t.req("senders", lambda v, g: integer(v, g, lo=1, hi=free))
    target = t.opt("target_rack", lambda v, g: integer(v, g, lo=0, hi=n_send - 1), 0)
    r_start = t.opt("start", time, start)
    r_stop = t.opt("stop", time, stop)
    if r_stop <= r_start:
        raise ScenarioError(
            f"{f}.stop", f"must be after the rotating incast start ({r_start} ps), got {r_stop} ps"
        )
    bps = t.req("rate", rate)
    if bps <= 0:
        raise ScenarioError(f"{f}.rate", f"must be > 0 (the incast's aggregate load), got {data['rate']!r}")
    return RotatingIncast(
        senders=senders,
        size_bytes=t.req("size", pos_size),
        rate_bps=int(bps),
        target_rack=target,
        start_ps=r_start,
        stop_ps=r_stop,
    )


def _incast(data, start: int, stop: int, min_rack: int) -> Incast:
    t = Table(data, "workload.incast", INCAST_KEYS)
    if t.has("rate") == t.has("global_rate"):
        raise ScenarioError(
            "workload.incast.rate",
            "must set exactly one of rate (per host per second) or global_rate (per second)",
        )
    rate_conv = ranged_number(0.0, MAX_REQUEST_RATE, lo_open=True)
    fan_in = t.opt("fan_in", lambda v, f: integer(v, f, lo=1, hi=min_rack), 10)
    size = t.req("size", pos_size)
    if size < fan_in:
        raise ScenarioError("workload.incast.size", f"must be at least fan_in ({fan_in}) bytes, got {size} B")
    i_start = t.opt("start", time, start)
    i_stop = t.opt("stop", time, stop)
    if i_stop <= i_start:
        raise ScenarioError(
            "workload.incast.stop", f"must be after the incast start ({i_start} ps), got {i_stop} ps"
        )
    return Incast(
        size_bytes=size,
        start_ps=i_start,
        stop_ps=i_stop,
        rate=float(t.req("rate", rate_conv)) if t.has("rate") else None,
        global_rate=float(t.req("global_rate", rate_conv)) if t.has("global_rate") else None,
        fan_in=fan_in,
    )


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
