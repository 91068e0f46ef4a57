"""Sweeps end in answers: `dccsim sweep` prints the swept parameters × key metrics (seeds
aggregated), `results.load(SWEEP)` is one tidy DataFrame, the catalog's `points` view has the
parameters as plain columns, and `dccsim report SWEEP` plots each key metric against each
parameter with a 95 % confidence interval."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_helpers import dccsim
from dccsim import results, sweep_results

pytestmark = pytest.mark.engine

BASE = """
name = "tiny"
duration = "2ms"
[topology]
kind = "fattree"
pods = 2
tors_per_pod = 1
aggs_per_pod = 1
cores = 1
servers_per_tor = 4
host_rate = "25Gbps"
host_delay = "1us"
tor_agg_rate = "25Gbps"
tor_agg_delay = "1us"
agg_core_rate = "25Gbps"
agg_core_delay = "1us"
[switch]
buffer = "200KB"
ecn = { kind = "step", k = "20KB" }
[cc]
algorithm = "dctcp"
[workload]
kind = "poisson"
size = "30KB"
load = 0.7
stop = "200us"
stop_when_done = true
[experiment]
[[experiment.variants]]
name = "DCTCP"
cc = { algorithm = "dctcp" }
[[experiment.variants]]
name = "HPCC"
cc = { algorithm = "hpcc" }
"""
SPEC = '[sweep]\nbase = "base.toml"\nseeds = [1, 2, 3]\n[grid]\n"switch.buffer" = ["60KB", "240KB"]\n'


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sr")
    (tmp / "base.toml").write_text(BASE)
    (tmp / "spec.toml").write_text(SPEC)
    with pytest.MonkeyPatch.context() as mp:  # the points are registered in the test's own catalog
        mp.setenv("DCCSIM_CATALOG", str(tmp / "cat" / "catalog.duckdb"))
        p = dccsim("sweep", tmp / "spec.toml", "--out", tmp / "sw", "--jobs", "2", "--quiet")
    assert p.returncode == 0, p.stderr
    return tmp, p.stdout


def _point_values(sw: Path, key: str) -> dict:
    """(buffer, variant slug) -> the engine's `key` of each seed, read from the point directories."""
    out: dict = {}
    for p in json.loads((sw / "sweep.json").read_text())["points"]:
        s = json.loads((sw / "points" / p["id"] / "summary.json").read_text())
        for slug in s["order"]:
            out.setdefault((p["params"]["switch.buffer"], slug), []).append(s["runs"][slug]["engine"][key])
    return out


def test_t_quantiles():
    assert sweep_results.t975(1) == 12.706 and sweep_results.t975(10) == 2.228
    assert abs(sweep_results.t975(60) - 2.000) < 0.001  # tables: 2.000 (60), 1.980 (120)
    assert abs(sweep_results.t975(120) - 1.980) < 0.001
    assert math.isnan(sweep_results.t975(0))


def test_aggregate_is_the_mean_and_the_t_interval_over_seeds():
    df = pd.DataFrame(
        {"x": [1, 1, 1, 2], "seed": [1, 2, 3, 1], "variant": ["a"] * 4, "name": ["A"] * 4}
        | {"status": ["done"] * 4, "m": [1.0, 2.0, 3.0, 5.0]}
    )
    df.attrs["params"] = ["x"]
    agg = sweep_results.aggregate(df, ["m"])
    assert agg["n"].tolist() == [3, 1] and agg["m"].tolist() == [2.0, 5.0]
    assert agg["m_ci95"].iloc[0] == pytest.approx(4.303 / math.sqrt(3))  # s = 1
    assert math.isnan(agg["m_ci95"].iloc[1])  # one seed: no interval


def test_sweep_prints_parameters_times_key_metrics(swept):
    tmp, out = swept
    lines = out.splitlines()
    head = lines[0].split()
    assert head[:3] == ["switch.buffer", "variant", "seeds"]
    assert {"slowdown_p99", "packets_dropped", "flows_finished"} <= set(head)
    rows = [line for line in lines[2:] if line[:1] in ("6", "2")]
    assert len(rows) == 4  # 2 buffers × 2 variants
    drops = _point_values(tmp / "sw", "packets_dropped")
    col = head.index("packets_dropped")
    for r in rows:
        cells = r.split("  ")
        cells = [c.strip() for c in cells if c.strip()]
        buf, name, n = cells[0], cells[1], int(cells[2])
        v = np.array(drops[(buf, name.lower())], dtype=float)
        assert n == 3 == len(v)
        mean, _, ci = cells[col].partition(" ± ")
        assert float(mean) == pytest.approx(v.mean(), rel=1e-3)  # 4 significant digits printed
        assert float(ci) == pytest.approx(4.303 * v.std(ddof=1) / math.sqrt(3), rel=1e-3)
    assert lines[-1].endswith("6 run, 0 already done, 0 failed")


