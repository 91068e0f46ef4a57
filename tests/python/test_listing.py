"""`dccsim list --algorithms`, `dccsim list --json`, `dccsim show --algorithm NAME`: taken from
the engine, so every algorithm the engine builds is listed with the defaults it really uses."""

from __future__ import annotations

import json

import pytest

from cli_helpers import assert_input_error, dccsim
from dccsim import engine, experiments

pytestmark = pytest.mark.engine


def test_list_json_has_every_experiment_and_algorithm():
    p = dccsim("list", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert [e["name"] for e in d["experiments"]] == experiments.list_experiments()
    assert [a["name"] for a in d["algorithms"]] == engine.algorithms()
    incast = next(e for e in d["experiments"] if e["name"] == "powertcp-incast")
    assert incast["analysis"] == "incast"
    assert {"name": "HPCC", "algorithm": "hpcc"} in incast["variants"]
    p = next(a for a in d["algorithms"] if a["name"] == "powertcp")
    assert p["params"]["gamma"] == 0.9 and "NSDI'22" in p["source"]
    assert {"tcp-advanced", "rdma-hw"} <= set(p["choices"]["law"])


def test_list_algorithms_names_every_algorithm_with_variants():
    p = dccsim("list", "--algorithms")
    assert p.returncode == 0, p.stderr
    firsts = [line.split()[0] for line in p.stdout.splitlines() if line and not line.startswith(" ")]
    assert firsts == engine.algorithms()
    assert "laws: paper, artifact" in p.stdout


def test_defaults_listed_are_accepted_by_the_engine():
    """Each algorithm's listed defaults, given explicitly, give the same run as no parameters."""
    scn = experiments.get("powertcp-incast")
    v = scn.variant("hpcc")
    cfg = scn.to_engine_config(v)
    cfg["duration_ps"] = min(cfg["duration_ps"], 200 * 10**6)
    listed = {a["name"]: a["params"] for a in engine.describe_algorithms()}
    for alg in ("hpcc", "powertcp", "dctcp", "swift"):
        c1 = json.loads(json.dumps(cfg))
        c1["cc"] = {"algorithm": alg, "params": {}}
        c2 = json.loads(json.dumps(c1))
        c2["cc"]["params"] = {k: x for k, x in listed[alg].items() if x is not None}
        assert engine.run(c1)["summary"] == engine.run(c2)["summary"], alg


def test_show_algorithm_and_unknown_name():
    p = dccsim("show", "--algorithm", "dctcp")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("dctcp: DCTCP: RFC 8257")
    assert "  g " in p.stdout
    assert_input_error(dccsim("show", "--algorithm", "nope"), "algorithm")
    assert_input_error(dccsim("show"), "show")
