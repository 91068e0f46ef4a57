"""What the debug log costs when it is off (docs/benchmarks.md, "Debug log"): `bench-fattree-perm`
run by two builds of the engine, each in fresh processes, alternately (paired runs).

    python tools/log_bench.py BEFORE_DIR AFTER_DIR [REPS] [--cut-ms MS]
    python tools/log_bench.py BEFORE_DIR AFTER_DIR --instructions [--cut-ms MS]

BEFORE_DIR and AFTER_DIR are `python/` directories of two checkouts built the same way (`make dev`).
The engine configuration is built once, by AFTER_DIR's front, and given to both engines as the
same JSON text, so that only the engine differs; `--cut-ms` ends the run early (default: the
experiment's 10 ms).

- Seconds (default): engine CPU time (`process_time`) of `run`, REPS pairs, min and median. Take
  them on a quiet machine: on a loaded one, single runs spread by more than any cost of the log.
- `--instructions`: the instructions the whole process executes under valgrind's cachegrind
  (`--cache-sim=no`), which do not depend on the machine's load, minus those of the same process
  that imports the engine and parses the configuration but does not run it (so the figure is the
  run's own); one run per build (the count is deterministic for a given binary and input)."""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

CHILD = """
import json, sys, time
from dccsim import _engine
text = open(sys.argv[1]).read()
json.loads(text)
if sys.argv[2] == "run":
    t0 = time.process_time()
    res = _engine.run(text, None)
    print(json.dumps({"cpu_s": time.process_time() - t0, "events": res["summary"]["events"],
                      "log": len(res.get("log") or "")}))
"""


def config(python_dir: str, cut_ms: float | None) -> str:
    """The experiment's engine JSON as `python_dir`'s front builds it, cut to `cut_ms`."""
    code = (
        "import json, sys; from dccsim import experiments; "
        "cfg = experiments.get('bench-fattree-perm').to_engine_config(None); "
        "cut = float(sys.argv[1]); "
        "cfg['duration_ps'] = int(cut * 1e9) if cut > 0 else cfg['duration_ps']; "
        "print(json.dumps(cfg, sort_keys=True))"
    )
    env = {**os.environ, "PYTHONPATH": python_dir}
    out = subprocess.run(
        [sys.executable, "-c", code, str(cut_ms or 0)], env=env, capture_output=True, text=True
    )
    if out.returncode != 0:
        sys.exit(out.stderr.strip().splitlines()[-1])
    return out.stdout


def one(python_dir: str, cfg_path: str) -> dict:
    env = {**os.environ, "PYTHONPATH": python_dir}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, cfg_path, "run"], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def instructions(python_dir: str, cfg_path: str, mode: str) -> int:
    """Instructions of the child process in `mode` ("run" or "parse") under cachegrind."""
    env = {**os.environ, "PYTHONPATH": python_dir, "PYTHONHASHSEED": "0"}
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    out = subprocess.run(
        [*cmd, sys.executable, "-c", CHILD, cfg_path, mode], env=env, capture_output=True, text=True
    )
    m = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if out.returncode != 0 or m is None:
        sys.exit(f"cachegrind failed for {python_dir}: {out.stderr.strip()[-500:]}")
    return int(m.group(1).replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("reps", nargs="?", type=int, default=5)
    ap.add_argument("--cut-ms", type=float, default=None, help="end the run after this many ms")
    ap.add_argument("--instructions", action="store_true", help="count instructions with cachegrind")
    a = ap.parse_args()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(config(a.after, a.cut_ms))
    try:
        if a.instructions:
            print("| build | instructions, whole process | of which the run | events |")
            print("|---|---|---|---|")
            runs = {}
            for name, d in (("before", a.before), ("after", a.after)):
                total, base = instructions(d, f.name, "run"), instructions(d, f.name, "parse")
                runs[name] = total - base
                print(f"| {name} | {total:,} | {total - base:,} | {one(d, f.name)['events']} |")
            print(f"after/before − 1 (the run's instructions): {runs['after'] / runs['before'] - 1:+.3%}")
            return
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for _ in range(a.reps):
            for name, d in (("before", a.before), ("after", a.after)):
                runs[name].append(one(d, f.name))
    finally:
        os.unlink(f.name)
    events = {name: {r["events"] for r in rs} for name, rs in runs.items()}
    assert events["before"] == events["after"] and len(events["after"]) == 1, events
    print("| build | runs | engine CPU s, min | median | events |")
    print("|---|---|---|---|---|")
    for name, rs in runs.items():
        t = [r["cpu_s"] for r in rs]
        print(f"| {name} | {len(t)} | {min(t):.3f} | {statistics.median(t):.3f} | {rs[0]['events']} |")
    print("<!-- all: " + json.dumps({k: [round(r["cpu_s"], 3) for r in v] for k, v in runs.items()}) + " -->")


if __name__ == "__main__":
    main()
