"""Interactive Vega-Lite charts (altair) of a run directory for the HTML report: the sampled
queue of every port and the slowdown CDF of finished flows. Series are decimated to the chart's
resolution so the page stays small."""

from __future__ import annotations

from pathlib import Path

import numpy as np

MAX_POINTS = 600  # per series: min/max of 600 buckets (a chart is ~700 px wide)


def _read(path: Path) -> dict:
    from .results import read_table

    if not path.is_file():
        return {}
    t = read_table(path, "report")  # a damaged table: one line naming it
    return {c: t.column(c).to_numpy(zero_copy_only=False) for c in t.column_names}


def queue_rows(run_dir: Path, slugs: list, label=lambda slug: slug) -> list[dict]:
    from .plots import decimate

    rows = []
    for slug in slugs:
        ps = _read(run_dir / slug / "port_series.parquet")
        if not ps or len(ps["time_ps"]) == 0:
            continue
        for name in sorted(set(ps["port_name"].tolist())):
            sel = ps["port_name"] == name
            t, q = decimate(ps["time_ps"][sel] / 1e9, ps["queue_bytes"][sel] / 1e3, MAX_POINTS)
            rows += [
                {"ms": float(a), "KB": float(b), "series": f"{label(slug)} {name}"} for a, b in zip(t, q)
            ]
    return rows


def slowdown_rows(run_dir: Path, slugs: list, label=lambda slug: slug) -> list[dict]:
    rows = []
    for slug in slugs:
        f = _read(run_dir / slug / "flows.parquet")
        sd = np.sort(f.get("slowdown", np.array([]))[np.isfinite(f.get("slowdown", np.array([])))])
        if len(sd) == 0:
            continue
        idx = np.unique(np.linspace(0, len(sd) - 1, min(len(sd), MAX_POINTS)).astype(int))
        rows += [
            {"slowdown": float(sd[i]), "fraction": float((i + 1) / len(sd)), "variant": label(slug)}
            for i in idx
        ]
    return rows


def charts(sources: list) -> list:
    """sources: [(run_dir, slugs, label)]; returns [(title, vega-lite spec dict)]."""
    import altair as alt

    q, s = [], []
    for run_dir, slugs, label in sources:
        q += queue_rows(Path(run_dir), slugs, label)
        s += slowdown_rows(Path(run_dir), slugs, label)
    out = []
    if q:
        sel = alt.selection_point(fields=["series"], bind="legend")
        c = (
            alt.Chart(alt.Data(values=q))
            .mark_line(strokeWidth=1, clip=True)
            .encode(
                x=alt.X("ms:Q", title="time (ms)"),
                y=alt.Y("KB:Q", title="queue (KB)"),
                color=alt.Color("series:N", title="variant, port"),
                opacity=alt.condition(sel, alt.value(1.0), alt.value(0.1)),
                tooltip=["series:N", "ms:Q", "KB:Q"],
            )
            .add_params(sel)
            .properties(width=700, height=260)
            .interactive()
        )
        out.append(("Sampled egress queues (click a legend entry to highlight; drag/zoom)", c.to_dict()))
    if s:
        c = (
            alt.Chart(alt.Data(values=s))
            .mark_line(interpolate="step-after", clip=True)
            .encode(
                x=alt.X("slowdown:Q", title="FCT slowdown", scale=alt.Scale(type="log")),
                y=alt.Y("fraction:Q", title="fraction of finished flows"),
                color=alt.Color("variant:N"),
                tooltip=["variant:N", "slowdown:Q", "fraction:Q"],
            )
            .properties(width=700, height=240)
            .interactive()
        )
        out.append(("Flow completion: slowdown CDF of finished flows", c.to_dict()))
    return out
