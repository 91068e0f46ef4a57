"""`dccsim report` and `dccsim compare --html`: self-contained pages that load in a real
headless Chromium with the network blocked, without console errors, with the Vega-Lite charts
rendered, a non-blank screenshot, and links that resolve."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import browser
from cli_helpers import assert_input_error, dccsim

pytestmark = pytest.mark.engine


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs, self.ids, self.srcs, self.tags = [], set(), [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        if tag in ("script", "img", "link") and ("src" in a or "href" in a):
            self.srcs.append(a.get("src") or a.get("href"))


def _check_links(page: Path) -> _Links:
    p = _Links()
    p.feed(page.read_text(encoding="utf-8"))
    assert p.hrefs
    for h in p.hrefs:
        if h.startswith("#"):
            assert h[1:] in p.ids, h
        else:
            assert not re.match(r"[a-z]+://", h), h  # only relative links to the run's files
            assert (page.parent / h).is_file(), h
    # nothing is fetched: images are data: URIs, scripts inline
    assert all(s.startswith("data:") for s in p.srcs), p.srcs
    assert "link" not in p.tags
    return p


def _charts(page: Path) -> int:
    return page.read_text(encoding="utf-8").count("<div class='chart'")


def _rendered(dom: str) -> int:
    """Charts vega-embed drew (an SVG or canvas with its `marks` class)."""
    return len(re.findall(r"<(?:svg|canvas)[^>]*class=\"marks", dom))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep") / "run"
    p = dccsim(
        "run", "powertcp-incast", "--variant", "hpcc", "--variant", "PowerTCP", "--quiet", "--out", out
    )
    assert p.returncode == 0, p.stderr
    return out


def test_run_report_renders_offline_in_chromium(run_dir, tmp_path):
    browser.require_chromium()
    p = dccsim("report", run_dir)
    assert p.returncode == 0, p.stderr
    page = run_dir / "report.html"
    assert Path(p.stdout.strip()) == page
    text = page.read_text(encoding="utf-8")
    assert "holds" in text and "PowerTCP" in text and "data:image/png;base64," in text
    assert "[topology]" in text and "wall_time_s" in text  # scenario and meta
    _check_links(page)
    dom, console = browser.load(page)
    assert console == [], console
    assert _rendered(dom) == _charts(page) >= 1
    png = tmp_path / "shot.png"
    assert browser.screenshot(page, png) == []
    from PIL import Image

    img = np.asarray(Image.open(png).convert("RGB"))
    assert img.shape[0] > 1000
    colours = len(np.unique(img.reshape(-1, 3), axis=0))
    assert colours > 50, colours  # not a blank (or single-colour) page
    assert (img < 200).any(axis=2).mean() > 0.02  # a visible share of non-white pixels


def test_console_errors_are_detected(tmp_path):
    """The detector above is real: a page with a script error is caught."""
    browser.require_chromium()
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>console.error('x'); notDefined();</script></body></html>")
    _, console = browser.load(bad)
    assert len(console) == 2


def test_compare_html_and_sweep_report(run_dir, tmp_path):
    browser.require_chromium()
    page = tmp_path / "cmp" / "c.html"
    p = dccsim("compare", run_dir, run_dir, "--html", page)
    assert p.returncode == 0, p.stderr
    _check_links(page)
    dom, console = browser.load(page)
    assert console == [] and _rendered(dom) == _charts(page) >= 1
    spec = tmp_path / "s.toml"
    spec.write_text(
        '[sweep]\nbase = "powertcp-incast"\nvariants = ["HPCC"]\n[grid]\n"switch.buffer" = ["3MB", "6MB"]\n'
    )
    assert dccsim("sweep", spec, "--out", tmp_path / "sw", "--jobs", "2", "--quiet").returncode == 0
    p = dccsim("report", tmp_path / "sw")
    assert p.returncode == 0, p.stderr
    sp = tmp_path / "sw" / "report.html"
    links = _check_links(sp)
    assert sum(h.endswith("summary.json") for h in links.hrefs) == 2
    assert "sweep.png" in links.hrefs  # the key metrics against the buffer, linked at full size
    dom, console = browser.load(sp)
    assert console == [] and "Key metrics" in dom
    # the screenshot shows the embedded figure: its top (the page's first 1000 px) is not blank
    png = tmp_path / "sweep-shot.png"
    assert browser.screenshot(sp, png, size=(1300, 1000)) == []
    from PIL import Image

    img = np.asarray(Image.open(png).convert("RGB"))
    c0 = np.abs(img.astype(int) - (31, 119, 180)).max(axis=2) < 24  # matplotlib's first colour
    assert c0.sum() > 200, c0.sum()  # the variant's line and markers are drawn and visible


def test_report_of_a_non_run_directory_exits_2(tmp_path):
    assert_input_error(dccsim("report", tmp_path), "report")
