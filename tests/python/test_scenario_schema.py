"""The scenario schema is declared once, in the engine (crates/engine/src/config, `section!`), and
the front reads, checks, writes and documents every key from that declaration."""

import dataclasses
import math

import pytest

from dccsim import topology as topo
from dccsim.errors import ScenarioError
from dccsim.scenario import docs, front_sections, parse, schema, toml_out, workload

pytestmark = pytest.mark.engine

# keys whose TOML form the type alone does not fix: each has its own reader in parse.py
SPECIAL = {("switch", "ecn"), ("switch", "pfc"), ("switch.pfc", "headroom")}


LINK = {"rate": "10Gbps", "delay": "1us"}
RULE = {"rate": "25Gbps", "kmin": "100KB", "kmax": "400KB", "pmax": 0.2}
# the required keys of the sections that have some: a valid table to vary one key of
EXAMPLE = {
    "switch.ecn.step": {"k": "30KB"},
    "switch.ecn.red": {"kmin": "100KB", "kmax": "400KB", "pmax": 0.2},
    "switch.ecn.curve": {"bdp": "500KB"},
    "switch.ecn.red_by_rate": {"rules": [RULE]},
    "switch.ecn.rule": RULE,
    "topology.link": {"a": "h0", "b": "s0", **LINK},
}


# the required keys of each topology kind: a valid [topology] to vary one key of
TOPOLOGY = {
    "star": {"hosts": 2, "host_rate": "25Gbps", "host_delay": "1us"},
    "dumbbell": {
        "left": 1,
        "right": 1,
        "host_rate": "25Gbps",
        "host_delay": "1us",
        "bottleneck_rate": "10Gbps",
        "bottleneck_delay": "1us",
    },
    "fattree": {
        "pods": 2,
        "tors_per_pod": 2,
        "aggs_per_pod": 2,
        "cores": 2,
        "servers_per_tor": 2,
        "host_rate": "25Gbps",
        "host_delay": "1us",
        "tor_agg_rate": "100Gbps",
        "tor_agg_delay": "1us",
        "agg_core_rate": "100Gbps",
        "agg_core_delay": "1us",
    },
    "custom": {
        "hosts": 2,
        "switches": 1,
        "links": [{"a": "h0", "b": "s0", **LINK}, {"a": "h1", "b": "s0", **LINK}],
    },
    "rdcn": {},
    "two-path": {
        "host_rate": "25Gbps",
        "host_delay": "1us",
        "path0_rate": "10Gbps",
        "path0_delay": "1us",
        "path1_rate": "10Gbps",
        "path1_delay": "1us",
    },
}


def _sections():
    """The sections read as one table (a topology kind is read by parse._topology, below)."""
    return [(n, s) for n, s in schema.sections().items() if not s.tag]


def _outside(k):
    """Values one step past each finite bound of a numeric key (none for an unbounded key)."""
    out = []
    if k.max is not None and math.isfinite(k.max):
        out.append(k.max + (0.5 if k.type == "number" else 1))
    if k.min is not None and (k.min > 0 or k.min_open):
        out.append(k.min if k.min_open else k.min - 1)
    return [float(x) if k.type == "number" else int(x) for x in out]


def test_every_topology_kind_has_an_example_with_its_required_keys():
    assert set(TOPOLOGY) == set(topo.kinds())
    for kind, example in TOPOLOGY.items():
        needed = {key for key, (k, _) in topo.fields(kind).items() if k.required}
        assert needed <= set(example), kind


@pytest.mark.parametrize("kind", list(TOPOLOGY))
def test_every_topology_key_round_trips_from_the_engines_default(kind):
    """[topology] of each kind, read with the engine's defaults, written back with units and read
    again: the same values, and every declared key is written."""
    t = parse._topology({"kind": kind, **TOPOLOGY[kind]})
    for key, (k, _) in topo.fields(kind).items():
        if key not in TOPOLOGY[kind]:
            assert t.values[key] == topo.default(kind, key), key
    written = toml_out.topology_dict(t)
    assert set(written) == {"kind", *topo.fields(kind)}
    assert parse._topology(written) == t


@pytest.mark.parametrize("kind", list(TOPOLOGY))
def test_every_topology_bound_is_refused_with_its_dotted_key(kind):
    checked = 0
    for key, (k, _) in topo.fields(kind).items():
        if k.type not in ("size", "time", "rate", "count", "number"):
            continue
        for x in _outside(k):
            with pytest.raises(ScenarioError) as e:
                parse._topology({"kind": kind, **TOPOLOGY[kind], key: x})
            assert e.value.field == f"topology.{key}", e.value
            checked += 1
    assert checked


def test_a_link_bound_and_a_variants_topology_name_their_place():
    custom = {"kind": "custom", **TOPOLOGY["custom"]}
    custom["links"] = [dict(custom["links"][0], rate=0), custom["links"][1]]
    with pytest.raises(ScenarioError) as e:
        parse._topology(custom)
    assert e.value.field == "topology.links[0].rate" and "> 0" in e.value.message
    base = parse._topology({"kind": "rdcn"})
    with pytest.raises(ScenarioError) as e:
        parse._variant_topology({"day": 0}, "experiment.variants[1].topology", base)
    assert e.value.field == "experiment.variants[1].topology.day"
    with pytest.raises(ScenarioError) as e:
        parse._variant_topology({"prebuffer": "10us"}, "experiment.variants[1].topology", base)
    assert e.value.field == "experiment.variants[1].topology.prebuffer_voq"


