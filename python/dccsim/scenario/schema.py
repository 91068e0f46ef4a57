"""The scenario schema, as the engine declares it (crates/engine/src/schema.rs, `section!`).

Each section of a scenario (``[host]``, ``[switch]``, ``[switch.pfc]``, ``[metrics]``) is declared
once, in the engine, beside the field it fills: scenario key, engine field, type (and so the unit),
range, default, description, source of the default, and the section's cross-field rules. This
module reads that declaration and gives the front everything it needs from it:

- :func:`read`: a TOML table -> a :func:`record` (frozen dataclass with the engine's field names),
  every value converted from its units by its type, unknown keys refused, then checked by the
  engine itself (`_engine.check_section`: ranges and rules, errors named by the dotted key);
- :func:`record`: a section's values with the engine's defaults for the rest;
- :func:`to_toml`: a record back to TOML keys with exact units (``dccsim show``);
- :func:`to_engine`: a record as the engine's JSON.

docs/scenario.md's key tables are generated from the same declaration (``scenario/docs.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any, Callable, Optional

from .. import engine, units
from ..errors import ScenarioError
from .fields import Table, boolean, choice, integer, number, rate, size, string, time


@dataclasses.dataclass(frozen=True)
class Key:
    """One key of a section (the engine's `schema::Key`)."""

    key: str  # in a scenario file ("" for a field derived from another key)
    field: str  # in the engine's JSON and in the record
    type: str  # size | time | rate | count | number | bool | choice | names | table
    unit: str
    default: Any
    doc: str
    source: str
    min: Optional[float] = None
    max: Optional[float] = None
    min_open: bool = False
    max_open: bool = False
    required: bool = False
    choices: tuple = ()
    section: Optional[str] = None  # type "table"/"tables": the section it holds
    kinds: tuple = ()  # the kinds of a kind-tagged section that take it (front_sections.py); () = all

    @property
    def inline(self) -> bool:
        """A sub-section whose keys are written in the parent's table itself (an rdcn's circuit);
        the engine's JSON nests them under `field`."""
        return self.type == "table" and not self.key


@dataclasses.dataclass(frozen=True)
class Section:
    name: str
    keys: tuple  # of Key
    rules: tuple  # of (key, message)
    tag: Optional[dict] = None  # a kind of a tagged section: {"of": "topology", "kind": "fattree"}

    def key(self, name: str) -> Key:
        return next(k for k in self.keys if k.key == name)

    @property
    def allowed(self) -> tuple:
        return tuple(k.key for k in self.keys if k.key)


@functools.lru_cache(maxsize=1)
def sections() -> dict[str, Section]:
    """Every section the engine declares, by name."""
    out = {}
    for s in json.loads(engine.scenario_schema()):
        keys = tuple(
            Key(**{**k, "choices": tuple(k.get("choices", ()))})
            for k in s["keys"]  # fmt: skip
        )
        rules = tuple((r["key"], r["message"]) for r in s["rules"])
        out[s["name"]] = Section(s["name"], keys, rules, s.get("tag"))
    return out


def kinds(of: str) -> dict[str, Section]:
    """The kinds of a tagged section (`topology`) by kind name, in the engine's order."""
    return {s.tag["kind"]: s for s in sections().values() if s.tag and s.tag["of"] == of}


def _frozen(v):
    return tuple(_frozen(x) for x in v) if isinstance(v, list) else v


@functools.cache
def record_class(section: str) -> type:
    """The frozen dataclass of a section's values: one attribute per engine field, its default
    the engine's (a table-typed field defaults to None here; its section reader fills it)."""
    sec = sections()[section]
    cls_name = _class_name(section)
    fields = [
        (
            k.field,
            Any,
            dataclasses.field(default=None if k.type == "table" else _frozen(k.default)),
        )
        for k in sec.keys
    ]
    # this module's name: pickle (worker processes) finds the class through __getattr__ below
    cls = dataclasses.make_dataclass(cls_name, fields, frozen=True)
    cls.__module__ = __name__
    if section.startswith(ECN) and section[len(ECN) :] in ecn_kinds():
        cls.kind = section[len(ECN) :]  # an ECN kind's record says which (a class attribute)
    return cls


def _class_name(section: str) -> str:
    """`switch.pfc` -> `SwitchPfc`."""
    return "".join(p.capitalize() for p in section.replace(".", "_").split("_"))


def __getattr__(name: str):
    for section in sections():
        if _class_name(section) == name:
            return record_class(section)
    raise AttributeError(name)


def record(section: str, **values):
    """A section's record: `values` (engine fields) over the engine's defaults."""
    return record_class(section)(**values)


Converter = Callable[[Any, str], Any]

_BY_TYPE: dict[str, Converter] = {
    "size": size,
    "time": time,
    "rate": rate,
    "count": lambda v, f: integer(v, f, lo=0),
    "number": lambda v, f: float(number(v, f)),
    "bool": boolean,
    "name": string,
    "names": lambda v, f: _names(v, f),
    "lists": lambda v, f: _lists(v, f),
}


def convert(k: Key, v, f: str):
    """One TOML value of key `k` (named `f`) in the engine's units, by the key's type alone (a
    choice among its choices); the engine checks the range."""
    if k.type == "choice":
        return choice(k.choices)(v, f)
    return _BY_TYPE[k.type](v, f)


def _lists(v, f) -> tuple:
    """A list of lists of whole numbers >= 0."""
    if not isinstance(v, list):
        raise ScenarioError(f, f"expected a list of lists of integers, got {type(v).__name__} {v!r}")
    rows = []
    for i, row in enumerate(v):
        if not isinstance(row, list):
            raise ScenarioError(f"{f}[{i}]", f"expected a list of integers, got {type(row).__name__} {row!r}")
        rows.append(tuple(integer(x, f"{f}[{i}][{j}]", lo=0) for j, x in enumerate(row)))
    return tuple(rows)


def _tables(section: str, v, f: str) -> tuple:
    if not isinstance(v, list):
        raise ScenarioError(
            f, f"expected a list of tables ({', '.join(sections()[section].allowed)}), got {v!r}"
        )
    return tuple(read(section, item, f"{f}[{i}]") for i, item in enumerate(v))


def _names(v, f):
    if not isinstance(v, list):
        raise ScenarioError(f, f"expected a list of names, got {type(v).__name__} {v!r}")
    return tuple(string(x, f"{f}[{i}]") for i, x in enumerate(v))


ECN = "switch.ecn."  # the sections of the ECN kinds: switch.ecn.<kind> (and .rule, a red_by_rate rule)


def ecn_kinds() -> tuple:
    """`none` and every kind the engine declares a section for."""
    return ("none",) + tuple(n[len(ECN) :] for n in sections() if n.startswith(ECN) and n != ECN + "rule")


def read(section: str, data: Any, prefix: str, special: Optional[dict] = None, base=None):
    """Read the TOML table `data` of `section` (named `prefix` in this scenario) over `base` (a
    record; default: the engine's defaults). `special` maps a key to its own converter, for keys
    whose form the type alone does not fix (a table, a port name checked against the topology):
    it returns the value, or a dict of several fields. The engine then checks the whole record."""
    sec = sections()[section]
    t = Table(data, prefix, sec.allowed)
    special = special or {}
    values: dict[str, Any] = {}
    for k in sec.keys:
        if k.required and base is None and k.key not in data:
            raise ScenarioError(t.f(k.key), "missing (required)")
        if not k.key or k.key not in data:
            continue
        f = t.f(k.key)
        if k.key in special:
            got = special[k.key](data[k.key], f)
            values.update(got if isinstance(got, dict) and k.type != "table" else {k.field: got})
        elif k.type == "tables":
            values[k.field] = _tables(k.section, data[k.key], f)
        elif k.type == "table":
            raise AssertionError(f"{section}.{k.key}: a table key needs a reader")  # a front bug
        else:
            values[k.field] = convert(k, data[k.key], f)
    rec = dataclasses.replace(base, **values) if base is not None else record(section, **values)
    check(section, rec, prefix)
    return rec


def check(section: str, rec, prefix: str) -> None:
    """The engine's own check of a section (ranges, rules); a ScenarioError naming the key."""
    engine.check_section(section, to_engine(rec), prefix)


def to_engine(rec) -> dict:
    """A record as the engine's JSON object (tables by their own `to_engine`; a tagged kind's
    record, such as an ECN kind's, with its `kind`)."""
    out = {"kind": rec.kind} if isinstance(getattr(type(rec), "kind", None), str) else {}
    for f in dataclasses.fields(rec):
        v = getattr(rec, f.name)
        if hasattr(v, "to_engine"):
            v = v.to_engine()
        elif dataclasses.is_dataclass(v):
            v = to_engine(v)
        elif isinstance(v, tuple):
            v = [to_engine(x) if dataclasses.is_dataclass(x) else x for x in v]
        if v is not None:  # absent: the engine's None
            out[f.name] = v
    return out


_FORMAT = {"size": units.format_size_exact, "time": units.format_time_exact, "rate": units.format_rate_exact}


def to_toml_value(k: Key, v):
    """One value in the engine's units as TOML writes it: exact units, lists as lists."""
    if k.type in _FORMAT:
        return _FORMAT[k.type](v)
    if k.type == "lists":
        return [list(row) for row in v]
    return list(v) if isinstance(v, tuple) else v


def to_toml(section: str, rec, special: Optional[dict] = None) -> dict:
    """A record as TOML keys with exact units; `special` writes the keys `read` read specially
    (a writer returning None leaves its key out)."""
    out: dict[str, Any] = {}
    special = special or {}
    for k in sections()[section].keys:
        if not k.key:
            continue
        if k.key in special:
            v = special[k.key](rec)
            if v is not None:
                out[k.key] = v
            continue
        v = getattr(rec, k.field)
        if v is None:
            continue
        if k.type == "tables":
            out[k.key] = [to_toml(k.section, x) for x in v]
        else:
            out[k.key] = to_toml_value(k, v)
    return out
