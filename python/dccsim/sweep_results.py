"""What a sweep found: one tidy table of a sweep directory, its seeds aggregated, the table that
`dccsim sweep` prints and the figure `dccsim report SWEEP` draws (docs/results.md, "Sweep results").

- `table(sweep_dir)`: one row per (point, variant): `point`, `seed`, one column per swept
  parameter (its dotted key, the grid's value), `variant` (slug), `name`, `algorithm`, `status`,
  then the metrics: the generic ones below, from every run, and every numeric scalar of the
  analysis's metrics (nested keys dotted: `all.p99.value`);
- `aggregate(df, metrics)`: one row per (parameters, variant) with `n` (seeds with a value) and,
  for each metric, the mean over seeds and `<metric>_ci95`, the half-width of the 95 % confidence
  interval of that mean (Student's t: t(0.975, n − 1) · s / √n; NaN with fewer than 2 seeds);
- `key_metrics(df)`: the metrics shown in the table and the figure: the analysis's headline ones
  (KEY_METRICS) when present, then the generic ones.

Generic metrics of every run (variant): `flows_finished` (finite flows that finished),
`slowdown_p50`, `slowdown_p99` (element ⌊q·n⌋ of the n sorted slowdowns of finished finite
flows, the rule of the `fct` analysis; NaN when none finished), `packets_dropped` (engine).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

GENERIC = ("flows_finished", "slowdown_p50", "slowdown_p99", "packets_dropped")
# the analyses' headline metrics (docs/results.md), shown before the generic ones
KEY_METRICS = {
    "incast": ("peak_queue_bytes", "recovery_ps", "throughput_pct"),
    "shared": ("jain_index", "utilization_pct", "queue_mean_bytes"),
    "fct": ("all.p50.value", "all.p99.value"),
    "oplatency": ("op_latency_us.p50.value", "op_latency_us.p99.value"),
}
# Student's t, 0.975 quantile, for 1..30 degrees of freedom
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t975(df: int) -> float:
    """Student's t 0.975 quantile: the table to 30 degrees of freedom, then the Cornish-Fisher
    expansion around the normal quantile (within 0.001 of the exact value above 30)."""
    if df < 1:
        return math.nan
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def _load(p: Path) -> dict:
    return json.loads(p.read_text(encoding="utf-8"))


def _flatten(d: dict, prefix: str = "") -> dict:
    """Numeric scalars of a metrics object, nested keys dotted; lists, strings, booleans and
    per-flow maps (all keys digits) are left out."""
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, (int, float)):
            out[key] = float(v)
        elif isinstance(v, dict) and v and not all(str(x).isdigit() for x in v):
            out.update(_flatten(v, key + "."))
    return out


def _pick(sorted_values: np.ndarray, q: float) -> float:
    n = len(sorted_values)
    return float(sorted_values[min(int(math.floor(q * n)), n - 1)]) if n else math.nan


def generic_metrics(variant_dir: Path, engine: dict) -> dict:
    import pyarrow.parquet as pq

    m = {"flows_finished": math.nan, "slowdown_p50": math.nan, "slowdown_p99": math.nan}
    f = variant_dir / "flows.parquet"
    if f.is_file():
        t = pq.read_table(f, columns=["size_bytes", "end_ps", "slowdown"])
        size = t.column("size_bytes").to_numpy()
        end = t.column("end_ps").to_numpy()
        sd = t.column("slowdown").to_numpy()
        done = (size > 0) & (end >= 0)
        s = np.sort(sd[done & ~np.isnan(sd)])
        m.update(flows_finished=float(done.sum()), slowdown_p50=_pick(s, 0.5), slowdown_p99=_pick(s, 0.99))
    dropped = engine.get("packets_dropped")
    m["packets_dropped"] = float(dropped) if isinstance(dropped, (int, float)) else math.nan
    return m


def is_sweep(d) -> bool:
    return (Path(d) / "sweep.json").is_file()


def table(sweep_dir):
    """The tidy DataFrame of a sweep directory (module docstring)."""
    import pandas as pd

    root = Path(sweep_dir)
    doc = _load(root / "sweep.json")
    keys = list(doc.get("grid") or {})
    rows = []
    for p in doc["points"]:
        base = {"point": p["id"], "seed": p["seed"], **{k: p["params"].get(k) for k in keys}}
        pdir = root / "points" / p["id"]
        s = (
            _load(pdir / "summary.json")
            if p["status"] == "done" and (pdir / "summary.json").is_file()
            else None
        )
        if s is None:
            rows.append({**base, "variant": None, "name": None, "algorithm": None, "status": p["status"]})
            continue
        for slug in s.get("order") or []:
            r = s["runs"][slug]
            rows.append(
                {
                    **base,
                    "variant": slug,
                    "name": r.get("name"),
                    "algorithm": r.get("algorithm"),
                    "status": p["status"],
                    **generic_metrics(pdir / slug, r.get("engine") or {}),
                    **{k: v for k, v in _flatten(r.get("metrics") or {}).items() if k not in keys},
                }
            )
    df = pd.DataFrame(rows)
    for c in GENERIC:
        if c not in df:
            df[c] = np.nan
    df.attrs["params"] = keys
    df.attrs["name"] = doc.get("name") or root.name
    df.attrs["analysis"] = _analysis(root, doc)
    return df


def _analysis(root: Path, doc: dict):
    for p in doc["points"]:
        f = root / "points" / p["id"] / "summary.json"
        if f.is_file():
            return _load(f).get("analysis")
    return None


def key_metrics(df) -> list:
    head = [m for m in KEY_METRICS.get(df.attrs.get("analysis"), ()) if m in df]
    return head + [m for m in GENERIC if m not in head]


def aggregate(df, metrics=None):
    """Seeds aggregated: one row per (parameters, variant), `n`, mean and `_ci95` per metric."""
    import pandas as pd

    params = list(df.attrs.get("params", []))
    metrics = list(metrics if metrics is not None else key_metrics(df))
    done = df[df["status"] == "done"]
    rows = []
    by = params + ["variant"]
    if done.empty:
        return pd.DataFrame(columns=by + ["name", "n"] + [c for m in metrics for c in (m, m + "_ci95")])
    # group on the values' text so that mixed or unhashable grid values (lists) group too
    keyed = done.assign(**{f"__{c}": done[c].map(lambda v: json.dumps(v, sort_keys=True)) for c in by})
    for _, g in keyed.groupby([f"__{c}" for c in by], sort=False):
        row = {c: g[c].iloc[0] for c in by}
        row["name"] = g["name"].iloc[0]
        row["n"] = len(g)
        for m in metrics:
            v = g[m].to_numpy(dtype=float) if m in g else np.array([np.nan])
            v = v[~np.isnan(v)]
            row[m] = float(v.mean()) if len(v) else math.nan
            row[m + "_ci95"] = (
                float(t975(len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else math.nan
            )
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs.update(df.attrs)
    return out


def _fmt(v) -> str:
    if isinstance(v, float):
        return "-" if math.isnan(v) else f"{v:.4g}"
    return json.dumps(v) if not isinstance(v, str) else v


def format_table(agg, metrics) -> str:
    """The aggregated table as aligned text: parameters, variant, seeds, `mean ± ci95` per metric."""
    params = list(agg.attrs.get("params", []))
    head = params + ["variant", "seeds"] + list(metrics)
    body = []
    for _, r in agg.iterrows():
        cells = [_fmt(r[p]) for p in params] + [str(r["name"] or r["variant"]), str(r["n"])]
        for m in metrics:
            mean, ci = r[m], r[m + "_ci95"]
            cells.append(_fmt(mean) + ("" if isinstance(ci, float) and math.isnan(ci) else f" ± {_fmt(ci)}"))
        body.append(cells)
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in body]
    return "\n".join(lines)


def summary_text(sweep_dir) -> str:
    """What `dccsim sweep` prints: the key metrics per parameter combination and variant."""
    df = table(sweep_dir)
    metrics = key_metrics(df)
    agg = aggregate(df, metrics)
    if agg.empty:
        return "no finished points"
    return format_table(agg, metrics) + "\n(mean over seeds ± half-width of its 95 % confidence interval)"


# ----------------------------------------------------------------------------------------------
# The figure


def axis_values(values: list):
    """(numeric x positions, axis unit, tick labels or None): numbers as they are; sizes, times
    and rates with units in KB or MB, µs and Gbit/s; anything else categorical (index positions)."""
    from . import units

    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return [float(v) for v in values], "", None
    for parse in (units.parse_size, units.parse_time, units.parse_rate):
        try:
            raw = [float(parse(v)) for v in values]
        except (ValueError, TypeError):
            continue
        if parse is units.parse_size:
            scale, unit = (1e6, "MB") if max(raw) >= 1e6 else (1e3, "KB")
        else:
            scale, unit = (1e6, "µs") if parse is units.parse_time else (1e9, "Gbit/s")
        return [x / scale for x in raw], unit, None
    return list(range(len(values))), "", [_fmt(v) for v in values]


def display(metric: str) -> tuple:
    """(axis label, divisor) of a metric in the figure: picoseconds in µs, bytes in KB."""
    for suffix, unit, div in (("_ps", "µs", 1e6), ("_bytes", "KB", 1e3)):
        if metric.endswith(suffix):
            return f"{metric[: -len(suffix)]} ({unit})", div
    return metric, 1.0


STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P")


def draw(sweep_dir, path=None) -> Path:
    """sweep.png: one panel per (key metric, swept parameter): the metric's mean over seeds
    against the parameter, its 95 % confidence interval as error bars; a colour per variant and,
    with several parameters, a line style per value of the others (legend above each column).
    Returns the PNG's path."""
    from . import plots

    root = Path(sweep_dir)
    df = table(root)
    params = df.attrs["params"]
    metrics = [m for m in key_metrics(df) if m in df and df[m].notna().any()]
    agg = aggregate(df, metrics)
    path = Path(path) if path else root / "sweep.png"
    ncols, nrows = max(1, len(params)), max(1, len(metrics))
    width = max(4.6 * ncols, 6.4)
    fig, axes = plots.new_figure(nrows, ncols, figsize=(width, 2.5 * nrows + 1.2), squeeze=False)
    fig.set_layout_engine("constrained")
    variants = list(dict.fromkeys(agg["variant"])) if len(agg) else []
    for j, p in enumerate(params):
        values = list({json.dumps(v, sort_keys=True): v for v in df[p]}.values())
        xs, unit, labels = axis_values(values)
        x_of = {json.dumps(v, sort_keys=True): x for v, x in zip(values, xs)}
        others = [q for q in params if q != p]
        combo = (
            agg[others].apply(lambda r: json.dumps(list(r), sort_keys=True), axis=1)
            if others and len(agg)
            else None
        )
        combos = list(dict.fromkeys(combo)) if combo is not None else [None]
        for i, m in enumerate(metrics):
            ax = axes[i][j]
            ylabel, div = display(m)
            for vi, variant in enumerate(variants):
                for ci, c in enumerate(combos):
                    g = agg[(agg["variant"] == variant) & ((combo == c) if c is not None else True)]
                    if g.empty:
                        continue
                    x = np.array([x_of[json.dumps(v, sort_keys=True)] for v in g[p]])
                    order = np.argsort(x)
                    label = ", ".join(
                        [str(g["name"].iloc[0])] + [f"{q}={_fmt(g[q].iloc[0])}" for q in others]
                    )
                    ax.errorbar(
                        x[order],
                        g[m].to_numpy(dtype=float)[order] / div,
                        yerr=np.nan_to_num(g[m + "_ci95"].to_numpy(dtype=float)[order]) / div,
                        color=f"C{vi % 10}",
                        ls=STYLES[ci % len(STYLES)],
                        marker=MARKERS[ci % len(MARKERS)],
                        ms=4,
                        capsize=3,
                        label=label,
                    )
            ax.set_xlabel(f"{p} ({unit})" if unit else p)
            ax.set_ylabel(ylabel)
            if labels is not None or len(xs) <= 8:  # ticks at the grid's values, as written there
                ax.set_xticks(xs, labels or [_fmt(v) for v in values])
            ax.grid(True, alpha=0.3)
        if axes[0][j].get_legend_handles_labels()[0]:
            axes[0][j].legend(
                loc="lower center",
                bbox_to_anchor=(0.5, 1.02),
                ncol=2 if others else 4,
                fontsize=7,
                frameon=False,
            )
    n = sorted(set(agg["n"])) if len(agg) else [0]
    seeds = f"{n[0]}" if len(n) == 1 else f"{n[0]}-{n[-1]}"
    fig.suptitle(
        f"sweep {df.attrs['name']}\nmean over {seeds} seeds per point, bars: 95 % confidence interval",
        fontsize=10,
    )
    from .figure_file import write_figure

    write_figure(path, lambda tmp: plots.save(fig, tmp))
    return path
