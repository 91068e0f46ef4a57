#!/bin/sh
# Paired A/B timing of two built engines on the scale cases (docs/benchmarks.md, issue 28).
#
#   tools/bench_pair.sh A.so B.so [ROUNDS] [CASE...]
#
# A.so and B.so are two builds of the Python extension (`python/dccsim/_engine.abi3.so`, e.g. from
# `make install` or `cargo build --release -p dccsim-py` at two commits, copied aside). Each
# case's engine config is written once by this checkout's front (`dccsim.experiments`); then
# every round runs A then B (odd rounds) or B then A (even rounds), each in a fresh process, one at
# a time. Printed per run: wall and CPU seconds of `engine.run`, the engine's own build and
# simulate phases, events/s of simulated time and peak RSS; at the end min and median per engine
# and case. Set PIN=2 to pin every run to CPU 2 (taskset), NICE=1 to run under nice.
# Default: 5 rounds of bench-fattree-perm, bench-fattree-1024-perm and bench-fattree-8192-perm.
set -eu
if [ $# -lt 2 ]; then
    sed -n '2,14p' "$0"
    exit 2
fi
A=$(realpath "$1")
B=$(realpath "$2")
shift 2
ROUNDS=${1:-5}
[ $# -gt 0 ] && shift
CASES=${*:-bench-fattree-perm bench-fattree-1024-perm bench-fattree-8192-perm}
HERE=$(dirname "$(realpath "$0")")
PY=${PYTHON:-python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PREFIX=""
[ -n "${PIN:-}" ] && PREFIX="taskset -c $PIN"
[ -n "${NICE:-}" ] && PREFIX="$PREFIX nice -n 10"

for c in $CASES; do
    PYTHONPATH="$HERE/../python" $PY -c "
import json, sys
from dccsim import experiments
cfg = experiments.get(sys.argv[1]).to_engine_config(None)
open(sys.argv[2], 'w').write(cfg if isinstance(cfg, str) else json.dumps(cfg))
" "$c" "$WORK/$c.json"
done

run() { # engine.so config.json label case round
    $PREFIX $PY - "$1" "$2" "$3" "$4" "$5" <<'PYEOF'
import importlib.machinery, importlib.util, json, resource, sys, time
import numpy  # noqa: F401  (the result tables' import is not the engine's time)
so, cfg_path, label, case, rnd = sys.argv[1:6]
loader = importlib.machinery.ExtensionFileLoader("_engine", so)
spec = importlib.util.spec_from_file_location("_engine", so, loader=loader)
engine = importlib.util.module_from_spec(spec)
loader.exec_module(engine)
cfg = open(cfg_path).read()
w0, c0 = time.perf_counter(), time.process_time()
res = engine.run(cfg)
wall, cpu = time.perf_counter() - w0, time.process_time() - c0
ph = res["phase_times"]
ev = int(res["summary"]["events"])
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"engine": label, "case": case, "round": int(rnd), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                  "build_s": round(ph["build_s"], 3), "simulate_s": round(ph["simulate_s"], 3), "events": ev,
                  "events_per_s": round(ev / ph["simulate_s"]), "peak_rss_mib": round(rss, 1)}))
PYEOF
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
    for c in $CASES; do
        if [ $((r % 2)) -eq 1 ]; then order="A B"; else order="B A"; fi
        for e in $order; do
            if [ "$e" = A ]; then so=$A; else so=$B; fi
            run "$so" "$WORK/$c.json" "$e" "$c" "$r" | tee -a "$WORK/runs.jsonl"
        done
    done
    r=$((r + 1))
done

$PY - "$WORK/runs.jsonl" <<'PYEOF'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
print(f"{'case':<28} {'engine':<6} {'n':>2} {'wall min/median s':>20} {'cpu min/median s':>20} {'events/s median':>16} {'RSS MiB':>8}")
for case in dict.fromkeys(r["case"] for r in runs):
    for e in ("A", "B"):
        rs = [r for r in runs if r["case"] == case and r["engine"] == e]
        w = [r["wall_s"] for r in rs]
        c = [r["cpu_s"] for r in rs]
        evs = statistics.median(r["events_per_s"] for r in rs)
        rss = max(r["peak_rss_mib"] for r in rs)
        print(f"{case:<28} {e:<6} {len(rs):>2} {min(w):>9.3f} /{statistics.median(w):>8.3f} {min(c):>9.3f} /{statistics.median(c):>8.3f} {evs/1e6:>14.2f} M {rss:>8.1f}")
    ev = {r["events"] for r in runs if r["case"] == case}
    if len(ev) != 1:
        print(f"  warning: {case}: A and B ran different event counts {sorted(ev)} (not the same simulation)")
PYEOF
