"""Multipath front end: `subflows` on flows and workloads, the two-path topology, the per-subflow
flow records and their fold into connections (docs/scenario.md "Multipath")."""

from __future__ import annotations

import copy

import pandas as pd
import pytest

from dccsim import engine, scenario
from dccsim.analysis.multipath import connections
from dccsim.errors import ScenarioError

TWO_PATH = {
    "name": "tp",
    "seed": 1,
    "duration": "20ms",
    "topology": {
        "kind": "two-path",
        "host_rate": "20Gbps",
        "host_delay": "1us",
        "path0_rate": "10Gbps",
        "path0_delay": "1us",
        "path1_rate": "10Gbps",
        "path1_delay": "1us",
    },
    "switch": {"ecn": {"kind": "step", "k": "15KB"}},
    "cc": {"algorithm": "dctcp"},
    "flows": [{"src": 0, "dst": 1, "size": "2MB", "subflows": 2}],
    "metrics": {"interval": "10us", "ports": ["tor0->path0", "tor0->path1"]},
}


def err(data) -> ScenarioError:
    with pytest.raises(ScenarioError) as e:
        scenario.from_dict(data)
    return e.value


def test_subflows_reach_the_engine_only_where_above_one(base):
    cfg = scenario.from_dict(base).to_engine_config()
    assert all("subflows" not in f for f in cfg["flows"])
    base["flows"][0]["subflows"] = 4
    cfg = scenario.from_dict(base).to_engine_config()
    assert [f["subflows"] for f in cfg["flows"]] == [4, 4]


@pytest.mark.parametrize("bad", [0, 65, 2.5, "two"])
def test_subflows_out_of_range_name_the_field(base, bad):
    base["flows"][0]["subflows"] = bad
    e = err(base)
    assert e.field == "flows[0].subflows"
    assert "64" in e.message or "integer" in e.message, e.message


# 8 hosts in 4 racks at 10 Gbps: the smallest FatTree on which a workload spreads over paths
SMALL_FATTREE = {
    "kind": "fattree",
    "pods": 2,
    "tors_per_pod": 2,
    "aggs_per_pod": 2,
    "cores": 2,
    "servers_per_tor": 2,
    "host_rate": "10Gbps",
    "host_delay": "1us",
    "tor_agg_rate": "10Gbps",
    "tor_agg_delay": "1us",
    "agg_core_rate": "10Gbps",
    "agg_core_delay": "1us",
}


def test_workload_subflows_apply_to_generated_flows():
    data = copy.deepcopy(TWO_PATH)
    data["topology"] = dict(SMALL_FATTREE)
    data["flows"] = [{"src": 0, "dst": 5, "size": "10KB"}]
    data["metrics"] = {"interval": "0s"}
    data["workload"] = {"kind": "permutation", "size": "100KB", "subflows": 3}
    cfg = scenario.from_dict(data).to_engine_config()
    assert "subflows" not in cfg["flows"][0]
    assert [f["subflows"] for f in cfg["flows"][1:]] == [3] * 8
    data["workload"]["subflows"] = 0
    assert err(data).field == "workload.subflows"


def test_two_path_topology_names_its_path_ports():
    s = scenario.from_dict(TWO_PATH)
    assert s.host_count == 4  # sender, receiver, one cross host per path
    cfg = s.to_engine_config()
    assert cfg["topology"]["kind"] == "two-path" and cfg["topology"]["path1_rate_bps"] == 10**10
    bad = copy.deepcopy(TWO_PATH)
    bad["metrics"]["ports"] = ["tor0->path2"]
    assert "path0" in str(err(bad))


@pytest.mark.engine
def test_uncoupled_subflows_split_a_connection_over_both_paths():
    s = scenario.from_dict(TWO_PATH)
    r = engine.run(s.to_engine_config())
    f = pd.DataFrame(r["flows"])
    assert list(f["connection"]) == [0, 0] and list(f["subflow"]) == [0, 1]
    c = connections(f)
    assert len(c) == 1
    row = c.iloc[0]
    # conservation: the subflows' bytes add up to the connection, delivered once in order
    assert row["bytes_acked"] == 2_000_000 and row["delivered_bytes"] == 2_000_000
    assert row["subflows"] == 2 and row["end_ps"] > 0
    assert (f["bytes_acked"] > 0).all()


def test_workload_cc_sets_the_generated_flows_controller():
    data = copy.deepcopy(TWO_PATH)
    data["topology"] = dict(SMALL_FATTREE)
    data["metrics"] = {"interval": "0s"}
    data["workload"] = {"kind": "permutation", "size": "10KB", "cc": {"algorithm": "dctcp", "g": 0.5}}
    s = scenario.from_dict(data)
    cfg = s.to_engine_config()
    assert cfg["flows"][0]["cc"] is None and cfg["flows"][0]["subflows"] == 2
    assert all(f["cc"] == {"algorithm": "dctcp", "params": {"g": 0.5}} for f in cfg["flows"][1:])
    assert scenario.loads(scenario.dump_toml(s)) == s
    data["workload"]["cc"] = {"algorithm": "dctcp", "g": 2.0}
    assert err(data).field == "workload.cc.g"
