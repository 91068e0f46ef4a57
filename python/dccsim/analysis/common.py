"""What the analyses share: statistics (percentiles, Jain's index), the tables they receive and
the bottleneck port's series in them, goodput per flow and its convergence, the scenario checks
of the analyses that bin per-flow goodput, and the text of the claims that close every report.

One rule for undefined input: an empty sample has no percentile and no fairness index, so both
return NaN (never 0, which would read as a measurement). Callers that write JSON turn NaN into
null (results.json_text does so for every file).

The tables an analysis receives are {column: numpy array} per table (as `dccsim.runner.frames`
builds them from the engine), or pandas DataFrames (tests, notebooks). Column access through
`column()` works on both; an analysis that wants pandas operations calls `as_frames()` first
and pays for importing pandas only then.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ScenarioError

# fewer samples than this above a percentile's rank make the percentile "not meaningful"
MIN_ABOVE = 10


def percentile(x, q: float, method: str = "rank") -> float:
    """The q-quantile (0 <= q <= 1) of the sample `x`; NaN when `x` is empty.

    ``method="rank"``: the sorted sample's element at index floor(q·n) (capped at n−1), the rule
    the analyses' published figures use (a value that occurred, never an interpolation).
    ``method="linear"``: linear interpolation between the order statistics at (n−1)·q (numpy's
    default), used by `dccsim compare`.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile must lie in [0, 1], got {q}")
    s = np.sort(np.asarray(x, dtype=np.float64))
    n = len(s)
    if n == 0:
        return math.nan
    if method == "rank":
        return float(s[min(n - 1, int(q * n))])
    if method == "linear":
        k = (n - 1) * q
        lo = int(k)
        hi = min(lo + 1, n - 1)
        return float(s[lo] + (s[hi] - s[lo]) * (k - lo))
    raise ValueError(f"unknown percentile method {method!r}; allowed: rank, linear")


def percentiles(x, qs, method: str = "rank") -> list[float]:
    """`percentile(x, q)` for every q in `qs`."""
    return [percentile(x, q, method) for q in qs]


def jain(x) -> float:
    """Jain's index (Σx)² / (n·Σx²): 1 = perfectly fair, 1/n = one flow has everything.
    NaN when it is undefined: an empty sample, or every value zero (0/0)."""
    a = np.asarray(x, dtype=np.float64)
    if len(a) == 0 or not (a != 0).any():
        return math.nan
    return float(a.sum() ** 2 / (len(a) * (a**2).sum()))


def pct(x, q: float) -> dict:
    """Percentile q of `x` with its sample count and whether it is meaningful."""
    n = len(x)
    if n == 0:
        return {"value": None, "n": 0, "above": 0, "meaningful": False}
    idx = min(n - 1, int(q * n))
    above = n - 1 - idx
    return {"value": percentile(x, q), "n": n, "above": above, "meaningful": above >= MIN_ABOVE}


# --- tables


def column(table, name: str, dtype=None) -> np.ndarray:
    return np.asarray(table[name], dtype=dtype)


def as_frames(tables: dict) -> dict:
    """The same tables as pandas DataFrames (DataFrames pass through unchanged)."""
    import pandas as pd

    return {k: v if isinstance(v, pd.DataFrame) else pd.DataFrame(dict(v)) for k, v in tables.items()}


def as_frame(table):
    return as_frames({"t": table})["t"]


def bottleneck(port_series, ports, name: str):
    """(time_ps, queue_bytes, tx_bytes, rate_bps) of the port called `name`, sorted by time."""
    hits = np.nonzero(column(ports, "name", object) == name)[0]
    if hits.size == 0:
        raise ScenarioError(
            "experiment.bottleneck", f"port {name!r} was not sampled; add it to metrics.ports"
        )
    idx = int(column(ports, "port")[hits[0]])
    rate = int(column(ports, "rate_bps")[hits[0]])
    rows = np.nonzero(column(port_series, "port") == idx)[0]
    if rows.size == 0:
        raise ScenarioError("experiment.bottleneck", f"no samples of port {name!r}; is metrics.interval > 0?")
    t = column(port_series, "time_ps", np.int64)[rows]
    order = np.argsort(t, kind="stable")  # one sample per instant, so any sort gives this order
    return (
        t[order],
        column(port_series, "queue_bytes", np.float64)[rows][order],
        column(port_series, "tx_bytes", np.float64)[rows][order],
        rate,
    )


