"""Calibration of the simulator's side to the testbed (issue 29 item 4): the simulator's flows' base
RTT and its laws' τ set to the testbed's measured τ, the CPU-bound verdict, and the link-bound default rate. No root needed."""

import pytest

from tb_helpers import needs_engine


@needs_engine
@pytest.mark.parametrize("target_us", [150.0, 302.0, 1000.0])
def test_calibrated_simulator_has_the_testbeds_tau(target_us):
    from dccsim.testbed import simside
    from dccsim.testbed.scenario import load

    scn = simside._scenario(load("testbed-incast-8", "1s", "300Mbps"), "powertcp")
    out, cal = simside.calibrate(scn, int(target_us * 1e6))
    assert cal["matched"], cal
    # the flows' base RTT is the testbed's τ, to a picosecond of delay, and so is the laws' τ
    assert simside.sim_path_rtt_ps(out) == pytest.approx(target_us * 1e6, abs=4)
    assert simside.sim_tau_ps(out) == int(target_us * 1e6)
    assert cal["host_delay_ps"] > cal["scenario_host_delay_ps"]
    assert out.topology.values["host_delay"] == cal["host_delay_ps"]


@needs_engine
def test_a_tau_below_the_simulators_zero_delay_rtt_is_reported_unmatched():
    from dccsim.testbed import simside
    from dccsim.testbed.scenario import load

    scn = simside._scenario(load("testbed-incast-8", "1s", "300Mbps"), "powertcp")
    out, cal = simside.calibrate(scn, 1_000_000)  # 1 us: less than one packet's serialization
    assert not cal["matched"] and cal["host_delay_ps"] == 0 and cal["note"]
    assert cal["tau_ps"] == simside.sim_path_rtt_ps(out) > 1_000_000
    assert simside.sim_tau_ps(out) == 1_000_000  # the laws still get the testbed's τ


def test_cpu_bound_needs_a_saturated_cpu_and_an_underused_link():
    from dccsim.testbed.cpuload import verdict

    hot = {"busy": [1.0, 0.97], "softirq": [0.1, 0.6]}
    cool = {"busy": [0.4, 0.5], "softirq": [0.05, 0.1]}
    assert verdict(hot, {"sw0->h0": 0.85, "sw0->h1": 0.01}, drops=0)["cpu_bound"]
    assert verdict(hot, {"sw0->h0": 0.85}, drops=0)["busiest_port"] == "sw0->h0"
    assert not verdict(hot, {"sw0->h0": 0.97}, drops=0)["cpu_bound"]  # the link was the limit
    assert not verdict(hot, {"sw0->h0": 0.85}, drops=12)["cpu_bound"]  # losses: the law backed off
    assert not verdict(cool, {"sw0->h0": 0.85}, drops=0)["cpu_bound"]  # CPUs had time to spare


def test_cpu_shares_from_proc_stat_deltas():
    from dccsim.testbed.cpuload import shares

    # user nice system idle iowait irq softirq steal: 100 jiffies, 25 idle, 30 softirq
    before = [[0] * 10]
    after = [[20, 0, 25, 25, 0, 0, 30, 0, 0, 0]]
    assert shares(before, after) == {"busy": [0.75], "softirq": [0.3]}


def test_default_rate_cap_scales_with_cpus():
    from dccsim.testbed.cpuload import LINK_BOUND_BPS_PER_CPU, default_rate_cap_bps

    assert default_rate_cap_bps(2) == 2 * LINK_BOUND_BPS_PER_CPU == 300_000_000
    assert default_rate_cap_bps(16) > 1_000_000_000  # a large machine runs the scenarios' 1 Gbps
