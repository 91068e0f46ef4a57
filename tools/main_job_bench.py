"""Whole-process time of the main job, `dccsim run powertcp-incast` (figure included), pinned to
one core: issue 28 item 4 asks for it under 1 s (docs/benchmarks.md, "The main job on one core").

    python tools/main_job_bench.py [--runs N] [--cpu C] [--no-figures] [--tree DIR ...] [--json]

Each run is a fresh `python -m dccsim run powertcp-incast --force --out TMP` pinned to CPU C (the
child's affinity is set before it starts, as `taskset -c C` does), timed from fork to exit
(wall) with its CPU time (user + sys of it and its children, from wait4). One unmeasured run
first writes the bytecode and warms the page cache; PYTHONDONTWRITEBYTECODE is removed from the
children's environment so that they load compiled modules as an installed package does.

--tree DIR (repeatable): the `python/` directory of a checkout to import dccsim from
(PYTHONPATH); with two or more the runs alternate between them (A, B, A, B, ...) so that a
change in the machine's speed reaches every tree alike. Default: the dccsim this Python imports.
Prints min / median / max per tree and the load average before and after: on a shared machine
the wall time includes waiting for the core, so report the load beside the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def one_run(tree: str | None, cpu: int, out: str, extra: list[str]) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if tree is not None:
        env["PYTHONPATH"] = os.path.abspath(tree)
    cmd = [
        sys.executable,
        "-m",
        "dccsim",
        "run",
        "powertcp-incast",
        "--force",
        "--quiet",
        "--out",
        out,
        *extra,
    ]
    t0 = time.perf_counter()
    p = subprocess.Popen(
        cmd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
    )
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if p.returncode != 0:
        raise SystemExit(f"main_job_bench: error: run failed (exit {p.returncode}): {err.strip()}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime}


def loadavg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def summary(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=11, help="measured runs per tree (default 11)")
    ap.add_argument("--cpu", type=int, default=0, help="the one CPU every run is pinned to (default 0)")
    ap.add_argument("--no-figures", action="store_true", help="time `--no-figures` instead")
    ap.add_argument("--tree", action="append", help="a checkout's python/ directory (repeatable)")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error(f"--runs: must be at least 1, got {args.runs}")
    if args.cpu not in os.sched_getaffinity(0):
        ap.error(
            f"--cpu: must be one of this process's CPUs {sorted(os.sched_getaffinity(0))}, got {args.cpu}"
        )
    trees = args.tree or [None]
    extra = ["--no-figures"] if args.no_figures else []
    results: dict[str, list[dict]] = {str(t): [] for t in trees}
    load_before = loadavg()
    with tempfile.TemporaryDirectory(prefix="dccsim-main-job-") as tmp:
        for t in trees:  # warm-up: bytecode, page cache
            one_run(t, args.cpu, os.path.join(tmp, "warm"), extra)
        for _ in range(args.runs):
            for i, t in enumerate(trees):
                results[str(t)].append(one_run(t, args.cpu, os.path.join(tmp, f"o{i}"), extra))
    report = {
        "command": "dccsim run powertcp-incast" + (" --no-figures" if args.no_figures else ""),
        "cpu": args.cpu,
        "runs": args.runs,
        "loadavg_before": load_before,
        "loadavg_after": loadavg(),
        "trees": {
            t: {
                "wall_s": summary([r["wall_s"] for r in rs]),
                "cpu_s": summary([r["cpu_s"] for r in rs]),
                "under_1s": sum(r["wall_s"] < 1.0 for r in rs),
            }
            for t, rs in results.items()
        },
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{report['command']}, pinned to CPU {args.cpu}, {args.runs} runs per tree")
    print(f"load average before {report['loadavg_before']}, after {report['loadavg_after']}")
    for t, r in report["trees"].items():
        w, c = r["wall_s"], r["cpu_s"]
        name = "dccsim as imported" if t == "None" else t
        print(
            f"{name}: wall min {w['min']:.3f} / median {w['median']:.3f} / max {w['max']:.3f} s "
            f"({r['under_1s']} of {args.runs} under 1 s); CPU min {c['min']:.3f} / median {c['median']:.3f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
