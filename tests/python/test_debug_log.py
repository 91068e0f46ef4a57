"""The debug log (`--log cc:flow=N,node=hN`, `[metrics] log`; telemetry/log.rs): one line per call of
the chosen flows' controllers, deterministic, and without any effect on the run."""

import copy

import numpy as np
import pytest

from dccsim import engine, experiments
from dccsim.errors import ScenarioError

pytestmark = pytest.mark.engine


def _run(log):
    scn = experiments.get("powertcp-incast")
    cfg = scn.to_engine_config(scn.variants()[0])  # PowerTCP
    cfg["metrics"]["log"] = list(log)
    return engine.run(copy.deepcopy(cfg))


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
    for table in ("flows", "port_series", "flow_series"):
        for col, values in off[table].items():
            assert np.array_equal(np.asarray(values), np.asarray(on[table][col])), (table, col)
    assert on["summary"] == off["summary"]
    # deterministic: the same run, the same bytes
    assert _run(["cc:flow=3"])["log"] == on["log"]


def test_node_filter_and_several_filters():
    by_node = _run(["cc:node=h2"])["log"].splitlines()
    assert by_node and all(" node=h2 " in line for line in by_node)
    both = _run(["cc:flow=1", "cc:flow=2"])["log"].splitlines()
    assert {line.split()[1] for line in both} == {"flow=1", "flow=2"}
    assert _run(["cc:flow=99"])["log"] == ""  # no such flow: nothing


@pytest.mark.parametrize(
    "spec, words",
    [
        ("nic:flow=1", 'unknown component "nic"; allowed: cc'),
        ("cc:flow=x", "flow=x: a flow id"),
        ("cc:port=1", 'unknown filter "port"; allowed: flow, node'),
        ("cc:node=switch", "node=switch: a host"),
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
