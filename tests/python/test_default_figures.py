"""A scenario without an analysis of its own gets figures (issue 26 item 3): the monitored ports'
queue and throughput, the flows' window and rate, and the FCT slowdown CDF by size; listed ports
are sampled at the default interval, never silently left out; the report shows the figure."""

from __future__ import annotations

import json

import pytest

from cli_helpers import dccsim
from dccsim.scenario import loads

pytestmark = pytest.mark.engine

SCENARIO = """
name = "mine"
duration = "2ms"

[topology]
kind = "star"
hosts = 4
host_rate = "10Gbps"
host_delay = "1us"

[cc]
algorithm = "dctcp"

[switch]
ecn = { kind = "step", k = "30KB" }

[[flows]]
src = 0
dst = 3
size = "200KB"
start = "0s"

[[flows]]
src = 1
dst = 3
size = "1MB"
start = "0s"

[[flows]]
src = 2
dst = 3
size = "20KB"
start = "100us"

[metrics]
ports = ["sw0->h3"]
flows = true
"""


def test_listed_ports_are_sampled_at_the_default_interval():
    scn = loads(SCENARIO)
    # declared once, in the engine's [metrics] schema: 10 µs
    assert scn.metrics.interval_ps == 10_000_000


def test_a_scenario_without_analysis_gets_the_overview_figure_and_report(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(SCENARIO)
    out = tmp_path / "run"
    p = dccsim("run", path, "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["analysis"] == "overview" and s["figures"] == ["overview.png"]
    m = s["runs"]["dctcp"]["metrics"]
    assert m["ports"][0]["port"] == "sw0->h3" and m["ports"][0]["peak_queue_bytes"] > 0
    # 2 ms at 10 µs: the port was sampled ~200 times
    import pyarrow.parquet as pq

    assert 190 <= pq.read_table(out / "dctcp" / "port_series.parquet").num_rows <= 202
    assert m["flows_finished"] == 3 and m["slowdown"]["short"]["n"] == 1 and m["slowdown"]["long"]["n"] == 1
    assert (out / "overview.png").stat().st_size > 20_000
    p = dccsim("report", out)
    assert p.returncode == 0, p.stderr
    page = (out / "report.html").read_text()
    assert "No figures" not in page and "href='overview.png'" in page


def _drawn(analysis, scn, series):
    """The matplotlib Figure `analysis.figure` builds (captured at plots.save, nothing written)."""
    from dccsim import figure_split

    captured = {}

    class Capture:
        def save(self, fig, path, dpi, metadata):
            captured["fig"] = fig

    figure_split.activate(Capture())
    try:
        analysis.figure(scn, series, "never-written.png")
    finally:
        figure_split.activate(None)
    return captured["fig"]


def test_overview_panels_follow_what_was_recorded(tmp_path):
    from dccsim import engine, runner
    from dccsim.analysis import ANALYSES

    a = ANALYSES["overview"]
    scn = loads(SCENARIO)
    v = scn.variants()[0]
    t = runner.frames(engine.run(scn.to_engine_config(v)))
    fig = _drawn(a, scn, {v.slug: (v, t, a.variant_metrics(scn, v, t))})
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == [
        "monitored ports' queue",
        "ports' throughput (10 µs average)",
        "flows' window",  # DCTCP keeps a window and no rate: no empty rate panel
        "FCT slowdown CDF by size",
    ]
    # no ports, no flow sampling: the FCT CDF alone
    bare = loads(SCENARIO.replace('ports = ["sw0->h3"]\nflows = true\n', ""))
    t = runner.frames(engine.run(bare.to_engine_config(v)))
    assert len(t["port_series"]["time_ps"]) == 0  # nothing listed: nothing sampled
    fig = _drawn(a, bare, {v.slug: (v, t, a.variant_metrics(bare, v, t))})
    assert [ax.get_title() for ax in fig.axes] == ["FCT slowdown CDF by size"]


def test_interval_zero_still_turns_sampling_off():
    scn = loads(SCENARIO.replace("flows = true\n", 'flows = true\ninterval = "0s"\n'))
    assert scn.metrics.interval_ps == 0
