"""Every analysis a testbed experiment names computes its metrics from a testbed run (issue 29): on a
recorded run (tests/testbed/recorded.py; no root needed) and on a live one (root).

The analyses the testbed experiments name: `shared` (testbed-shared-4) and `incast`
(testbed-incast-8); testbed-mptcp-2path names none."""

import json
import math
import os
import subprocess
import sys

import pytest

import recorded
from tb_helpers import ROOT, needs_engine, needs_testbed

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python")}

# (experiment, analysis, duration, host rate) of the live runs: the shortest durations whose window
# holds traffic (shared: after the last flow starts at 3 s; incast: after t0 = 1 s), at a rate a
# 2-core machine sustains (docs/testbed.md)
CASES = [
    ("testbed-shared-4", "shared", "3500ms", "300Mbps"),
    ("testbed-incast-8", "incast", "1500ms", "300Mbps"),
]


def most_pct(rate_bps: int, window_ps: int) -> float:
    """The most a testbed port can carry in a window, in % of its line rate: its tbf shaper sends
    at most rate * window + its bucket (topology._tbf), and the port series' transmitted bytes are
    linear between the monitor's records, so up to one packet from either side can fall into the
    window (qmon.at_instants)."""
    from dccsim.testbed.topology import BURST_TIME_NS, MTU_LINK

    burst = max(2 * MTU_LINK, rate_bps * BURST_TIME_NS // 8_000_000_000)
    return 100.0 * (1 + (burst + 2 * (MTU_LINK + 14)) * 8 / (rate_bps * window_ps / 1e12))


def check_metrics(analysis: str, m: dict, flows: int) -> None:
    """The metrics an analysis gave for a testbed run: no error, the numbers a run that moved data
    must have, and no throughput above what the port's shaper allows (issue 29: 119-123 % with the
    old 1 ms userspace sampler)."""
    assert "error" not in m, m["error"]
    if analysis == "shared":
        assert len(m["flow_throughput_bps"]) == flows
        assert all(v > 0 for v in m["flow_throughput_bps"].values())
        assert 0 < m["jain_index"] <= 1
        assert 0 < m["min_share"] <= 1 <= m["max_share"]
        window = m["window_end_ps"] - m["window_start_ps"]
        assert 0 < m["utilization_pct"] <= most_pct(m["line_rate_bps"], window)
        assert m["queue_p99_bytes"] >= 0 and m["queue_mean_bytes"] >= 0
        assert m["packets_dropped"] is not None
    elif analysis == "incast":
        assert m["peak_queue_bytes"] > 0
        assert m["throughput_pct"] is not None and m["throughput_pct"] > 0
        from dccsim.analysis.incast import WINDOW_PS

        assert m["throughput_pct"] <= most_pct(m["line_rate_bps"], WINDOW_PS)
        assert m["packets_dropped"] is not None
    else:
        raise AssertionError(f"no check for analysis {analysis!r}")
    for k, v in m.items():
        assert not (isinstance(v, float) and math.isnan(v)), k


@needs_engine
@pytest.mark.parametrize("experiment,analysis,duration,rate", CASES)
def test_recorded_run_gives_every_metric(experiment, analysis, duration, rate, tmp_path):
    from dccsim.testbed import results

    sc, res = recorded.load(recorded.path_of(experiment, "powertcp"))
    from dccsim.units import parse_time

    assert (sc.name, sc.duration_ps) == (experiment, parse_time(duration, "duration"))
    summary = results.write(tmp_path, sc, "powertcp", res, "2026-01-01T00:00:00+00:00", 1.0, [], {})
    assert summary["analysis"] == analysis
    check_metrics(analysis, summary["runs"]["powertcp"]["metrics"], len(sc.flows))
    # what the analysis read is what was written
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk["runs"]["powertcp"]["metrics"] == json.loads(
        json.dumps(summary["runs"]["powertcp"]["metrics"])
    )


@needs_testbed
@needs_engine
@pytest.mark.parametrize("experiment,analysis,duration,rate", CASES)
def test_live_run_gives_every_metric(experiment, analysis, duration, rate, tmp_path, clean_testbed):
    out = tmp_path / experiment
    cmd = [sys.executable, "-m", "dccsim.testbed", "run", experiment, "--cc", "powertcp"]
    cmd += ["--duration", duration, "--host-rate", rate, "--out", str(out), "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300)
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    assert summary["analysis"] == analysis
    from dccsim.testbed.scenario import load

    check_metrics(analysis, summary["runs"]["powertcp"]["metrics"], len(load(experiment).flows))
