"""Property tests (hypothesis) over random small topologies and flow sets: packet conservation,
no drops under PFC, and identical results across reruns. Each example runs the engine directly (no output directory)
on a scenario of at most 8 hosts and 300 µs, so 25 examples take a few seconds."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dccsim import engine, scenario

pytestmark = pytest.mark.engine

ALGORITHMS = ["powertcp", "theta-powertcp", "hpcc", "homa", "dctcp", "reno", "cubic", "dcqcn", "swift"]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def small_scenarios(draw):
    kind = draw(st.sampled_from(["star", "dumbbell"]))
    rate = draw(st.sampled_from(["1Gbps", "10Gbps", "25Gbps", "100Gbps"]))
    delay = f"{draw(st.integers(1, 5))}us"
    if kind == "star":
        hosts = draw(st.integers(2, 8))
        topology = {"kind": "star", "hosts": hosts, "host_rate": rate, "host_delay": delay}
    else:
        left, right = draw(st.integers(1, 4)), draw(st.integers(1, 4))
        hosts = left + right
        topology = {
            "kind": "dumbbell",
            "left": left,
            "right": right,
            "host_rate": rate,
            "host_delay": delay,
            "bottleneck_rate": draw(st.sampled_from(["1Gbps", "10Gbps"])),
            "bottleneck_delay": "2us",
        }
    flows = []
    for _ in range(draw(st.integers(1, 6))):
        src, dst = draw(st.lists(st.integers(0, hosts - 1), min_size=2, max_size=2, unique=True))
        f = {"src": src, "dst": dst, "start": f"{draw(st.integers(0, 100))}us"}
        if draw(st.booleans()):
            f["size"] = f"{draw(st.integers(1, 200))}KB"
        flows.append(f)
    return scenario.from_dict(
        {
            "name": "prop",
            "seed": draw(st.integers(0, 2**32)),
            "duration": "300us",
            "topology": topology,
            "switch": {
                "buffer": draw(st.sampled_from(["64KB", "256KB", "4MiB"])),
                "ecn": {"kind": "step", "k": "30KB"},
            },
            "cc": {"algorithm": draw(st.sampled_from(ALGORITHMS))},
            "flows": flows,
        }
    )


@SETTINGS
@given(small_scenarios())
def test_packets_are_conserved(scn):
    s = engine.run(scn.to_engine_config())["summary"]
    # every packet that entered the network was delivered, dropped, or is still in a queue/link
    assert s["packets_sent"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_flight"]
    assert s["data_packets_delivered"] + s["data_packets_dropped"] <= s["data_packets_sent"]
    assert s["flows_completed"] <= len(scn.engine_flows())


@SETTINGS
@given(small_scenarios())
def test_flow_records_are_consistent(scn):
    f = engine.run(scn.to_engine_config())["flows"]
    for size, start, end, acked in zip(f["size_bytes"], f["start_ps"], f["end_ps"], f["bytes_acked"]):
        if size >= 0:  # finite flow: never more acknowledged than sent; finished = all acknowledged
            assert acked <= size
            assert (end >= 0) == (acked == size)
        if end >= 0:
            assert end > start


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_scenarios())
def test_reruns_are_identical(scn):
    cfg = scn.to_engine_config()
    a, b = engine.run(cfg), engine.run(cfg)

    def same(x, y):  # NaN == NaN for this purpose (e.g. rates of idle flows)
        if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            return True
        return x == y

    for table in ("summary", "flows", "port_series", "flow_series", "ports"):
        ta, tb = a[table], b[table]
        assert ta.keys() == tb.keys()
        for k in ta:
            va, vb = ta[k], tb[k]
            if hasattr(va, "tolist"):  # numeric columns come as numpy arrays
                va, vb = va.tolist(), vb.tolist()
            if isinstance(va, list):
                assert len(va) == len(vb) and all(same(x, y) for x, y in zip(va, vb)), (table, k)
            else:
                assert same(va, vb), (table, k)


@SETTINGS
@given(small_scenarios(), st.sampled_from(["64KB", "256KB", "4MiB"]))
def test_no_drops_under_pfc(scn, buffer):
    """The same random scenarios on a lossless fabric: nothing is dropped, whatever the buffer (a
    PFC switch pauses its senders instead), and packets are still conserved."""
    from dccsim.scenario import Pfc

    sw = dataclasses.replace(scn.switch, pfc=Pfc(), buffer_bytes=scenario_size(buffer))
    s = engine.run(dataclasses.replace(scn, switch=sw).to_engine_config())["summary"]
    assert s["packets_dropped"] == 0
    assert s["packets_sent"] == s["packets_delivered"] + s["packets_in_flight"]


def scenario_size(text: str) -> int:
    from dccsim.units import parse_size

    return parse_size(text, "buffer")
