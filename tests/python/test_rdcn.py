"""The rdcn topology kind in scenario files: defaults (PowerTCP §5), engine form, round trip."""

import numpy as np

from dccsim import scenario

RDCN = """
name = "r"
duration = "1ms"
[topology]
kind = "rdcn"
tors = 3
servers_per_tor = 2
matchings = [[1, 2, 0], [2, 0, 1]]
prebuffer = "600us"
prebuffer_voq = "300KB"
[cc]
algorithm = "hpcc"
[[flows]]
src = 0
dst = 2
[experiment]
[[experiment.variants]]
name = "small"
cc = { algorithm = "reno" }
topology = { prebuffer = "100us", prebuffer_voq = "100KB" }
"""


def test_defaults_are_the_papers_setup():
    text = 'name = "d"\nduration = "1ms"\n[topology]\nkind = "rdcn"\n[cc]\nalgorithm = "hpcc"\n'
    s = scenario.loads(text + "[[flows]]\nsrc = 0\ndst = 10\n")
    assert s.host_count == 250  # 25 ToRs × 10 servers
    c = s.to_engine_config()["topology"]["circuit"]
    assert (c["rate_bps"], c["day_ps"], c["night_ps"]) == (100_000_000_000, 225_000_000, 20_000_000)
    assert c["policy"] == "exclusive" and c["matchings"] == []  # [] = the engine's round robin


def test_circuit_fields_nest_in_the_engine_form_and_round_trip():
    s = scenario.loads(RDCN)
    t = s.to_engine_config()["topology"]
    assert t["tors"] == 3 and t["packet_rate_bps"] == 25_000_000_000
    assert t["circuit"]["matchings"] == [[1, 2, 0], [2, 0, 1]]
    assert (t["circuit"]["prebuffer_ps"], t["circuit"]["prebuffer_voq_bytes"]) == (600_000_000, 300_000)
    v = s.to_engine_config(s.experiment.variants[0])["topology"]["circuit"]
    assert (v["prebuffer_ps"], v["prebuffer_voq_bytes"]) == (100_000_000, 100_000)
    text = scenario.dump_toml(s)
    again = scenario.loads(text)
    assert again == s and scenario.dump_toml(again) == text


def test_circuit_days_follow_the_round_robin_schedule():
    from dccsim.analysis import rdcn

    v = scenario.loads(RDCN.replace("matchings = [[1, 2, 0], [2, 0, 1]]\n", "")).topology.values
    # defaults: day 225 µs, night 20 µs (slot 245 µs); 3 ToRs → 2 matchings, day k joins
    # ToR 0 to (0 + k + 1) mod 3: ToR 1 on even slots, ToR 2 on odd ones
    us = 1_000_000
    assert rdcn.circuit_days(v, 0, 1, 800 * us) == [(0, 225 * us), (490 * us, 715 * us)]
    assert rdcn.circuit_days(v, 0, 2, 800 * us) == [(245 * us, 470 * us)]
    # the explicit schedule [[1, 2, 0], [2, 0, 1]]: ToR 2 reaches ToR 1 on slot 1 only
    w = scenario.loads(RDCN).topology.values
    assert rdcn.circuit_days(w, 2, 1, 800 * us) == [(245 * us, 470 * us)]


def test_queueing_delay_is_the_fifo_virtual_waiting_time():
    from dccsim.analysis import rdcn

    # samples every 1 µs; departures D and queue Q (bytes). A byte arriving at t waits until
    # D has grown by Q(t): t=0: D reaches 0 + 200 at t=3 → 3 µs; t=1: 0 + 300 → t=4 → 3 µs;
    # t=2: 100 + 200 = 300 → t=4 → 2 µs; t=3: 200 + 100 → t=4 → 1 µs; the last sample has no
    # next interval. Arrivals in (t, t+1]: ΔD + ΔQ = 100, 0, 0, 0 bytes.
    us = 1_000_000
    t = np.arange(5) * us
    dep = np.array([0, 0, 100, 200, 300.0])
    q = np.array([200, 300, 200, 100, 0.0])
    wait, arrivals = rdcn.queueing_delay(t, q, dep)
    assert list(wait) == [3 * us, 3 * us, 2 * us, 1 * us]
    assert list(arrivals) == [100, 0, 0, 0]
    # byte-weighted: all arriving bytes came at t=0, so every quantile is 3 µs
    assert rdcn._weighted_quantile(wait, arrivals, 0.99) == 3 * us


def test_the_experiment_runs_and_judges_every_claim(tmp_path):
    from dccsim import experiments, runner

    s = runner.run(experiments.get("powertcp-rdcn"), tmp_path / "out", progress=False, figures=False)
    m = {k: v["metrics"] for k, v in s["runs"].items()}
    # reTCP's prebuffered VOQ fills the 100 Gb/s circuit from the first packet of the day; HPCC
    # cannot exceed it, and nobody sends more than the circuit's rate
    assert m["retcp-600us"]["util_first_rtt_pct"] > 95
    assert all(x["circuit_util_pct"] <= 100.0 for x in m.values())
    assert m["hpcc"]["circuit_util_pct"] < m["retcp-600us"]["circuit_util_pct"]
    assert {c["verdict"] for c in s["claims"]} <= {"holds", "misses"}
    assert len(s["claims"]) == 5