def test_a_topology_rule_beside_its_fields_is_checked_by_the_engine():
    with pytest.raises(ScenarioError) as e:
        parse._topology({"kind": "fattree", **TOPOLOGY["fattree"], "cores": 3})
    assert e.value.field == "topology.cores" and "multiple of aggs_per_pod" in e.value.message
    one_pod = parse._topology({"kind": "fattree", **TOPOLOGY["fattree"], "pods": 1, "cores": 3})
    assert one_pod.values["cores"] == 3  # no core layer: the rule does not apply
    with pytest.raises(ScenarioError) as e:
        parse._topology({"kind": "fattree", **TOPOLOGY["fattree"], "pod": 2})
    assert e.value.field == "topology.pod" and "did you mean 'pods'" in e.value.message


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
        for value in _outside(k):
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
        assert f"#### {docs._place(name)[0]}\n" in text


# [workload]: declared once in the front (scenario/front_sections.py); a valid table of each kind
# (its required keys) on the FatTree example, to vary one key of
WORKLOAD = {
    "permutation": {},
    "poisson": {"stop": "100us", "cdf": "websearch", "load": 0.5},
    "incast": {"stop": "100us", "incast": {"rate": 100, "size": "100KB", "fan_in": 2}},
    "jobs": {"stop": "100us", "clients": 2, "response": "10KB", "fan_in": 4},  # 8 hosts: fan_in <= 7
    "replay": {"file": "earlier/flows_input.parquet"},
}
SUBTABLE = {  # a valid [workload.<table>] and the poisson workload it sits in
    "workload.incast": ({"rate": 100, "size": "100KB", "fan_in": 2}, {}),
    "workload.rotating_incast": ({"senders": 2, "size": "10KB", "rate": "1Gbps"}, {"sending_racks": 2}),
}


def _workload(table: dict):
    t = parse._topology({"kind": "fattree", **TOPOLOGY["fattree"]})
    return workload.parse(table, t, topo.host_count(t.kind, t.values))


def test_every_workload_kind_has_an_example_with_its_required_keys():
    assert set(WORKLOAD) == set(front_sections.WORKLOAD_KINDS)
    for kind, example in WORKLOAD.items():
        needed = {key for key, k in front_sections.keys("workload", kind).items() if k.required}
        assert needed <= set(example), kind


@pytest.mark.parametrize("kind", list(WORKLOAD))
def test_every_workload_key_round_trips_from_its_declared_default(kind):
    w = _workload({"kind": kind, **WORKLOAD[kind]})
    for key, k in front_sections.keys("workload", kind).items():
        if key not in WORKLOAD[kind] and k.type not in ("table", "tables"):
            v = w
            for part in k.field.split("."):
                v = getattr(v, part)
            assert v == k.default, key
    written = toml_out._workload_dict(w)
    assert _workload(written) == w


@pytest.mark.parametrize("kind", list(WORKLOAD))
def test_every_workload_bound_is_refused_with_its_dotted_key(kind):
    checked = 0
    for key, k in front_sections.keys("workload", kind).items():
        if k.type not in ("size", "time", "rate", "count", "number"):
            continue
        for x in _outside(k):
            with pytest.raises(ScenarioError) as e:
                _workload({"kind": kind, **WORKLOAD[kind], key: x})
            assert e.value.field == f"workload.{key}", e.value
            checked += 1
    assert checked or kind == "replay"


@pytest.mark.parametrize("name", list(SUBTABLE))
def test_every_key_of_a_workload_table_round_trips_and_is_bounded(name):
    table, extra = SUBTABLE[name]
    key = name.split(".")[1]
    base = {"kind": "poisson", **WORKLOAD["poisson"], **extra}
    w = _workload({**base, key: table})
    assert _workload({**base, key: toml_out._workload_dict(w)[key]}) == w
    checked = 0
    for k in front_sections.keys(name).values():
        if k.type not in ("size", "time", "rate", "count", "number"):
            continue
        for x in _outside(k):
            with pytest.raises(ScenarioError) as e:
                _workload({**base, key: {**table, k.key: x}})
            assert e.value.field == f"{name}.{k.key}", e.value
            checked += 1
    assert checked


def test_top_level_bounds_name_their_key():
    base = {
        "duration": "1ms",
        "topology": {"kind": "star", **TOPOLOGY["star"]},
        "cc": {"algorithm": "dctcp"},
        "flows": [{"src": 0, "dst": 1}],
    }
    assert parse.from_dict(base).seed == front_sections.keys("scenario")["seed"].default
    for key, value in (("seed", 2**64), ("seed", -1), ("duration", 0), ("base_rtt", 0)):
        with pytest.raises(ScenarioError) as e:
            parse.from_dict({**base, key: value})
        assert e.value.field == key, e.value
    with pytest.raises(ScenarioError) as e:
        parse.from_dict({k: v for k, v in base.items() if k != "flows"})
    assert e.value.field == "flows" and "no flows" in e.value.message
