"""The fast front end: numpy columns from the engine, the column schema taken from the engine,
no pandas or pyplot on the run path, figures drawn in a forked worker with the same bytes, and
decimation that keeps the extremes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from cli_helpers import ROOT, dccsim
from dccsim import engine, experiments, plots, results, runner

pytestmark = pytest.mark.engine


def _small_incast():
    scn = experiments.get("powertcp-incast")
    return scn, scn.variant("hpcc")


def test_engine_returns_numpy_columns_of_the_schema():
    scn, v = _small_incast()
    res = engine.run(scn.to_engine_config(v))
    schema = engine.schema()
    for table in ("flows", "ports", "port_series", "flow_series"):
        assert list(res[table]) == [c for c, _ in schema[table]]
        for col, dtype in schema[table]:
            data = res[table][col]
            if dtype == "string":
                assert isinstance(data, list) and all(isinstance(x, str) for x in data)
            else:
                assert isinstance(data, np.ndarray) and data.dtype == np.dtype(dtype), (table, col)
    assert [k for k, _ in schema["summary"]] == list(res["summary"])
    assert len(res["port_series"]["time_ps"]) > 100


def test_parquet_columns_are_the_engine_schema_plus_the_front_columns(tmp_path):
    import pyarrow.parquet as pq

    scn, v = _small_incast()
    res = engine.run(scn.to_engine_config(v))
    results.write_variant(tmp_path, "v", res, {})
    cols = results.table_columns()
    for table in results.TABLE_NAMES:
        got = pq.read_schema(tmp_path / "v" / f"{table}.parquet")
        assert [(f.name, str(f.type)) for f in got] == [
            (c, {"float64": "double"}.get(t, t)) for c, t in cols[table]
        ]
    assert [c for c, _ in cols["port_series"]][:3] == ["time_ps", "port", "port_name"]
    assert cols["flows"][-1] == ("slowdown", "float64")
    # port names resolved from the ports table
    ps = pq.read_table(tmp_path / "v" / "port_series.parquet").to_pydict()
    names = dict(zip(res["ports"]["port"].tolist(), res["ports"]["name"]))
    assert ps["port_name"] == [names[p] for p in ps["port"]]


def test_slowdown_matches_python_division():
    flows = {"start_ps": [0, 7, 0, 3], "end_ps": [10, 30, -1, 12], "ideal_fct_ps": [3, 7, 5, -1]}
    got = results.with_slowdown(flows)["slowdown"]
    assert got[0] == 10 / 3 and got[1] == 23 / 7
    assert np.isnan(got[2]) and np.isnan(got[3])


def test_run_path_imports_neither_pandas_nor_matplotlib(tmp_path):
    """`dccsim run` (figures included) must not import pandas or pyplot in the main process, nor
    matplotlib at all there (the figure worker imports it)."""
    code = (
        "import sys, json; from dccsim import cli; "
        f"rc = cli.main(['run', 'powertcp-incast', '--variant', 'hpcc', '--quiet', '--out', {str(tmp_path / 'o')!r}]); "
        "print(json.dumps([rc] + sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'matplotlib'))))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    last = p.stdout.strip().splitlines()[-1]
    assert last == "[0]", last
    assert (tmp_path / "o" / "incast.png").stat().st_size > 10_000


def test_json_run_path_skips_the_optional_imports(tmp_path):
    """`dccsim run --no-figures --json` imports neither tqdm (no bar to draw) nor importlib.metadata
    (the version comes from the engine) nor the figure worker: ≈ 40, 50 and 8 ms of the front end's
    0.3 s budget (issue 12; docs/benchmarks.md)."""
    code = (
        "import sys, json; from dccsim import cli; "
        f"rc = cli.main(['run', 'powertcp-incast', '--variant', 'hpcc', '--no-figures', '--json', '--out', {str(tmp_path / 'o')!r}]); "
        "mods = ('tqdm', 'importlib.metadata', 'dccsim.figure_worker', 'matplotlib'); "
        "print(json.dumps([rc] + sorted(m for m in mods if m in sys.modules)), file=sys.stderr)"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip().splitlines()[-1] == "[0]", p.stderr
    meta = json.loads((tmp_path / "o" / "meta.json").read_text())
    assert "matplotlib" not in meta["libraries"]  # no figure drawn, so matplotlib was not used
    assert meta["dccsim"] == meta["engine"] == engine.version()


def test_meta_names_the_matplotlib_that_drew_the_figure(tmp_path):
    import matplotlib

    p = dccsim("run", "powertcp-incast", "--variant", "hpcc", "--quiet", "--out", tmp_path / "o")
    assert p.returncode == 0, p.stderr
    meta = json.loads((tmp_path / "o" / "meta.json").read_text())
    assert meta["libraries"]["matplotlib"] == matplotlib.__version__


def test_no_figures_flag(tmp_path):
    p = dccsim(
        "run", "powertcp-incast", "--variant", "hpcc", "--no-figures", "--json", "--out", tmp_path / "o"
    )
    assert p.returncode == 0, p.stderr
    assert not list((tmp_path / "o").glob("*.png"))

    s = json.loads(p.stdout)
    assert s["figures"] == [] and s["claims"] and s["complete"]


def test_figure_worker_draws_the_same_bytes_as_in_process(tmp_path):
    from dccsim.analysis import incast
    from dccsim.figure_worker import FigureWorker

    scn, _ = _small_incast()
    series = {}
    for v in scn.variants()[:2]:
        res = engine.run(scn.to_engine_config(v))
        t = runner.frames(res)
        series[v.slug] = (v, t, incast.variant_metrics(scn, v, t, res["summary"]))
    w = FigureWorker()
    assert w._proc is not None  # Linux: a real child process
    w.draw("incast", scn, series, tmp_path / "worker.png")
    incast.figure(scn, series, tmp_path / "inproc.png")
    assert (tmp_path / "worker.png").read_bytes() == (tmp_path / "inproc.png").read_bytes()


def test_figure_worker_raises_the_childs_error(tmp_path):
    from dccsim.figure_worker import FigureWorker

    scn, _ = _small_incast()
    with pytest.raises(Exception):  # noqa: B017  (whatever the analysis raised on bad input)
        FigureWorker().draw("incast", scn, {"x": (None, {}, {})}, tmp_path / "bad.png")
    assert not (tmp_path / "bad.png").exists()


def test_decimate_keeps_extremes_and_order():
    x = np.arange(100_000)
    y = np.sin(x / 500.0)
    y[12_345] = 5.0  # a one-sample spike
    y[77_777] = -5.0
    dx, dy = plots.decimate(x, y, 500)
    assert len(dx) <= 1000
    assert 5.0 in dy and -5.0 in dy
    assert np.all(np.diff(dx) > 0)
    assert dy.max() == y.max() and dy.min() == y.min()
    short = np.arange(10)
    assert len(plots.decimate(short, short, 500)[0]) == 10  # short series unchanged
