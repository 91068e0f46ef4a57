"""Multipath results: one row per subflow in flows.parquet (docs/results.md) folded into one row
per connection, and the helpers the AMP experiments share."""

from __future__ import annotations

import numpy as np


def connections(flows):
    """One row per connection: the connection's size, start, end, ideal FCT and slowdown (the same
    on each of its subflows' rows), the sums of bytes acknowledged, retransmissions and timeouts over
    its subflows, its subflow count and suppression episodes. Single-path flows pass through."""
    import pandas as pd  # here, not at module load: `dccsim run` of other analyses stays pandas-free

    if "connection" not in flows.columns:
        out = flows.copy()
        out["connection"] = out["flow_id"]
        out["subflows"] = 1
        return out
    g = flows.groupby("connection", sort=True)
    first = g.first()
    out = pd.DataFrame(
        {
            "connection": first.index.to_numpy(np.int64),
            "flow_id": g["flow_id"].min().to_numpy(),
            "src": first["src"].to_numpy(),
            "dst": first["dst"].to_numpy(),
            "size_bytes": first["size_bytes"].to_numpy(),
            "start_ps": first["start_ps"].to_numpy(),
            "end_ps": g["end_ps"].max().to_numpy(),
            "bytes_acked": g["bytes_acked"].sum().to_numpy(),
            "base_rtt_ps": first["base_rtt_ps"].to_numpy(),
            "ideal_fct_ps": first["ideal_fct_ps"].to_numpy(),
            "retransmits": g["retransmits"].sum().to_numpy(),
            "timeouts": g["timeouts"].sum().to_numpy(),
            "subflows": g.size().to_numpy(),
        }
    )
    for c in ("delivered_bytes", "ideal_fct_artifact_ps", "slowdown"):
        if c in flows.columns:
            out[c] = first[c].to_numpy()
    if "suppressions" in flows.columns:
        out["suppressions"] = g["suppressions"].sum().to_numpy()
    return out
