"""The simulators' FCT output (one line per finished flow, written at its completion by
`qp_finish` in `simulation/scratch/third.cc`):

    <src IP, 8 hex digits> <dst IP> <src port> <dst port> <size bytes> <start ns> <fct ns> <standalone fct ns>

* IPs: node i has 11.0.0.1 + 256·(i mod 256) + 65536·(i div 256) (`node_id_to_ip`), so the
  node id is (IP >> 8) & 0xffff (`ip_to_node_id`).
* Source ports count from 10000 per (src, dst) pair in the order the flows start
  (`portNumder`); the destination port is the flow file's (traffic_gen: 100).
* Times are ns-3 time steps (nanoseconds). The standalone FCT is the pair's base RTT plus the
  flow's bytes with headers (no INT) at the pair's bottleneck rate: the definition of dccsim's
  `ideal_fct_artifact_ps` (docs/results.md).

`read` gives dccsim flow records (the columns of `flows.parquet`, docs/results.md): flow_id in
line order, src/dst as host indices (through the topology file when given, else node id = host
index, as when a file numbers its hosts first), times in ps; the simulator's one ideal, its
standalone FCT, fills both `ideal_fct_artifact_ps` and `ideal_fct_ps`; columns it does not give
are "not applicable" (−1, NaN). `write_lines` is the reverse: a run's finished flows in
completion order, times rounded to the nanosecond.
"""

from __future__ import annotations

import numpy as np

from ..errors import ScenarioError
from . import read as read_tokens

BASE_IP = 0x0B000001  # 11.0.0.1, node 0
FIRST_SPORT = 10000
DPORT = 100  # traffic_gen.py's destination port
FIELDS = 8


def node_ip(node: int) -> int:
    return BASE_IP + (node // 256) * 0x10000 + (node % 256) * 0x100


def ip_node(ip: int) -> int:
    return (ip >> 8) & 0xFFFF


def read(path, topo=None) -> dict:
    """{column: numpy array} of the flow records in the FCT file at `path`."""
    t = read_tokens(path)
    lines: dict[int, list[str]] = {}
    for n, tok in t.items:
        lines.setdefault(n, []).append(tok)
    rows = []
    for n, toks in lines.items():
        where = f"{t.path}:{n}"
        if len(toks) != FIELDS:
            raise ScenarioError(
                where,
                f"expected {FIELDS} fields (sip dip sport dport size start fct standalone), got {len(toks)}",
            )
        try:
            sip, dip = int(toks[0], 16), int(toks[1], 16)
            nums = [int(x) for x in toks[2:]]
        except ValueError:
            raise ScenarioError(where, "expected two hex IPs and six integers") from None
        if min(nums) < 0 or nums[2] <= 0:
            raise ScenarioError(where, "ports, times must be ≥ 0 and the size > 0")
        src, dst = ip_node(sip), ip_node(dip)
        if topo is not None:
            src, dst = topo.host_of(src, where), topo.host_of(dst, where)
        rows.append((src, dst, nums[2], nums[3], nums[4], nums[5]))
    a = np.asarray(rows, dtype=np.int64).reshape(-1, 6)
    n = len(a)
    start = a[:, 3] * 1000
    return {
        "flow_id": np.arange(n, dtype=np.int64),
        "src": a[:, 0],
        "dst": a[:, 1],
        "size_bytes": a[:, 2],
        "start_ps": start,
        "end_ps": start + a[:, 4] * 1000,
        "ideal_fct_ps": a[:, 5] * 1000,
        "ideal_fct_artifact_ps": a[:, 5] * 1000,
    }


def _ns(ps) -> np.ndarray:
    """Picoseconds to nanoseconds, rounded half up (ns-3 time steps are whole nanoseconds)."""
    return (np.asarray(ps, dtype=np.int64) + 500) // 1000


def write_lines(flows, topo=None) -> list[str]:
    """The FCT lines of a flows table ({column: array}): its finished finite flows, in the order
    they finished (ties: flow id)."""
    fid = np.asarray(flows["flow_id"], dtype=np.int64)
    src, dst = np.asarray(flows["src"], dtype=np.int64), np.asarray(flows["dst"], dtype=np.int64)
    size = np.asarray(flows["size_bytes"], dtype=np.int64)
    start, end = np.asarray(flows["start_ps"], dtype=np.int64), np.asarray(flows["end_ps"], dtype=np.int64)
    ideal = np.asarray(flows["ideal_fct_artifact_ps"], dtype=np.int64)
    # source ports: 10000, 10001, ... per (src, dst) pair in start order (portNumder)
    sport = np.zeros(len(fid), dtype=np.int64)
    seen: dict[tuple, int] = {}
    for i in np.lexsort((fid, start)):
        key = (int(src[i]), int(dst[i]))
        sport[i] = FIRST_SPORT + seen.get(key, 0)
        seen[key] = seen.get(key, 0) + 1
    done = np.nonzero((end >= 0) & (size > 0))[0]
    order = done[np.lexsort((fid[done], end[done]))]
    out = []
    for i in order:
        s, d = int(src[i]), int(dst[i])
        if topo is not None:
            s, d = topo.node_of(s), topo.node_of(d)
        out.append(
            f"{node_ip(s):08x} {node_ip(d):08x} {sport[i]} {DPORT} {size[i]} {_ns(start[i])} "
            f"{_ns(end[i]) - _ns(start[i])} {_ns(ideal[i]) if ideal[i] >= 0 else 0}"
        )
    return out


def export_run(run_dir, variant=None, topo=None) -> str:
    """The FCT file text of one variant of the run in `run_dir` (the only one, or `variant`)."""
    import json
    from pathlib import Path

    from .. import results

    d = Path(run_dir)
    try:
        summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise ScenarioError("RUN", f"{str(d)!r} is not a run directory (no readable summary.json)") from None
    order = summary.get("order") or []
    names = {slug: summary["runs"][slug]["name"] for slug in order}
    if variant is None:
        if len(order) != 1:
            raise ScenarioError(
                "--variant", f"the run has {len(order)} variants; name one of: {', '.join(names.values())}"
            )
        slug = order[0]
    else:
        hits = [s for s in order if variant.lower() in (s, names[s].lower())]
        if not hits:
            raise ScenarioError(
                "--variant", f"unknown variant {variant!r}; allowed: {', '.join(names.values())}"
            )
        slug = hits[0]
    t = results.read_table(d / slug / "flows.parquet", "RUN")
    cols = {c: t.column(c).to_numpy(zero_copy_only=False) for c in t.column_names}
    lines = write_lines(cols, topo)
    return "".join(line + "\n" for line in lines)


def write_table(path, cols: dict) -> None:
    """The records as a `flows.parquet` (the run's flow table schema, docs/results.md)."""
    from pathlib import Path

    from .. import results

    results.write_parquet(Path(path), "flows", results.with_not_applicable("flows", cols))
