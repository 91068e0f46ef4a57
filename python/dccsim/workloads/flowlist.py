"""The run's flow list as columns (`FlowList`): what the generators (generate.py) and the replay
of an earlier run (replay.py) both produce, and what the engine and flows_input.parquet receive."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

# Order of the `source` column's values
SOURCES = ("flows", "permutation", "poisson", "incast", "replay", "rotating-incast", "jobs")


@dataclass
class FlowList:
    """Columns of the run's flows in flow-id order; size −1 = long-lived."""

    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray
    start: np.ndarray
    source: list  # one of SOURCES per flow
    request: np.ndarray  # incast request id of a response, −1 otherwise
    cc: list = field(default_factory=list)  # per-flow engine cc dict or None ([[flows]] only)
    follows: Optional[np.ndarray] = None  # previous flow id of the same connection, −1 = none
    subflows: list = field(default_factory=list)  # per-flow subflow count (empty: all 1)
    after: list = field(default_factory=list)  # per-flow tuple of flow ids it starts after (empty: none)
    closed_loop: list = field(default_factory=list)  # per-flow engine closed_loop dict or None

    def __len__(self) -> int:
        return len(self.src)

    def subflow_counts(self) -> list:
        return self.subflows or [1] * len(self)

    def to_engine(self) -> list[dict]:
        """The engine's flow list; `subflows` only where > 1 (single-path configs stay as they were)."""
        cc = self.cc or [None] * len(self)
        out = [
            {"src": s, "dst": d, "size_bytes": None if z < 0 else z, "start_ps": t, "cc": c}
            | ({"subflows": n} if n != 1 else {})
            for s, d, z, t, c, n in zip(
                self.src.tolist(),
                self.dst.tolist(),
                self.size.tolist(),
                self.start.tolist(),
                cc,
                self.subflow_counts(),
            )
        ]
        if self.follows is not None:
            for f, p in zip(out, self.follows.tolist()):
                if p >= 0:
                    f["follows"] = p
        for f, a in zip(out, self.after):
            if a:
                f["after"] = list(a)
        for f, c in zip(out, self.closed_loop):
            if c is not None:
                f["closed_loop"] = c
        return out

    def table(self) -> dict:
        """Columns of flows_input.parquet (docs/results.md)."""
        return {
            "flow_id": np.arange(len(self), dtype=np.int64),
            "src": self.src,
            "dst": self.dst,
            "size_bytes": self.size,
            "start_ps": self.start,
            "source": list(self.source),
            "request": self.request,
            "subflows": np.asarray(self.subflow_counts(), dtype=np.int64),
        }
