"""Write a testbed run in the simulator's result schema (summary.json, meta.json, Parquet tables)."""
from __future__ import annotations

import json
import platform
import socket
import subprocess
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

FLOW_COLUMNS = ["flow_id", "src", "dst", "size_bytes", "start_ps", "end_ps", "bytes_acked",
                "base_rtt_ps", "ideal_fct_ps", "retransmits", "timeouts"]


def _table(cols: dict[str, list], names: list[str], types: dict[str, pa.DataType]) -> pa.Table:
    return pa.table({n: pa.array(cols[n], type=types.get(n, pa.int64())) for n in names})


def _version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()
        return out[0] if out else ""
    except OSError:
        return ""


def write(out: Path, experiment: str, seed: int, runs: dict, wall_s: float, extra_meta: dict) -> None:
    """runs: variant -> RunResult.  Merges into an existing summary.json of the same experiment so
    that several algorithms can share one directory."""
    out.mkdir(parents=True, exist_ok=True)
    summary_path = out / "summary.json"
    summary = {"experiment": experiment, "seed": seed, "runs": {}}
    if summary_path.exists():
        old = json.loads(summary_path.read_text())
        if old.get("experiment") == experiment:
            summary["runs"].update(old.get("runs", {}))
    for variant, r in runs.items():
        d = out / variant
        d.mkdir(parents=True, exist_ok=True)
        flows = {c: [f[c] for f in r.flows] for c in FLOW_COLUMNS}
        pq.write_table(_table(flows, FLOW_COLUMNS, {}), d / "flows.parquet")
        pq.write_table(_table(r.port_series, ["time_ps", "port", "queue_bytes", "tx_bytes"], {}),
                       d / "port_series.parquet")
        pq.write_table(_table(r.flow_series, ["time_ps", "flow_id", "cwnd_bytes", "rate_bps", "bytes_acked"], {}),
                       d / "flow_series.parquet")
        ports = {"port": [p.index for p in r.ports], "name": [p.name for p in r.ports],
                 "rate_bps": [p.rate_bps for p in r.ports]}
        pq.write_table(_table(ports, ["port", "name", "rate_bps"], {"name": pa.string()}), d / "ports.parquet")
        s = dict(r.summary)
        s["base_rtt_ps"] = r.tau_ns * 1000
        summary["runs"][variant] = s
    summary_path.write_text(json.dumps(summary, sort_keys=True, indent=2) + "\n")
    meta = {
        "tool": "dccsim testbed",
        "wall_time_s": round(wall_s, 3),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": socket.gethostname(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "pyarrow": pa.__version__,
        "tools": {"bpftool": _version(["bpftool", "version"]), "clang": _version(["clang", "--version"]),
                  "tc": _version(["tc", "-V"])},
        **extra_meta,
    }
    (out / "meta.json").write_text(json.dumps(meta, sort_keys=True, indent=2, default=str) + "\n")
