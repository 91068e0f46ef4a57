"""What the front needs to know about topologies: the field schema of each kind (for parsing
and writing scenario files), and — from the engine, which builds the graph — how many hosts a
topology has and which node names exist.
"""

from __future__ import annotations

import functools
import re

KINDS = ("star", "dumbbell", "fattree", "custom", "rdcn", "two-path")

# Field -> type, in the order they are written back. "count" is an integer >= 1 unless listed
# in ZERO_OK; "rate"/"time" carry units; "links" is the custom topology's link list.
FIELDS: dict[str, dict[str, str]] = {
    "star": {"hosts": "count", "host_rate": "rate", "host_delay": "time"},
    "dumbbell": {
        "left": "count",
        "right": "count",
        "host_rate": "rate",
        "host_delay": "time",
        "bottleneck_rate": "rate",
        "bottleneck_delay": "time",
    },
    "fattree": {
        "pods": "count",
        "tors_per_pod": "count",
        "aggs_per_pod": "count",
        "cores": "count",
        "servers_per_tor": "count",
        "host_rate": "rate",
        "host_delay": "time",
        "tor_agg_rate": "rate",
        "tor_agg_delay": "time",
        "agg_core_rate": "rate",
        "agg_core_delay": "time",
    },
    "custom": {"hosts": "count", "switches": "count", "links": "links"},
    # multipath (docs/scenario.md): senders on tor0, receivers on tor1, two disjoint paths via
    # switches path0 and path1, one cross-traffic host on each path switch
    "two-path": {
        "senders": "count",
        "receivers": "count",
        "host_rate": "rate",
        "host_delay": "time",
        "path0_rate": "rate",
        "path0_delay": "time",
        "path1_rate": "rate",
        "path1_delay": "time",
    },
    # reconfigurable DCN (docs/scenario.md): ToRs on a packet core and an optical circuit switch
    "rdcn": {
        "tors": "count",
        "servers_per_tor": "count",
        "host_rate": "rate",
        "host_delay": "time",
        "packet_rate": "rate",
        "packet_delay": "time",
        "circuit_rate": "rate",
        "circuit_delay": "time",
        "day": "time",
        "night": "time",
        "policy": "policy",
        "voq": "size",
        "prebuffer": "time",
        "prebuffer_voq": "size",
        "matchings": "matchings",
    },
}
US = 1_000_000
# Optional fields and their defaults: PowerTCP §5's setup (25 ToRs × 10 servers, 25 Gb/s packet
# network, 100 Gb/s circuits, day 225 µs, night 20 µs, the round-robin schedule of 24 matchings);
# delays give a 24 µs base RTT on both networks; VOQ sizes are ours (docs/models.md).
DEFAULTS: dict[str, dict] = {
    "two-path": {"senders": 1, "receivers": 1},
    "rdcn": {
        "tors": 25,
        "servers_per_tor": 10,
        "host_rate": 25_000_000_000,
        "host_delay": 1 * US,
        "packet_rate": 25_000_000_000,
        "packet_delay": 5 * US,
        "circuit_rate": 100_000_000_000,
        "circuit_delay": 10 * US,
        "day": 225 * US,
        "night": 20 * US,
        "policy": "exclusive",
        "voq": 50_000,
        "prebuffer": 0,
        "prebuffer_voq": 0,
        "matchings": (),
    },
}
POLICIES = ("exclusive", "both")
RDCN_CIRCUIT = {
    "circuit_rate": "rate_bps",
    "circuit_delay": "delay_ps",
    "day": "day_ps",
    "night": "night_ps",
    "policy": "policy",
    "voq": "voq_bytes",
    "prebuffer": "prebuffer_ps",
    "prebuffer_voq": "prebuffer_voq_bytes",
    "matchings": "matchings",
}


def to_engine(kind: str, values: dict) -> dict:
    """The engine's JSON form of a topology (docs/engine-api.md)."""
    out: dict = {"kind": kind}
    circuit: dict = {}
    for k, typ in FIELDS[kind].items():
        v = values[k]
        if kind == "rdcn" and k in RDCN_CIRCUIT:
            circuit[RDCN_CIRCUIT[k]] = [list(m) for m in v] if k == "matchings" else v
        elif typ == "rate":
            out[f"{k}_bps"] = v
        elif typ == "time":
            out[f"{k}_ps"] = v
        elif typ == "links":
            out["links"] = [{"a": l.a, "b": l.b, "rate_bps": l.rate_bps, "delay_ps": l.delay_ps} for l in v]
        else:
            out[k] = v
    if circuit:
        out["circuit"] = circuit
    return out


ZERO_OK = {("custom", "switches")}
LINK_FIELDS = {"a": "node", "b": "node", "rate": "rate", "delay": "time"}


def facts(kind: str, v: dict) -> tuple[int, tuple[str, ...], int]:
    """(hosts, node names, egress ports) as the engine builds this topology (hosts are
    h0..h<n-1>, first). A custom topology's names depend only on its host and switch counts, so
    its links are left out (they are checked against these names; its ports are two per link)."""
    key = (kind,) + tuple((k, x) for k, x in sorted(v.items()) if k != "links")
    return _facts(key)


@functools.lru_cache(maxsize=64)
def _facts(key: tuple) -> tuple[int, tuple[str, ...], int]:
    from . import engine

    kind, values = key[0], dict(key[1:])
    values.setdefault("links", ())
    return engine.topology_facts(to_engine(kind, values))


def host_count(kind: str, v: dict) -> int:
    return facts(kind, v)[0]


def port_count(kind: str, v: dict) -> int:
    """Egress ports (two per link)."""
    if kind == "custom":
        return 2 * len(v["links"])
    return facts(kind, v)[2]


def node_names_hint(kind: str, v: dict) -> str:
    """ "h0..h255, tor0..tor7, …": the engine's node names, grouped by prefix."""
    groups: dict[str, int] = {}
    for name in facts(kind, v)[1]:
        prefix = re.match(r"[a-z]+", name).group(0)
        groups[prefix] = groups.get(prefix, 0) + 1
    return ", ".join(f"{p}0..{p}{n - 1}" for p, n in groups.items())


def node_exists(kind: str, v: dict, name: str) -> bool:
    return name in _name_set(facts(kind, v)[1])


@functools.lru_cache(maxsize=64)
def _name_set(names: tuple) -> frozenset:
    return frozenset(names)
