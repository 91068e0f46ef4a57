"""The scenario schema is declared once, in the engine (crates/engine/src/config, `section!`), and
the front reads, checks, writes and documents every key from that declaration."""

import dataclasses
import math

import pytest

from dccsim.errors import ScenarioError
from dccsim.scenario import docs, schema

pytestmark = pytest.mark.engine

# keys whose TOML form the type alone does not fix: each has its own reader in parse.py
SPECIAL = {("switch", "ecn"), ("switch", "pfc"), ("switch.pfc", "headroom")}


RULE = {"rate": "25Gbps", "kmin": "100KB", "kmax": "400KB", "pmax": 0.2}
# the required keys of the sections that have some: a valid table to vary one key of
EXAMPLE = {
    "switch.ecn.step": {"k": "30KB"},
    "switch.ecn.red": {"kmin": "100KB", "kmax": "400KB", "pmax": 0.2},
    "switch.ecn.curve": {"bdp": "500KB"},
    "switch.ecn.red_by_rate": {"rules": [RULE]},
    "switch.ecn.rule": RULE,
}


def _sections():
    return list(schema.sections().items())


def test_every_section_with_required_keys_has_an_example():
    for name, sec in _sections():
        needed = {k.key for k in sec.keys if k.required}
        assert needed <= set(EXAMPLE.get(name, {})), name


@pytest.mark.parametrize("name,sec", _sections(), ids=[n for n, _ in _sections()])
def test_every_key_round_trips_from_the_engines_default(name, sec):
    """Written back with units and read again, every default is the engine's default: the front
    and the engine agree on every key's name, type, unit and default."""
    defaults = schema.read(name, EXAMPLE.get(name, {}), name)
    toml = schema.to_toml(name, defaults, {k: (lambda r: None) for s, k in SPECIAL if s == name})
    assert set(toml) == {k.key for k in sec.keys if k.key and (name, k.key) not in SPECIAL} - {
        k.key for k in sec.keys if k.default is None
    }
    again = schema.read(name, toml, name)
    for k in sec.keys:
        if (name, k.key) not in SPECIAL and k.type != "table":
            assert getattr(again, k.field) == getattr(defaults, k.field), k.key


@pytest.mark.parametrize("name,sec", _sections(), ids=[n for n, _ in _sections()])
def test_every_bound_is_enforced_with_the_dotted_key(name, sec):
    """One past each finite bound of each numeric key is refused, naming `section.key`."""
    checked = 0
    for k in sec.keys:
        if not k.key or (name, k.key) in SPECIAL or k.type not in ("size", "time", "rate", "count", "number"):
            continue
        outside = []
        if k.max is not None and math.isfinite(k.max):
            outside.append(k.max + (0.5 if k.type == "number" else 1))
        if k.min is not None and (k.min > 0 or k.min_open):
            outside.append(k.min if k.min_open else k.min - 1)
        for x in outside:
            value = float(x) if k.type == "number" else int(x)
            with pytest.raises(ScenarioError) as e:
                schema.read(name, {**EXAMPLE.get(name, {}), k.key: value}, f"x.{name}")
            assert e.value.field == f"x.{name}.{k.key}", e.value
            checked += 1
    assert checked or name == "metrics" or not any(k.min or k.max for k in sec.keys)


def test_an_unknown_key_lists_the_declared_ones():
    with pytest.raises(ScenarioError) as e:
        schema.read("host", {"nack_intervall": "1us"}, "host")
    assert e.value.field == "host.nack_intervall"
    assert "nack_interval" in e.value.message and "payload" in e.value.message


def test_a_rule_beside_its_fields_is_checked_by_the_engine():
    with pytest.raises(ScenarioError) as e:
        schema.read("switch.pfc", {"model": "hpcc", "xon": "2KB"}, "switch.pfc")
    assert e.value.field == "switch.pfc.xon" and "sonic" in e.value.message
    with pytest.raises(ScenarioError) as e:
        schema.read(
            "switch.pfc", {"headroom": 0}, "switch.pfc", {"headroom": lambda v, f: {"headroom_bytes": v}}
        )
    assert e.value.field == "switch.pfc.headroom"


def test_a_value_too_large_for_the_engine_names_its_key_and_range():
    with pytest.raises(ScenarioError) as e:
        schema.read("host", {"payload": "1TB"}, "host")
    assert str(e.value) == "host.payload: must be in [1 B, 65535 B], got 1 TB"


def test_records_are_frozen_and_compare_by_value():
    a, b = schema.record("host"), schema.record("host", payload_bytes=1000)
    assert a == b and hash(a) == hash(b)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.payload_bytes = 1


def test_the_docs_tables_are_generated_from_the_declarations():
    text = docs.DOC.read_text(encoding="utf-8")
    assert docs.render(text) == text, "run `python -m dccsim.scenario.docs`"
    # the check fails on a stale table
    stale = text.replace("| `nack_interval` |", "| `nack_interval_old` |")
    assert stale != text and docs.render(stale) == text
    for name in schema.sections():
        assert f"#### `[{name}]`" in text
