"""The shared-bottleneck metrics on hand-built tables."""

import numpy as np
import pandas as pd
import pytest

from dccsim import scenario
from dccsim.analysis import shared
from dccsim.errors import ScenarioError

US = 10**6
RATE = 10 * 10**9


def make(base, warmup="0s"):
    base.update(
        duration="1ms",
        flows=[{"src": 1, "dst": 0}, {"src": 2, "dst": 0, "start": "100us"}, {"src": 3, "dst": 2}],
        experiment={
            "analysis": "shared",
            "bottleneck": "sw0->h0",
            "warmup": warmup,
            "variants": [{"name": "P", "cc": {"algorithm": "powertcp"}}],
        },
    )
    scn = scenario.from_dict(base)
    t = np.arange(0, 1000 * US + 1, 10 * US)
    # flow 0 gets 3/4 and flow 1 1/4 of the link from 100 µs on; flow 2 goes elsewhere
    r0 = np.where(t < 100 * US, RATE, 0.75 * RATE)
    cum = lambda r: np.concatenate([[0], np.cumsum(r[1:] / 8 * 10e-6)])
    r1 = np.where(t < 100 * US, 0, 0.25 * RATE)
    fs = pd.concat(
        [
            pd.DataFrame(
                {
                    "time_ps": t,
                    "flow_id": fid,
                    "cwnd_bytes": 0.0,
                    "rate_bps": 0.0,
                    "bytes_acked": cum(r).round().astype(np.int64),
                }
            )
            for fid, r in ((0, r0), (1, r1), (2, r0))
        ]
    )
    flows = pd.DataFrame(
        {
            "flow_id": [0, 1, 2],
            "src": [1, 2, 3],
            "dst": [0, 0, 2],
            "start_ps": [0, 100 * US, 0],
            "end_ps": [-1, -1, -1],
            "bytes_acked": [0, 0, 0],
        }
    )
    ps = pd.DataFrame(
        {
            "time_ps": t,
            "port": 1,
            "queue_bytes": np.where(t > 500 * US, 2000, 1000),
            "tx_bytes": cum(np.full(len(t), RATE)).round(),
        }
    )
    ports = pd.DataFrame({"port": [1], "name": ["sw0->h0"], "rate_bps": [RATE]})
    return scn, {"flows": flows, "flow_series": fs, "port_series": ps, "ports": ports}


def test_fairness_utilisation_and_queue(base):
    scn, tables = make(base)
    m = shared.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables, {"packets_dropped": 0})
    assert m["window_start_ps"] == 100 * US and m["window_end_ps"] == 1000 * US
    assert set(m["flow_throughput_bps"]) == {"0", "1"}  # flow 2 does not cross sw0->h0
    assert m["flow_throughput_bps"]["0"] == pytest.approx(0.75 * RATE, rel=1e-6)
    assert m["jain_index"] == pytest.approx(0.8, abs=1e-4)  # (3+1)² / (2·(9+1))
    assert (m["min_share"], m["max_share"]) == (0.5, 1.5)
    assert m["utilization_pct"] == pytest.approx(100, abs=0.01)
    # 40 of the 91 window samples are 1000 B, 50 are 2000 B (t > 500 µs), +1 at exactly 500 µs
    assert m["queue_mean_bytes"] == pytest.approx((41 * 1000 + 50 * 2000) / 91, abs=0.1)
    assert m["queue_p99_bytes"] == 2000
    assert shared.ANALYSIS.claims(scn, {"p": m}) == []
    assert "0.800" in shared.ANALYSIS.report(scn, {"p": m}, [])


def test_warmup_shifts_the_window_and_must_leave_one(base):
    scn, tables = make(base, warmup="400us")
    assert shared.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables)["window_start_ps"] == 500 * US
    scn, tables = make(base, warmup="2ms")
    with pytest.raises(ScenarioError) as e:
        shared.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables)
    assert e.value.field == "experiment.warmup"


def test_figure_is_deterministic(base, tmp_path):
    scn, tables = make(base)
    m = shared.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables)
    for name in ("a.png", "b.png"):
        shared.ANALYSIS.figure(scn, {"p": (scn.variants()[0], tables, m)}, tmp_path / name)
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
