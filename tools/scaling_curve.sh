#!/bin/sh
# Scaling of one run over partitions (docs/parallel.md). Builds the engine's partition_model
# example, writes the engine configs of the two benchmark cases and, per case, runs the
# sequential engine (timed) and the partitioned schedule at each partition count, printing the
# measured counts and the MODELLED speed-up (one core executes the partitioned schedule; no
# threads run in parallel yet).
#
#   tools/scaling_curve.sh                 # release build, partitions 2 4 8 16 32 64
#   PROFILE=dev-opt PARTS="2 4" tools/scaling_curve.sh
#   CASES="bench-fattree-perm" tools/scaling_curve.sh
set -e
cd "$(dirname "$0")/.."
PROFILE=${PROFILE:-release}
PARTS=${PARTS:-2 4 8 16 32 64}
CASES=${CASES:-bench-fattree-1024-perm bench-websearch-0.6}
cargo build --profile "$PROFILE" -p dccsim-engine --example partition_model
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" $CASES <<'PY'
import json
import sys

from dccsim import experiments

out = sys.argv[1]
for name in sys.argv[2:]:
    scn = experiments.get(name)
    variant = scn.variants()[0]
    with open(f"{out}/{name}.json", "w") as f:
        json.dump(scn.to_engine_config(variant), f)
PY
for name in $CASES; do
    echo "## $name ($PROFILE build)"
    # shellcheck disable=SC2086
    "target/$PROFILE/examples/partition_model" "$tmp/$name.json" $PARTS
done
