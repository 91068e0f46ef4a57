"""The sections only the front reads, declared once here in the engine schema's vocabulary
(`schema.Key`): the scenario's top-level keys and `[workload]` with its `[workload.incast]` and
`[workload.rotating_incast]` tables.

Why here and not in the engine (docs/architecture.md): the engine never sees a workload — the
front turns it into the flow list (workloads/generate.py) the engine runs — and the top-level
table is the front's (name, description, the section tables, `base_rtt = "auto"`, `[fabric]`);
the three top-level values the engine reads (seed, duration, base_rtt) are fields of its whole-run
`Config`, which checks `duration > 0` again.

Each key carries its TOML name, the attribute it fills (a dotted path into `model.Workload`, e.g.
`jobs.clients`), its type (and so its unit), range, default, description and the source of its
default, and — for `[workload]` — the kinds that take it. Each section's cross-field rules sit
under its keys: `(key, kinds, holds(values, ctx), message)`, `values` by TOML key, `ctx` what the
rule needs of the rest of the scenario (racks, hosts). From this one declaration come the
allowed keys per kind, the reading (`read`: conversion by type, defaults, ranges, rules, errors
named by the dotted key), `dccsim show` (toml_out.py) and the generated tables of
docs/scenario.md.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Optional

from .. import units
from ..errors import ScenarioError
from .fields import MAX_SEED, Table, boolean, choice, integer, number, rate, size, string, time
from .schema import Key, Section

_UNIT = {"size": "B", "time": "ps", "rate": "bit/s"}
INF = math.inf
MAX_SUBFLOWS = 64  # the engine's limit (config::MAX_SUBFLOWS)
MAX_REQUEST_RATE = 1e9  # requests per second: beyond any host
WORKLOAD_KINDS = ("permutation", "poisson", "incast", "jobs", "replay")
ARRIVALS = ("poisson", "incast", "jobs")  # the kinds with a [start, stop) of arrivals
RACKED = ("poisson", "incast")  # the kinds that send from racks


def _k(key, field, type, default=None, doc="", source="", lo=-INF, hi=INF, lo_open=False, **kw) -> Key:
    return Key(
        key=key,
        field=field,
        type=type,
        unit=_UNIT.get(type, ""),
        default=default,
        doc=doc,
        source=source,
        min=None if lo == -INF else lo,
        max=None if hi == INF else hi,
        min_open=lo_open,
        **kw,
    )


@dataclasses.dataclass(frozen=True)
class Rule:
    key: str
    message: str
    holds: Callable[[dict, Any], bool]
    kinds: tuple = ()  # () = every kind


def _set(v: dict, key: str) -> bool:
    return v.get(key) is not None


SCENARIO = (  # [topology] first: a file without it is named for it, not for its other keys
    _k(
        "topology",
        "topology",
        "table",
        None,
        "The network: `kind` and that kind's keys.",
        "",
        required=True,
        section="topology",
    ),
    _k(
        "name",
        "name",
        "string",
        None,
        "Shown in reports and summaries; not a path (the output directory comes from the file name).",
        "the file's name",
    ),
    _k("description", "description", "string", "", "Free text.", "empty"),
    _k(
        "seed",
        "seed",
        "count",
        1,
        "Seed of every random stream (the engine's and the generated workloads').",
        "ours: 1",
        lo=0,
        hi=MAX_SEED,
    ),
    _k(
        "duration",
        "duration_ps",
        "time",
        None,
        "Simulated time at which the run stops.",
        "set per experiment",
        lo=0,
        lo_open=True,
        required=True,
    ),
    _k(
        "base_rtt",
        "base_rtt_ps",
        "time",
        None,
        'τ of the control laws: "auto" (absent) = the maximum base RTT over all host pairs.',
        'ours: "auto"',
        lo=0,
        lo_open=True,
    ),
    _k(
        "fabric",
        "fabric",
        "table",
        None,
        'A named simulator\'s fabric and controller defaults (`profile = "powertcp-ns3"` or "hpcc-ns3") under this file\'s [switch], [host] and controller tables.',
        "none",
    ),
    _k(
        "switch",
        "switch",
        "table",
        None,
        "Switch buffers, ECN, PFC, INT.",
        "the engine's defaults",
        section="switch",
    ),
    _k(
        "host",
        "host",
        "table",
        None,
        "Packet sizes, timers, the NIC.",
        "the engine's defaults",
        section="host",
    ),
    _k(
        "cc",
        "cc",
        "table",
        None,
        "The default controller: `algorithm` and its parameters.",
        "",
        required=True,
    ),
    _k("flows", "flows", "tables", None, "Explicit flows ([[flows]]).", "none"),
    _k("workload", "workload", "table", None, "Generated flows.", "none", section="workload"),
    _k(
        "metrics",
        "metrics",
        "table",
        None,
        "What is sampled and recorded.",
        "the engine's defaults",
        section="metrics",
    ),
    _k(
        "engine",
        "engine",
        "table",
        None,
        "How the engine runs the scenario (end-of-run invariant checks, threads).",
        "the engine's defaults",
        section="engine",
    ),
    _k(
        "experiment",
        "experiment",
        "table",
        None,
        "Variants compared in one experiment, and their analysis.",
        "none",
    ),
)
SCENARIO_RULES = (
    Rule(
        "flows",
        "no flows: add [[flows]] tables or a [workload]",
        lambda v, ctx: bool(v.get("flows")) or _set(v, "workload"),
    ),
)

_ALL = WORKLOAD_KINDS
WORKLOAD = (
    _k("start", "start_ps", "time", 0, "Arrivals (or the permutation's flows) start here.", "ours: 0", lo=0),
    _k(
        "stop",
        "stop_ps",
        "time",
        None,
        "Arrivals in [start, stop).",
        "set per experiment",
        lo=0,
        required=True,
        kinds=ARRIVALS,
    ),
    _k(
        "warmup",
        "warmup_ps",
        "time",
        0,
        "Flows starting before start + warmup are left out of the FCT statistics.",
        "ours: 0",
        lo=0,
        kinds=ARRIVALS + ("replay",),
    ),
    _k(
        "stop_when_done",
        "stop_when_done",
        "bool",
        True,
        "End the run when every finite flow has finished (duration stays the cap).",
        "ours: true",
        kinds=ARRIVALS + ("replay",),
    ),
    _k(
        "size",
        "size_bytes",
        "size",
        None,
        "permutation: bytes per flow (absent: long-lived); poisson: every flow this size (instead of cdf).",
        "absent",
        lo=0,
        lo_open=True,
        kinds=("permutation", "poisson"),
    ),
    _k(
        "cdf",
        "cdf",
        "string",
        None,
        "A flow-size CDF shipped with dccsim (python/dccsim/workloads/*.cdf).",
        "absent",
        kinds=("poisson",),
    ),
    _k(
        "cdf_file",
        "cdf_file",
        "path",
        None,
        "A flow-size CDF file (relative to the scenario file).",
        "absent",
        kinds=("poisson",),
    ),
    _k(
        "load",
        "load",
        "number",
        None,
        "Fraction of each sending rack's ToR-uplink capacity, or a list with one per sending rack.",
        "set per experiment",
        lo=0,
        hi=1,
        lo_open=True,
        kinds=("poisson",),
    ),
    _k(
        "arrival_rate",
        "arrival_rate",
        "number",
        None,
        "Flows per second per sending host, instead of load.",
        "absent",
        lo=0,
        hi=MAX_REQUEST_RATE,
        lo_open=True,
        kinds=("poisson",),
    ),
    _k(
        "destinations",
        "destinations",
        "choice",
        "uniform",
        "uniform: the hosts of the other racks; artifact: the ns-3 artifact's draw; sending-racks: the other sending racks' hosts.",
        "ours: uniform",
        choices=("uniform", "artifact", "sending-racks"),
        kinds=("poisson",),
    ),
    _k(
        "sending_racks",
        "sending_racks",
        "count",
        None,
        "Only the first N racks send (absent: all).",
        "all racks",
        lo=1,
        kinds=RACKED,
    ),
    _k(
        "incast",
        "incast",
        "table",
        None,
        "Incast requests (required for kind = incast).",
        "absent",
        section="workload.incast",
        kinds=RACKED,
    ),
    _k(
        "rotating_incast",
        "rotating_incast",
        "table",
        None,
        "A rotating incast from the racks after the sending racks.",
        "absent",
        section="workload.rotating_incast",
        kinds=("poisson",),
    ),
    _k(
        "connections",
        "connections",
        "bool",
        False,
        "A host pair's messages share one connection (each waits for the previous and continues its controller).",
        "ours: false",
        kinds=("poisson",),
    ),
    _k(
        "subflows",
        "subflows",
        "count",
        1,
        "Subflows of every generated connection (1 = single path).",
        "ours: 1",
        lo=1,
        hi=MAX_SUBFLOWS,
        kinds=("permutation",) + RACKED,
    ),
    _k(
        "multipath_from",
        "multipath_from_bytes",
        "size",
        None,
        "Flows of at least this size run multipath (subflows), smaller ones single-path with cc.",
        "absent: all alike",
        lo=0,
        lo_open=True,
        kinds=("poisson",),
    ),
    _k(
        "cc",
        "cc",
        "table",
        None,
        "The generated flows' own controller (absent: the scenario's or the variant's).",
        "absent",
        kinds=_ALL[:-1],
    ),
    _k(
        "clients",
        "jobs.clients",
        "count",
        None,
        "Parallel job slots (at most the hosts).",
        "set per experiment",
        lo=1,
        required=True,
        kinds=("jobs",),
    ),
    _k(
        "fan_in",
        "jobs.fan_in",
        "count",
        10,
        "Servers per job (at most the other hosts).",
        "ours: 10",
        lo=1,
        kinds=("jobs",),
    ),
    _k(
        "request",
        "jobs.request_bytes",
        "size",
        0,
        "Each server's request from the client (0 = none).",
        "ours: 0",
        lo=0,
        kinds=("jobs",),
    ),
    _k(
        "response",
        "jobs.response_bytes",
        "size",
        None,
        "Each server's answer, sent when its request completed.",
        "set per experiment",
        lo=0,
        lo_open=True,
        required=True,
        kinds=("jobs",),
    ),
    _k(
        "loop",
        "jobs.loop",
        "choice",
        "closed",
        "closed: a slot's next job starts when its last ended; open: every interval.",
        "AMP §5.3: closed",
        choices=("closed", "open"),
        kinds=("jobs",),
    ),
    _k(
        "interval",
        "jobs.interval_ps",
        "time",
        None,
        'The time between a slot\'s jobs (loop = "open" only).',
        "absent",
        lo=0,
        kinds=("jobs",),
    ),
    _k(
        "file",
        "file",
        "path",
        None,
        "An earlier run's flows_input.parquet (or its directory), relative to the scenario file.",
        "set per experiment",
        required=True,
        kinds=("replay",),
    ),
)
WORKLOAD_RULES = (
    Rule("kind", "permutation needs at least 2 hosts", lambda v, ctx: ctx.n_hosts >= 2, ("permutation",)),
    Rule(
        "kind",
        "needs at least 2 racks (a fattree or a dumbbell)",
        lambda v, ctx: ctx.racks().count >= 2,
        RACKED,
    ),
    Rule("stop", "must be after workload.start", lambda v, ctx: v["stop"] > v["start"], ARRIVALS),
    Rule(
        "warmup",
        "must end before workload.stop (start + warmup < stop)",
        lambda v, ctx: v["start"] + v["warmup"] < v["stop"],
        ARRIVALS,
    ),
    Rule(
        "sending_racks",
        "must be at most the racks of the topology",
        lambda v, ctx: not _set(v, "sending_racks") or v["sending_racks"] <= ctx.racks().count,
        RACKED,
    ),
    Rule(
        "cdf",
        "must set exactly one of cdf (a packaged CDF), cdf_file (a path) or size (every flow this size)",
        lambda v, ctx: sum(_set(v, k) for k in ("cdf", "cdf_file", "size")) == 1,
        ("poisson",),
    ),
    Rule(
        "arrival_rate",
        "set either load (fraction of the uplink) or arrival_rate (flows per second per host), not both",
        lambda v, ctx: not (_set(v, "load") and _set(v, "arrival_rate")),
        ("poisson",),
    ),
    Rule(
        "load",
        "missing (required): load, or arrival_rate instead",
        lambda v, ctx: _set(v, "load") or _set(v, "arrival_rate"),
        ("poisson",),
    ),
    Rule(
        "destinations",
        "artifact needs at least 2 hosts in the sending racks",
        lambda v, ctx: v["destinations"] != "artifact" or ctx.sending_hosts(v) >= 2,
        ("poisson",),
    ),
    Rule(
        "destinations",
        "sending-racks needs sending_racks >= 2",
        lambda v, ctx: v["destinations"] != "sending-racks" or ctx.n_send(v) >= 2,
        ("poisson",),
    ),
    Rule(
        "sending_racks",
        "a rotating incast sends from the racks after the sending racks; set sending_racks below the racks of the topology",
        lambda v, ctx: (
            not _set(v, "rotating_incast")
            or (_set(v, "sending_racks") and v["sending_racks"] < ctx.racks().count)
        ),
        ("poisson",),
    ),
    Rule(
        "multipath_from",
        "needs workload.subflows > 1 (the long flows' subflows)",
        lambda v, ctx: not _set(v, "multipath_from") or v["subflows"] > 1,
        ("poisson",),
    ),
    Rule(
        "incast",
        "missing (required) table {rate or global_rate, size, fan_in}",
        lambda v, ctx: _set(v, "incast"),
        ("incast",),
    ),
    Rule(
        "clients",
        "must be at most the hosts of the topology",
        lambda v, ctx: v["clients"] <= ctx.n_hosts,
        ("jobs",),
    ),
    Rule(
        "fan_in",
        "must be at most the other hosts (hosts − 1)",
        lambda v, ctx: v["fan_in"] <= ctx.n_hosts - 1,
        ("jobs",),
    ),
    Rule(
        "interval",
        "an open loop needs interval > 0 (the time between a slot's jobs)",
        lambda v, ctx: v["loop"] != "open" or bool(v["interval"]),
        ("jobs",),
    ),
    Rule(
        "interval",
        'only for loop = "open" (a closed loop starts a job when the last ends)',
        lambda v, ctx: v["loop"] != "closed" or v["interval"] is None,
        ("jobs",),
    ),
)

# A rule the draws decide: checked where the Poisson arrivals are drawn (workloads/generate.py,
# `poisson`) with the run's seed (`--seed` changes the draws), named `workload.arrival_rate`
# when the workload gives that instead of load; listed with the section's rules.
NO_POISSON_FLOW = Rule(
    "load",
    "must give at least one Poisson arrival in [workload.start, workload.stop) with the run's seed "
    "(issue 27: a run without generated traffic is a mistake, not a result): raise it or lengthen workload.stop",
    lambda v, n_flows: n_flows > 0,
    ("poisson",),
)
DRAWN = {"workload": (NO_POISSON_FLOW,)}

INCAST = (
    _k(
        "rate",
        "rate",
        "number",
        None,
        "Requests per second per requesting host (or global_rate).",
        "absent",
        lo=0,
        hi=MAX_REQUEST_RATE,
        lo_open=True,
    ),
    _k(
        "global_rate",
        "global_rate",
        "number",
        None,
        "Requests per second over all requesting hosts (or rate).",
        "absent",
        lo=0,
        hi=MAX_REQUEST_RATE,
        lo_open=True,
    ),
    _k(
        "size",
        "size_bytes",
        "size",
        None,
        "Bytes per request, split evenly over the fan-in.",
        "set per experiment",
        lo=0,
        lo_open=True,
        required=True,
    ),
    _k(
        "fan_in",
        "fan_in",
        "count",
        10,
        "Servers answering each request (at most the smallest rack).",
        "ours: 10",
        lo=1,
    ),
    _k(
        "start",
        "start_ps",
        "time",
        None,
        "Requests start here (absent: workload.start).",
        "the workload's start",
        lo=0,
    ),
    _k(
        "stop",
        "stop_ps",
        "time",
        None,
        "Requests stop here (absent: workload.stop).",
        "the workload's stop",
        lo=0,
    ),
)
INCAST_RULES = (
    Rule(
        "rate",
        "must set exactly one of rate (per host per second) or global_rate (per second)",
        lambda v, ctx: _set(v, "rate") != _set(v, "global_rate"),
    ),
    Rule(
        "fan_in",
        "must be at most the hosts of the smallest rack",
        lambda v, ctx: v["fan_in"] <= ctx.min_rack(),
    ),
    Rule("size", "must be at least fan_in bytes (one per server)", lambda v, ctx: v["size"] >= v["fan_in"]),
    Rule("stop", "must be after the incast start", lambda v, ctx: v["stop"] > v["start"]),
)

ROTATING = (
    _k(
        "senders",
        "senders",
        "count",
        None,
        "Hosts outside the sending racks that send each round.",
        "set per experiment",
        lo=1,
        required=True,
    ),
    _k(
        "size",
        "size_bytes",
        "size",
        None,
        "Bytes each sender sends each round.",
        "set per experiment",
        lo=0,
        lo_open=True,
        required=True,
    ),
    _k(
        "rate",
        "rate_bps",
        "rate",
        None,
        "Aggregate load of the incast (rounds are senders·size·8/rate apart).",
        "set per experiment",
        lo=0,
        lo_open=True,
        required=True,
    ),
    _k(
        "target_rack",
        "target_rack",
        "count",
        0,
        "The sending rack whose hosts are the targets (one per round, in turn).",
        "ours: 0",
        lo=0,
    ),
    _k(
        "start",
        "start_ps",
        "time",
        None,
        "First round (absent: workload.start).",
        "the workload's start",
        lo=0,
    ),
    _k(
        "stop",
        "stop_ps",
        "time",
        None,
        "No round at or after this (absent: workload.stop).",
        "the workload's stop",
        lo=0,
    ),
)
ROTATING_RULES = (
    Rule(
        "senders",
        "must be at most the hosts after the sending racks",
        lambda v, ctx: v["senders"] <= ctx.free_hosts(),
    ),
    Rule(
        "target_rack",
        "must be one of the sending racks (0 .. sending_racks − 1)",
        lambda v, ctx: v["target_rack"] < ctx.n_send_racks,
    ),
    Rule("stop", "must be after the rotating incast start", lambda v, ctx: v["stop"] > v["start"]),
)

INCAST_FIELDS = {k.key: k.field for k in INCAST}
ROTATING_FIELDS = {k.key: k.field for k in ROTATING}

DECLARED: dict[str, tuple] = {
    "scenario": (SCENARIO, SCENARIO_RULES),
    "workload": (WORKLOAD, WORKLOAD_RULES),
    "workload.incast": (INCAST, INCAST_RULES),
    "workload.rotating_incast": (ROTATING, ROTATING_RULES),
}


def sections() -> dict[str, Section]:
    """The front's sections, as schema.Section (docs/scenario.md's tables)."""
    return {
        name: Section(
            name,
            keys,
            tuple(
                (r.key, r.message + (f" ({', '.join(r.kinds)})" if r.kinds else ""))
                for r in rules + DRAWN.get(name, ())
            ),
        )
        for name, (keys, rules) in DECLARED.items()
    }


def keys(section: str, kind: Optional[str] = None) -> dict[str, Key]:
    """A section's keys by TOML name; of a kind: those that kind takes."""
    return {k.key: k for k in DECLARED[section][0] if kind is None or not k.kinds or kind in k.kinds}


