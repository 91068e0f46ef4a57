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


def long_flow_window(algorithm: str, duration: str, alone: bool = False, linux_window: bool = False):
    raw = tomllib.loads(INCAST.read_text())
    raw.pop("experiment")
    raw["cc"] = {"algorithm": algorithm}
    # Linux's minimum RTO, as the testbed's comparison
    raw["host"] = {**raw["host"], "rto": "200ms", "linux_window": linux_window}
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


def settled_window_of_linux_slow_start(c_bytes: float, rtt_s: float) -> float:
    """The window at which Linux's slow start stops for a flow alone on its NIC with no congestion
    signal (`host.linux_window`, transport/host_queue.rs): it grows while cwnd < 2 × its flight,
    the pipe C·RTT plus the host queue q that TCP Small Queues allows, q·(RTT + q/C) =
    1.2·cwnd·2^-10 s; so W = 2·(C·RTT + q(W)), solved here by iteration (a contraction: q grows
    as √W)."""
    w = 2 * c_bytes * rtt_s
    for _ in range(200):
        k = 1.2 * w / 1024
        q = (-rtt_s + (rtt_s * rtt_s + 4 * k / c_bytes) ** 0.5) / (2 / c_bytes)
        w = 2 * (c_bytes * rtt_s + q)
    return w


def test_dctcp_alone_on_its_nic_grows_as_linux_slow_start_only_with_linux_window():
    """Linux's DCTCP long flow on testbed-incast-8 (docs/testbed.md, "DCTCP's incast") is limited by
    its own NIC and sees no marks: it stays in slow start and tcp_is_cwnd_limited lets it grow
    while cwnd < 2 × max_packets_out, a flight that counts its host queue. The simulator's DCTCP
    does so only with host.linux_window; without it the window stays at the initial 10 packets."""
    t, cwnd, r = long_flow_window("dctcp", "600ms", alone=True)
    assert set(cwnd[t >= 100_000_000_000]) == {10 * 1448.0}
    t, cwnd, r = long_flow_window("dctcp", "600ms", alone=True, linux_window=True)
    expect = settled_window_of_linux_slow_start(1e9 / 8, r["summary"]["base_rtt_ps"] / 1e12)
    assert 550_000 < expect < 650_000  # 1 Gbps, τ 45.6 µs: the pipe is 5.7 KB, the rest host queue
    settled = cwnd[(t >= 100_000_000_000) & (t < 600_000_000_000)]
    # slow start adds one MSS per ACK and the check runs per packet sent: within two packets
    assert np.all(np.abs(settled - expect) <= 2 * 1448), (settled.min(), settled.max(), expect)
    assert int(r["summary"]["packets_dropped"]) == 0


@pytest.mark.parametrize("bad", ["maybe", 2])
def test_a_bad_linux_window_is_refused_in_one_line_naming_the_field(bad):
    from cli_helpers import assert_refused_in_one_line

    raw = tomllib.loads(INCAST.read_text())
    raw.pop("experiment")
    raw["host"] = {**raw["host"], "linux_window": bad}
    assert_refused_in_one_line(raw, "host.linux_window")
