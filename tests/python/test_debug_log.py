"""The debug log (`--log cc:flow=N,node=hN`, `[metrics] log`; telemetry/log.rs, log_events.rs): one
line per event of the chosen component (cc, nic, fabric, transport) for the chosen flows and
nodes, deterministic, and without any effect on the run."""

import copy

import numpy as np
import pytest

from dccsim import engine, experiments
from dccsim.errors import ScenarioError
from dccsim.scenario import loads

pytestmark = pytest.mark.engine


def _run(log, variant=0, switch=None):
    """powertcp-incast's `variant` (0 = PowerTCP), or, with `switch`, a small star incast whose
    switch line is `switch` (PFC, ECN marking)."""
    if switch is None:
        scn = experiments.get("powertcp-incast")
        cfg = scn.to_engine_config(scn.variants()[variant])
    else:
        cfg = loads(STAR_INCAST.replace("SWITCH", switch)).to_engine_config(None)
    cfg["metrics"]["log"] = list(log)
    return engine.run(copy.deepcopy(cfg))


STAR_INCAST = """
name = "star-incast"
duration = "2ms"
[topology]
kind = "star"
hosts = 11
host_rate = "25Gbps"
host_delay = "1us"
[switch]
buffer = "200KB"
dt_alpha = 1.0
SWITCH
[cc]
algorithm = "dcqcn"
[[flows]]
src = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
dst = 10
size = "300KB"
"""


def _same_run(off, on):
    for table in ("flows", "port_series", "flow_series"):
        for col, values in off[table].items():
            assert np.array_equal(np.asarray(values), np.asarray(on[table][col])), (table, col)
    assert on["summary"] == off["summary"]


def test_the_log_follows_the_chosen_flow_and_changes_nothing_else():
    off = _run([])
    on = _run(["cc:flow=3"])
    assert off["log"] == ""
    lines = on["log"].splitlines()
    assert lines and all(" flow=3 node=h3 cc " in line for line in lines)
    acks = [line for line in lines if " cc ack " in line]
    sends = [line for line in lines if " cc send " in line]
    assert acks and sends and all("-> cwnd=" in line and "smoothed_power=" in line for line in acks)
    # one ack line per ACK of flow 3 (every data packet of the incast is acknowledged)
    flows = on["flows"]
    i = list(flows["flow_id"]).index(3)
    assert len(sends) >= flows["bytes_acked"][i] // 1000
    # the run is the same with the log on: every table equal
    _same_run(off, on)
    # deterministic: the same run, the same bytes
    assert _run(["cc:flow=3"])["log"] == on["log"]


def test_node_filter_and_several_filters():
    by_node = _run(["cc:node=h2"])["log"].splitlines()
    assert by_node and all(" node=h2 " in line for line in by_node)
    both = _run(["cc:flow=1", "cc:flow=2"])["log"].splitlines()
    assert {line.split()[1] for line in both} == {"flow=1", "flow=2"}
    assert _run(["cc:flow=99"])["log"] == ""  # no such flow: nothing


def test_transport_nic_and_fabric_lines_follow_their_filters():
    off = _run([])
    on = _run(["transport:flow=3", "nic:node=h3,flow=3", "fabric:flow=3,node=tor0"])
    _same_run(off, on)
    lines = on["log"].splitlines()
    assert lines and all(line.split()[1] == "flow=3" for line in lines)
    by = {}
    for line in lines:
        t, _, node, comp, event = line.split()[:5]
        by.setdefault((comp, event), []).append((float(t), node))
    # one format: time, flow, node, component, event; the node of each component
    assert {n for k, v in by.items() for _, n in v if k[0] in ("transport", "nic")} == {"node=h3"}
    assert {n for k, v in by.items() for _, n in v if k[0] == "fabric"} == {"node=tor0"}
    # flow 3 sent its bytes: a transport send per data packet, each leaving the NIC as `data`
    flows = on["flows"]
    i = list(flows["flow_id"]).index(3)
    sends = len(by[("transport", "send")]) + len(by.get(("transport", "retransmit"), []))
    assert sends == len(by[("nic", "data")]) and sends >= flows["bytes_acked"][i] // 1000
    assert len(by[("transport", "ack")]) >= flows["bytes_acked"][i] // 1000
    # at the switch: each data packet and its ACK enqueued and dequeued once (none dropped here),
    # but for the packets still unacknowledged when the run ends (data and ACK: two each)
    assert on["summary"]["packets_dropped"] == 0
    acks = len(by[("transport", "ack")])
    enq, deq = len(by[("fabric", "enqueue")]), len(by[("fabric", "dequeue")])
    assert deq <= enq <= 2 * sends and 2 * sends - enq <= 2 * (sends - acks), (enq, deq, sends, acks)
    # in event order, and deterministic
    times = [float(line.split()[0]) for line in lines]
    assert times == sorted(times)
    assert _run(["transport:flow=3", "nic:node=h3,flow=3", "fabric:flow=3,node=tor0"])["log"] == on["log"]


def test_fabric_logs_drops_marks_and_pfc_frames():
    drops = _run(["fabric:node=tor0"], variant=7)  # TIMELY fills the buffer
    assert drops["summary"]["packets_dropped"] > 0
    events = [line.split()[4] for line in drops["log"].splitlines()]
    assert events.count("drop") == drops["summary"]["packets_dropped"]
    marks = _run(["fabric:node=sw0"], switch='ecn = { kind = "step", k = "20KB" }')["log"].splitlines()
    marked = [line.split()[7] for line in marks if line.split()[4] == "mark"]  # seq=…
    assert marked
    # each mark is followed by the same packet's dequeue line
    after = [marks[i + 1] for i, line in enumerate(marks) if line.split()[4] == "mark"]
    assert [line.split()[4] for line in after] == ["dequeue"] * len(marked)
    assert [line.split()[7] for line in after] == marked
    pfc = _run(["fabric"], switch='ecn = { kind = "none" }\npfc = true')
    lines = pfc["log"].splitlines()
    pauses = [line for line in lines if line.split()[4] == "pause"]
    assert len(pauses) == pfc["summary"]["pfc_pause_frames"] > 0
    assert all(line.split()[1] == "flow=-" for line in pauses)
    assert sum(line.split()[4] == "paused" for line in lines) == len(pauses)  # each reached its peer
    # a flow filter never matches a frame of no flow
    no_flow = _run(["fabric:flow=0"], switch='ecn = { kind = "none" }\npfc = true')["log"].splitlines()
    assert no_flow and not [line for line in no_flow if line.split()[1] == "flow=-"]


@pytest.mark.parametrize(
    "spec, words",
    [
        ("pfc:flow=1", 'unknown component "pfc"; allowed: cc, nic, fabric, transport'),
        ("cc:flow=x", "flow=x: a flow id"),
        ("cc:port=1", 'unknown filter "port"; allowed: flow, node'),
        ("cc:node=switch", "node=switch: not a node of the topology"),
        ("fabric:node=h999", "node=h999: not a node of the topology"),
    ],
)
def test_a_bad_filter_is_one_line_naming_it(spec, words):
    from dccsim.scenario import from_dict, to_dict

    d = to_dict(experiments.get("powertcp-incast"))
    d.setdefault("metrics", {})["log"] = [spec]
    with pytest.raises(ScenarioError) as e:
        scn = from_dict(d, default_name="x")
        engine.run(scn.to_engine_config(scn.variants()[0]))
    msg = str(e.value)
    assert "metrics.log[0]" in msg and words in msg and "\n" not in msg, msg
