"""How every figure is laid out so that it stays readable in a report column (≈ 700 px wide):
a grid of panels at most `MAX_COLS` wide (never a single row of one panel per variant), a
title that says when the scenario was edited from a catalog experiment, reference lines with
their label, one legend for the figure, and the choice between axes fitted to the data (shared
by every panel of the figure) and a fixed scale taken from the scenario (`[experiment]
fixed_scale = true`, `dccsim run --fixed-scale`, `dccsim figures --fixed-scale`), the same for
every run of the scenario, so that the PNGs of two runs compare at a glance.

Sizes: text of `FONT` points in a figure at most `MAX_WIDTH_IN` inches wide is shown at ≥ 9 px
when the figure is scaled to 700 px (9 pt is 9/72 in; 700/9.4 px per inch).
"""

from __future__ import annotations

import math
from typing import Optional

MAX_COLS = 3  # ≤ 4 columns (issue 26); 3 keeps each panel ≥ 2.5 in wide within MAX_WIDTH_IN
MAX_WIDTH_IN = 9.4
PANEL_W_IN = 2.6
PANEL_H_IN = 2.1
FONT = 9
REF_COLOR = "0.35"


def columns(n: int) -> int:
    """Columns of a grid of n panels: one row up to 3, 2×2 for 4, else rows of 3."""
    if n <= MAX_COLS:
        return max(n, 1)
    return 2 if n == 4 else MAX_COLS


def title_lines(scenario, width_in: float) -> list[str]:
    """The title (`title`) wrapped to a figure `width_in` inches wide, at most 3 lines."""
    import textwrap

    chars = max(20, int(width_in * 72 / ((FONT + 1) * 0.55)))
    lines: list[str] = []
    for part in title(scenario).split("\n"):
        lines += textwrap.wrap(part, chars) or [""]
    return lines[:3]


def _header(fig, scenario, lines: list[str], height: float) -> None:
    fig.suptitle("\n".join(lines), fontsize=FONT + 1, y=1 - 0.08 / height, va="top")


PANEL_TITLE_IN = 0.3  # a panel's title above its axes


def figure_top(lines: list[str], legend_labels: int, legend_cols: int, panel_titles: bool = False) -> float:
    """Inches above the panels: title lines, then the legend's rows (then the panels' titles)."""
    rows = math.ceil(legend_labels / legend_cols) if legend_labels else 0
    return 0.2 + 0.2 * len(lines) + 0.22 * rows + 0.12 + (PANEL_TITLE_IN if panel_titles else 0.0)


def grid(
    n: int,
    scenario,
    panel_w: float = PANEL_W_IN,
    panel_h: float = PANEL_H_IN,
    twin: bool = False,
    legend_labels: int = 0,
    own_y: bool = False,
    **kw,
):
    """(figure, [n axes], ncols): n panels in rows of `columns(n)`, row-major, the unused cells
    of the last row removed, the title on top and room under it for a legend of
    `legend_labels` entries (`legend`). `twin`: the panels get a right-hand axis, `own_y`: each
    panel has its own y label (both: more room between columns). Keyword arguments go to
    `Figure.subplots` (sharex, sharey)."""
    from .plots import new_figure

    ncols = columns(n)
    nrows = math.ceil(n / ncols)
    gap = 1.0 if twin else 0.8 if own_y else 0.4
    left, right = 0.7, (0.75 if twin else 0.2)
    width = min(MAX_WIDTH_IN, left + right + ncols * panel_w + (ncols - 1) * gap)
    lines = title_lines(scenario, width)
    top, bottom, vgap = figure_top(lines, legend_labels, LEGEND_COLS, panel_titles=True), 0.5, 0.62
    height = top + bottom + nrows * panel_h + (nrows - 1) * vgap
    fig, axes = new_figure(nrows, ncols, figsize=(width, height), squeeze=False, fixed_titles=True, **kw)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.remove()
    panel = (width - left - right - gap * (ncols - 1)) / ncols
    fig.subplots_adjust(
        left=left / width,
        right=1 - right / width,
        bottom=bottom / height,
        top=1 - top / height,
        wspace=gap / panel,
        hspace=vgap / panel_h,
    )
    for ax in flat[:n]:
        ax.tick_params(labelsize=FONT - 1)
    _header(fig, scenario, lines, height)
    return fig, flat[:n], ncols


