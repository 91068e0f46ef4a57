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


# An experiment whose figure matplotlib draws (the incast overlay is drawn natively, chart.py):
# the figure worker's tests run it, one variant
MPL = ("tbtcp-queue", "tbtcp-alpha-0-1")


def _mpl_series(n: int = 1):
    """(scenario, analysis name, series) of MPL's variant (n = 1) or first n variants, as the
    runner hands them over."""
    from dccsim.analysis import ANALYSES

    scn = experiments.get(MPL[0])
    name = scn.experiment.analysis
    series = {}
    for v in [scn.variant(MPL[1])] if n == 1 else scn.variants()[:n]:
        res = engine.run(scn.to_engine_config(v))
        t = runner.frames(res)
        series[v.slug] = (v, t, ANALYSES[name].variant_metrics(scn, v, t, res["summary"]))
    return scn, name, series


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
    matplotlib at all there (the figure worker imports it) when it may use two cores."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: the figure is drawn in-process (test_one_core_draws_in_process)")
    code = (
        "import sys, json; from dccsim import cli; "
        f"rc = cli.main(['run', {MPL[0]!r}, '--variant', {MPL[1]!r}, '--quiet', '--out', {str(tmp_path / 'o')!r}]); "
        "print(json.dumps([rc] + sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'matplotlib'))))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    last = p.stdout.strip().splitlines()[-1]
    assert last == "[0]", last
    assert (tmp_path / "o" / "queue.png").stat().st_size > 10_000


def test_json_run_path_skips_the_optional_imports(tmp_path):
    """`dccsim run --no-figures --json` imports neither tqdm (no bar to draw) nor importlib.metadata
    (the version comes from the engine) nor the figure worker: ≈ 40, 50 and 8 ms of the front end's
    0.3 s budget (issue 12; docs/benchmarks.md); nor matplotlib, pandas or pyarrow (the engine
    module encodes the Parquet files)."""
    code = (
        "import sys, json; from dccsim import cli; "
        f"rc = cli.main(['run', 'powertcp-incast', '--variant', 'hpcc', '--no-figures', '--json', '--out', {str(tmp_path / 'o')!r}]); "
        "mods = ('tqdm', 'importlib.metadata', 'dccsim.figure_worker', 'matplotlib', 'pyarrow', 'pandas'); "
        "import os; threads = len(os.listdir('/proc/self/task')); "
        "print(json.dumps([rc, threads] + sorted(m for m in mods if m in sys.modules)), file=sys.stderr)"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    env.pop("OPENBLAS_NUM_THREADS", None)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    # and one thread: no OpenBLAS thread pool spinning beside the run (OPENBLAS_NUM_THREADS=1)
    assert p.stderr.strip().splitlines()[-1] == "[0, 1]", p.stderr
    meta = json.loads((tmp_path / "o" / "meta.json").read_text())
    assert "matplotlib" not in meta["libraries"]  # no figure drawn, so matplotlib was not used
    assert meta["dccsim"] == meta["engine"] == engine.version()


# What a plain `import dccsim.cli` must not import: each is paid by every command (`dccsim list`,
# `dccsim show`, `--help`) that does not need it, and they are most of a short run's start-up
# (numpy ≈ 0.17 s and matplotlib ≈ 0.9 s of CPU on the loaded machine; docs/benchmarks.md).
HEAVY = (
    "numpy",
    "matplotlib",
    "pandas",
    "pyarrow",
    "duckdb",
    "rich",
    "altair",
    "tqdm",
    "multiprocessing",
    "subprocess",
    "importlib.metadata",
    "dccsim._engine",
    "dccsim.runner",
    "dccsim.scenario",
    "dccsim.analysis",
    "dccsim.figure_worker",
)


def test_plain_import_of_the_cli_pulls_in_no_heavy_module():
    code = (
        "import sys, json; import dccsim.cli; "
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.strip().splitlines()[-1]) == []


def test_one_core_draws_in_process(tmp_path):
    """Pinned to one core (`taskset -c 0`) the run forks no figure worker: the figure is drawn in
    the main process after the runs (a worker would only take turns with it and import numpy and
    the scenario code again), with the same bytes as a worker draws."""
    one = sorted(os.sched_getaffinity(0))[0]
    code = (
        f"import os; os.sched_setaffinity(0, {{{one}}}); "
        "import sys, json; from dccsim import cli; "
        f"rc = cli.main(['run', {MPL[0]!r}, '--variant', {MPL[1]!r}, '--quiet', '--out', {str(tmp_path / 'one')!r}]); "
        "print(json.dumps([rc, 'multiprocessing' in sys.modules, 'matplotlib' in sys.modules]))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    # no worker (multiprocessing never imported); matplotlib imported here, to draw
    assert json.loads(p.stdout.strip().splitlines()[-1]) == [0, False, True]
    from dccsim.figure_worker import FigureWorker

    scn, name, series = _mpl_series(1)
    FigureWorker(fork=True).draw(name, scn, series, tmp_path / "worker.png")
    assert (tmp_path / "one" / "queue.png").read_bytes() == (tmp_path / "worker.png").read_bytes()


def test_lean_matplotlib_import_skips_3d_and_the_set_docstrings_and_restores_both():
    """plots.import_matplotlib(lean=True), in a fresh process: the 3-D toolkit is not imported,
    no warning is printed, inspect.getdoc is the standard one again, the 3-D toolkit can still be
    imported afterwards, and the Artist docstrings were not built (what the lean import saves:
    an ordinary import reads "linewidth: float" from set_linewidth's docstring).
    The PNG it draws is byte-identical: test_figure_worker_draws_the_same_bytes_as_in_process
    (the worker imports lean, this test process does not)."""
    code = (
        "import inspect, sys, json; getdoc = inspect.getdoc; from dccsim import plots; "
        "plots.import_matplotlib(lean=True); "
        "skipped = 'mpl_toolkits.mplot3d' not in sys.modules; restored = inspect.getdoc is getdoc; "
        "from matplotlib.lines import Line2D; "
        "unknown = '    linewidth: unknown' in Line2D.set.__doc__.splitlines(); "
        "import mpl_toolkits.mplot3d; "
        "print(json.dumps([skipped, restored, unknown]))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert json.loads(p.stdout.strip().splitlines()[-1]) == [True, True, True]


def test_meta_names_the_matplotlib_that_drew_the_figure(tmp_path):
    import matplotlib

    p = dccsim("run", MPL[0], "--variant", MPL[1], "--quiet", "--out", tmp_path / "o")
    assert p.returncode == 0, p.stderr
    meta = json.loads((tmp_path / "o" / "meta.json").read_text())
    assert meta["libraries"]["matplotlib"] == matplotlib.__version__
    # the natively drawn incast figure names no matplotlib: none drew it
    p = dccsim("run", "powertcp-incast", "--variant", "hpcc", "--quiet", "--out", tmp_path / "n")
    assert p.returncode == 0, p.stderr
    meta = json.loads((tmp_path / "n" / "meta.json").read_text())
    assert "matplotlib" not in meta["libraries"] and (tmp_path / "n" / "incast.png").is_file()


def test_no_figures_flag(tmp_path):
    p = dccsim(
        "run", "powertcp-incast", "--variant", "hpcc", "--no-figures", "--json", "--out", tmp_path / "o"
    )
    assert p.returncode == 0, p.stderr
    assert not list((tmp_path / "o").glob("*.png"))

    s = json.loads(p.stdout)
    assert s["figures"] == [] and s["claims"] and s["complete"]


def test_figure_worker_draws_the_same_bytes_as_in_process(tmp_path):
    from dccsim.analysis import ANALYSES
    from dccsim.figure_worker import FigureWorker

    scn, name, series = _mpl_series(2)
    w = FigureWorker(fork=True)
    assert w._proc is not None  # Linux: a real child process
    w.draw(name, scn, series, tmp_path / "worker.png")
    ANALYSES[name].figure(scn, series, tmp_path / "inproc.png")
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


def _read_back(data: bytes):
    import io

    import pyarrow.parquet as pq

    return pq.read_table(io.BytesIO(data))


def _same_table(a, b) -> None:
    assert [(f.name, str(f.type), f.nullable) for f in a.schema] == [
        (f.name, str(f.type), f.nullable) for f in b.schema
    ]
    for col in a.column_names:
        x, y = (t[col].to_numpy(zero_copy_only=False) for t in (a, b))
        assert len(x) == len(y), col
        if x.dtype.kind == "f":
            assert np.array_equal(x, y, equal_nan=True), col
        else:
            assert (x == y).all(), col


def test_engine_parquet_writer_matches_the_pyarrow_writer():
    """The engine's Parquet encoder (crates/py/src/parquet_out.rs) and the pyarrow one read the
    same column list (results.table_columns) and give the same schema (names, types, nullable)
    and values, for every table of a real run (empty ones included) and the flow input; the
    engine's bytes are the same on every call."""
    scn = experiments.get("powertcp-incast")
    v = scn.variant("hpcc")
    res = engine.run(scn.to_engine_config(v))
    specs = [(results.table_columns()[n], c) for n, c in results.engine_tables(res).items()]
    specs[0] = (specs[0][0], results.with_slowdown(specs[0][1]))
    specs.append((results.FLOW_INPUT, scn.flow_list().table()))
    assert results._native_encoder() is not None
    rows = 0
    for spec, cols in specs:
        native = results.encode_table(spec, cols)
        assert native == results.encode_table(spec, cols)
        _same_table(_read_back(native), _read_back(results.encode_table(spec, cols, native=False)))
        rows += _read_back(native).num_rows
    assert rows > 3000  # the sampled series are in there, not only empty tables


def test_engine_parquet_writer_splits_row_groups_like_pyarrow():
    """Row groups of 2^20 rows (pyarrow's default), so a long series reads back whole."""
    import pyarrow.parquet as pq

    n = (1 << 20) + 5
    cols = {"time_ps": np.arange(n, dtype=np.int64), "port": np.zeros(n, dtype=np.int64)}
    spec = (("time_ps", "int64"), ("port", "int64"), ("name", "string"))
    data = results.encode_table(spec, cols)
    import io

    f = pq.ParquetFile(io.BytesIO(data))
    assert f.metadata.num_row_groups == 2 and f.metadata.num_rows == n
    t = f.read()
    assert t["time_ps"][n - 1].as_py() == n - 1 and t["name"][0].as_py() == ""  # missing: ""


def test_engine_parquet_writer_rejects_bad_columns():
    from dccsim import _engine

    with pytest.raises(ValueError, match="b: 2 rows, but a has 1"):
        _engine.parquet_table([("a", "int64", np.zeros(1, np.int64)), ("b", "int64", np.zeros(2, np.int64))])
    with pytest.raises(ValueError, match="dtype must be"):
        _engine.parquet_table([("a", "int32", np.zeros(1, np.int32))])


def _incast_series(n: int):
    from dccsim.analysis import incast

    scn, _ = _small_incast()
    series = {}
    for v in scn.variants()[:n]:
        res = engine.run(scn.to_engine_config(v))
        t = runner.frames(res)
        series[v.slug] = (v, t, incast.ANALYSIS.variant_metrics(scn, v, t, res["summary"]))
    return scn, series


def _grid_figure(path=None):
    """A grid of 7 panels with twin axes (figure_layout.grid, as the per-variant figures draw
    them), saved through plots.save when `path` is given."""
    from dccsim import figure_layout

    scn = experiments.get("powertcp-incast")
    fig, axes, _ = figure_layout.grid(7, scn, twin=True, legend_labels=2)
    x = np.linspace(0, 1, 400)
    for i, ax in enumerate(axes):
        ax.plot(x, np.sin(x * (i + 1) * 6), label="a")
        ax.twinx().plot(x, np.cos(x * (i + 1) * 3), color="C3", label="b")
        ax.set_title(f"panel {i}")
    figure_layout.legend(fig, axes)
    if path is not None:
        plots.save(fig, path)
    return fig


def test_split_figure_is_the_same_png_as_one_draw(tmp_path):
    """A grid figure rendered half by each of two processes (figure_split.py) is byte-identical
    to the figure drawn whole in one process."""
    from dccsim import figure_split

    split = figure_split.Split(always=True)
    figure_split.activate(split)
    try:
        _grid_figure(tmp_path / "split.png")
    finally:
        figure_split.activate(None)
    assert split.forked
    _grid_figure(tmp_path / "whole.png")
    assert (tmp_path / "split.png").read_bytes() == (tmp_path / "whole.png").read_bytes()


def test_grid_figure_splits_without_falling_back():
    """Structural guard of the parallel figure: a grid of figure_layout has a cut between its
    columns, each side gets panels, and nothing of either side's panels reaches across the cut
    (otherwise the left process would silently draw the whole figure alone)."""
    from dccsim import figure_split

    fig = _grid_figure()
    cut, left, right = figure_split.cut_column(fig)
    assert left and right and len(left) + len(right) == 14  # 7 panels, each with its twin axis
    for side in ("left", "right"):
        got_cut, part, clean = figure_split.render_side(fig, plots.DPI, side)
        assert got_cut == cut and clean, side
        assert part.shape[1] == (cut if side == "left" else int(fig.get_figwidth() * plots.DPI) - cut)


def _two_ways(tmp_path, draw, split):
    """(whole PNG bytes, PNG bytes drawn with `split` active)."""
    from dccsim import figure_split

    draw(tmp_path / "whole.png")
    figure_split.activate(split)
    try:
        draw(tmp_path / "split.png")
    finally:
        figure_split.activate(None)
    return (tmp_path / "whole.png").read_bytes(), (tmp_path / "split.png").read_bytes()


def test_split_falls_back_when_a_panel_crosses_the_cut(tmp_path):
    """A figure whose panel decorations reach across every gap is drawn whole: the output is
    still the one-process PNG (composing the halves would lose the crossing title)."""
    from dccsim import figure_split

    def draw(path):
        fig, axes = plots.new_figure(1, 2, figsize=(4, 2))
        for ax in axes:
            ax.plot([0, 1], [0, 1])
        axes[0].set_title("a title much wider than its panel, crossing the gap", fontsize=12)
        plots.save(fig, path)

    split = figure_split.Split(always=True)
    whole, got = _two_ways(tmp_path, draw, split)
    assert split.forked  # there is a gap, so the halves were drawn, and then refused
    assert got == whole


def _three_panels(path):
    fig, axes = plots.new_figure(1, 3, figsize=(9, 2))
    for i, ax in enumerate(axes):
        ax.plot([0, 1], [0, i])
    plots.save(fig, path)


def test_split_draws_alone_when_the_child_dies(tmp_path, monkeypatch):
    from dccsim import figure_split

    real = figure_split.render_side

    def dying(fig, dpi, side):
        if side == "right":
            os._exit(3)  # the forked child dies before sending anything
        return real(fig, dpi, side)

    monkeypatch.setattr(figure_split, "render_side", dying)
    split = figure_split.Split(always=True)
    whole, got = _two_ways(tmp_path, _three_panels, split)
    assert split.forked and got == whole


def test_busy_machine_draws_the_figure_in_one_process(tmp_path, monkeypatch):
    """With no free core (figure_split.free_core) no second process is forked; same figure."""
    from dccsim import figure_split

    monkeypatch.setattr(figure_split, "free_core", lambda: False)
    split = figure_split.Split()
    whole, got = _two_ways(tmp_path, _three_panels, split)
    assert not split.forked and got == whole
    monkeypatch.setattr(figure_split, "free_core", lambda: True)
    whole, got = _two_ways(tmp_path, _three_panels, split)
    assert split.forked and got == whole


def test_free_core_reads_the_runnable_count():
    from dccsim import figure_split

    # this process alone running on 2 cores: a core for the second process; one more: none
    assert figure_split.free_core("0.52 0.58 0.59 1/301 12345", cores=2)
    assert not figure_split.free_core("4.10 3.90 2.00 2/301 12345", cores=2)
    assert figure_split.free_core("garbage", cores=2)  # unreadable: as on an idle machine
    assert isinstance(figure_split.free_core(), bool)  # the real /proc/loadavg parses


def test_free_core_at_realtime_priority():
    """A process at real-time priority preempts every ordinary task: a core is free for it."""
    import shutil

    if shutil.which("chrt") is None or os.geteuid() != 0:
        pytest.skip("needs chrt and root to run at real-time priority")
    code = "from dccsim import figure_split as f; print(f._realtime(), f.free_core())"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run(
        ["chrt", "-f", "1", sys.executable, "-c", code], capture_output=True, text=True, env=env
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "True"]


def test_figure_worker_gets_only_the_tables_the_figure_reads(tmp_path):
    """The incast figure reads the port series and ports only: the flow series (most of a run's
    bytes) are not pickled to the worker, and the figure drawn from the reduced tables is the
    same PNG."""
    import pickle

    from dccsim.analysis import incast

    scn, series = _incast_series(2)
    reduced = {s: (v, runner._figure_tables(incast.ANALYSIS, t), m) for s, (v, t, m) in series.items()}
    assert all(set(t) == {"port_series", "ports"} for _, t, _ in reduced.values())
    assert len(pickle.dumps(reduced)) < len(pickle.dumps(series)) / 5
    incast.ANALYSIS.figure(scn, reduced, tmp_path / "reduced.png")
    incast.ANALYSIS.figure(scn, series, tmp_path / "full.png")
    assert (tmp_path / "reduced.png").read_bytes() == (tmp_path / "full.png").read_bytes()


def test_fixed_titles_draw_the_same_png_as_matplotlibs_search(tmp_path, monkeypatch):
    """`new_figure(fixed_titles=True)` is only a shortcut where matplotlib's title search finds
    nothing to avoid: a grid of titled panels with twin axes (figure_layout.grid, as the
    per-variant figures draw them) with it and without it is the same PNG."""
    _grid_figure(tmp_path / "fixed.png")
    searched = plots.new_figure
    calls = []

    def searching(*a, fixed_titles=False, **kw):
        calls.append(fixed_titles)
        return searched(*a, **kw)

    monkeypatch.setattr(plots, "new_figure", searching)
    _grid_figure(tmp_path / "searched.png")
    assert calls == [True]  # the figure asked for the shortcut, and this run drew without it
    assert (tmp_path / "fixed.png").read_bytes() == (tmp_path / "searched.png").read_bytes()


def test_fixed_titles_skip_the_search_and_default_keeps_it():
    fig, ax = plots.new_figure(fixed_titles=True)
    fig2, ax2 = plots.new_figure()
    ax.set_title("x")
    ax2.set_title("x")
    # matplotlib's flag for "title placed by the user": the search is skipped only when it is False
    assert ax._autotitlepos is False and ax2._autotitlepos is True
