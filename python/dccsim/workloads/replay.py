"""Replaying a run's flow list: `flows_input.parquet` of an output directory (docs/results.md)
read back as the flows of a new run. Checked column by column; errors are one line naming
`workload.file`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import ScenarioError
from .flowlist import SOURCES, FlowList

REQUIRED = ("src", "dst", "size_bytes", "start_ps")


def _open(path: str, field: str):
    import pyarrow.parquet as pq

    p = Path(path)
    if p.is_dir():
        p = p / "flows_input.parquet"
    if p.exists() and not p.is_file():  # a FIFO would block the reader, a device never end
        raise ScenarioError(field, f"{str(p)!r} is not a regular file; expected a Parquet flow table")
    try:
        return pq.ParquetFile(p)
    except (OSError, ValueError) as e:
        raise ScenarioError(field, f"cannot read {str(p)!r} as a Parquet flow table: {e}") from None


def row_count(path: str, field: str) -> int:
    return _open(path, field).metadata.num_rows


def read(path: str, field: str):
    t = _open(path, field).read()
    missing = [c for c in REQUIRED if c not in t.column_names]
    if missing:
        raise ScenarioError(
            field, f"{path!r} lacks the columns {', '.join(missing)} (needs {', '.join(REQUIRED)})"
        )
    cols = {}
    for c in REQUIRED + ("request", "subflows"):
        if c in t.column_names:
            a = t.column(c).to_numpy(zero_copy_only=False)
            if a.dtype.kind not in "iu":
                raise ScenarioError(field, f"{path!r}: column {c} must hold integers, got {a.dtype}")
            cols[c] = a.astype(np.int64)
    n = t.num_rows
    source = t.column("source").to_pylist() if "source" in t.column_names else ["replay"] * n
    bad = sorted({s for s in source if s not in SOURCES})
    if bad:
        raise ScenarioError(field, f"{path!r}: unknown source {bad[0]!r}; allowed: {', '.join(SOURCES)}")
    return FlowList(
        cols["src"],
        cols["dst"],
        cols["size_bytes"],
        cols["start_ps"],
        source,
        cols.get("request", np.full(n, -1, dtype=np.int64)),
        [],
        cols["subflows"].tolist() if "subflows" in cols else [],
    )


def check(flows, n_hosts: int, duration_ps: int, field: str) -> None:
    """Every row names existing, distinct hosts, a size > 0 or −1 (long-lived) and a start before
    the end of the run; the first bad row is reported."""
    checks = (
        ((flows.src < 0) | (flows.src >= n_hosts), f"src must be a host in 0..{n_hosts - 1}"),
        ((flows.dst < 0) | (flows.dst >= n_hosts), f"dst must be a host in 0..{n_hosts - 1}"),
        (flows.src == flows.dst, "src and dst must differ"),
        ((flows.size == 0) | (flows.size < -1), "size_bytes must be > 0 or -1 (long-lived)"),
        ((flows.start < 0) | (flows.start >= duration_ps), f"start_ps must lie in [0, {duration_ps})"),
        (
            (np.asarray(flows.subflow_counts()) < 1) | (np.asarray(flows.subflow_counts()) > 64),
            "subflows must lie in 1..64",
        ),
    )
    for bad, what in checks:
        if bad.any():
            i = int(np.argmax(bad))
            raise ScenarioError(field, f"row {i}: {what}")
