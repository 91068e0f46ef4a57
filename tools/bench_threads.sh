#!/bin/sh
# One run on several threads (`[engine] threads`, docs/parallel.md): the engine time (the
# `simulate` phase of the run_json example: the event loop and the results, not the build) of
# each benchmark case at each thread count, RUNS rounds interleaved (1, 2, 1, 2, ...), then per
# case and count the min and median and the speed-up of the mins over one thread. Prints the
# load average before and after: figures taken on a loaded machine are not speed-ups.
# Also prints the CPU time of all threads together (/usr/bin/time, user + sys; it includes the
# build), whose growth over one thread is the threads' overhead, and checks that every thread
# count gave the same summary counters as one thread.
#
#   tools/bench_threads.sh                          # release build, 1 and 2 threads, 3 rounds
#   THREADS="1 2 4" RUNS=5 tools/bench_threads.sh
#   PROFILE=dev-opt CASES=bench-fattree-perm tools/bench_threads.sh
set -e
cd "$(dirname "$0")/.."
PROFILE=${PROFILE:-release}
THREADS=${THREADS:-1 2}
RUNS=${RUNS:-3}
CASES=${CASES:-bench-fattree-1024-perm bench-websearch-0.6}
cargo build --profile "$PROFILE" -p dccsim-engine --example run_json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" "$THREADS" $CASES <<'PY'
import json
import sys

from dccsim import experiments

out, threads = sys.argv[1], sys.argv[2].split()
for name in sys.argv[3:]:
    scn = experiments.get(name)
    cfg = scn.to_engine_config(scn.variants()[0])
    for t in threads:
        cfg.setdefault("engine", {})["threads"] = int(t)
        with open(f"{out}/{name}-t{t}.json", "w") as f:
            json.dump(cfg, f)
PY
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)   cores: $(nproc)"
for i in $(seq "$RUNS"); do
    for name in $CASES; do
        for t in $THREADS; do
            /usr/bin/time -f "cpu user %U s sys %S s" -o "$tmp/time" "target/$PROFILE/examples/run_json" "$tmp/$name-t$t.json" >"$tmp/out"
            echo "$name threads=$t round=$i $(head -1 "$tmp/out") $(cat "$tmp/time")" | tee -a "$tmp/log"
        done
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/log" <<'PY'
import re
import statistics
import sys

runs = {}
for line in open(sys.argv[1]):
    name, t = line.split()[0], int(re.search(r"threads=(\d+)", line).group(1))
    sim = float(re.search(r"simulate ([0-9.]+)s", line).group(1))
    counts = re.search(r"events (\d+) .* packet-hops (\d+) .* drops (\d+)", line).groups()
    cpu = sum(float(x) for x in re.search(r"cpu user ([0-9.]+) s sys ([0-9.]+) s", line).groups())
    runs.setdefault(name, {}).setdefault(t, []).append((sim, counts, cpu))
for name, by_t in runs.items():
    base = min(r[0] for r in by_t[min(by_t)])
    ref = by_t[min(by_t)][0][1]
    for t, rs in sorted(by_t.items()):
        times = [r[0] for r in rs]
        cpu = min(r[2] for r in rs)
        same = all(r[1] == ref for r in rs)
        print(
            f"{name} threads={t}: simulate min {min(times):.3f} s, median {statistics.median(times):.3f} s "
            f"over {len(times)} runs; speed-up of the mins {base / min(times):.2f}x; "
            f"CPU (user + sys, all threads, whole process) min {cpu:.2f} s; "
            f"counters {'same as' if same else 'DIFFER from'} one thread"
        )
PY