def line_rate(scenario, tables, port=None):
    """The rate (bits/s) a figure draws as the line rate: the named sampled port's, else the one
    sampled port's, else the topology's bottleneck or host rate; None when none is known."""
    ports = tables.get("ports") if hasattr(tables, "get") else None
    if ports is not None and len(column(ports, "name", object)):
        names = column(ports, "name", object)
        hits = np.nonzero(names == port)[0] if port is not None else np.arange(len(names))
        if hits.size == 1 or (hits.size and port is not None):
            return int(column(ports, "rate_bps")[hits[0]])
    values = scenario.topology.values
    for key in ("bottleneck_rate", "host_rate"):
        if key in values:
            return int(values[key])
    return None


def goodput(flow_series, bin_ps: int, end_ps: int):
    """(bin end times, {flow_id: goodput bps per bin}) from cumulative bytes_acked."""
    edges = np.arange(0, end_ps + 1, bin_ps, dtype=np.float64)
    out = {}
    for fid, s in flow_series.groupby("flow_id"):
        s = s.sort_values("time_ps")
        ft, fb = s["time_ps"].to_numpy(np.float64), s["bytes_acked"].to_numpy(np.float64)
        out[int(fid)] = np.diff(np.interp(edges, ft, fb)) * 8 / (bin_ps / 1e12)
    return edges[1:], out


def converge_time(tb, g: dict, active, a: int, b: int, bin_ps: int, tol: float, hold: int):
    idx = [i for i, t in enumerate(tb) if t - bin_ps >= a and t <= b]
    if len(idx) < hold + 1:
        return None
    ok = []
    for i in idx:
        x = np.array([g[f][i] for f in active])
        m = x.mean()
        ok.append(m > 0 and bool((np.abs(x - m) <= tol * m).all()))
    for k in range(len(ok) - hold + 1):
        if all(ok[k : k + hold]):
            return int(tb[idx[k]] - bin_ps - a)
    return None


# --- checks and claims text


def require_binned_flow_sampling(scn, analysis: str, papers) -> None:
    """Flow sampling on, a known `[experiment] paper`, and bins no finer than the sampling."""
    p = scn.experiment.params
    if not scn.metrics.flows or scn.metrics.interval_ps == 0:
        raise ScenarioError(
            "metrics.flows", f"the {analysis} analysis needs flow sampling (flows = true, interval > 0)"
        )
    if p["paper"] not in papers:
        raise ScenarioError("experiment.paper", f"unknown value {p['paper']!r}; allowed: {', '.join(papers)}")
    if p["bin"] < scn.metrics.interval_ps:
        raise ScenarioError("experiment.bin", "must be at least metrics.interval")


def ran(scenario, metrics: dict):
    """(variant, its metrics) for the scenario's variants that ran, in the scenario's order (a
    partial run lacks some)."""
    for v in scenario.variants():
        m = metrics.get(v.slug)
        if m is not None:
            yield v, m


def claim_lines(claim_rows: list[dict]) -> list[str]:
    lines = ["paper claim | ours | verdict"]
    for c in claim_rows:
        lines.append(f"{c['variant']}: {c['claim']} | {c['measured']} | {c['verdict']}")
    return lines


def aligned(rows: list[tuple]) -> list[str]:
    """Rows of strings as left-aligned columns, a dashed rule under the first (the header)."""
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(x) for c, x in zip(r, w)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * x for x in w))
    return lines
