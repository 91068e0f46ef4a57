"""A Linux sender counts its host queue in flight (issue 29, transport/host_queue.rs): the long flow of
`testbed-incast-8` under CUBIC or NewReno, whose 1 Gbps NIC is as fast as the bottleneck, kept its window
frozen at 83 984 B from 1.005 s to the end with a standing queue and no loss, because the packets
waiting for its NIC did not count and it was never cwnd-limited. Linux hands them to its host queue,
counts them (`tcp_packets_in_flight`) and grows while cwnd-limited (`tcp_is_cwnd_limited`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

import dccsim
from dccsim import engine, scenario

INCAST = Path(dccsim.__file__).parent / "experiments" / "testbed-incast-8.toml"


def long_flow_window(algorithm: str, duration: str, alone: bool = False):
    raw = tomllib.loads(INCAST.read_text())
    raw.pop("experiment")
    raw["cc"] = {"algorithm": algorithm}
    raw["host"] = {**raw["host"], "rto": "200ms"}  # Linux's minimum, as the testbed's comparison
    raw["duration"] = duration
    if alone:
        raw["flows"] = raw["flows"][:1]  # the long flow, without the incast
    r = engine.run(scenario.from_dict(raw).to_engine_config())
    fs = r["flow_series"]
    fid, t, cwnd = (np.asarray(fs[k]) for k in ("flow_id", "time_ps", "cwnd_bytes"))
    m = fid == 0
    return t[m], cwnd[m], r


@pytest.mark.parametrize("algorithm", ["cubic", "reno"])
def test_the_long_flows_window_is_not_frozen_after_the_incast(algorithm):
    t, cwnd, r = long_flow_window(algorithm, "2s")
    after = cwnd[t >= 1_005_000_000_000]
    assert len(after) > 900  # 1 ms samples over the last ~1 s
    # before: one value (83 984 B) for the whole second; a window that is the limit grows (and is
    # cut on loss), so it takes many values
    assert len(np.unique(after)) > 50, f"{algorithm}: window frozen at {after[0]:.0f} B"


@pytest.mark.parametrize("algorithm", ["cubic", "reno"])
def test_alone_on_its_nic_the_window_grows_to_the_pipe_plus_tcp_small_queues(algorithm):
    """From 0 to 1 s the long flow is alone and its NIC is the bottleneck (before: its window stayed at
    the initial 10 packets). Linux grows it while the host queue is within TSQ's budget,
    1.2·cwnd/srtt·2^-10 s, whose srtt includes that queue: with cwnd = C·RTT + q and srtt = RTT + q/C
    the budget is 1.2·C·2^-10 s whatever the window, so the window settles at C·RTT + 1.2·C/1024."""
    t, cwnd, r = long_flow_window(algorithm, "600ms", alone=True)
    c_bytes = 1e9 / 8
    rtt_s = r["summary"]["base_rtt_ps"] / 1e12
    expect = c_bytes * rtt_s + 1.2 * c_bytes / 1024
    settled = cwnd[(t >= 100_000_000_000) & (t < 600_000_000_000)]
    mss = 1448
    # slow start adds one MSS per ACK and the check runs per packet sent: within two packets
    assert np.all(np.abs(settled - expect) <= 2 * mss), (settled.min(), settled.max(), expect)
    assert int(r["summary"]["packets_dropped"]) == 0
