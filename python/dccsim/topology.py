"""What the front needs to know about topologies, all from the engine: the keys of each kind (as
the engine declares them, config/topology.rs; for parsing, writing and documenting scenario
files), and — from the engine, which builds the graph — how many hosts a topology has and which
node names exist.
"""

from __future__ import annotations

import functools
import re


def kinds() -> tuple:
    """The topology kinds, as the engine declares them (config/topology.rs, `kinds!`)."""
    from .scenario import schema

    return tuple(schema.kinds("topology"))


@functools.cache
def fields(kind: str) -> dict:
    """A kind's scenario keys in the order they are written: key -> (schema Key, the path of its
    value in the engine's JSON). A sub-section written inline (an rdcn's circuit keys) is
    flattened into the kind's keys, its values nested under its field in the engine's JSON."""
    from .scenario import schema

    out: dict = {}

    def add(section: str, path: tuple) -> None:
        for k in schema.sections()[section].keys:
            if k.inline:
                add(k.section, path + (k.field,))
            elif k.key:
                out[k.key] = (k, path + (k.field,))

    add(schema.kinds("topology")[kind].name, ())
    return out


def default(kind: str, key: str):
    """The engine's default of a key (in the front's form: lists as tuples)."""
    k, path = fields(kind)[key]
    v = k.default
    return tuple(tuple(r) if isinstance(r, list) else r for r in v) if isinstance(v, list) else v


def to_engine(kind: str, values: dict) -> dict:
    """The engine's JSON form of a topology (docs/engine-api.md): each key's value at its path."""
    import dataclasses

    out: dict = {"kind": kind}
    for key, (k, path) in fields(kind).items():
        v = values[key]
        if k.type == "tables":
            v = [dataclasses.asdict(x) for x in v]
        elif k.type == "lists":
            v = [list(row) for row in v]
        at = out
        for p in path[:-1]:
            at = at.setdefault(p, {})
        at[path[-1]] = v
    return out


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
