"""Per-ACK cost of a congestion-control law run as a plugin against the same law in native Rust
(docs/benchmarks.md, "Plugins"): DCTCP, Linux reading, as the native `dctcp` (variant = "linux")
and as bpf/laws/dctcp.bpf.c (law = 1, the same reading), on the networks and flows of `powertcp-incast` and
`bench-fattree-perm` with step ECN marking at K = 65 KB (so that the law cuts), engine CPU time only (process_time: the machine is shared)
(short runs repeated for 0.5 s), native and plugin runs interleaved, minimum of REPS each.

    PYTHONPATH=python python tools/plugin_bench.py [REPS]
    PYTHONPATH=python python tools/plugin_bench.py --instructions [CUT_MS]

`--instructions`: the instructions of each engine run instead of its seconds, counted by valgrind's
cachegrind (`--cache-sim=no`; they do not depend on the machine's load): the whole process that
runs the engine configuration (given as the same JSON text) minus the same process that only
parses it; bench-fattree-perm cut to CUT_MS (default 1 ms) to keep cachegrind's time short.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dccsim import engine, experiments
from dccsim.scenario import from_dict, to_dict

ROOT = Path(__file__).resolve().parents[1]
CASES = ("powertcp-incast", "bench-fattree-perm")


def config(name: str, cc: dict) -> dict:
    d = to_dict(experiments.get(name))
    d.pop("experiment", None)
    d["cc"] = cc
    d.setdefault("switch", {})["ecn"] = {"kind": "step", "k": "65KB"}
    return from_dict(d, default_name=name).to_engine_config(None)


def timed(cfg: dict) -> tuple[float, dict]:
    """Engine CPU seconds of one run: the mean over repetitions until 0.5 s have passed (short runs)."""
    reps, total = 0, 0.0
    while reps == 0 or total < 0.5:
        t0 = time.process_time()
        res = engine.run(cfg)
        total += time.process_time() - t0
        reps += 1
    return total / reps, res["summary"]


def main(reps: int) -> None:
    print("| case | ACKs | native s | plugin s | plugin / native | extra ns per ACK |")
    print("|---|---|---|---|---|---|")
    for name in CASES:
        native = config(name, {"algorithm": "dctcp", "variant": "linux"})
        plugin = config(name, {"plugin": str(ROOT / "bpf" / "laws" / "dctcp.bpf.c"), "law": 1})
        tn, tp = [], []
        for _ in range(reps):
            t, sn = timed(native)
            tn.append(t)
            t, sp = timed(plugin)
            tp.append(t)
        acks = sp["packets_delivered"] - sp["data_packets_delivered"]
        n, p = min(tn), min(tp)
        print(f"| {name} | {acks} | {n:.3f} | {p:.3f} | {p / n:.2f} | {(p - n) / acks * 1e9:.0f} |")
        same = sn["events"] == sp["events"]
        print(f"<!-- {name}: events native {sn['events']} plugin {sp['events']} (same: {same}) -->")


CHILD = """
import sys
from dccsim import _engine
text = open(sys.argv[1]).read()
if sys.argv[2] == "run":
    _engine.run(text, None)
"""


def instructions(cfg: dict, mode: str) -> int:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(json.dumps(cfg, sort_keys=True))
    try:
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        out = subprocess.run(
            [*cmd, sys.executable, "-c", CHILD, f.name, mode], env=env, capture_output=True, text=True
        )
    finally:
        os.unlink(f.name)
    m = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if out.returncode != 0 or m is None:
        sys.exit(f"cachegrind failed: {out.stderr.strip()[-500:]}")
    return int(m.group(1).replace(",", ""))


def main_instructions(cut_ms: float) -> None:
    print("| case | ACKs | native instructions | plugin instructions | plugin / native | extra per ACK |")
    print("|---|---|---|---|---|---|")
    for name in CASES:
        native = config(name, {"algorithm": "dctcp", "variant": "linux"})
        plugin = config(name, {"plugin": str(ROOT / "bpf" / "laws" / "dctcp.bpf.c"), "law": 1})
        if name == "bench-fattree-perm":
            native["duration_ps"] = plugin["duration_ps"] = int(cut_ms * 1e9)
        sp = engine.run(plugin)["summary"]
        acks = sp["packets_delivered"] - sp["data_packets_delivered"]
        n = instructions(native, "run") - instructions(native, "parse")
        p = instructions(plugin, "run") - instructions(plugin, "parse")
        print(f"| {name} | {acks} | {n:,} | {p:,} | {p / n:.2f} | {(p - n) / acks:.0f} |")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--instructions":
        main_instructions(float(sys.argv[2]) if len(sys.argv) > 2 else 1.0)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
