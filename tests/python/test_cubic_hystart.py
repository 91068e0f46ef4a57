"""HyStart in the simulator's CUBIC (`cc.hystart`, crates/engine/src/cc/hystart.rs, on by default as
in Linux's tcp_cubic.c): a second flow joining a long one on a shared 100 Mbps link with a 466 KB
drop-tail limit (testbed-shared-4's first two flows at its calibrated τ, SACK, Linux's 200 ms RTO).
Without HyStart both flows leave slow start only by overflowing the buffer, and one loses its
whole tail and times out; with it slow start ends on the ACK train before the queue fills
(docs/testbed.md, "HyStart in the simulator's CUBIC")."""

from __future__ import annotations

import copy

import pytest

from cli_helpers import assert_refused_in_one_line

from dccsim import engine, scenario

SHARED = {
    "name": "hystart",
    "seed": 1,
    "duration": "1500ms",
    "topology": {"kind": "star", "hosts": 3, "host_rate": "100Mbps", "host_delay": "45.58us"},
    "switch": {"buffer": "4MiB", "dt_alpha": 0.125, "ecn": {"kind": "none"}},
    "host": {"payload": "1448B", "rto": "200ms", "recovery": "sack"},
    "cc": {"algorithm": "cubic"},
    "flows": [{"src": 0, "dst": 2, "start": "0s"}, {"src": 1, "dst": 2, "start": "1s"}],
}


def run(hystart: bool | None):
    raw = copy.deepcopy(SHARED)
    if hystart is not None:
        raw["cc"]["hystart"] = hystart
    r = engine.run(scenario.from_dict(raw).to_engine_config())
    return int(r["summary"]["data_packets_dropped"]), sum(int(x) for x in r["flows"]["timeouts"])


def test_hystart_ends_slow_start_before_the_buffer_overflows():
    assert run(None) == run(True)  # on by default
    drops, timeouts = run(True)
    assert (drops, timeouts) == (0, 0)
    plain_drops, plain_timeouts = run(False)
    # RFC 5681 slow start overshoots the 466 KB limit: hundreds of drops, and a timeout
    assert plain_drops > 100 and plain_timeouts > 0, (plain_drops, plain_timeouts)


@pytest.mark.parametrize("bad", ["yes", 1])
def test_a_bad_value_is_refused_in_one_line_naming_the_field(bad):
    raw = copy.deepcopy(SHARED)
    raw["cc"]["hystart"] = bad
    assert_refused_in_one_line(raw, "cc.hystart")