def test_results_load_of_a_sweep_is_one_tidy_frame(swept, tmp_path):
    tmp, _ = swept
    df = results.load(tmp / "sw")
    assert isinstance(df, pd.DataFrame) and len(df) == 12  # 6 points × 2 variants
    assert {"point", "seed", "switch.buffer", "variant", "algorithm", "slowdown_p99"} <= set(df.columns)
    drops = _point_values(tmp / "sw", "packets_dropped")
    for (buf, slug), values in drops.items():
        sel = df[(df["switch.buffer"] == buf) & (df["variant"] == slug)].sort_values("seed")
        assert sel["packets_dropped"].tolist() == values
    # slowdown percentiles: element floor(q n) of the sorted slowdowns of a point's finished flows
    row = df.iloc[0]
    f = pd.read_parquet(tmp / "sw" / "points" / row["point"] / row["variant"] / "flows.parquet")
    s = np.sort(f["slowdown"].dropna().to_numpy())
    assert row["slowdown_p99"] == s[int(0.99 * len(s))] and row["flows_finished"] == len(s)
    with pytest.raises(FileNotFoundError, match="neither a run directory .* nor a sweep directory"):
        results.load(tmp_path)


def test_catalog_points_view_has_the_parameters_as_columns(swept):
    tmp, _ = swept
    p = dccsim(
        "query",
        'SELECT p."switch.buffer" AS b, count(*) AS n FROM points p JOIN variants v USING (run_id) '
        "GROUP BY ALL ORDER BY b",
        "--json",
        "--catalog",
        tmp / "cat" / "catalog.duckdb",
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == [{"b": "240KB", "n": 6}, {"b": "60KB", "n": 6}]


def test_report_plots_each_key_metric_against_the_parameter(swept):
    tmp, _ = swept
    p = dccsim("report", tmp / "sw")
    assert p.returncode == 0, p.stderr
    page = (tmp / "sw" / "report.html").read_text()
    png = tmp / "sw" / "sweep.png"
    assert png.is_file() and "<a href='sweep.png'><img" in page
    assert "Key metrics" in page and "slowdown_p99" in page and " ± " in page
    from matplotlib.image import imread

    img = imread(png)
    # one row of panels per key metric (4 generic), one column per parameter: taller than wide
    assert img.shape[0] > img.shape[1] and img[..., :3].std() > 0.05


def test_axis_values_units_and_categories():
    assert sweep_results.axis_values(["60KB", "2MB"]) == ([0.06, 2.0], "MB", None)
    assert sweep_results.axis_values(["10us", "1ms"]) == ([10.0, 1000.0], "µs", None)
    assert sweep_results.axis_values([0.8, 1]) == ([0.8, 1.0], "", None)
    assert sweep_results.axis_values(["hpcc", "dctcp"]) == ([0, 1], "", ["hpcc", "dctcp"])


def test_points_that_did_not_finish_are_listed_without_metrics(swept, tmp_path):
    import shutil

    tmp, _ = swept
    sw = tmp_path / "sw"
    shutil.copytree(tmp / "sw", sw)
    doc = json.loads((sw / "sweep.json").read_text())
    gone = doc["points"][0]
    gone["status"], gone["error"] = "failed", "boom"
    shutil.rmtree(sw / "points" / gone["id"])
    (sw / "sweep.json").write_text(json.dumps(doc))
    df = results.load(sw)
    assert len(df) == 11  # the failed point: one row, no variant
    row = df[df["point"] == gone["id"]].iloc[0]
    assert row["status"] == "failed" and math.isnan(row["packets_dropped"])
    agg = sweep_results.aggregate(df)
    # its buffer now has 2 seeds per variant, the other 3
    n = {(b, v): k for b, v, k in zip(agg["switch.buffer"], agg["variant"], agg["n"])}
    assert n[(gone["params"]["switch.buffer"], "dctcp")] == 2 and sorted(n.values()) == [2, 2, 3, 3]
    for p in doc["points"]:
        p["status"] = "failed"
    (sw / "sweep.json").write_text(json.dumps(doc))
    assert sweep_results.summary_text(sw) == "no finished points"
