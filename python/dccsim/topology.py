"""What the front needs to know about topologies: the field schema of each kind (for parsing
and writing scenario files), and — from the engine, which builds the graph — how many hosts a
topology has and which node names exist.
"""

from __future__ import annotations

import functools
import re

KINDS = ("star", "dumbbell", "fattree", "custom")

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
}
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
    out = {"kind": kind}
    for k, typ in FIELDS[kind].items():
        if typ == "rate":
            out[f"{k}_bps"] = values[k]
        elif typ == "time":
            out[f"{k}_ps"] = values[k]
        elif typ == "links":
            out["links"] = []
        else:
            out[k] = values[k]
    return engine.topology_facts(out)


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
