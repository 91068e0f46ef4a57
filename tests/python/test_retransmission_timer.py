"""The retransmission timer runs while data is outstanding (RFC 6298 §5.1): a go-back-N resend after a
NACK must not restart it (issue 29: a simulator MPTCP subflow with CUBIC made no progress for 3.5 s
with no timeout, NACKs every 0.5 ms pushing its deadline forward)."""

from __future__ import annotations

import numpy as np

from dccsim import engine, scenario

# the testbed's two-path scenario (testbed-mptcp-2path) with CUBIC: a 300 Mbps NIC over paths of 100
# and 50 Mbps overflows both paths' buffers, so both subflows recover by NACK and go-back-N. HyStart
# is off: it ends slow start before the buffers overflow, and the timer under test needs losses.
LOSSY_TWO_PATH = {
    "name": "rto",
    "seed": 1,
    "duration": "1500ms",
    "topology": {
        "kind": "two-path",
        "host_rate": "300Mbps",
        "host_delay": "5us",
        "path0_rate": "100Mbps",
        "path0_delay": "5us",
        "path1_rate": "50Mbps",
        "path1_delay": "5us",
    },
    "switch": {"buffer": "4MiB", "dt_alpha": 0.125, "ecn": {"kind": "none"}},
    "host": {"rto": "50ms"},
    "cc": {"algorithm": "cubic", "hystart": False},
    "flows": [{"src": 0, "dst": 1, "start": "0s", "subflows": 2}],
    "metrics": {"interval": "1ms", "flows": True},
}


def longest_stall_ps(t: np.ndarray, acked: np.ndarray) -> int:
    """The longest time the cumulative ACK did not move (between two samples where it moved)."""
    moved = np.nonzero(np.diff(acked) > 0)[0]
    edges = np.concatenate(([t[0]], t[moved + 1], [t[-1]]))
    return int(np.diff(edges).max())


def test_a_subflow_without_progress_times_out():
    r = engine.run(scenario.from_dict(LOSSY_TWO_PATH).to_engine_config())
    rto_ps = 50 * 10**9
    fs = r["flow_series"]
    fid, t, acked = (np.asarray(fs[k]) for k in ("flow_id", "time_ps", "bytes_acked"))
    flows = r["flows"]
    assert int(r["summary"]["packets_dropped"]) > 0  # the recovery under test happened
    for k, f in enumerate(flows["flow_id"]):
        m = fid == f
        stall = longest_stall_ps(t[m], acked[m])
        # no progress for more than a few RTOs (each backoff doubles it) means a timeout fired
        if stall > 4 * rto_ps:
            assert int(flows["timeouts"][k]) > 0, (
                f"subflow {f}: no progress for {stall / 1e9:.0f} ms, no timeout"
            )
