"""Write (or check) the engine configs of every catalog experiment variant.

The engine's golden test (crates/engine/tests/golden.rs) runs each stored config and compares a
digest of every result column with crates/engine/tests/golden/expected.json, so a refactor of the
engine is proven to change no result. This script keeps the stored configs equal to what the
catalog produces today:

    python tests/golden_configs.py          # rewrite the configs
    python tests/golden_configs.py --check  # exit 1 if any stored config differs

After an intentional change of results, rewrite expected.json with
`DCCSIM_UPDATE_GOLDEN=1 cargo test --release -p dccsim-engine --test golden`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "crates" / "engine" / "tests" / "golden" / "configs"
# Scale benchmarks run the code of bench-fattree-perm on larger FatTrees (1024, 8192 and 65 536 hosts);
# they take a minute or more each, so they are measured by `dccsim bench`, not replayed here.
# bench-websearch-0.6 (issue 8 item 6) simulates 20 808 websearch flows, minutes of engine time.
# amp-short-flows, amp-jobs and amp-datamining(-paper-rate) (issue 10) run 64 to 128 multipath long flows on the
# 128-host FatTree, 15–35 s of engine time per variant; the other AMP experiments replay the same
# code, and tests/python/test_amp_experiments.py runs scaled-down versions of these three.
SCALE_BENCHMARKS = {
    "bench-fattree-1024-perm",
    "bench-fattree-8192-perm",
    "bench-fattree-65536-perm",
    "bench-websearch-0.6",
    "amp-short-flows",
    "amp-jobs",
    "amp-datamining",
    "amp-datamining-paper-rate",
}
# The PowerTCP datacenter experiments (issue 9) simulate 10^5 websearch flows per variant at paper
# scale: minutes to an hour of engine time each. Their scaled-down pipelines run in
# tests/python/test_powertcp_dc.py.
SCALE_BENCHMARKS |= {
    "powertcp-websearch",
    "powertcp-websearch-artifact-pattern",
    "powertcp-load",
    "powertcp-load-artifact-pattern",
    "powertcp-burst-rate",
    "powertcp-burst-size",
    "powertcp-buffer",
    "powertcp-homa-websearch",
}
# Datacenter-scale experiments of issue 9 generate 12 000-22 000 messages: their configs would be
# 1.5-2.6 MB each (26 MB in all), so they are not stored; tests/python/test_datacenter_experiments.py
# runs scaled-down versions end to end and crates/engine/tests/connections.rs pins their engine
# feature (connections).
LARGE_FLOW_LISTS = {
    "poseidon-oplatency",
    "poseidon-oplatency-incast",
    "poseidon-brownfield",
    "tbtcp-datacenter-fct",
    "poseidon-update-function",  # poseidon-oplatency-incast with Eq. 13 (issue 25)
}
# Sweeps of one controller parameter over a scenario whose code other golden runs replay (issue 25,
# Poseidon Fig. 21(b)-(d): 13 variants of a 100-flow star): the options' laws are pinned by the
# unit tests of crates/engine/src/cc/poseidon.rs, the non-default options run in the stored
# poseidon-ablation and poseidon-target-scaling configs, and tests/python/test_missing_figures.py
# runs a scaled-down sweep end to end.
PARAMETER_SWEEPS = {
    "poseidon-sensitivity-p",
    "poseidon-sensitivity-k",
    "poseidon-sensitivity-m",
}


def catalog_configs() -> dict[str, str]:
    from dccsim import experiments

    out = {}
    for name in experiments.list_experiments():
        if name in SCALE_BENCHMARKS or name in LARGE_FLOW_LISTS or name in PARAMETER_SWEEPS:
            continue
        scn = experiments.get(name)
        for v in scn.variants():
            cfg = scn.to_engine_config(v)
            out[f"{name}--{v.slug}.json"] = json.dumps(cfg, sort_keys=True, indent=1) + "\n"
    return out


def main(argv: list[str]) -> int:
    want = catalog_configs()
    have = {p.name: p.read_text() for p in CONFIGS.glob("*.json")}
    if "--check" in argv:
        bad = sorted(k for k in set(want) | set(have) if want.get(k) != have.get(k))
        for k in bad:
            print(f"golden config differs from the catalog: {k}")
        return 1 if bad else 0
    CONFIGS.mkdir(parents=True, exist_ok=True)
    for k in set(have) - set(want):
        (CONFIGS / k).unlink()
    for k, text in want.items():
        (CONFIGS / k).write_text(text)
    print(f"{len(want)} configs in {CONFIGS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
