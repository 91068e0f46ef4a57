"""Facts about the topology kinds the front needs: field schemas, host counts, node names.

The engine builds the actual graph; here we only know enough to validate a scenario and to
generate workloads (how many hosts there are, which node names exist).
"""

from __future__ import annotations

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


def host_count(kind: str, v: dict) -> int:
    if kind in ("star", "custom"):
        return v["hosts"]
    if kind == "dumbbell":
        return v["left"] + v["right"]
    if kind == "fattree":
        return v["pods"] * v["tors_per_pod"] * v["servers_per_tor"]
    raise ValueError(kind)


def _node_groups(kind: str, v: dict) -> dict[str, int]:
    """Node-name prefix -> how many nodes of that prefix exist."""
    groups = {"h": host_count(kind, v)}
    if kind == "star":
        groups["sw"] = 1
    elif kind == "dumbbell":
        groups["sw"] = 2
    elif kind == "fattree":
        groups["tor"] = v["pods"] * v["tors_per_pod"]
        groups["agg"] = v["pods"] * v["aggs_per_pod"]
        groups["core"] = v["cores"]
    elif kind == "custom":
        groups["s"] = v["switches"]
    return groups


def node_names_hint(kind: str, v: dict) -> str:
    return ", ".join(f"{p}0..{p}{n - 1}" for p, n in _node_groups(kind, v).items() if n > 0)


def node_exists(kind: str, v: dict, name: str) -> bool:
    m = re.fullmatch(r"([a-z]+)(0|[1-9][0-9]*)", name)
    if not m:
        return False
    n = _node_groups(kind, v).get(m.group(1))
    return n is not None and int(m.group(2)) < n
