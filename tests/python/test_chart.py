"""The natively drawn overlay figure (chart.py, crates/chart): geometry from the layout's inches,
lines where their data are and clipped to their panel, the legend, text, byte-identical redraws,
and the main job drawing it without importing matplotlib."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from dccsim import chart
from dccsim import figure_layout as lay

DPI = 120


def _scenario(title="a test figure"):
    # title_lines reads the experiment's title and whether the scenario was edited
    exp = SimpleNamespace(title=title, fixed_scale=False)
    return SimpleNamespace(experiment=exp, name="t", edited=False, overrides={})


@pytest.fixture
def scn(monkeypatch):
    monkeypatch.setattr(lay, "title", lambda s: s.experiment.title)
    return _scenario()


def _figure(scn, path, legend=True):
    fig = chart.Stacked(2, scn, legend_labels=3 if legend else 0)
    x = np.linspace(0.0, 10.0, 101)
    # a flat line at y = 5 in the top panel (red), a ramp beyond the panel in the bottom (blue)
    fig.plot(0, x, np.full_like(x, 5.0), label="flat" if legend else None, color="#ff0000", lw=2.0)
    fig.plot(1, x, 3.0 * x, label="ramp" if legend else None, color="#0000ff", lw=2.0)
    fig.reference(1, 8.0, "ref" if legend else "_ref")
    fig.set_xlim(0.0, 10.0)
    fig.set_ylim(0, 0.0, 10.0)
    fig.set_ylim(1, 0.0, 10.0)
    fig.set_ylabel(0, "queue (KB)")
    fig.set_ylabel(1, "throughput (Gbps)")
    fig.set_xlabel("time (ms)")
    fig.save(path)
    return fig


def _px(fig, panel, x, y):
    """Pixel of data point (x, y) in `panel`, from the layout's inches (the renderer's rule)."""
    left, right, bottom, top = (m * DPI for m in fig.margins)
    w, h = round(fig.width * DPI), round(fig.height * DPI)
    n = len(fig.panels)
    gap = fig.vgap * DPI
    ph = (h - top - bottom - gap * (n - 1)) / n
    t = top + panel * (ph + gap)
    (x0, x1), (y0, y1) = fig.xlim, fig.panels[panel]["ylim"]
    return (
        round(left + (x - x0) / (x1 - x0) * (w - left - right)),
        round(t + ph - (y - y0) / (y1 - y0) * ph),
    )


def test_size_lines_clipping_and_reference(scn, tmp_path):
    fig = _figure(scn, tmp_path / "f.png")
    im = Image.open(tmp_path / "f.png").convert("RGB")
    assert im.size == (round(fig.width * DPI), round(fig.height * DPI)) == (840, round(fig.height * 120))
    # the flat red line at y = 5 of the top panel, at x = 2.5 and 7.5
    for x in (2.5, 7.5):
        r, g, b = im.getpixel(_px(fig, 0, x, 5.0))
        assert r > 200 and g < 60 and b < 60, (x, (r, g, b))
    # the blue ramp 3x at x = 2 (y = 6) is drawn; at x = 5 it is at y = 15, above the panel's
    # ylim 10: clipped, so the gap between the panels has no blue
    r, g, b = im.getpixel(_px(fig, 1, 2.0, 6.0))
    assert b > 200 and r < 60, (r, g, b)
    gap_y = _px(fig, 1, 5.0, 10.0)[1] - round(fig.vgap * DPI / 2)
    row = [im.getpixel((x, gap_y)) for x in range(_px(fig, 1, 0, 0)[0], _px(fig, 1, 10, 0)[0])]
    assert not any(b > 150 and r < 100 for r, g, b in row)
    # the reference line at 8 in the bottom panel: grey (0.35 -> #595959) and dashed (3.7 on,
    # 1.6 off, in line widths: ~70 % of its length inked), where the ramp (y = 3x > 8) is not
    x0, y = _px(fig, 1, 0.2, 8.0)
    x1 = _px(fig, 1, 2.0, 8.0)[0]
    cols = [min((im.getpixel((x, y + d)) for d in (-1, 0, 1)), key=sum) for x in range(x0, x1)]
    darkest = min(cols, key=sum)
    assert darkest[0] == darkest[1] == darkest[2] and darkest[0] < 0x59 + 45, darkest
    inked = sum(1 for c in cols if c[0] < 200) / len(cols)
    assert 0.5 < inked < 0.9, inked


def test_legend_above_the_panels_holds_every_label(scn, tmp_path):
    fig = _figure(scn, tmp_path / "f.png")
    assert [e["label"] for e in fig.spec()["legend"]] == ["flat", "ramp", "ref"]
    im = np.asarray(Image.open(tmp_path / "f.png").convert("RGB")).astype(int)
    top_panel = _px(fig, 0, 0.0, 10.0)[1]
    band = im[: top_panel - 2]  # title and legend, above the first panel
    red = (band[..., 0] > 200) & (band[..., 1] < 60) & (band[..., 2] < 60)
    blue = (band[..., 2] > 200) & (band[..., 0] < 60)
    assert red.sum() > 10 and blue.sum() > 10  # the two handles
    dark = band.sum(axis=2) < 200
    assert dark.sum() > 200  # the title's and labels' glyphs


def test_unlabelled_lines_stay_out_of_the_legend(scn, tmp_path):
    fig = _figure(scn, tmp_path / "f.png", legend=False)
    assert fig.spec()["legend"] == []


def test_same_inputs_same_bytes(scn, tmp_path):
    _figure(scn, tmp_path / "a.png")
    _figure(scn, tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


def test_text_is_drawn_where_the_axes_put_it(scn, tmp_path):
    fig = _figure(scn, tmp_path / "f.png")
    im = np.asarray(Image.open(tmp_path / "f.png").convert("L")).astype(int)
    left = round(fig.margins[0] * DPI)
    x0, y_bottom = _px(fig, 1, 0.0, 0.0)
    # y tick labels left of the frame, x tick labels and the x label under the last panel
    assert (im[:, : left - 8] < 100).sum() > 100
    assert (im[y_bottom + 6 :, x0:] < 100).sum() > 100


def test_colours():
    assert chart.color("C0") == "#1f77b4"
    assert chart.color("C12") == "#2ca02c"
    assert chart.color("0.35") == "#595959"
    assert chart.color("#123456") == "#123456"


def test_bad_spec_is_one_line(scn, tmp_path):
    fig = chart.Stacked(1, scn)
    fig.plot(0, [0.0, 1.0], [0.0, 1.0], color="#12345")  # not #rrggbb
    with pytest.raises(ValueError, match="colour"):
        fig.save(tmp_path / "bad.png")


def test_empty_axis_range_is_refused(scn, tmp_path):
    fig = chart.Stacked(1, scn)
    fig.plot(0, [0.0, 1.0], [0.0, 1.0])
    fig.set_xlim(0.0, 1.0)
    fig.set_ylim(0, 2.0, 2.0)  # a flat series' range: nothing to scale
    with pytest.raises(ValueError, match=r"panels\[0\]\.ylim"):
        fig.save(tmp_path / "bad.png")
    assert not (tmp_path / "bad.png").exists()


def test_main_job_figure_without_matplotlib(tmp_path):
    code = (
        "import sys; from dccsim import cli; "
        f"rc = cli.main(['run', 'powertcp-incast', '--variant', 'hpcc', '--quiet', '--out', {str(tmp_path / 'o')!r}]); "
        "print(rc, 'matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1].split() == ["0", "False"]
    im = Image.open(tmp_path / "o" / "incast.png")
    assert im.size[0] == 840 and im.size[1] > 600
