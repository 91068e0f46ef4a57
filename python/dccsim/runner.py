"""Run every variant of a scenario through the engine and write the output directory."""

from __future__ import annotations

import datetime as _dt
import platform
import socket
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from . import __version__, engine, results
from .analysis import ANALYSES
from .scenario import Scenario, Variant, dump_toml


def frames(result: dict) -> dict:
    """The engine's tables as {table: {column: numpy array}} with the columns of
    results.table_columns() (slowdown and port_name included): what analyses receive."""
    import numpy as np

    out = {}
    for name, cols in results.engine_tables(result).items():
        if name == "flows":
            cols = results.with_slowdown(cols)
        out[name] = {
            c: np.asarray(cols.get(c, []), dtype=object if t == "string" else t)
            for c, t in results.table_columns()[name]
        }
    return out


def _library_versions() -> dict:
    """Versions of the libraries that write results, read from their installed metadata (no
    import: importing pandas or matplotlib costs more than a small run)."""
    from importlib import metadata

    out = {}
    for lib in ("numpy", "pandas", "pyarrow", "matplotlib"):
        try:
            out[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            out[lib] = None
    return out


def _meta(argv, started: str, wall_s: float, variant_wall: dict) -> dict:
    try:
        ev = engine.version()
    except Exception:  # the engine is optional for meta; never fail a finished run over it
        ev = None
    return {
        "argv": list(argv),
        "started_utc": started,
        "wall_time_s": round(wall_s, 3),
        "variant_wall_time_s": {k: round(v, 3) for k, v in variant_wall.items()},
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "dccsim": __version__,
        "engine": ev,
        "libraries": _library_versions(),
    }


def select_variants(scn: Scenario, names: Optional[Sequence[str]]) -> list[Variant]:
    if not names:
        return scn.variants()
    chosen = [scn.variant(n) for n in names]
    return [v for v in scn.variants() if v in chosen]  # scenario order, no duplicates


def run(
    scn: Scenario,
    out_dir,
    variants: Optional[Sequence[str]] = None,
    progress: bool = True,
    argv: Optional[Sequence[str]] = None,
    figures: bool = True,
) -> dict:
    """Run the chosen variants (default: all), writing OUT as each finishes. Returns summary.json.
    figures=False skips drawing (metrics and claims are still computed)."""
    out = Path(out_dir)
    chosen = select_variants(scn, variants)
    analysis = ANALYSES.get(scn.experiment.analysis) if scn.experiment and scn.experiment.analysis else None
    if analysis is not None and scn.metrics.interval_ps == 0:
        analysis = None  # nothing was sampled, so there is nothing to analyse
    configs = [(v, scn.to_engine_config(v)) for v in chosen]  # resolve everything before running
    engine.require()
    from .figure_worker import FigureWorker

    worker = FigureWorker() if analysis is not None and figures else None
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    t_start = time.perf_counter()

    summary = {
        "schema": results.SCHEMA,
        "experiment": scn.name,
        "title": scn.experiment.title if scn.experiment else "",
        "seed": scn.seed,
        "analysis": analysis.__name__.rsplit(".", 1)[-1] if analysis else None,
        "order": [],
        "runs": {},
        "claims": [],
        "figures": [],
        "complete": False,
    }
    metrics_by_slug: dict[str, dict] = {}
    series: dict = {}
    wall: dict[str, float] = {}

    from tqdm import tqdm

    bar = tqdm(
        total=len(configs), desc=scn.name, unit="run", file=sys.stderr, disable=None if progress else True
    )  # None: only when stderr is a terminal
    try:
        for v, cfg in configs:
            bar.set_postfix_str(v.name)
            t0 = time.perf_counter()
            res = engine.run(cfg)
            wall[v.slug] = time.perf_counter() - t0
            if len(wall) == 1:  # create OUT only once the engine has accepted the input
                out.mkdir(parents=True, exist_ok=True)
                results.write_text(out / "scenario.toml", dump_toml(scn))
            eng_summary = dict(res.get("summary") or {})
            metrics = {}
            if analysis is not None:
                tables = frames(res)
                metrics = analysis.variant_metrics(scn, v, tables, eng_summary)
                series[v.slug] = (v, tables, metrics)
            metrics_by_slug[v.slug] = metrics
            vsum = {
                "variant": v.name,
                "slug": v.slug,
                "cc": v.cc.to_engine(),
                "engine": eng_summary,
                "metrics": metrics,
            }
            results.write_variant(out, v.slug, res, vsum)
            summary["order"].append(v.slug)
            summary["runs"][v.slug] = {
                "name": v.name,
                "algorithm": v.cc.algorithm,
                "engine": eng_summary,
                "metrics": metrics,
            }
            results.write_json(out / "summary.json", summary)  # partial, rewritten after each variant
            bar.update(1)
    except BaseException:
        if worker is not None:
            worker.close()
        raise
    finally:
        bar.close()
        if wall:
            results.write_json(
                out / "meta.json",
                _meta(argv if argv is not None else sys.argv, started, time.perf_counter() - t_start, wall),
            )

    if analysis is not None:
        summary["claims"] = analysis.claims(scn, metrics_by_slug)
        if worker is not None:
            name = summary["analysis"]
            results.write_figure(out / analysis.FIGURE, lambda p: worker.draw(name, scn, series, p))
            summary["figures"] = [analysis.FIGURE]
    summary["complete"] = True
    results.write_json(out / "summary.json", summary)
    results.write_json(
        out / "meta.json",
        _meta(argv if argv is not None else sys.argv, started, time.perf_counter() - t_start, wall),
    )
    return summary


def report(scn: Scenario, summary: dict) -> str:
    """Human-readable result table (the analysis's, or a generic engine summary)."""
    name = summary.get("analysis")
    if name:
        metrics = {slug: summary["runs"][slug]["metrics"] for slug in summary["order"]}
        return ANALYSES[name].report(scn, metrics, summary["claims"])
    keys = ("events", "data_packets_delivered", "bytes_delivered", "flows_completed", "packets_dropped")
    rows = [("variant",) + keys]
    for v in (summary["runs"][slug] for slug in summary["order"]):
        rows.append((v["name"],) + tuple(str(v["engine"].get(k, "—")) for k in keys))
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(x) for c, x in zip(r, w)).rstrip() for r in rows)
