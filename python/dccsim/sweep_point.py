"""One sweep point, run in a worker process (local pool or Ray task): resolve its scenario and run
it with the ordinary runner, which writes through dccsim.outdir (a staging directory renamed into
place, a lock); the point counts as finished only once point.json is written after that, so a
killed sweep never leaves a half point that looks finished."""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path

POINT_FILE = "point.json"


def is_done(point_dir: Path) -> bool:
    """A point is finished when its directory exists with point.json and a complete summary."""
    try:
        summary = json.loads((point_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(summary.get("complete")) and (point_dir / POINT_FILE).is_file()


def run_point(root: str, job: dict) -> dict:
    """job = {id, params, seed, base_text, name, variants, figures}; returns {id, status, error,
    wall_s}. Never raises for a failed run: the failure is the result."""
    from . import results, runner
    from .sweep_spec import scenario_for

    root_p = Path(root)
    final = root_p / "points" / job["id"]
    t0 = time.perf_counter()
    if is_done(final):
        return {"id": job["id"], "status": "done", "error": None, "wall_s": 0.0}
    try:
        scn = scenario_for(job["base_text"], job["params"], job["seed"], job["name"])
        # force: a leftover of an earlier, killed sweep (no point.json) is replaced
        runner.run(
            scn,
            final,
            variants=job["variants"],
            progress=False,
            argv=["dccsim", "sweep"],
            figures=job["figures"],
            force=True,
        )
        results.write_json(
            final / POINT_FILE, {"id": job["id"], "params": job["params"], "seed": job["seed"]}
        )
        return {"id": job["id"], "status": "done", "error": None, "wall_s": time.perf_counter() - t0}
    except Exception as e:  # noqa: BLE001  (recorded as the point's failure)
        msg = str(e) if hasattr(e, "field") else f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}"
        return {"id": job["id"], "status": "failed", "error": msg, "wall_s": time.perf_counter() - t0}
