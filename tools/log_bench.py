"""What the debug log costs when it is off (docs/benchmarks.md, "Debug log"): engine CPU time of
`bench-fattree-perm` with two builds of the engine, run alternately in fresh processes (paired
runs), the minimum and median of each.

    python tools/log_bench.py BEFORE_DIR AFTER_DIR [REPS]

BEFORE_DIR and AFTER_DIR are `python/` directories of two checkouts built the same way (`make dev`):
each process imports `dccsim` from one of them, builds the experiment's engine configuration with
that checkout's own front and times `engine.run` alone (process_time: the machine is shared)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

CHILD = """
import json, time
from dccsim import engine, experiments
cfg = experiments.get("bench-fattree-perm").to_engine_config(None)
t0 = time.process_time()
res = engine.run(cfg)
print(json.dumps({"cpu_s": time.process_time() - t0, "events": res["summary"]["events"],
                  "log": len(res.get("log") or "")}))
"""


def one(python_dir: str) -> dict:
    env = {**os.environ, "PYTHONPATH": python_dir}
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(before: str, after: str, reps: int) -> None:
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(reps):
        for name, d in (("before", before), ("after", after)):
            runs[name].append(one(d))
    events = {name: {r["events"] for r in rs} for name, rs in runs.items()}
    assert events["before"] == events["after"] and len(events["after"]) == 1, events
    print("| build | runs | engine CPU s, min | median | events |")
    print("|---|---|---|---|---|")
    for name, rs in runs.items():
        t = [r["cpu_s"] for r in rs]
        print(f"| {name} | {len(t)} | {min(t):.3f} | {statistics.median(t):.3f} | {rs[0]['events']} |")
    print("<!-- all: " + json.dumps({k: [round(r["cpu_s"], 3) for r in v] for k, v in runs.items()}) + " -->")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5)
