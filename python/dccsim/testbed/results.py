"""Write a testbed run in the project's result layout (docs/results.md), through dccsim.results.

The variant's slug is the algorithm name.  Several testbed runs into one directory (one per
algorithm) are merged into one summary.json.  When the scenario also loads with the simulator's
parser, the experiment's analysis (`[experiment] analysis`) computes the same metrics as for a
simulator run.
"""

from __future__ import annotations

import datetime as _dt
import json
import platform
import socket
import subprocess
from pathlib import Path

from .. import results as R

# The flow record is the engine's (results.engine_columns("flows"), one definition for both sides);
# the testbed measures every column except these, which it writes as not applicable (-1):
NOT_MEASURED = {
    "ideal_fct_artifact_ps": "the PowerTCP/HPCC artifact's ideal FCT: a simulator formula over the fabric's delays",
    "suppressions": "AMP subflow suppressions: the testbed has no AMP",
}


def flow_columns() -> tuple[str, ...]:
    """The columns of the testbed's flow records (runner.flow_record): the engine's, less NOT_MEASURED."""
    return tuple(c for c in R.engine_columns("flows") if c not in NOT_MEASURED)


def _version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()
        return out[0] if out else ""
    except OSError:
        return ""


def flows_table(records: list[dict]) -> dict:
    """The flows table of the engine's schema from the testbed's flow records: every engine column,
    NOT_MEASURED ones as not applicable. A record lacking a measured column raises
    results.MissingColumns naming it (the testbed is out of step with the engine's schema)."""
    dtype = dict(R.table_columns()["flows"])
    table = {}
    for c in R.engine_columns("flows"):
        if c in NOT_MEASURED:
            table[c] = [R.NOT_APPLICABLE[dtype[c]]] * len(records)
        elif records and any(c not in f for f in records):
            raise R.MissingColumns(f"flows: the testbed's flow records have no column {c}")
        else:
            table[c] = [f[c] for f in records]
    return table


def result_dict(r) -> dict:
    """The run as the engine's result dict (columns as lists)."""
    return {
        "flows": flows_table(r.flows),
        "port_series": dict(r.port_series),
        "flow_series": dict(r.flow_series),
        "ports": {
            "port": [p.index for p in r.ports],
            "name": [p.name for p in r.ports],
            "rate_bps": [p.rate_bps for p in r.ports],
        },
    }


def _sim_analysis(source_text: str, name: str, alg: str, params: dict, host_rate_bps: int, duration_ps: int):
    """(scenario, variant, analysis module) of the simulator's front, or None when the scenario
    has no analysis or does not load there (e.g. the engine that knows the algorithm is not
    installed)."""
    try:
        import dataclasses

        from ..analysis import ANALYSES
        from ..errors import ScenarioError
        from ..scenario import CcSpec, Variant, loads
    except ImportError:
        return None
    try:
        scn = loads(source_text, default_name=name)
    except (ScenarioError, ValueError):
        return None
    if not scn.experiment or scn.experiment.analysis not in ANALYSES:
        return None
    values = dict(scn.topology.values)
    if "host_rate" in values:
        values["host_rate"] = host_rate_bps
    scn = dataclasses.replace(
        scn, topology=dataclasses.replace(scn.topology, values=values), duration_ps=duration_ps
    )
    return scn, Variant(alg, CcSpec(alg, dict(params))), ANALYSES[scn.experiment.analysis]


def write(
    out: Path, sc, alg: str, r, started_utc: str, wall_s: float, argv: list[str], extra_meta: dict
) -> dict:
    """Write OUT for one testbed run; returns the summary.json object."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    res = result_dict(r)
    engine = dict(r.summary)
    engine["base_rtt_ps"] = r.tau_ns * 1000

    metrics: dict = {}
    analysis_name = None
    title = ""
    sim = _sim_analysis(sc.text, sc.name, alg, sc.cc_params, sc.host_rate_bps, sc.duration_ps)
    if sim is not None:
        from ..runner import frames

        scn, variant, analysis = sim
        title = scn.experiment.title
        analysis_name = scn.experiment.analysis
        try:
            metrics = analysis.variant_metrics(scn, variant, frames(res), engine)
        except Exception as e:  # an analysis must never lose a finished run
            metrics = {"error": f"{type(e).__name__}: {e}"}

    R.write_variant(
        out,
        alg,
        res,
        {
            "variant": alg,
            "slug": alg,
            "cc": {"algorithm": alg, "params": sc.cc_params},
            "engine": engine,
            "metrics": metrics,
        },
    )
    summary_path = out / "summary.json"
    summary = {
        "schema": R.SCHEMA,
        "experiment": sc.name,
        "title": title,
        "seed": sc.seed,
        "analysis": analysis_name,
        "order": [],
        "runs": {},
        "claims": [],
        "figures": [],
        "complete": True,
    }
    if summary_path.exists():
        old = json.loads(summary_path.read_text())
        if old.get("experiment") == sc.name and old.get("schema") == R.SCHEMA:
            summary["order"] = [s for s in old.get("order", []) if s != alg]
            summary["runs"] = {k: v for k, v in old.get("runs", {}).items() if k != alg}
    summary["order"].append(alg)
    summary["runs"][alg] = {"name": alg, "algorithm": alg, "engine": engine, "metrics": metrics}
    R.write_json(summary_path, summary)
    R.write_text(out / "scenario.toml", sc.text)

    import pyarrow

    meta_path = out / "meta.json"
    variant_wall, per_run = {}, {}
    if meta_path.exists() and len(summary["order"]) > 1:  # keep the other algorithms' provenance
        old = json.loads(meta_path.read_text())
        variant_wall = {k: v for k, v in old.get("variant_wall_time_s", {}).items() if k in summary["runs"]}
        per_run = {
            k: v for k, v in (old.get("testbed") or {}).get("runs", {}).items() if k in summary["runs"]
        }
    variant_wall[alg] = round(wall_s, 3)
    per_run[alg] = {"argv": list(argv), "started_utc": started_utc, **extra_meta}
    meta = {
        "argv": list(argv),
        "started_utc": started_utc,
        "wall_time_s": round(wall_s, 3),
        "variant_wall_time_s": variant_wall,
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "dccsim": None,
        "engine": None,
        "libraries": {"pyarrow": pyarrow.__version__},
        "testbed": {
            "kernel": platform.release(),
            "tools": {
                "bpftool": _version(["bpftool", "version"]),
                "clang": _version(["clang", "--version"]),
                "tc": _version(["tc", "-V"]),
            },
            "runs": per_run,
        },
    }
    try:
        from .. import __version__

        meta["dccsim"] = __version__
    except ImportError:
        pass
    R.write_json(meta_path, meta)
    return summary


def now_utc() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
