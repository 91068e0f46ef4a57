"""The per-packet queue monitor (testbed/qmon.py, bpf/qmon.bpf.c; issue 29 item 3): the time-weighted
statistics on hand-made records, and the monitor on a live run (root)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from tb_helpers import ENV, needs_engine, needs_testbed


def trace(points):
    """A PortTrace from (ns, queue bytes after, tx bytes after, packets dequeued, bytes) records."""
    from dccsim.testbed import qmon

    a = np.asarray(points, dtype=np.int64).reshape(-1, 5)
    return qmon.PortTrace(a[:, 0], a[:, 1], a[:, 2], a[:, 3], a[:, 4])


def test_weighted_percentile_weights_by_time_held():
    from dccsim.testbed.qmon import weighted_percentile

    # 0 B held for 8 units, 10 B for 1, 100 B for 1: unweighted the median would be 10 B
    v, w = np.array([100, 0, 10]), np.array([1, 8, 1])
    assert weighted_percentile(v, w, 0.5) == 0
    assert weighted_percentile(v, w, 0.8) == 0
    assert weighted_percentile(v, w, 0.85) == 10
    assert weighted_percentile(v, w, 0.9) == 10
    assert weighted_percentile(v, w, 0.95) == 100
    assert weighted_percentile(v, w, 1.0) == 100
    # a value that never held (weight 0) is never a percentile
    assert weighted_percentile(np.array([5, 7]), np.array([0, 3]), 0.0) == 7


def test_queue_stats_of_a_step_function():
    from dccsim.testbed.qmon import queue_stats

    # window [1000, 2000] ns: empty, then 3000 B from 1100 to 1150, 1500 B from 1150 to 1300, empty;
    # two 1500 B packets arrive together at 1100 and leave one by one
    recs = [
        (900, 0, 0, 0, 0),
        (1100, 3000, 0, 0, 3000),
        (1150, 1500, 1500, 1, 1500),
        (1300, 0, 3000, 1, 1500),
    ]
    tr = trace(recs + [(2500, 1500, 3000, 0, 1500)])
    s = queue_stats(tr, 1000, 2000, seen=5, lost=0, tx0=0)
    assert s["peak_bytes"] == 3000 and s["peak_time_ps"] == 100_000
    assert s["mean_bytes"] == pytest.approx((3000 * 50 + 1500 * 150) / 1000)
    assert s["p50_bytes"] == 0 and s["p90_bytes"] == 1500 and s["p99_bytes"] == 3000
    assert s["records"] == 5 and s["coverage"] == 1.0
    assert queue_stats(tr, 1000, 2000, seen=10, lost=1, tx0=0)["coverage"] == 0.9


def test_coverage_counts_what_the_records_miss():
    from dccsim.testbed.qmon import coverage

    # the qdisc's counter says 4500 B left, the dequeue records account for 3000 B
    tr = trace([(100, 1500, 1500, 0, 1500), (200, 0, 1500, 1, 1500), (300, 0, 4500, 1, 1500)])
    c = coverage(tr, seen=3, lost=0, tx0=0)
    assert c["ring"] == 1.0 and c["dequeue"] == pytest.approx(3000 / 4500)
    assert c["enqueue"] == 0.5  # 1500 B arrived on record, 3000 B left on record
    assert c["coverage"] == 0.5


def test_at_instants_reads_the_queue_of_the_last_record_at_or_before():
    from dccsim.testbed.qmon import at_instants

    tr = trace([(100, 1500, 10_000, 0, 1500), (200, 0, 11_500, 1, 1500)])
    q, tx = at_instants(tr, np.array([50, 100, 150, 200, 300]), tx0=10_000)
    assert q.tolist() == [0, 1500, 1500, 0, 0]
    assert tx.tolist() == [0, 0, 750, 1500, 1500]  # the counter, linear between records


@needs_testbed
@needs_engine
def test_live_monitor_sees_every_packet_and_the_true_peak(tmp_path, clean_testbed):
    """An incast at 300 Mbps: every record kept, the true peak at least every sampled queue, and the
    port's transmitted bytes within what its shaper allows (no throughput above line rate beyond
    the token bucket)."""
    out = tmp_path / "incast"
    cmd = [sys.executable, "-m", "dccsim.testbed", "run", "testbed-incast-8", "--cc", "powertcp"]
    cmd += ["--duration", "1500ms", "--host-rate", "300Mbps", "--out", str(out), "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300)
    assert p.returncode == 0, p.stderr
    run = json.loads(p.stdout)["runs"]["powertcp"]
    check_queue_summary(run["engine"], out / "powertcp")
    assert run["engine"]["queue"]["sw0->h0"]["records"] > 1000  # the long flow's packets, twice each


def check_queue_summary(engine: dict, variant_dir) -> None:
    """What the monitor reported for a run against the port series written from it."""
    import pyarrow.parquet as pq

    from dccsim.testbed.topology import BURST_TIME_NS, MTU_LINK

    series = pq.read_table(variant_dir / "port_series.parquet").to_pandas()
    ports = pq.read_table(variant_dir / "ports.parquet").to_pandas()
    for name, s in engine["queue"].items():
        # the ring buffer (16 MiB, drained every 2 ms) never overflows at a few MB/s of records
        assert s["ring"] == 1.0 and s["program_runs"] == s["records"], (name, s)
        # records can be missing without the ring losing any: the kernel's qdisc tracepoints ran
        # for no port during 1-2 ms gaps while packets flowed (unexplained; docs/testbed.md), which
        # cost 0-1.5 % of the bytes in the runs measured. A monitor that misses a tenth is broken.
        assert s["coverage"] is None or s["coverage"] >= 0.9, (name, s)
        assert 0 <= s["p50_bytes"] <= s["p90_bytes"] <= s["p99_bytes"] <= s["peak_bytes"]
        assert s["mean_bytes"] <= s["peak_bytes"]
        row = ports.loc[ports["name"] == name].iloc[0]
        idx, rate_bps = int(row["port"]), int(row["rate_bps"])
        q = series.loc[series["port"] == idx]
        assert q["queue_bytes"].max() <= s["peak_bytes"], name  # samples are read off the same steps
        # a tbf shaper sends at most rate * dt + its bucket in any window dt (topology._tbf); the
        # series' counter is linear between records, so a window may also hold up to one packet
        # from either side of it (qmon.at_instants)
        t, tx = q["time_ps"].to_numpy(), q["tx_bytes"].to_numpy()
        burst = max(2 * MTU_LINK, rate_bps * BURST_TIME_NS // 8_000_000_000)
        slack = burst + 2 * (MTU_LINK + 14)
        assert (np.diff(tx) <= rate_bps / 8 * np.diff(t) / 1e12 + slack).all(), name


@pytest.mark.parametrize("experiment", ["testbed-shared-4", "testbed-incast-8"])
def test_recorded_run_reports_the_queue_per_packet(experiment):
    """A recorded run (tests/testbed/recorded.py): every port's time-weighted statistics, true peak
    and coverage are in the summary, and no sampled queue exceeds the true peak."""
    import recorded

    sc, res = recorded.load(recorded.path_of(experiment, "powertcp"))
    q = res.summary["queue"]
    assert set(q) == {p.name for p in res.ports}
    series = res.port_series
    for p in res.ports:
        s = q[p.name]
        assert s["coverage"] is None or 0.9 <= s["coverage"] <= 1.0, (p.name, s)
        sampled = [v for v, k in zip(series["queue_bytes"], series["port"]) if k == p.index]
        assert max(sampled) <= s["peak_bytes"], p.name
        assert s["p50_bytes"] <= s["p99_bytes"] <= s["peak_bytes"]
        assert res.summary["port_peak_queue_bytes"][p.name] == s["peak_bytes"]
    bottleneck = sc.raw["experiment"]["bottleneck"]
    assert q[bottleneck]["records"] > 1000 and q[bottleneck]["peak_bytes"] > 0
    fs = res.summary["flow_sampler"]
    assert 0 < fs["coverage"] <= 1 and fs["max_gap_ps"] >= fs["interval_ps"]
