"""The paper's overlay figure — panels above each other sharing the time axis, every variant a
line in each panel, reference lines, one legend above the panels, the title on top — drawn
natively by the engine module (`crates/chart`: antialiased paths, TrueType text, PNG) instead of
matplotlib.

Why: for the main job (`dccsim run powertcp-incast`) importing matplotlib and drawing this figure
with it was about 60 % of the whole command's instructions (2.27 of 3.76 G under callgrind), more
than the nine simulations and their tables together (docs/benchmarks.md, "The main job on one
core"). The layout is figure_layout's (same inches, fonts, colours; the font is the DejaVu Sans
file matplotlib ships, found without importing matplotlib); ticks follow the same "nice numbers"
rule as matplotlib's default locator. Same inputs give the same PNG bytes.

    fig = Stacked(2, scenario, legend_labels=n)
    fig.plot(0, t, q, label="PowerTCP", color="C0")
    fig.reference(1, 25.0, "line rate 25 Gbps")
    fig.set_xlim(-0.5, 2.5); fig.set_ylim(0, 0, 1000); fig.set_ylabel(0, "queue (KB)")
    fig.save(path)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from . import figure_layout as lay
from .plots import DPI

# matplotlib's default cycle ("C0".."C9", the tab10 colours)
CYCLE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def color(c: str) -> str:
    """`C0`..`C9`, a grey level "0.35" (matplotlib's notation) or #rrggbb -> #rrggbb."""
    if c.startswith("C") and c[1:].isdigit():
        return CYCLE[int(c[1:]) % len(CYCLE)]
    if c.startswith("#"):
        return c
    level = round(float(c) * 255)
    return f"#{level:02x}{level:02x}{level:02x}"


def font_file() -> str:
    """DejaVu Sans, the font of every other figure: the file in matplotlib's package data, located
    without importing matplotlib."""
    import importlib.util

    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise RuntimeError("matplotlib (a dccsim dependency) is not installed: its font draws the figure")
    path = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
    if not path.is_file():
        raise RuntimeError(f"the DejaVu Sans font of matplotlib is missing: {path}")
    return str(path)


class Stacked:
    """`rows` panels above each other sharing the x axis (figure_layout's sizes: 7 in wide, panels
    2.2 in tall and 0.3 in apart, the title and legend above them)."""

    def __init__(self, rows: int, scenario, width: float = 7.0, panel_h: float = 2.2, legend_labels: int = 0):
        self.title = lay.title_lines(scenario, width)
        top = lay.figure_top(self.title, legend_labels, lay.LEGEND_COLS)
        bottom, vgap, left, right = 0.5, 0.3, 0.75, 0.25
        self.width = width
        self.height = top + bottom + rows * panel_h + (rows - 1) * vgap
        self.margins = [left, right, bottom, top]
        self.vgap = vgap
        self.panels = [{"ylabel": "", "ylim": [0.0, 1.0], "lines": []} for _ in range(rows)]
        self.xlim = [0.0, 1.0]
        self.xlabel = ""
        self.series: list[tuple[np.ndarray, np.ndarray]] = []
        self.legend: dict[str, dict] = {}  # label -> style, first use wins, in drawing order

    def _style(self, c: str, ls: str, lw: float, label: str | None) -> dict:
        style = {"color": color(c), "width_pt": float(lw), "dash": ls}
        if label and not label.startswith("_") and label not in self.legend:
            self.legend[label] = style
        return style

    def plot(
        self, panel: int, x, y, label: str | None = None, color: str = "C0", ls: str = "-", lw: float = 1.0
    ):
        self.series.append(
            (np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64))
        )
        style = self._style(color, ls, lw, label)
        self.panels[panel]["lines"].append({"series": len(self.series) - 1, "style": style})

    def reference(self, panel: int, y: float, label: str, color: str = lay.REF_COLOR, ls: str = "--"):
        """A horizontal reference line (line rate, buffer limit) labelled in the legend."""
        style = self._style(color, ls, 0.9, label)
        self.panels[panel]["lines"].append({"y": float(y), "style": style})

    def set_xlim(self, lo: float, hi: float):
        self.xlim = [float(lo), float(hi)]

    def set_ylim(self, panel: int, lo: float, hi: float):
        self.panels[panel]["ylim"] = [float(lo), float(hi)]

    def set_ylabel(self, panel: int, text: str):
        self.panels[panel]["ylabel"] = text

    def set_xlabel(self, text: str):
        self.xlabel = text

    def spec(self) -> dict:
        return {
            "width_in": self.width,
            "height_in": self.height,
            "dpi": float(DPI),
            "font_pt": float(lay.FONT),
            "title": self.title,
            "title_pt": float(lay.FONT + 1),
            "title_top_in": 0.08,
            "margins_in": self.margins,
            "vgap_in": self.vgap,
            "xlim": self.xlim,
            "xlabel": self.xlabel,
            "panels": self.panels,
            "legend": [{"label": k, "style": v} for k, v in self.legend.items()],
            "legend_cols": lay.LEGEND_COLS,
            "legend_pt": float(lay.FONT - 1),
            "legend_gap_in": 0.06,
        }

    def save(self, path) -> None:
        from . import engine

        xs = [x for x, _ in self.series]
        ys = [y for _, y in self.series]
        engine.line_chart(json.dumps(self.spec()), xs, ys, font_file(), str(path))
