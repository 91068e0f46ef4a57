"""A generated corpus of scenario files, drawn from the engine's own schema (scenario/schema.py):
every key of every declared section, given values in range, at and past its bounds, with the wrong
type or unit, or left out. Each scenario must either be refused with one ScenarioError naming a
dotted field the schema declares (never another exception, never a panic), or run and give results
that pass the engine's invariants.

CI runs a bounded slice; more: `DCCSIM_CORPUS_EXAMPLES=5000 python -m pytest -q
tests/python/test_generated_scenarios.py` (the seed of a failure is printed by hypothesis).
"""

from __future__ import annotations

import copy
import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dccsim import engine
from dccsim.errors import ScenarioError
from dccsim.scenario import from_dict, schema

pytestmark = pytest.mark.engine

EXAMPLES = int(os.environ.get("DCCSIM_CORPUS_EXAMPLES", "150"))

BASE = {
    "duration": "300us",
    "topology": {"kind": "star", "hosts": 3, "host_rate": "10Gbps", "host_delay": "1us"},
    "cc": {"algorithm": "dctcp"},
    "switch": {"ecn": {"kind": "step", "k": "20KB"}},
    "flows": [{"src": 1, "dst": 0, "size": "30KB"}, {"src": 2, "dst": 0, "size": "30KB", "start": "5us"}],
    "metrics": {"interval": "10us", "ports": ["sw0->h0"], "flows": True},
}
# where each section's table sits in a scenario (ECN kinds under switch.ecn with their kind)
PLACE = {"switch": ("switch",), "switch.pfc": ("switch", "pfc"), "host": ("host",), "metrics": ("metrics",)}
for _kind in ("step", "red", "curve"):
    PLACE[f"switch.ecn.{_kind}"] = ("switch", "ecn")

UNITS = {"size": ("B", "KB", "MiB"), "time": ("ps", "us", "ms"), "rate": ("bps", "Mbps", "Gbps")}


def _number_near(k):
    """Values in, at and just past the key's bounds, and a few absurd ones."""
    ends = [x for x in (k.min, k.max) if x is not None and math.isfinite(x)]
    pts = ends + [e + d for e in ends for d in (-1, 1, 0.5)] + [0, 1, 2, 10, 1e6, 1e20, -1]
    return st.sampled_from(pts)


def _value(k):
    """A strategy of TOML values for key `k`: mostly well-typed, sometimes wrong."""
    wrong = st.sampled_from(["x", True, [], {"a": 1}, -5, 3.5, "12 parsecs", ""])
    if k.type in UNITS:
        n = _number_near(k).map(lambda x: max(int(x), -1))
        with_unit = st.tuples(st.integers(0, 10**7), st.sampled_from(UNITS[k.type])).map(
            lambda t: f"{t[0]}{t[1]}"
        )
        good = st.one_of(n, with_unit)
    elif k.type == "count":
        good = _number_near(k).map(int)
    elif k.type == "number":
        good = st.one_of(_number_near(k), st.floats(allow_nan=True, allow_infinity=True))
    elif k.type == "bool":
        good = st.booleans()
    elif k.type == "choice":
        good = st.sampled_from(list(k.choices))
    elif k.type == "names":
        good = st.lists(st.sampled_from(["sw0", "sw0->h0", "h1->sw0", "*", "nope", "sw9->h0"]), max_size=3)
    else:
        return None  # tables: generated as sections of their own
    return st.one_of(good, good, good, wrong)


@st.composite
def scenarios(draw):
    data = copy.deepcopy(BASE)
    sections = draw(st.lists(st.sampled_from(sorted(PLACE)), min_size=1, max_size=3, unique=True))
    for name in sections:
        sec = schema.sections()[name]
        table = {}
        if name.startswith("switch.ecn."):
            table["kind"] = name.rsplit(".", 1)[1]
        keys = [k for k in sec.keys if k.key and _value(k) is not None]
        for k in draw(st.lists(st.sampled_from(keys), max_size=4, unique_by=lambda k: k.key)) if keys else []:
            table[k.key] = draw(_value(k))
        for k in sec.keys:  # required keys mostly present
            if k.required and k.key not in table and draw(st.integers(0, 9)):
                table[k.key] = draw(_value(k))
        node = data
        for part in PLACE[name][:-1]:
            node = node.setdefault(part, {})
        leaf = PLACE[name][-1]
        merge = isinstance(node.get(leaf), dict) and not name.startswith("switch.ecn.")  # a kind replaces
        node[leaf] = {**node[leaf], **table} if merge else table
    return data


def _declared_prefixes() -> set:
    top = {"scenario", "switch", "host", "metrics", "flows", "cc", "topology", "duration", "seed"}
    return top | {n.split(".")[0] for n in schema.sections()}


def _check_invariants(out: dict, scn) -> None:
    """The front's view of the results (the engine checked its own invariants during the run)."""
    s = out["summary"]
    assert all(v >= 0 for v in s.values() if isinstance(v, (int, float))), s
    f = out["flows"]
    for size, acked in zip(f["size_bytes"], f["bytes_acked"]):
        assert acked >= 0 and (size < 0 or acked <= size), (size, acked)
    for start, end in zip(f["start_ps"], f["end_ps"]):
        assert end < 0 or end >= start
    ps = out["port_series"]
    assert all(q >= 0 for q in ps["queue_bytes"])
    assert all(t < scn.duration_ps + 1 for t in ps["time_ps"])


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=os.environ.get("DCCSIM_CORPUS_RANDOM") is None,  # CI: the same slice every run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(scenarios())
def test_a_generated_scenario_is_refused_with_its_field_or_runs_soundly(data):
    try:
        scn = from_dict(data)
    except ScenarioError as e:
        text = str(e)
        assert "\n" not in text and e.field and e.message, text
        assert e.field.split(".")[0].split("[")[0] in _declared_prefixes(), text
        return
    try:
        # the engine's end-of-run invariants (conservation, lossless, flow records; [engine] check):
        # a violation raises InvariantViolation and fails the case
        out = engine.run({**scn.to_engine_config(), "engine": {"check": True}})
    except ScenarioError as e:  # refused by the engine's own checks: still one named line
        assert "\n" not in str(e) and e.field, str(e)
        return
    _check_invariants(out, scn)
