"""Host timing noise (`host.jitter`, crates/engine/src/fabric/jitter.rs): each packet a host sends
reaches the far end of its link up to `jitter` later, in the order sent. Off (0) is exact timing;
the noise is seeded by the run's seed; a flow's packets are never reordered by it (go-back-N would
NACK and resend at the first reordering); a bad value is refused in one line naming the field."""

from __future__ import annotations

import copy

import pytest

from cli_helpers import assert_refused_in_one_line

from dccsim import engine, scenario

# one 2 MB flow over a 10 Gbps star: 1.2 µs between packets, far less than the noise below
ONE_FLOW = {
    "name": "jitter",
    "seed": 1,
    "duration": "20ms",
    "topology": {"kind": "star", "hosts": 3, "host_rate": "10Gbps", "host_delay": "1us"},
    "switch": {"buffer": "16MiB", "ecn": {"kind": "none"}},
    "cc": {"algorithm": "reno"},
    "flows": [{"src": 0, "dst": 2, "start": "0s", "size": "2MB"}],
}


def run(jitter: str | None, seed: int = 1):
    raw = copy.deepcopy(ONE_FLOW)
    raw["seed"] = seed
    if jitter is not None:
        raw["host"] = {"jitter": jitter}
    return engine.run(scenario.from_dict(raw).to_engine_config())


def fct(r) -> int:
    f = r["flows"]
    return int(f["end_ps"][0]) - int(f["start_ps"][0])


def test_zero_is_exact_timing():
    a, b = run(None), run("0s")
    assert a["summary"] == b["summary"] and fct(a) == fct(b)


def test_noise_delays_the_flow_keeps_its_order_and_follows_the_seed():
    exact = run(None)
    noisy = [run("20us", seed) for seed in (1, 1, 2)]
    assert noisy[0]["summary"] == noisy[1]["summary"] and fct(noisy[0]) == fct(noisy[1])  # same seed
    assert fct(noisy[0]) != fct(noisy[2])  # another seed, other draws
    for r in noisy:
        # delivered in the order sent: go-back-N resends nothing (it would at a reordering)
        assert int(r["flows"]["retransmits"][0]) == 0
        assert int(r["summary"]["data_packets_dropped"]) == 0
        # every data packet and ACK waits up to 20 µs more, so the flow takes longer; a window
        # round is late by at most two noises (its data, then its ACKs), and the flow has at
        # most 10 rounds in which the window is the limit (slow start from 10 packets passes
        # the 4-packet BDP of 10 Gbps × 3.3 µs at once and the 2 000 packets after 8 doublings)
        assert fct(exact) < fct(r) < fct(exact) + 10 * 2 * 20_000_000


@pytest.mark.parametrize("bad", ["-1us", "fast", True])
def test_a_bad_value_is_refused_in_one_line_naming_the_field(bad):
    raw = copy.deepcopy(ONE_FLOW)
    raw["host"] = {"jitter": bad}
    assert_refused_in_one_line(raw, "host.jitter")
