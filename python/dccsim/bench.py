"""`dccsim bench`: engine speed on the reference experiments.

Each case runs in a fresh Python subprocess (so peak RSS is that run's alone, read from the
child's rusage via os.wait4). The child times the engine call (mean over repetitions of runs
shorter than 0.5 s) and its two phases as the engine reports them: the build (checks, topology,
routes, flow setup) and the simulation (the event loop and the results). The rates divide the
engine summary's `events`, `data_packets_delivered` and `packet_hops` by the simulation's wall
time; `setup_s` is what comes before it: the front's scenario → engine config (workload
generation included) plus the engine's build.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Optional

INCAST = "powertcp-incast"
PERMUTATION = "bench-fattree-perm"
# The same permutation workload on larger FatTrees (k = 16: 1024 hosts, k = 32: 8192 hosts), for
# how speed and memory scale; slow (about a minute each), so only with --scale or --only.
# bench-websearch-0.6: websearch at load 0.6 on the 256-host FatTree (issue 8, paper scale), one
# case per algorithm; minutes each.
WEBSEARCH = "bench-websearch-0.6"
# bench-fattree-65536-perm: k = 64 (65 536 hosts), a few microseconds, for setup and memory.
SCALE = ("bench-fattree-1024-perm", "bench-fattree-8192-perm", "bench-fattree-65536-perm", WEBSEARCH)
MIN_TIMED_S = 0.5
MAX_REPS = 50


def cases(scale: bool = True) -> list[tuple[str, str, Optional[str]]]:
    """(case name, experiment, variant name or None) in run order; the scale cases last."""
    from . import experiments

    out = [(f"{INCAST}/{v.slug}", INCAST, v.name) for v in experiments.get(INCAST).variants()]
    out.append((PERMUTATION, PERMUTATION, None))
    if scale:
        out += [(name, name, None) for name in SCALE if name != WEBSEARCH]
        out += [(f"{WEBSEARCH}/{v.slug}", WEBSEARCH, v.name) for v in experiments.get(WEBSEARCH).variants()]
    return out


def _child(experiment: str, variant: Optional[str]) -> dict:
    from . import engine, experiments

    t0 = time.perf_counter()
    scn = experiments.get(experiment)
    cfg = scn.to_engine_config(variant)
    front = time.perf_counter() - t0
    # Short cases are repeated (identical, deterministic runs) until MIN_TIMED_S have passed, so
    # that the rates are not dominated by timer resolution and one-off start-up costs.
    reps, total, build, simulate = 0, 0.0, 0.0, 0.0
    while reps < MAX_REPS and (reps == 0 or total < MIN_TIMED_S):
        t0 = time.perf_counter()
        res = engine.run(cfg)
        total += time.perf_counter() - t0
        build += res["phase_times"]["build_s"]
        simulate += res["phase_times"]["simulate_s"]
        reps += 1
    return {
        "front_s": front,
        "engine_wall_s": total / reps,
        "build_s": build / reps,
        "simulate_s": simulate / reps,
        "repetitions": reps,
        "summary": res["summary"],
        "memory": res.get("engine_memory", {}),
    }


def run_case(experiment: str, variant: Optional[str]) -> dict:
    """Run one case in a subprocess; returns timings, peak RSS and rates."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        cmd = [sys.executable, "-m", "dccsim.bench", "--child", experiment] + ([variant] if variant else [])
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(
                f"benchmark {experiment} {variant or ''} failed "
                f"(exit {proc.returncode}):\n{err.read()[-2000:]}"
            )
        data = json.loads(out.read())
    s, t = data["summary"], data["simulate_s"]
    return {
        "process_wall_s": round(wall, 3),
        "engine_wall_s": round(data["engine_wall_s"], 4),
        "front_s": round(data["front_s"], 4),
        "build_s": round(data["build_s"], 4),
        "setup_s": round(data["front_s"] + data["build_s"], 4),
        "simulate_s": round(t, 4),
        "repetitions": data["repetitions"],
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),  # ru_maxrss is in KiB on Linux
        "sim_time_ps": s.get("sim_time_ps"),
        "events": s.get("events"),
        "data_packets_delivered": s.get("data_packets_delivered"),
        "packet_hops": s.get("packet_hops"),
        "events_per_s": round(s.get("events", 0) / t) if t > 0 else None,
        "data_packets_delivered_per_s": round(s.get("data_packets_delivered", 0) / t) if t > 0 else None,
        "packet_hops_per_s": round(s.get("packet_hops", 0) / t) if t > 0 else None,
        # bytes the engine's structures held at the end (pool, event queue, ports, routes, flows)
        "engine_memory": data.get("memory", {}),
    }


def _table(rows: dict) -> str:
    head = (
        "case",
        "setup s",
        "build s",
        "simulate s",
        "RSS MiB",
        "pool pkts",
        "queue MiB",
        "events/s",
        "data pkts/s",
        "pkt-hops/s",
    )
    lines = [head]
    for name, r in rows.items():
        lines.append(
            (
                name,
                f"{r['setup_s']:.3f}",
                f"{r['build_s']:.3f}",
                f"{r['simulate_s']:.3f}",
                f"{r['peak_rss_mib']:.0f}",
                # the packet pool's peak and the event queue's buffers (engine_memory)
                str(r["engine_memory"].get("pool_peak_packets", "-")),
                f"{r['engine_memory'].get('sched_bytes', 0) / 2**20:.1f}",
                f"{r['events_per_s']:.3g}",
                f"{r['data_packets_delivered_per_s']:.3g}",
                f"{r['packet_hops_per_s']:.3g}",
            )
        )
    w = [max(len(l[i]) for l in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(c.rjust(x) if i else c.ljust(x) for i, (c, x) in enumerate(zip(l, w))) for l in lines
    )


def main(json_out: bool = False, only: Optional[str] = None, scale: bool = False) -> int:
    from . import engine
    from .errors import ScenarioError

    engine.require()
    todo = cases(scale=True)
    if only:
        todo = [c for c in todo if only in (c[0], c[1])]
        if not todo:
            raise ScenarioError(
                "--only",
                f"unknown benchmark {only!r}; allowed: "
                f"{', '.join(dict.fromkeys([INCAST] + [c[0] for c in cases(scale=True)]))}",
            )
    elif not scale:
        todo = [c for c in todo if c[1] not in SCALE]
    rows = {}
    for name, exp, variant in todo:
        if not json_out:
            print(f"running {name} ...", file=sys.stderr, flush=True)
        rows[name] = run_case(exp, variant)
    if json_out:
        print(json.dumps({"benchmarks": rows}, sort_keys=True, indent=2))
    else:
        print(_table(rows))
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        print(json.dumps(_child(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)))
    else:
        sys.exit(main(json_out="--json" in sys.argv))