LEGEND_COLS = 4


def legend(fig, axes) -> None:
    """One legend for the figure, between the title and the panels: every labelled artist of
    `axes` once, in rows of LEGEND_COLS."""
    seen: dict[str, object] = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if not label.startswith("_") and label not in seen:
                seen[label] = h
    if not seen:
        return
    # above the panels' titles, if they have any
    above = PANEL_TITLE_IN if any(ax.get_title() for ax in axes) else 0.06
    top = max(ax.get_position().y1 for ax in axes) + above / fig.get_figheight()
    fig.legend(
        list(seen.values()),
        list(seen),
        loc="lower center",
        bbox_to_anchor=(0.5, top),
        ncol=min(len(seen), LEGEND_COLS),
        fontsize=FONT - 1,
        frameon=False,
        handlelength=1.6,
        columnspacing=1.2,
        borderaxespad=0.0,
        borderpad=0.0,
    )


def reference(ax, y: float, label: str, color: str = REF_COLOR, ls: str = "--") -> None:
    """A horizontal reference line (line rate, fair share, buffer limit) labelled in the legend."""
    ax.axhline(y, color=color, lw=0.9, ls=ls, label=label, zorder=1)


def fixed_scale(scenario) -> bool:
    """Axes from the scenario rather than from the data (`[experiment] fixed_scale`)."""
    x = scenario.experiment
    return bool(x is not None and x.fixed_scale)


def with_fixed_scale(scn):
    """The scenario with `[experiment] fixed_scale = true`: its figures' axes from the scenario
    (buffer, line rate), the same for every run, so that two runs' PNGs compare
    (figure_layout.py)."""
    import dataclasses

    from .scenario.model import Experiment

    x = scn.experiment if scn.experiment is not None else Experiment()
    return dataclasses.replace(scn, experiment=dataclasses.replace(x, fixed_scale=True))


def edited_from(scenario) -> Optional[str]:
    """The catalog experiment this scenario is an edit of: its name when the scenario carries a
    catalog experiment's name but differs from it (anything but the seed and fixed_scale, which
    are a repetition and a presentation, not an edit); else None."""
    import dataclasses

    from . import experiments
    from .scenario.toml_out import dump_toml

    if scenario.name not in experiments.list_experiments():
        return None
    catalog = experiments.get(scenario.name)

    def canonical(s):
        x = s.experiment
        if x is not None and x.fixed_scale:
            s = dataclasses.replace(s, experiment=dataclasses.replace(x, fixed_scale=False))
        return dump_toml(s.with_seed(catalog.seed))

    return None if canonical(scenario) == canonical(catalog) else scenario.name


def title(scenario) -> str:
    """The figure's title: the experiment's title (else the scenario's name), and on a second
    line "edited from <experiment>" when the scenario differs from the catalog's."""
    x = scenario.experiment
    base = (x.title if x is not None and x.title else "") or scenario.name
    origin = edited_from(scenario)
    return f"{base}\n(edited from catalog experiment '{origin}')" if origin else base


def finish(fig, scenario, note: str = "") -> None:
    """For a figure laid out by hand (a few panels, not one per variant): the title (`title`,
    wrapped) on top, an optional `note` line at the bottom, and matplotlib's tight layout
    between them."""
    lines = title_lines(scenario, fig.get_figwidth())
    height = fig.get_figheight()
    _header(fig, scenario, lines, height)
    bottom = 0.0
    if note:
        fig.text(0.5, 0.06 / height, note, ha="center", va="bottom", fontsize=FONT - 1)
        bottom = 0.3 / height
    fig.tight_layout(rect=(0, bottom, 1, 1 - (0.15 + 0.2 * len(lines)) / height))
