"""Run every variant of a scenario through the engine and write the output directory."""

from __future__ import annotations

import datetime as _dt
import platform
import socket
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from . import engine, limits, outdir, results
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


def _library_versions(worker) -> dict:
    """Versions of the libraries this run used: numpy and pyarrow always (already imported),
    pandas when an analysis imported it, matplotlib when a figure was drawn (the figure worker
    reports the version it drew with; docs/results.md)."""
    out = {}
    for name in ("numpy", "pandas", "pyarrow"):
        mod = sys.modules.get(name)
        if mod is not None:
            out[name] = getattr(mod, "__version__", None)
    mpl = worker.matplotlib_version if worker is not None else None
    if mpl is not None:
        out["matplotlib"] = mpl
    return out


def _meta(argv, started: str, wall_s: float, variant_wall: dict, worker=None) -> dict:
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
        "dccsim": sys.modules[__package__].__version__,
        "engine": ev,
        "libraries": _library_versions(worker),
    }


class _NoBar:
    """What the runner calls on a progress bar, doing nothing (no bar to draw)."""

    def set_postfix_str(self, _text: str) -> None:
        pass

    def update(self, _n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(progress: bool, total: int, desc: str):
    """A tqdm bar on stderr when asked for and stderr is a terminal; otherwise a no-op, without
    importing tqdm (≈ 40 ms with the importlib.metadata it pulls in; docs/benchmarks.md)."""
    if not (progress and sys.stderr.isatty()):
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="run", file=sys.stderr)


def select_variants(scn: Scenario, names: Optional[Sequence[str]]) -> list[Variant]:
    if not names:
        return scn.variants()
    chosen = [scn.variant(n) for n in names]
    return [v for v in scn.variants() if v in chosen]  # scenario order, no duplicates


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run; the message says which variants were kept and where."""


def run(
    scn: Scenario,
    out_dir,
    variants: Optional[Sequence[str]] = None,
    progress: bool = True,
    argv: Optional[Sequence[str]] = None,
    force: bool = False,
    memory_limit: Optional[str] = None,
    figures: bool = True,
) -> dict:
    """Run the chosen variants (default: all) and write OUT (docs/results.md). Returns summary.json.

    Everything is written into a staging directory that replaces OUT only at the end (outdir.py);
    OUT is checked, and locked, before the first simulation starts. On Ctrl-C the variants that
    finished are kept in OUT with ``complete: false`` and RunInterrupted is raised; on any other
    error OUT stays as it was. figures=False skips drawing (metrics and claims are still computed).
    """
    out = Path(out_dir)
    chosen = select_variants(scn, variants)
    analysis = ANALYSES.get(scn.experiment.analysis) if scn.experiment and scn.experiment.analysis else None
    if analysis is not None and scn.metrics.interval_ps == 0 and getattr(analysis, "NEEDS_SAMPLES", True):
        analysis = None  # nothing was sampled, so there is nothing to analyse
    limits.check(scn, len(chosen), limits.resolve_limit(memory_limit))  # before building any flow list
    configs = [(v, scn.to_engine_config(v)) for v in chosen]  # resolve everything before running
    engine.require()
    scenario_text = dump_toml(scn)
    staging = outdir.prepare(out, force=force, scenario_text=scenario_text)
    # started at the latest now, so that importing matplotlib overlaps with the engine (the CLI
    # forks it before its own imports: figure_worker.prestart)
    worker = None
    if analysis is not None and figures:
        from . import figure_worker

        worker = figure_worker.take()
    elif "dccsim.figure_worker" in sys.modules:
        sys.modules["dccsim.figure_worker"].discard_prestarted()
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    t_start = time.perf_counter()
    argv = list(argv if argv is not None else sys.argv)

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

    def write_meta():
        results.write_json(
            staging / "meta.json",
            _meta(argv, started, time.perf_counter() - t_start, wall, worker),
        )

    bar = _progress_bar(progress, total=len(configs), desc=scn.name)
    try:
        results.write_text(staging / "scenario.toml", scenario_text)
        results.write_flow_input(staging, scn.flow_list().table())
        for v, cfg in configs:
            bar.set_postfix_str(v.name)
            t0 = time.perf_counter()
            res = engine.run(cfg)
            wall[v.slug] = time.perf_counter() - t0
            eng_summary = dict(res.get("summary") or {})
            if res.get("pfc_deadlock"):
                eng_summary["pfc_deadlock_ports"] = list(res["pfc_deadlock"])
                print(
                    f"dccsim: warning: {v.name}: PFC deadlock at {eng_summary['pfc_deadlock_at_ps'] / 1e9:g} ms "
                    f"among ports {', '.join(res['pfc_deadlock'])}; the run stopped there",
                    file=sys.stderr,
                )
            metrics = {}
            if analysis is not None:
                tables = frames(res)
                metrics = analysis.variant_metrics(scn, v, tables, eng_summary)
                series[v.slug] = (v, tables, metrics)
            metrics_by_slug[v.slug] = metrics
            vsum = {
                "variant": v.name,
                "slug": v.slug,
                "seed": scn.seed,
                "cc": v.cc.to_engine(),
                "engine": eng_summary,
                "metrics": metrics,
            }
            results.write_variant(staging, v.slug, res, vsum)
            summary["order"].append(v.slug)
            summary["runs"][v.slug] = {
                "name": v.name,
                "algorithm": v.cc.algorithm,
                "engine": eng_summary,
                "metrics": metrics,
            }
            results.write_json(staging / "summary.json", summary)  # partial, rewritten after each variant
            bar.update(1)
        bar.close()
        if analysis is not None:
            summary["claims"] = analysis.claims(scn, metrics_by_slug)
            if worker is not None:
                name = summary["analysis"]
                results.write_figure(staging / analysis.FIGURE, lambda p: worker.draw(name, scn, series, p))
                summary["figures"] = [analysis.FIGURE]
        summary["complete"] = True
        results.write_json(staging / "summary.json", summary)
        write_meta()
        outdir.commit(staging, out)
    except KeyboardInterrupt:
        bar.close()
        if worker is not None:
            worker.close()
        if not summary["order"]:
            outdir.discard(staging, out)
            raise RunInterrupted(f"no variant had finished; {str(out)!r} left as it was") from None
        try:
            write_meta()  # summary.json on disk already says complete: false
            outdir.commit(staging, out)
        except OSError:
            outdir.discard(staging, out)
            raise RunInterrupted("the finished variants could not be saved") from None
        raise RunInterrupted(
            f"kept {len(summary['order'])} of {len(configs)} variants in {str(out)!r} (complete: false)"
        ) from None
    except OSError as e:
        bar.close()
        if worker is not None:
            worker.close()
        outdir.discard(staging, out)
        raise outdir.os_error(e, f"writing the results of {str(out)!r} failed; nothing was kept") from None
    except BaseException:
        bar.close()
        if worker is not None:
            worker.close()
        outdir.discard(staging, out)
        raise
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
