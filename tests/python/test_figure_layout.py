"""Figures a reader can read (issue 26 item 2): a layout that stays within a report column at any
variant count, legends and reference lines, one axis scale shared by the variants or fixed by the
scenario, and a title that says when the scenario was edited from the catalog's."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dccsim import engine, experiments, figure_layout, runner
from dccsim.overrides import resolve as resolve_overrides

pytestmark = pytest.mark.engine


def _described(analysis, scn, series, monkeypatch) -> dict:
    """The description (chart.Stacked.spec) of a natively drawn figure, captured at its save."""
    from dccsim import chart

    captured = {}
    monkeypatch.setattr(chart.Stacked, "save", lambda self, path: captured.setdefault("spec", self.spec()))
    analysis.figure(scn, series, "unused.png")
    return captured["spec"]


def _short_incast(scn=None):
    scn = scn or experiments.get("powertcp-incast")
    return dataclasses.replace(scn, duration_ps=scn.experiment.params["t0"] + 600 * 10**6)


@pytest.fixture(scope="module")
def incast_tables():
    from dccsim.analysis import incast

    scn = _short_incast()
    v = scn.variant("hpcc")
    res = engine.run(scn.to_engine_config(v))
    t = runner.frames(res)
    return t, incast.ANALYSIS.variant_metrics(scn, v, t, res["summary"])


def _incast_series(scn, tables, metrics, scale=1.0):
    """Every variant of `scn` with the same (queue-scaled) tables: the figure's layout is what is
    tested, not the controllers."""
    t = dict(tables)
    ps = dict(t["port_series"])
    ps["queue_bytes"] = (np.asarray(ps["queue_bytes"]) * scale).astype(np.int64)
    t["port_series"] = ps
    return {v.slug: (v, t, metrics) for v in scn.variants()}


def test_grid_has_at_most_four_columns_and_fits_a_report_column():
    for n in range(1, 21):
        assert 1 <= figure_layout.columns(n) <= 4
    scn = experiments.get("powertcp-fairness")
    for n in (1, 2, 4, 7, 10, 13):
        fig, axes, ncols = figure_layout.grid(n, scn)
        assert len(axes) == n and ncols == figure_layout.columns(n)
        # ≤ 9.4 in wide: 8-pt tick labels are ≥ 8 px tall at 700 px (figure_layout's docstring)
        assert fig.get_figwidth() <= figure_layout.MAX_WIDTH_IN
        assert len(fig.axes) == n  # the unused cells of the last row are removed


def test_incast_is_one_overlay_with_a_legend_and_the_line_rate(incast_tables, monkeypatch):
    from dccsim.analysis import incast

    scn = _short_incast()
    series = _incast_series(scn, *incast_tables)
    n = len(series)
    assert n >= 7  # the count (7) and more
    spec = _described(incast.ANALYSIS, scn, series, monkeypatch)
    w, h = spec["width_in"], spec["height_in"]
    assert w <= figure_layout.MAX_WIDTH_IN and h / w >= 0.6  # not a strip (was 3024×360 px)
    queue, thr = spec["panels"]  # two panels under one x range (the chart shares it by design)
    legend = [e["label"] for e in spec["legend"]]
    for v in scn.variants():
        assert any(t.startswith(v.name) for t in legend), v.name
    assert "line rate 25 Gbps" in legend
    assert len([ln for ln in queue["lines"] if "series" in ln]) == n
    assert len([ln for ln in thr["lines"] if "series" in ln]) == n
    rate = [ln for ln in thr["lines"] if "y" in ln]
    assert len(rate) == 1 and rate[0]["y"] == pytest.approx(25.0)


def test_queue_axis_is_shared_or_fixed_by_the_scenario(incast_tables, monkeypatch):
    from dccsim.analysis import incast

    def queue_ylim(scn, scale):
        spec = _described(
            incast.ANALYSIS, scn, _incast_series(_short_incast(), *incast_tables, scale=scale), monkeypatch
        )
        return spec["panels"][0]["ylim"]

    scn = _short_incast()
    # fitted to the data: the two runs' axes differ (this is what misled before)
    assert queue_ylim(scn, 0.5) != queue_ylim(scn, 1.0)
    fixed = figure_layout.with_fixed_scale(scn)
    assert queue_ylim(fixed, 0.5) == queue_ylim(fixed, 1.0)
    limit = incast.dt_limit(scn) / 1e3
    assert queue_ylim(fixed, 0.5)[1] == pytest.approx(limit * 1.05)


def test_title_says_edited_from_the_catalog_experiment_only_when_edited():
    raw = experiments.raw_scenario("powertcp-incast")
    same = experiments.get("powertcp-incast")
    assert figure_layout.edited_from(same) is None
    assert figure_layout.edited_from(same.with_seed(7)) is None  # a repetition, not an edit
    assert figure_layout.edited_from(figure_layout.with_fixed_scale(same)) is None
    edited = resolve_overrides(*raw, ("switch.buffer=2MiB",), ())
    assert figure_layout.edited_from(edited) == "powertcp-incast"
    assert "edited from catalog experiment 'powertcp-incast'" in figure_layout.title(edited)
    assert "edited" not in figure_layout.title(same)
    # a scenario of its own name is never "edited"
    assert figure_layout.edited_from(dataclasses.replace(edited, name="mine")) is None


def test_the_edited_title_reaches_the_figure(incast_tables, monkeypatch):
    from dccsim.analysis import incast

    raw = experiments.raw_scenario("powertcp-incast")
    edited = _short_incast(resolve_overrides(*raw, ("switch.dt_alpha=0.5",), ()))
    spec = _described(incast.ANALYSIS, edited, _incast_series(edited, *incast_tables), monkeypatch)
    assert "edited from catalog experiment 'powertcp-incast'" in " ".join(spec["title"])


def test_fixed_scale_is_a_scenario_key_written_and_read_back():
    from dccsim.scenario import dump_toml, loads

    scn = figure_layout.with_fixed_scale(experiments.get("powertcp-incast"))
    text = dump_toml(scn)
    assert "fixed_scale = true" in text
    assert loads(text).experiment.fixed_scale
    assert "fixed_scale" not in dump_toml(experiments.get("powertcp-incast"))
    # a scenario without [experiment] gets one holding only the key
    plain = dataclasses.replace(scn, experiment=None)
    assert figure_layout.with_fixed_scale(plain).experiment.fixed_scale


def test_fixed_scale_flag_reaches_the_run(tmp_path):
    from cli_helpers import dccsim

    out = tmp_path / "o"
    p = dccsim(
        "run",
        "powertcp-incast",
        "--variant",
        "hpcc",
        "--fixed-scale",
        "--no-figures",
        "--quiet",
        "--out",
        out,
    )
    assert p.returncode == 0, p.stderr
    assert "fixed_scale = true" in (out / "scenario.toml").read_text()
