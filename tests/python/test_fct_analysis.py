"""The fct analysis (issue 8 item 5) against hand-computed tables."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from dccsim.analysis import fct


def flows_table():
    """20 short flows (1000 B) with slowdowns 1..20, 25 long flows (2 MB) with slowdowns 1..25,
    one medium flow (150 KB, slowdown 2.5), one flow started before the measurement (slowdown
    1000), one unfinished measured flow, one long-lived flow."""
    rows = []  # (size, start, end, ideal)
    rows += [(1000, 100, 100 + k * 1000, 1000) for k in range(1, 21)]
    rows += [(2_000_000, 100, 100 + k * 10_000, 10_000) for k in range(1, 26)]
    rows += [(150_000, 100, 100 + 5000, 2000)]
    rows += [(1000, 50, 50 + 1_000_000, 1000)]  # before t0 = 100
    rows += [(1000, 200, -1, 1000)]  # unfinished
    rows += [(-1, 100, -1, -1)]  # long-lived
    size, start, end, ideal = (np.array(c, dtype=np.int64) for c in zip(*rows))
    return {
        "size_bytes": size,
        "start_ps": start,
        "end_ps": end,
        "ideal_fct_artifact_ps": ideal,
        "ideal_fct_ps": ideal * 2,
    }


def test_measured_flows_skip_warmup_unfinished_and_long_lived():
    size, slow, unfinished = fct.measured(flows_table(), start_ps=100)
    assert len(slow) == 46 and unfinished == 1
    assert slow.max() == 25.0  # the 1000× flow before t0 is out
    _, slow_engine, _ = fct.measured(flows_table(), start_ps=100, ideal="engine")
    assert np.allclose(slow_engine, slow / 2)


def test_percentiles_with_counts_and_meaningful_flag():
    size, slow, _ = fct.measured(flows_table(), start_ps=100)
    m = fct.by_size(size, slow)
    short = m["short"]
    # n = 20: p50 is element ⌊0.5·20⌋ = 10 of the sorted slowdowns 1..20 → 11, with 9 above it
    assert short["p50"] == {"value": 11.0, "n": 20, "above": 9, "meaningful": False}
    # p95: element 19 → 20, nothing above; p99.9: element ⌊19.98⌋ = 19 → 20
    assert short["p95"]["value"] == 20.0 and short["p95"]["above"] == 0
    assert short["p99.9"]["value"] == 20.0
    # long: n = 25, p50 = element 12 → 13 with 12 samples above: meaningful
    assert m["long"]["p50"] == {"value": 13.0, "n": 25, "above": 12, "meaningful": True}
    assert m["medium"]["p50"] == {"value": 2.5, "n": 1, "above": 0, "meaningful": False}
    assert m["all"]["p50"]["n"] == 46


def test_buckets_use_the_artifact_edges_and_hold_lo_exclusive_hi_inclusive():
    size = np.array([5000, 5001, 100_000, 1_000_000, 30_000_000], dtype=np.int64)
    slow = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    b = fct.by_size(size, slow)["buckets"]
    edges = [x["lo"] for x in b] + [b[-1]["hi"]]
    assert edges == [0, 5000, 10000, 20000, 30000, 50000, 75000, 100000, 200000, 400000, 600000,
                     800000, 1000000, 5000000, 10000000, 30000000]  # fmt: skip
    counts = {(x["lo"], x["hi"]): x["p50"]["n"] for x in b if x["p50"]["n"]}
    assert counts == {
        (0, 5000): 1,
        (5000, 10000): 1,
        (75000, 100000): 1,
        (800000, 1000000): 1,
        (10_000_000, 30_000_000): 1,
    }
    # short is size < 100 KB (so 100 000 B is medium), long is size ≥ 1 MB
    m = fct.by_size(size, slow)
    assert (m["short"]["p50"]["n"], m["medium"]["p50"]["n"], m["long"]["p50"]["n"]) == (2, 1, 2)


def test_tor_occupancy_sums_each_tor_s_egress_queues_per_instant():
    ps = {
        "time_ps": np.array([0, 0, 0, 0, 1, 1, 1]),
        "port_name": np.array(
            ["tor0->h0", "tor0->agg0", "tor1->h4", "h0->tor0", "tor0->h0", "tor0->agg0", "tor1->h4"]
        ),
        "queue_bytes": np.array([100, 50, 10, 999, 0, 30, 20]),
    }
    tor, occ = fct.tor_occupancy(ps, start_ps=0)
    assert list(zip(tor.tolist(), occ.tolist())) == [(0, 150), (0, 30), (1, 10), (1, 20)]
    tor, occ = fct.tor_occupancy(ps, start_ps=1)
    assert occ.tolist() == [30, 20]
    # the artifact's binned maximum: one max per 2 samples per ToR here
    assert fct.bin_max(*fct.tor_occupancy(ps, 0), n=2).tolist() == [150, 20]
    b = fct.buffer_metrics(ps, 0)
    assert b["samples"] == 4 and b["max_bytes"] == 150 and b["per_sample"]["p50"]["value"] == 30


@pytest.mark.engine
def test_fct_experiment_runs_and_draws(tmp_path):
    from dccsim import runner
    from dccsim.scenario import from_dict

    from test_workloads import SMALL_RUN

    d = copy.deepcopy(SMALL_RUN)
    d["workload"]["warmup"] = "0.2ms"
    d["metrics"] = {"interval": "2us", "ports": ["tor0->h0", "tor0->h1", "tor0->agg0", "tor0->agg1"]}
    d["experiment"] = {"analysis": "fct", "variants": [{"name": "HPCC", "cc": {"algorithm": "hpcc"}}]}
    scn = from_dict(d)
    s = runner.run(scn, tmp_path / "o", progress=False, argv=[])
    m = s["runs"]["hpcc"]["metrics"]
    flows = scn.flow_list()
    measured = int(((flows.size > 0) & (flows.start >= 200_000_000)).sum())
    assert m["finished"] + m["unfinished"] == measured and m["unfinished"] == 0
    assert m["all"]["p50"]["value"] >= 1.0  # nothing beats the ideal
    assert m["buffer"]["samples"] > 0 and m["buffer"]["tors"] == 1
    assert (tmp_path / "o" / "fct.png").stat().st_size > 0
    assert "short n" in runner.report(scn, s)
