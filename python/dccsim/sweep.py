"""`dccsim sweep spec.toml`: run every point of a sweep (sweep_spec.py) in parallel, in local
worker processes (default, `--jobs N`) or as Ray tasks (`--ray` starts a local Ray, `--ray
ADDRESS` joins a cluster). Results do not depend on where a point ran: each point is an ordinary
deterministic run. A rerun skips finished points. Progress (done, running, failed, ETA) is a rich
bar on stderr when it is a terminal.

OUT/
  sweep.json          the spec, every point (id, params, seed, status, error): written with
                      complete: false before the first point runs, rewritten at the end
  points/<id>/        one run directory per point (docs/results.md) plus point.json
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Callable, Iterable, Optional

from . import outdir, results
from .errors import OutputError
from .sweep_point import is_done, run_point
from .sweep_spec import SweepSpec

SWEEP_SCHEMA = "dccsim-sweep/1"


def jobs_for(spec: SweepSpec) -> list[dict]:
    base_name = spec.name
    from .scenario import loads

    name = loads(spec.base_text).name or base_name
    return [
        {
            "id": p.id,
            "params": p.params,
            "seed": p.seed,
            "base_text": spec.base_text,
            "name": name,
            "variants": spec.variants,
            "figures": spec.figures,
        }
        for p in spec.points()
    ]


# ----------------------------------------------------------------------------------------------
# Executors: each yields results as points finish and calls started(id) when one begins.


def _local(root: str, jobs: list[dict], n: int, started: Callable[[str], None]) -> Iterable[dict]:
    from .procpool import run_unordered

    for _, result in run_unordered(run_point, [(j["id"], (root, j)) for j in jobs], n, started):
        yield result


def _ray(
    root: str, jobs: list[dict], address: Optional[str], started: Callable[[str], None]
) -> Iterable[dict]:
    import ray

    here = str(Path(__file__).resolve().parents[1])
    env = {"env_vars": {"PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}}
    own = not ray.is_initialized()
    if own:
        kw = (
            {"address": address} if address else {"num_cpus": os.cpu_count() or 1, "include_dashboard": False}
        )
        ray.init(runtime_env=env, log_to_driver=False, configure_logging=False, **kw)
    try:
        task = ray.remote(num_cpus=1)(run_point)
        refs = {}
        for job in jobs:
            refs[task.remote(root, job)] = job["id"]
            started(job["id"])  # queued on the cluster; Ray starts it when a CPU is free
        left = list(refs)
        while left:
            done, left = ray.wait(left, num_returns=1)
            for r in done:
                yield ray.get(r)
    finally:
        if own:
            ray.shutdown()


# ----------------------------------------------------------------------------------------------


class _Progress:
    def __init__(self, total: int, skipped: int, enabled: bool, console=None):
        self.total, self.done, self.failed, self.running = total, skipped, 0, 0
        self._bar = None
        if enabled:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("sweep"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total} done"),
                TextColumn("{task.fields[running]} running"),
                TextColumn("{task.fields[failed]} failed"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                transient=False,
                console=console or Console(stderr=True),  # stdout holds the result line
            )
            self._bar.start()
            self._task = self._bar.add_task("sweep", total=total, completed=skipped, running=0, failed=0)

    def update(self, started: int = 0, finished: Optional[dict] = None) -> None:
        self.running += started
        if finished is not None:
            self.running -= 1
            self.done += 1
            self.failed += finished["status"] == "failed"
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, running=self.running, failed=self.failed)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


def run(
    spec: SweepSpec,
    jobs: Optional[int] = None,
    ray_address: Optional[str] = None,
    use_ray: bool = False,
    progress: bool = True,
    on_point: Optional[Callable[[dict, dict], None]] = None,
    force: bool = False,
) -> dict:
    """Run the sweep; returns sweep.json's content. on_point(job, result) is called as each
    point finishes (the catalog registers it there).

    OUT is locked for the whole sweep (``.<OUT>.lock`` beside it: a second sweep into OUT is
    refused naming the first one's pid). A sweep.json saying ``complete: false`` is written before
    the first point runs and rewritten at the end (also on Ctrl-C or SIGTERM), so a killed sweep
    never looks complete. OUT holding a sweep of another base scenario is refused (OutputError
    naming ``sweep.base``) unless `force`, which removes that sweep's points first."""
    root = spec.out
    outdir.lock(root, "sweep")
    try:
        return _run_locked(spec, jobs, ray_address, use_ray, progress, on_point, force)
    finally:
        outdir.release(root)


def _check_base(spec: SweepSpec, all_jobs: list[dict], force: bool) -> None:
    """Refuse to resume a sweep whose base scenario changed (unless force: its points go)."""
    root = spec.out
    try:
        old = json.loads((root / "sweep.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # no sweep yet (or a damaged sweep.json: its points are checked one by one)
    if not isinstance(old, dict) or old.get("base") in (None, spec.base_text):
        return
    if not force:
        raise OutputError(
            "sweep.base",
            f"{str(root)!r} holds a sweep of another base scenario (the base changed since it ran); "
            "pass --force to remove its points and run this one, or choose another --out",
        )
    keep = {j["id"] for j in all_jobs}
    points = root / "points"
    for d in points.iterdir() if points.is_dir() else ():
        if d.name not in keep and not d.name.startswith("."):
            shutil.rmtree(d)


def _doc(spec: SweepSpec, all_jobs: list[dict], outcome: dict) -> dict:
    return {
        "schema": SWEEP_SCHEMA,
        "name": spec.name,
        "base": spec.base_text,
        "grid": spec.grid,
        "seeds": spec.seeds,
        "variants": spec.variants,
        "points": [
            {
                "id": j["id"],
                "params": j["params"],
                "seed": j["seed"],
                **outcome.get(j["id"], {"status": "not run", "error": None}),
            }
            for j in all_jobs
        ],
        "complete": all(outcome.get(j["id"], {}).get("status") == "done" for j in all_jobs),
    }


def _run_locked(spec, jobs, ray_address, use_ray, progress, on_point, force) -> dict:
    root = spec.out
    all_jobs = jobs_for(spec)
    _check_base(spec, all_jobs, force)
    (root / "points").mkdir(parents=True, exist_ok=True)
    todo = [j for j in all_jobs if not is_done(root / "points" / j["id"])]
    # finished before this run: "done" as well (sweep.json is the same whether or not a run resumed)
    outcome = {j["id"]: {"status": "done", "error": None} for j in all_jobs if j not in todo}
    results.write_json(root / "sweep.json", _doc(spec, all_jobs, outcome))  # complete: false till the end
    counts = {"run": 0, "skipped": len(all_jobs) - len(todo), "failed": 0}
    bar = _Progress(len(all_jobs), len(all_jobs) - len(todo), progress and sys.stderr.isatty())
    t0 = time.perf_counter()
    by_id = {j["id"]: j for j in all_jobs}
    try:
        if todo:
            started = lambda _id: bar.update(started=1)  # noqa: E731
            n = jobs or os.cpu_count() or 1
            it = (
                _ray(str(root), todo, ray_address, started)
                if use_ray
                else _local(str(root), todo, n, started)
            )
            for r in it:
                outcome[r["id"]] = {"status": r["status"], "error": r["error"]}
                counts["failed" if r["status"] == "failed" else "run"] += 1
                bar.update(finished=r)
                if on_point is not None and r["status"] == "done":
                    on_point(by_id[r["id"]], r)
    except KeyboardInterrupt:
        done = sum(1 for o in outcome.values() if o["status"] == "done")
        raise KeyboardInterrupt(
            f"{done} of {len(all_jobs)} points done; {str(root / 'sweep.json')!r} says complete: false"
        ) from None
    finally:
        bar.close()
        for j in todo:  # a point whose worker was stopped (Ctrl-C, SIGTERM): its leftovers go
            if j["id"] not in outcome:
                outdir.clean_stale(root / "points" / j["id"])
        doc = _doc(spec, all_jobs, outcome)
        results.write_json(root / "sweep.json", doc)
        results.write_json(
            root / "sweep_meta.json",
            {
                "wall_time_s": round(time.perf_counter() - t0, 3),
                "executor": "ray" if use_ray else "local",
                "jobs": jobs or os.cpu_count(),
                "ray_address": ray_address,
                "last_run": counts,
            },
        )
    doc["last_run"] = counts
    return doc
