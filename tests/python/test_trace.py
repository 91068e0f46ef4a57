"""`[metrics] trace`: controllers' internal variables over time (trace.parquet), for every
controller that reports them (`CongestionControl::trace` in crates/engine/src/cc/)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dccsim import results
from dccsim.errors import ScenarioError
from dccsim.scenario import loads

from cli_helpers import dccsim

pytestmark = pytest.mark.engine

SCENARIO = """
duration = "400us"
[topology]
kind = "dumbbell"
left = 2
right = 1
host_rate = "10Gbps"
host_delay = "1us"
bottleneck_rate = "10Gbps"
bottleneck_delay = "2us"
[switch]
ecn = { kind = "step", k = "20KB" }
[cc]
algorithm = "dctcp"
[[flows]]
src = 0
dst = 2
[[flows]]
src = 1
dst = 2
start = "100us"
[metrics]
interval = "10us"
TRACE
"""


def _run(tmp_path, trace: str):
    f = tmp_path / "s.toml"
    f.write_text(SCENARIO.replace("TRACE", trace))
    p = dccsim("run", f, "--out", tmp_path / "out", "--no-figures", "--quiet")
    return p, tmp_path / "out" / "dctcp"


def test_dctcp_alpha_is_recorded_for_every_active_flow_at_every_sample(tmp_path):
    p, d = _run(tmp_path, 'trace = ["alpha"]')
    assert p.returncode == 0, p.stderr
    t = pd.read_parquet(d / "trace.parquet")
    assert list(t.columns) == ["time_ps", "flow_id", "variable", "value"]
    assert set(t.variable) == {"alpha"}
    assert (t.time_ps % 10_000_000 == 0).all()  # the 10 µs sampling grid
    # flow 1 starts at 100 µs: before that only flow 0 reports
    assert set(t[t.time_ps < 100_000_000].flow_id) == {0}
    assert set(t[t.time_ps > 100_000_000].flow_id) == {0, 1}
    assert t.value.between(0.0, 1.0).all()  # DCTCP's α is a fraction (RFC 8257)
    # marks at K = 20 KB with two flows sharing 10 Gb/s: α moves off its initial 1
    assert t.value.min() < 1.0
    # the same table through results.load
    r = results.load(tmp_path / "out")
    assert len(r.trace) == len(t) and set(r.trace.variant) == {"dctcp"}


def test_star_records_every_variable_the_controller_reports(tmp_path):
    p, d = _run(tmp_path, 'trace = ["*"]')
    assert p.returncode == 0, p.stderr
    assert set(pd.read_parquet(d / "trace.parquet").variable) == {"alpha"}


def test_no_trace_writes_an_empty_table(tmp_path):
    p, d = _run(tmp_path, "")
    assert p.returncode == 0, p.stderr
    assert len(pd.read_parquet(d / "trace.parquet")) == 0


def test_a_name_no_controller_reports_is_refused_naming_what_they_report(tmp_path):
    p, _ = _run(tmp_path, 'trace = ["smoothed_power"]')
    assert p.returncode == 2
    assert p.stderr.startswith("dccsim: error: metrics.trace[0]:") and "alpha" in p.stderr
    assert p.stderr.count("\n") == 1


def test_trace_needs_sampling():
    with pytest.raises(ScenarioError) as e:
        loads(SCENARIO.replace('interval = "10us"', 'interval = "0s"').replace("TRACE", 'trace = ["alpha"]'))
    assert e.value.field == "metrics.trace" and "interval" in e.value.message


def test_trace_is_byte_identical_on_a_rerun(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, da = _run(tmp_path / "a", 'trace = ["*"]')
    b, db = _run(tmp_path / "b", 'trace = ["*"]')
    assert a.returncode == b.returncode == 0
    assert (da / "trace.parquet").read_bytes() == (db / "trace.parquet").read_bytes()
    assert np.isfinite(pd.read_parquet(da / "trace.parquet").value).all()


@pytest.mark.skipif(__import__("shutil").which("clang") is None, reason="clang compiles plugins")
def test_a_plugins_declared_variables_are_traced(tmp_path):
    """A plugin declares its traceable variables (DCCSIM_TRACE, docs/plugins.md); they are
    recorded like a built-in's."""
    plugin = Path(__file__).resolve().parents[2] / "examples" / "delay_aimd.bpf.c"
    out = tmp_path / "o"
    p = dccsim("run", "powertcp-incast", "--plugin", plugin, "--set", 'metrics.trace=["*"]', "--out", out)
    assert p.returncode == 0, p.stderr
    t = pd.read_parquet(next(out.glob("*/trace.parquet")))
    assert set(t.variable) == {"cwnd", "qdelay_ns", "cuts"}
    assert (t[t.variable == "cwnd"].value > 0).all()
