"""Host counts and node names come from the engine's own topology builder, so the front cannot
disagree with what runs (before, a hand-written copy claimed core switches in a one-pod FatTree)."""

from __future__ import annotations

import pytest

from dccsim import topology
from dccsim.errors import ScenarioError
from dccsim.scenario import loads

ONE_POD = dict(
    pods=1,
    tors_per_pod=2,
    aggs_per_pod=2,
    cores=4,
    servers_per_tor=4,
    host_rate=25_000_000_000,
    host_delay=1_000_000,
    tor_agg_rate=100_000_000_000,
    tor_agg_delay=1_000_000,
    agg_core_rate=100_000_000_000,
    agg_core_delay=1_000_000,
)


def test_a_one_pod_fattree_has_no_core_switches():
    assert topology.host_count("fattree", ONE_POD) == 8
    assert topology.node_names_hint("fattree", ONE_POD) == "h0..h7, tor0..tor1, agg0..agg1"
    assert not topology.node_exists("fattree", ONE_POD, "core0")
    assert topology.node_exists("fattree", dict(ONE_POD, pods=2), "core3")
    assert not topology.node_exists("fattree", dict(ONE_POD, pods=2), "core4")


def test_custom_names_follow_the_counts_and_unknown_nodes_are_named_in_the_error():
    assert topology.node_names_hint("custom", {"hosts": 3, "switches": 2}) == "h0..h2, s0..s1"
    text = """
duration = "1ms"
[topology]
kind = "custom"
hosts = 2
switches = 1
links = [ { a = "h0", b = "s0", rate = "10Gbps", delay = "1us" },
          { a = "h1", b = "s1", rate = "10Gbps", delay = "1us" } ]
[cc]
algorithm = "dctcp"
[[flows]]
src = 0
dst = 1
"""
    with pytest.raises(ScenarioError) as e:
        loads(text)
    assert e.value.field == "topology.links[1].b"
    assert "h0..h1, s0..s0" in str(e.value)
