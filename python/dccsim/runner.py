"""Run every variant of a scenario through the engine and write the output directory."""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from . import engine, figure_file, limits, outdir, results
from .analysis import ANALYSES, DEFAULT
from .errors import InvariantViolation, ScenarioError
from .scenario import Scenario, Variant, dump_toml


def frames(result: dict) -> dict:
    """The engine's tables as {table: {column: numpy array}} with the columns of
    results.table_columns() (slowdown and port_name included): what analyses receive."""
    out = {}
    for name, cols in results.engine_tables(result).items():
        if name == "flows":
            cols = results.with_slowdown(cols)
        out[name] = results.typed_columns(name, cols)
    return out


def _library_versions(worker) -> dict:
    """Versions of the libraries this run used: numpy always, pyarrow when a table was written by it,
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


def _meta(argv, started: str, wall_s: float, variant_wall: dict, worker=None, jobs: int = 1) -> dict:
    try:
        ev = engine.version()
    except Exception:  # the engine is optional for meta; never fail a finished run over it
        ev = None
    return {
        "argv": list(argv),
        "started_utc": started,
        "wall_time_s": round(wall_s, 3),
        "variant_wall_time_s": {k: round(v, 3) for k, v in variant_wall.items()},
        "jobs": jobs,
        "host": platform.node(),  # os.uname(); no socket import
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


class _RunProgress:
    """Progress inside one engine run, on the variants' bar: simulated time of the duration,
    events/s and the time left, refreshed at most twice a second (the engine calls it every
    `POLL_EVENTS` events; nothing calls it when no bar is drawn)."""

    def __init__(self, bar, name: str, duration_ps: int):
        self.bar, self.name, self.duration = bar, name, duration_ps
        self.per_call = engine.poll_events()
        self.calls, self.t0 = 0, time.perf_counter()
        self.shown = self.t0

    def __call__(self, now_ps: int) -> None:
        self.calls += 1
        t = time.perf_counter()
        if t - self.shown < 0.5:
            return
        self.shown, elapsed = t, t - self.t0
        frac = min(now_ps / self.duration, 1.0) if self.duration else 0.0
        eta = f", {elapsed * (1 - frac) / frac:.0f} s left" if frac > 0 else ""
        rate = self.calls * self.per_call / elapsed / 1e6
        self.bar.set_postfix_str(
            f"{self.name}: {now_ps / 1e9:.3g} of {self.duration / 1e9:.3g} ms simulated, {rate:.1f} M events/s{eta}"
        )


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


def _engine_summary(v: Variant, res: dict) -> dict:
    eng_summary = dict(res.get("summary") or {})
    if res.get("pfc_deadlock"):
        eng_summary["pfc_deadlock_ports"] = list(res["pfc_deadlock"])
        print(
            f"dccsim: warning: {v.name}: PFC deadlock at {eng_summary['pfc_deadlock_at_ps'] / 1e9:g} ms "
            f"among ports {', '.join(res['pfc_deadlock'])}; the run stopped there",
            file=sys.stderr,
        )
    return eng_summary


def run_variant(scn: Scenario, v: Variant, analysis, staging: Path, keep_tables: bool, progress=None) -> dict:
    """One variant: the engine, the analysis's metrics, its files in `staging` (OUT/<slug>/, plus
    its own flows_input.parquet when it overrides the workload). Returns {wall, engine, metrics,
    tables (the analysis's input, when keep_tables)}. `progress(now_ps)`: see engine.run."""
    cfg = scn.to_engine_config(v)
    t0 = time.perf_counter()
    res = engine.run(cfg, progress)
    wall = time.perf_counter() - t0
    del cfg
    eng_summary = _engine_summary(v, res)
    metrics, tables = {}, None
    if analysis is not None:
        tables = frames(res)
        metrics = analysis.variant_metrics(scn, v, tables, eng_summary)
    vsum = {
        "variant": v.name,
        "slug": v.slug,
        "seed": scn.seed,
        "cc": v.cc.to_engine(),
        "engine": eng_summary,
        "metrics": metrics,
    }
    results.write_variant(staging, v.slug, res, vsum)
    if v.workload is not None:
        results.write_flow_input(staging / v.slug, scn.flow_list(v).table())
    return {
        "wall": wall,
        "engine": eng_summary,
        "metrics": metrics,
        "tables": tables if keep_tables else None,
    }


def variant_job(scenario_text: str, slug: str, staging: str, keep_tables: bool) -> dict:
    """run_variant in a worker process (`--jobs N`). Bad input comes back as {"error": ...} (a
    ScenarioError does not survive pickling), any other failure as its traceback."""
    from .scenario import loads

    try:
        scn = loads(scenario_text)
        v = scn.variant(slug)
        analysis = _analysis(scn)
        return run_variant(scn, v, analysis, Path(staging), keep_tables)
    except ScenarioError as e:
        return {"error": {"field": e.field, "message": e.message}}
    except InvariantViolation as e:
        return {"error": {"invariant": str(e)}}
    except OSError as e:  # writing the variant's files failed: the parent reports it as its own
        return {"error": {"os": [e.errno, e.strerror, e.filename]}}
    except Exception as e:  # noqa: BLE001  (reported by the parent with the variant's name)
        import traceback

        return {
            "error": {"field": None, "message": f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=5)}"}
        }


def _figure_tables(analysis, tables: dict) -> dict:
    """The tables the analysis's figure reads (its FIGURE_TABLES; all when None): they are
    pickled to the figure worker, and a run's flow series alone can be megabytes."""
    names = analysis.FIGURE_TABLES
    return tables if names is None else {n: tables[n] for n in names}


def _analysis(scn: Scenario):
    """The scenario's analysis; a scenario that names none gets the overview's default figures."""
    name = scn.experiment.analysis if scn.experiment and scn.experiment.analysis else DEFAULT
    analysis = ANALYSES.get(name)
    if analysis is not None and scn.metrics.interval_ps == 0 and analysis.NEEDS_SAMPLES:
        analysis = None  # nothing was sampled, so there is nothing to analyse
    return analysis


def _failed(v: Variant, field: Optional[str], message: str) -> Exception:
    """A variant's failure, naming the variant."""
    if field is not None:
        return ScenarioError(field, f"{message} (variant {v.name!r})")
    return RuntimeError(f"variant {v.name!r} failed: {message}")


def default_jobs() -> int:
    """One worker per core this process may use (its affinity, not the machine's count)."""
    from .cores import usable

    return usable()


# `jobs=None` (the CLI's default): the first variant runs in this process, and the others in up
# to one worker per core only when it took at least this long. Starting a worker costs ≈ 0.3–0.5 s
# (a fresh interpreter importing dccsim, numpy and the engine), so a run of short variants (the
# demo's 0.03 s each) stays in one process, and a paper-scale one (minutes each) uses every core.
PARALLEL_AFTER_S = 1.0


def _without_threads(scn):
    """`scn` as its run directory records it: without `[engine] threads`, which says how the run
    is executed, not what it simulates (every result is byte-identical at any thread count,
    docs/parallel.md), so runs at different counts write the same scenario.toml and are one
    experiment (reruns, claims merges); meta.json's command line keeps the count."""
    import dataclasses

    return dataclasses.replace(scn, engine=dataclasses.replace(scn.engine, threads=1))


def run(
    scn: Scenario,
    out_dir,
    variants: Optional[Sequence[str]] = None,
    progress: bool = True,
    argv: Optional[Sequence[str]] = None,
    force: bool = False,
    memory_limit: Optional[str] = None,
    figures: bool = True,
    jobs: Optional[int] = 1,
) -> dict:
    """Run the chosen variants (default: all) and write OUT (docs/results.md). Returns summary.json.

    jobs: variants run in up to this many worker processes at once (1: one after the other in
    this process; None: automatic, up to one per core when a variant takes at least
    PARALLEL_AFTER_S). The results do not depend on it: every file but meta.json
    is byte-identical whatever `jobs` is (variants are listed in the scenario's order).

    Everything is written into a staging directory that replaces OUT only at the end (outdir.py);
    OUT is checked, and locked, before the first simulation starts. On Ctrl-C the variants that
    finished are kept in OUT with ``complete: false`` and RunInterrupted is raised; on any other
    error OUT stays as it was. figures=False skips drawing (metrics and claims are still computed).
    """
    out = Path(out_dir)
    chosen = select_variants(scn, variants)
    analysis = _analysis(scn)
    n_jobs = min(jobs or default_jobs(), len(chosen))
    limits.check(scn, len(chosen), limits.resolve_limit(memory_limit), concurrent=n_jobs)
    for v in chosen:  # resolve every flow list before running (bad input fails before any run)
        scn.flow_list(v)
    engine.require()
    scenario_text = dump_toml(_without_threads(scn))
    staging = outdir.prepare(out, force=force, scenario_text=scenario_text)
    # started at the latest now, so that importing matplotlib overlaps with the engine (the CLI
    # forks it before its own imports: figure_worker.prestart)
    worker = None
    if analysis is not None and figures:
        from . import figure_worker

        worker = figure_worker.take(native=analysis.NATIVE_FIGURE)
    elif "dccsim.figure_worker" in sys.modules:
        sys.modules["dccsim.figure_worker"].discard_prestarted()
    started = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())  # no datetime import
    t_start = time.perf_counter()
    argv = list(argv if argv is not None else sys.argv)

    summary = {
        "schema": results.SCHEMA,
        "experiment": scn.name,
        "title": scn.experiment.title if scn.experiment else "",
        "seed": scn.seed,
        "analysis": (scn.experiment.analysis if scn.experiment and scn.experiment.analysis else DEFAULT)
        if analysis
        else None,
        "order": [],
        "runs": {},
        "claims": [],
        "figures": [],
        "complete": False,
    }
    finished: dict[str, dict] = {}
    wall: dict[str, float] = {}

    def write_meta():
        results.write_json(
            staging / "meta.json",
            _meta(argv, started, time.perf_counter() - t_start, wall, worker, n_jobs),
        )

    def record(v: Variant, outcome: dict) -> None:
        """A variant finished: into summary.json (scenario order, whatever order they finish in)."""
        if "error" in outcome:
            err = outcome["error"]
            if "os" in err:
                raise OSError(*err["os"])
            if "invariant" in err:
                raise InvariantViolation(f"{err['invariant']} (variant {v.name!r})")
            raise _failed(v, err["field"], err["message"])
        finished[v.slug] = outcome
        wall[v.slug] = outcome["wall"]
        summary["order"] = [x.slug for x in chosen if x.slug in finished]
        summary["runs"] = {
            x.slug: {
                "name": x.name,
                "algorithm": x.cc.algorithm,
                "engine": finished[x.slug]["engine"],
                "metrics": finished[x.slug]["metrics"],
            }
            for x in chosen
            if x.slug in finished
        }
        results.write_json(staging / "summary.json", summary)  # partial, rewritten after each variant
        bar.update(1)

    bar = _progress_bar(progress, total=len(chosen), desc=scn.name)
    keep = worker is not None
    try:
        results.write_text(staging / "scenario.toml", scenario_text)
        results.write_flow_input(staging, scn.flow_list().table())
        pending = list(chosen)

        def run_here(v: Variant) -> None:
            bar.set_postfix_str(v.name)
            inside = None if isinstance(bar, _NoBar) else _RunProgress(bar, v.name, scn.duration_ps)
            try:
                outcome = run_variant(scn, v, analysis, staging, keep, inside)
            except ScenarioError as e:
                raise _failed(v, e.field, e.message) from None
            except InvariantViolation as e:
                raise InvariantViolation(f"{e} (variant {v.name!r})") from None
            record(v, outcome)

        if jobs is None and n_jobs > 1:
            # automatic: the first variant here; workers for the rest only if it was long enough
            # to repay starting them (each imports dccsim anew)
            first = pending.pop(0)
            run_here(first)
            if wall[first.slug] < PARALLEL_AFTER_S:
                n_jobs = 1
        if n_jobs > 1 and len(pending) > 1:
            from .procpool import run_unordered

            by_slug = {v.slug: v for v in pending}
            running: list[str] = []

            def began(slug):
                running.append(by_slug[slug].name)
                bar.set_postfix_str(", ".join(running))

            tasks = [(v.slug, (scenario_text, v.slug, str(staging), keep)) for v in pending]
            for slug, outcome in run_unordered(variant_job, tasks, n_jobs, began):
                running.remove(by_slug[slug].name)
                bar.set_postfix_str(", ".join(running))
                record(by_slug[slug], outcome)
        else:
            for v in pending:
                run_here(v)
        bar.close()
        if analysis is not None:
            metrics_by_slug = {s: finished[s]["metrics"] for s in summary["order"]}
            summary["claims"] = analysis.claims(*scn.for_claims(metrics_by_slug))
            if worker is not None:
                series = {
                    v.slug: (
                        v,
                        _figure_tables(analysis, finished[v.slug]["tables"]),
                        finished[v.slug]["metrics"],
                    )
                    for v in chosen
                }
                name = summary["analysis"]
                figure_file.write_figure(
                    staging / analysis.FIGURE, lambda p: worker.draw(name, scn, series, p)
                )
                summary["figures"] = [analysis.FIGURE]
        summary["complete"] = True
        results.write_json(staging / "summary.json", summary)
        write_meta()
        outdir.commit(staging, out)
    except KeyboardInterrupt:
        bar.close()
        if worker is not None:
            worker.stop()  # at once: close() would wait for the child's matplotlib import
        if not summary["order"]:
            outdir.discard(staging, out)
            raise RunInterrupted(f"no variant had finished; {str(out)!r} left as it was") from None
        try:
            _drop_unfinished(staging, chosen, summary["order"])
            write_meta()  # summary.json on disk already says complete: false
            outdir.commit(staging, out)
        except OSError:
            outdir.discard(staging, out)
            raise RunInterrupted("the finished variants could not be saved") from None
        raise RunInterrupted(
            f"kept {len(summary['order'])} of {len(chosen)} variants in {str(out)!r} (complete: false)"
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


def _drop_unfinished(staging: Path, chosen: list[Variant], order: list[str]) -> None:
    """Remove the files a stopped variant had begun to write (its worker was killed mid-write)."""
    import shutil

    for v in chosen:
        if v.slug not in order and (staging / v.slug).exists():
            shutil.rmtree(staging / v.slug)


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
