"""Recorded testbed runs: a live run's RunResult saved as gzipped JSON (tests/testbed/recorded/), so
that what the testbed writes from it (testbed/results.write: Parquet, summary, every analysis's
metrics) is checked without root and without loading the machine.

Record one (as root; a live run of the experiment, then the file is written):

    PYTHONPATH=python python tests/testbed/recorded.py testbed-shared-4 powertcp 3500ms 300Mbps

The series are thinned to every KEEP-th sample so that a recording stays small; the flows table and
the counters are kept whole.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DIR = HERE / "recorded"
KEEP = 5  # keep every 5th sample of the 1 ms series (5 ms): enough for the shared and incast windows


def path_of(experiment: str, alg: str) -> Path:
    return DIR / f"{experiment}-{alg}.json.gz"


def _thin(series: dict) -> dict:
    """Every KEEP-th sampling instant of a series (all rows of an instant kept together)."""
    times = sorted(set(series.get("time_ps", [])))
    keep = set(times[::KEEP]) | set(times[-1:])
    rows = [i for i, t in enumerate(series.get("time_ps", [])) if t in keep]
    return {c: [v[i] for i in rows] for c, v in series.items()}


def save(res, path: Path, run: dict) -> None:
    """`run`: how the scenario was loaded ({"experiment", "duration", "host_rate"})."""
    d = {
        "run": run,
        "algorithm": res.algorithm,
        "tau_ns": res.tau_ns,
        "params": res.params,
        "ports": [dataclasses.asdict(p) for p in res.ports],
        "flows": res.flows,
        "port_series": _thin(res.port_series),
        "flow_series": _thin(res.flow_series),
        "summary": res.summary,
        "bpf_stats": res.bpf_stats,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(json.dumps(d, sort_keys=True).encode(), mtime=0))


def load(path: Path):
    """(scenario as the run loaded it, RunResult)."""
    from dccsim.testbed.runner import RunResult
    from dccsim.testbed.scenario import load as load_scenario
    from dccsim.testbed.topology import Port

    d = json.loads(gzip.decompress(path.read_bytes()))
    run = d.pop("run")
    d["ports"] = [Port(**p) for p in d["ports"]]
    return load_scenario(run["experiment"], run["duration"], run["host_rate"]), RunResult(**d)


def main(argv: list[str]) -> int:
    experiment, alg, duration, host_rate = argv
    from dccsim.testbed import bpfctl, runner, topology
    from dccsim.testbed.scenario import load as load_scenario

    sc = load_scenario(experiment, duration, host_rate)
    topology.cleanup_all()
    try:
        build_dir = bpfctl.build()
        bpfctl.ensure_bpffs()
        res = runner.run(sc, bpfctl.canonical(alg), build_dir, log=lambda s: print(s, file=sys.stderr))
    finally:
        topology.cleanup_all()
    save(
        res,
        path_of(experiment, alg),
        {"experiment": experiment, "duration": duration, "host_rate": host_rate},
    )
    print(path_of(experiment, alg))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1] / "python"))
    sys.exit(main(sys.argv[1:]))