_CONVERT: dict[str, Callable] = {
    "size": size,
    "time": time,
    "rate": rate,
    "count": integer,
    "number": lambda v, f: float(number(v, f)),
    "bool": boolean,
    "string": string,
}


def in_range(k: Key, x, f: str):
    """`x` within the key's declared range, else a ScenarioError naming `f` with the range."""
    lo = -INF if k.min is None else k.min
    hi = INF if k.max is None else k.max
    if (x <= lo if k.min_open else x < lo) or x > hi:
        raise ScenarioError(f, f"must be {describe_range(k)}, got {_show(k, x)}")
    return x


def describe_range(k: Key) -> str:
    """`> 0 B`, `in [1, 64]`, `in (0, 1]`."""
    if k.max is None:
        return f"{'>' if k.min_open else '>='} {_show(k, k.min)}"
    return f"in {'(' if k.min_open else '['}{_show(k, k.min)}, {_show(k, k.max)}]"


def _show(k: Key, x) -> str:
    fmt = {"size": units.format_size_exact, "time": units.format_time_exact, "rate": units.format_rate_exact}
    if k.type in fmt and float(x).is_integer():
        return fmt[k.type](int(x))
    return f"{x:g}" if isinstance(x, float) else str(x)


def read(
    section: str,
    data,
    prefix: str,
    ctx=None,
    kind: Optional[str] = None,
    special: Optional[dict] = None,
    defaults: Optional[dict] = None,
) -> dict:
    """The TOML table `data` of `section` (of `kind`) named `prefix`: unknown keys refused, each
    value converted by its type (or by `special[key](value, field)`) and checked against its
    range, absent keys their default (`defaults[key]` where the default depends on the rest of
    the scenario; a required key refused), then the section's rules of this kind. Returns the
    values by TOML key."""
    ks = keys(section, kind)
    t = Table(data, prefix, (("kind",) if kind else ()) + tuple(ks))
    special = special or {}
    out: dict[str, Any] = {}
    for key, k in ks.items():
        if not t.has(key):
            if k.required:
                raise ScenarioError(t.f(key), "missing (required)")
            out[key] = (defaults or {}).get(key, k.default)
            continue
        f = t.f(key)
        if key in special:
            out[key] = special[key](data[key], f)
        elif k.type == "choice":
            out[key] = choice(k.choices)(data[key], f)
        else:
            out[key] = _CONVERT[k.type](data[key], f)
            if k.type != "bool" and k.type != "string":
                in_range(k, out[key], f)
    for r in DECLARED[section][1]:
        if (not r.kinds or kind in r.kinds) and not r.holds(out, ctx):
            raise ScenarioError(t.f(r.key), r.message)
    return out


def _plain(section: Optional[str]) -> bool:
    """A section declared here whose keys every table takes (not a kind-tagged one)."""
    return section in DECLARED and not any(k.kinds for k in DECLARED[section][0])


def to_toml(section: str, obj, kind: Optional[str] = None, special: Optional[dict] = None) -> dict:
    """`obj`'s values of a section's keys (attribute paths) as TOML with exact units; absent
    (None) values left out, `special[key](value)` for a key the type alone does not write, a
    table key of a plain section declared here written by that section, any other table key
    left to the caller."""
    from .schema import to_toml_value

    out: dict[str, Any] = {}
    special = special or {}
    for key, k in keys(section, kind).items():
        if k.type in ("table", "tables") and key not in special and not _plain(k.section):
            continue
        v = obj
        for part in k.field.split("."):
            v = getattr(v, part) if v is not None else None
        if v is None:
            continue
        if key in special:
            out[key] = special[key](v)
        elif k.type == "table":  # a table of a section declared here ([workload.incast])
            out[key] = to_toml(k.section, v)
        else:
            out[key] = to_toml_value(k, v)
    return out
